import Foundation
import Logging
import Metrics
import NIOCore
import ParleyCore
import ParleyJournal
import ParleyLua

/// The router side of a runner: the session's events into the per-room
/// inbox (own echoes dropped), and from there to the plugins in batches.
///
/// The pump is not a task: it is `turn`, a plain function the bot's loop
/// calls when the inbox wakes it, when the journal or the drain lets it go
/// on, and after it let the link in. So an event is read, handed to the
/// plugins and answered in one go on the loop's thread, with no task to
/// resume; the presence loop only waits for the session's end.
extension BotRunner {
    /// One session's pumping: its inbox, the batch being handed on, and the
    /// presence loop waiting for the end.
    final class Pump {
        let session: any TransportSession
        let inbox: Inbox
        let end: CheckedContinuation<String?, Never>
        /// The batch taken from the inbox, and how far the plugins got in it.
        var batch: [TransportEvent] = []
        var at = 0
        var lastShedReport = BotHost.now()

        init(session: any TransportSession, inbox: Inbox, end: CheckedContinuation<String?, Never>) {
            self.session = session
            self.inbox = inbox
            self.end = end
        }
    }

    /// Runs one session's events through the plugins until the link ends;
    /// returns the reason when the server kicked the bot out.
    ///
    /// The session pushes its events into the bounded per-room `Inbox` as
    /// they come, on the transport's own thread (dropping the bot's own
    /// echoes on the way); `turn` hands them to the plugins in batches.
    /// So a flood meets the shedding policy instead of an unbounded queue.
    /// Out of line, as the presence loop's other steps.
    @inline(never)
    func pump(_ s: any TransportSession) async -> String? {
        await withCheckedContinuation { (end: CheckedContinuation<String?, Never>) in
            pump = Pump(session: s, inbox: attachInbox(to: s), end: end)
            turn()
        }
    }

    /// Hands batches from the inbox to the plugins until the inbox is empty
    /// (it then wakes the pump at its next push), the journal or the link
    /// must catch up (`resumePump` goes on), the plugins used up a slice
    /// (the loop reads its sockets, then the pump goes on), or the session ends.
    func turn() {
        guard let p = pump else { return }
        var took = false
        while true {
            if p.at == p.batch.count {
                if took, BotHost.now() - p.lastShedReport >= 1 {
                    p.lastShedReport = BotHost.now()
                    reportShed(p.inbox)
                    flushQuotaLog(force: false)
                }
                // The journal and the link catch up before more is taken in:
                // meanwhile the room queues fill and shed their oldest
                // messages, at the door.
                if mustHoldBack {
                    pumpHeld = true
                    return
                }
                // Whatever else waits for this loop (a commit's release, the
                // other bots of the loop) gets its turn before the next batch.
                if took, p.inbox.hasEvents { return queueTurn() }
                switch p.inbox.take(limit: Self.batchLimit) {
                case nil:
                    return
                case .end(let error)?:
                    if let error, !stopping { say(.warn, "link lost: \(error)", under: observer.linkLosses) }
                    if let wait = (error as? TransportError)?.retryAfter { serverWaitUntil = BotHost.now() + wait }
                    return endPump(p, kicked: nil)
                case .events(let events)?:
                    (p.batch, p.at, took) = (events, 0, true)
                }
            }
            switch route(p) {
            case .next: continue
            case .sliceOver: return queueTurn(after: BotLoop.linkTurn)
            case .kicked(let reason): return endPump(p, kicked: reason)
            case .failed: return endPump(p, kicked: nil)
            }
        }
    }

    /// The inbox has events again after the pump found it empty.
    func woken() {
        if !turnQueued { turn() }
    }

    /// A turn of the pump on the loop: as soon as the jobs queued before it
    /// ran, or after `delay`. Why a timer for the link's turn: NIO runs every
    /// task queued during a round of tasks in that same round, before it
    /// polls its sockets; a task due in the future waits for the next round,
    /// which starts with the poll.
    func queueTurn(after delay: TimeAmount? = nil) {
        guard !turnQueued, pump != nil else { return }
        turnQueued = true
        let go: @Sendable () -> Void = { [weak self] in
            self?.onLoopThread { r in
                r.turnQueued = false
                r.turn()
            }
        }
        if let delay { _ = executor.loop.scheduleTask(in: delay, go) } else { executor.loop.execute(go) }
    }

    /// The session is over for the pump: its events are let go, and the
    /// presence loop hears why.
    func endPump(_ p: Pump, kicked reason: String?) {
        pump = nil
        pumpHeld = false
        reportShed(p.inbox)
        p.session.events.detach()
        p.end.resume(returning: reason)
    }

    /// The session's events go into a new inbox from here on.
    func attachInbox(to s: any TransportSession) -> Inbox {
        // The name and prefix alone: the whole options would be a copy per session.
        let (name, prefix) = (spec.options.name, spec.options.commandPrefix)
        let inbox = Inbox(bound: spec.flow.roomQueue, addressed: { PluginVM.isCommand($0, prefix: prefix, name: name) },
                          wake: { [weak self] in self?.later { $0.woken() } })
        s.events.attach(Self.consumer(into: inbox, name: name, observer: observer))
        return inbox
    }

    /// How a batch went on for the pump.
    enum Routed { case next, sliceOver, kicked(String), failed }

    /// The pump's batch from where it stands: chats to the plugins in runs,
    /// history backfills to the journal, a kick ends it. Stops early when the
    /// plugins used up a slice, or the loop its round (`sliceOver`); the next
    /// turn goes on from there.
    func route(_ p: Pump) -> Routed {
        while p.at < p.batch.count {
            let next = Self.chatsEnd(in: p.batch, from: p.at)
            if next > p.at {
                // The loop's bots used up its round: its sockets come first.
                if executor.roundIsOver { return .sliceOver }
                if let handled = handleSlice(p.batch[p.at..<next]) {
                    p.at += handled
                    if p.at < next { return .sliceOver }
                } else {
                    p.at = next
                }
            }
            guard p.at < p.batch.count else { break }
            let event = p.batch[p.at]
            p.at += 1
            if let reason = Self.kickReason(event) { return .kicked(reason) }
            backfill(event)
            if failure != nil { return .failed }
        }
        // Done with the batch: its events go now, not at the next one.
        (p.batch, p.at) = ([], 0)
        return failure != nil ? .failed : .next
    }

    /// Where the run of chats in `events` from `start` ends: the plugins
    /// take the run as a slice of the batch, not as a list of its own.
    nonisolated static func chatsEnd(in events: [TransportEvent], from start: Int) -> Int {
        var i = start
        while i < events.count, case .chat = events[i] { i += 1 }
        return i
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
    /// Plugin work (seconds) after which the pump lets its loop poll its
    /// sockets before the next event: the loop's links read and answer pings
    /// between two events however slow a plugin is (one event runs at most
    /// its budget's deadline).
    static let slice = 0.005

    /// One log line per room that shed events since the bot last said so.
    /// A fleet in one busy room sheds in every bot: its lines share the
    /// process's `HeldLines`, and a bot held back says its counts later.
    @inline(never)
    func reportShed(_ inbox: Inbox) {
        for (room, n) in inbox.takeShed() {
            stats.eventsShed += n
            RuntimeMetrics.eventsShed.increment(by: n)
            shedUnsaid[room, default: 0] += n
        }
        let lines = shedUnsaid.sorted { $0.key < $1.key }.map { room, n in
            "room \(room): shed \(n) incoming events (more than \(spec.flow.roomQueue) waiting; oldest messages dropped first)"
        }
        // The first room's line is the bot's turn under the rule; the others go with it.
        guard let first = lines.first, say(.warn, first, under: observer.sheds) else { return }
        for line in lines.dropFirst() { log(.warn, line) }
        shedUnsaid = [:]
    }

    /// One event outside a session's stream (a connection change) to the plugins.
    func handle(_ event: BotEvent) {
        _ = handleSlice([.chat(event)][...])
    }

    /// Hands chats (`.chat` events only) to the plugins until they are all
    /// handled or a slice's time is up, and takes their actions; how many it
    /// handled (at least one), or nil once the bot takes no more events.
    @inline(never)
    func handleSlice(_ events: ArraySlice<TransportEvent>) -> Int? {
        guard let host, failure == nil, !closing else { return nil }
        do {
            let started = NIODeadline.now()
            let result = try onLoop(host) { try $0.handle(events, slice: Self.slice) }
            let now = NIODeadline.now()
            record(events.prefix(result.handled), took: now - started)
            executor.spent(now - started, endedAt: now)
            accept(result.actions, events: result.handled, typing: result.typing)
            rescheduleTimers(result.nextDue)
            return result.handled
        } catch {
            journalFailed(error)
            return nil
        }
    }

    /// Each event's share of a slice's time, and its kind, into the metrics.
    func record(_ events: ArraySlice<TransportEvent>, took: TimeAmount) {
        guard !events.isEmpty else { return }
        let each = took.nanoseconds / Int64(events.count)
        for case .chat(let e) in events {
            RuntimeMetrics.handlerLatency.recordNanoseconds(each)
            RuntimeMetrics.counter(of: e)?.increment()
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
            journalFailed(error)
        }
    }
}
