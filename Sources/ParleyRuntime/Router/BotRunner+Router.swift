import Foundation
import Logging
import Metrics
import ParleyCore
import ParleyJournal
import ParleyLua

/// The router side of a runner: the session's events into the per-room
/// inbox (own echoes dropped), and from there to the plugins in batches.
///
/// What the pump calls is out of line (`@inline(never)`) where inlined code
/// would add slots to the pump's frame, which the bot's task keeps for its
/// whole life (see docs/architecture.md, "Threading").
extension BotRunner {
    /// Runs one session's events through the plugins until the link ends;
    /// returns the reason when the server kicked the bot out.
    ///
    /// The session pushes its events into the bounded per-room `Inbox` as
    /// they come, on the transport's own thread (dropping the bot's own
    /// echoes on the way); this loop hands them to the plugins in batches.
    /// So a flood meets the shedding policy instead of an unbounded queue.
    func pump(_ s: any TransportSession) async -> String? {
        let inbox = attachInbox(to: s)
        defer { s.events.detach() }
        var lastShedReport = BotHost.now()
        while true {
            let item = await inbox.next(limit: Self.batchLimit)
            guard case .events(let events) = item else {
                if case .end(let error) = item, let error, !stopping { log(.warn, "link lost: \(error)") }
                reportShed(inbox)
                return nil
            }
            switch await route(events) {
            case .kicked(let reason): return reason
            case .failed: return nil
            case .next: break
            }
            // The journal and the link catch up before more is taken in:
            // meanwhile the room queues fill and shed their oldest
            // messages, at the door.
            while mustHoldBack {
                await withCheckedContinuation { pumpWaiters.append($0) }
            }
            // Whatever else waits for this loop (the outbox drain resuming
            // after a write, a commit's release, the other bots of the
            // loop) gets its turn before the next batch, however many
            // events are queued. With none queued, `next` suspends and
            // gives that turn anyway: a yield would be one more job a reply.
            if inbox.hasEvents { await Task.yield() }
            if BotHost.now() - lastShedReport >= 1 {
                lastShedReport = BotHost.now()
                reportShed(inbox)
                flushQuotaLog(force: false)
            }
        }
    }

    /// The session's events go into a new inbox from here on.
    @inline(never)
    func attachInbox(to s: any TransportSession) -> Inbox {
        // The name and prefix alone: the whole options would be a copy per session.
        let (name, prefix) = (spec.options.name, spec.options.commandPrefix)
        let inbox = Inbox(bound: spec.flow.roomQueue, addressed: { BotOptions.isAddressed($0, to: name, prefix: prefix) })
        s.events.attach(Self.consumer(into: inbox, name: name, observer: observer))
        return inbox
    }

    /// How a batch ended for the pump.
    enum Routed { case next, kicked(String), failed }

    /// One batch from the inbox: chats to the plugins in runs, history
    /// backfills to the journal, a kick ends it.
    ///
    /// Why by index: a bot's one long-lived task keeps the deepest its async
    /// frames ever went (Swift's task allocator reuses its slabs and never
    /// frees them), and an event held across an `await` is a frame slot.
    /// This way the frame holds the batch, the run and an index.
    func route(_ events: [TransportEvent]) async -> Routed {
        var i = 0
        while true {
            let (chats, next) = Self.chats(in: events, from: i)
            await handle(chats)
            guard next < events.count else { break }
            if let reason = Self.kickReason(events[next]) { return .kicked(reason) }
            backfill(events[next])
            if failure != nil { return .failed }
            i = next + 1
        }
        return failure != nil ? .failed : .next
    }

    /// The chats of `events` from `start` up to the next event of another kind (its index).
    @inline(never)
    nonisolated static func chats(in events: [TransportEvent], from start: Int) -> (chats: [BotEvent], next: Int) {
        var chats: [BotEvent] = []
        var i = start
        while i < events.count, case .chat(let chat) = events[i] {
            chats.append(chat)
            i += 1
        }
        return (chats, i)
    }

    nonisolated static func kickReason(_ event: TransportEvent) -> String? {
        if case .kicked(let reason) = event { return reason }
        return nil
    }

    /// The session's consumer: never waits for the plugins, so a flood meets
    /// the inbox's bound (and its shedding policy) instead of piling up.
    nonisolated static func consumer(into inbox: Inbox, name: String,
                                             observer: RuntimeObserver) -> TransportEvents.Consumer {
        { item in
            switch item {
            case .event(let event):
                if case .chat(let chat) = event {
                    observer.event(name, chat)
                    // Dropped here too, so they never make the trip to the plugins' thread.
                    if chat.isOwn(by: name) { return }
                }
                inbox.push(event)
            case .end(let error):
                inbox.finish(error: error)
            }
        }
    }

    /// Events taken from the inbox at a time: enough to share a batch's
    /// overhead under load, few enough that timers and sends are not held up.
    static let batchLimit = 64
    /// Plugin work (seconds) after which the runner lets its loop poll its
    /// sockets before the next event: the loop's links read and answer pings
    /// between two events however slow a plugin is (one event runs at most
    /// its budget's deadline).
    static let slice = 0.005

    /// One log line per room that shed events since the last report.
    @inline(never)
    func reportShed(_ inbox: Inbox) {
        for (room, n) in inbox.takeShed() {
            stats.eventsShed += n
            RuntimeMetrics.eventsShed.increment(by: n)
            log(.warn, "room \(room): shed \(n) incoming events (more than \(spec.flow.roomQueue) waiting; oldest messages dropped first)")
        }
    }



    func handle(_ event: BotEvent) async {
        await handle([event])
    }

    /// Delivers events in order, in slices of `slice` seconds of plugin work,
    /// letting the loop poll its sockets between two slices.
    @inline(never)
    func handle(_ events: [BotEvent]) async {
        var done = 0
        while done < events.count, let handled = handleSlice(events[done...]) {
            done += handled
            if done < events.count { await executor.letTheLinkIn() }
        }
    }

    /// Hands events to the plugins until they are all handled or a slice's
    /// time is up, and takes their actions; how many it handled (at least
    /// one), or nil once the bot takes no more events.
    @inline(never)
    func handleSlice(_ events: ArraySlice<BotEvent>) -> Int? {
        guard let host, failure == nil, !closing else { return nil }
        do {
            let started = ContinuousClock.now
            let result = try onLoop(host) { try $0.handle(events, slice: Self.slice) }
            record(events.prefix(result.handled), took: ContinuousClock.now - started)
            accept(result.actions, events: result.handled)
            rescheduleTimers(result.nextDue)
            return result.handled
        } catch {
            fail("journal failed: \(error)")
            return nil
        }
    }

    /// Each event's share of a slice's time, and its kind, into the metrics.
    func record(_ events: ArraySlice<BotEvent>, took: Duration) {
        guard !events.isEmpty else { return }
        let each = took / events.count
        for e in events {
            RuntimeMetrics.handlerLatency.record(duration: each)
            RuntimeMetrics.events[e.kind]?.increment()
        }
    }

    /// History from before the bot joined a room: into the journal, not to plugins.
    @inline(never)
    func backfill(_ event: TransportEvent) {
        guard case .backfill(let room, let messages, let through) = event, let host, failure == nil else { return }
        do {
            try onLoop(host) { try $0.backfill(room: room, messages: messages, through: through) }
            if !messages.isEmpty { log(.info, "backfilled \(messages.count) messages of \(room) into history") }
        } catch {
            fail("journal failed: \(error)")
        }
    }
}
