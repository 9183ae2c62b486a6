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
            switch await inbox.next(limit: spec.ownThread ? Self.ownThreadBatchLimit : Self.batchLimit) {
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
                let started = spec.ownThread ? Self.monotonic() : 0
                await handle(chats)
                if failure != nil { return nil }
                // The journal and the link catch up before more is taken in:
                // meanwhile the room queues fill and shed their oldest
                // messages, at the door.
                while mustHoldBack {
                    await withCheckedContinuation { pumpWaiters.append($0) }
                }
                // Whatever else waits for this thread (the outbox drain resuming
                // after a write, a commit's release) gets its turn before the
                // next batch, however many events are queued.
                await Task.yield()
                // An own-thread bot's plugins hold up its link while they
                // run: after a long batch the link reads and answers pings
                // before the next one.
                if spec.ownThread, Self.monotonic() - started > Self.ownThreadSlice { await executor.letTheLinkIn() }
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

    /// Events handed to the Lua thread in one hop at most: enough to share the
    /// hop's cost under load, few enough that timers and sends are not held up.
    static let batchLimit = 64
    /// The same for an own-thread bot (`LoopLuaThread`), whose socket waits
    /// while a batch runs: at most this many plugin deadlines in a row.
    static let ownThreadBatchLimit = 8
    /// A batch longer than this (seconds) lets an own-thread bot's link in
    /// before the next one; shorter ones cannot starve it.
    static let ownThreadSlice = 0.005

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

    /// Delivers events in order, in one hop to the Lua thread.
    func handle(_ events: [BotEvent]) async {
        guard let host, failure == nil, !closing, !events.isEmpty else { return }
        do {
            let started = ContinuousClock.now
            let (actions, due) = try await host.handle(events)
            // Per event: a batch's time is shared by its events.
            let each = (ContinuousClock.now - started) / events.count
            for e in events {
                RuntimeMetrics.handlerLatency.record(duration: each)
                RuntimeMetrics.events[e.kind]?.increment()
            }
            await accept(actions, events: events.count)
            rescheduleTimers(due)
        } catch {
            fail("journal failed: \(error)")
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
