import Foundation
import Logging
import Metrics
import ParleyCore
import ParleyJournal
import ParleyLua

/// The router side of a runner: the session's events into the per-room
/// inbox (own echoes dropped), and from there to the plugins in batches.
extension BotRunner {
    /// Runs one session's events through the plugins until the link ends;
    /// returns the reason when the server kicked the bot out.
    ///
    /// The session pushes its events into the bounded per-room `Inbox` as
    /// they come, on the transport's own thread (dropping the bot's own
    /// echoes on the way); this loop hands them to the plugins in batches.
    /// So a flood meets the shedding policy instead of an unbounded queue.
    func pump(_ s: any TransportSession) async -> String? {
        let options = spec.options
        let inbox = Inbox(bound: spec.flow.roomQueue, addressed: { options.isAddressed($0) })
        s.events.attach(Self.consumer(into: inbox, name: name, observer: observer))
        defer { s.events.detach() }
        var lastShedReport = BotHost.now()
        while true {
            switch await inbox.next(limit: Self.batchLimit) {
            case .end(let error):
                if let error, !stopping { log(.warn, "link lost: \(error)") }
                reportShed(inbox)
                return nil
            case .events(let events):
                var chats: [BotEvent] = []
                chats.reserveCapacity(events.count)
                for event in events {
                    switch event {
                    case .kicked(let reason):
                        await handle(chats)
                        return reason
                    case .backfill(let room, let messages, let through):
                        await handle(chats)
                        chats.removeAll()
                        await backfill(room: room, messages: messages, through: through)
                    case .chat(let chat):
                        chats.append(chat)
                    }
                    if failure != nil { return nil }
                }
                await handle(chats)
                if failure != nil { return nil }
                // The journal and the link catch up before more is taken in:
                // meanwhile the room queues fill and shed their oldest
                // messages, at the door.
                while mustHoldBack {
                    await withCheckedContinuation { pumpWaiters.append($0) }
                }
                // Whatever else waits for this loop (the outbox drain resuming
                // after a write, a commit's release, the other bots of the
                // loop) gets its turn before the next batch, however many
                // events are queued.
                await Task.yield()
            }
            if BotHost.now() - lastShedReport >= 1 {
                lastShedReport = BotHost.now()
                reportShed(inbox)
                flushQuotaLog(force: false)
            }
        }
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
    func handle(_ events: [BotEvent]) async {
        var rest = events[...]
        while !rest.isEmpty {
            guard let host, failure == nil, !closing else { return }
            do {
                let started = ContinuousClock.now
                let (actions, due, handled) = try await host.handle(rest, slice: Self.slice)
                // Per event: a slice's time is shared by its events.
                let each = (ContinuousClock.now - started) / handled
                for e in rest.prefix(handled) {
                    RuntimeMetrics.handlerLatency.record(duration: each)
                    RuntimeMetrics.events[e.kind]?.increment()
                }
                rest = rest.dropFirst(handled)
                await accept(actions, events: handled)
                rescheduleTimers(due)
            } catch {
                fail("journal failed: \(error)")
                return
            }
            if !rest.isEmpty { await executor.letTheLinkIn() }
        }
    }

    /// History from before the bot joined a room: into the journal, not to plugins.
    func backfill(room: String, messages: [ChatMessage], through: RoomCursor) async {
        guard let host, failure == nil else { return }
        do {
            try await host.backfill(room: room, messages: messages, through: through)
            if !messages.isEmpty { log(.info, "backfilled \(messages.count) messages of \(room) into history") }
        } catch {
            fail("journal failed: \(error)")
        }
    }
}
