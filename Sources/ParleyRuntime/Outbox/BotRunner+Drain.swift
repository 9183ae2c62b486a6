import Foundation
import Logging
import Metrics
import NIOCore
import ParleyCore
import ParleyJournal
import ParleyLua
import ParleyNet
import Synchronization

/// The outbox drain: queued sends to the transport in batches, paced by the
/// rate cap, recorded as delivered once the transport confirmed them.
///
/// The drain is not a task either: `drainOn` runs on the bot's loop until it
/// must wait (for a write or the rate cap), and what it waits for calls it
/// again. A socket that takes the write at once completes
/// it inside `write`, so a reply is sent and recorded in that same call.
extension BotRunner {
    /// The write the drain waits for: its batch, and what became of each
    /// message once the transport says.
    struct Write {
        var batch: [OutgoingMessage]
        var outcomes: [SendOutcome]?
    }

    func kickDrain() {
        guard !draining, session != nil, outbox.queuedCount > 0 || !typingQueue.isEmpty else { return }
        draining = true
        drainOn()
    }

    /// Sends handed to the transport in one batch at most: all of a busy
    /// moment's replies in one write, while a send failure (the link going
    /// down) puts back no more than this.
    static let sendBatchLimit = 64

    /// Hands queued sends to the transport in order, as many at a time as
    /// are waiting (up to `sendBatchLimit`) and the rate cap allows, until
    /// none is left, the link fails, or it must wait; whatever it waits for
    /// calls it again.
    func drainOn() {
        guard !drainRunning else { return }
        drainRunning = true
        defer { drainRunning = false }
        while true {
            if let w = writing {
                // Still on its way: its completion goes on from here.
                guard let outcomes = w.outcomes else { return }
                writing = nil
                if !settle(w.batch, outcomes) { break }
                continue
            }
            guard let s = session else { break }
            // Typing changes first, queued on the link: they go out before the sends.
            for t in typingQueue { try? s.typing(room: t.room, on: t.on) }
            typingQueue.removeAll()
            // Expired sends are dropped on the way, and recorded as done now.
            var wait = 0.0
            let now = BotHost.now()
            let (batch, expired) = outbox.takeBatch(limit: Self.sendBatchLimit, now: now) { m in
                // The rate cap: stop at the first send without a token (the outbox keeps it meanwhile).
                // A text the transport sends as several messages costs a token each,
                // a burst's worth at most: one long text must not silence the bot for long.
                let cost = linesAreMessages && sendRate.rate > 0 ? min(Int(sendRate.burst), TransportCapabilities.lineCount(of: m.text)) : 1
                wait = sendRate.take(now: Self.monotonic(), cost: cost)
                return wait == 0
            }
            for m in expired { dropped(m, overExpiry(madeAt: m.time, now: now)) }
            if !expired.isEmpty { markDone(expired.map(\.id)) }
            rateHeld = wait > 0
            resumePump()
            if batch.isEmpty {
                guard expired.isEmpty else { continue }
                guard wait > 0 else { break }
                _ = executor.schedule(after: wait) { [weak self] in self?.onLoopThread { $0.drainOn() } }
                return
            }
            writing = Write(batch: batch)
            let handback = WriteHandback()
            let wrote = s.write(batch) { [weak self] outcomes in
                // Inside the write (the socket took it at once) the handback carries them to the check below.
                if !handback.report(outcomes) { self?.onRunner { $0.written(outcomes) } }
            }
            if wrote {
                if let outcomes = handback.callReturned() { writing?.outcomes = outcomes }
            } else {
                Task.immediate(executorPreference: executor) {
                    let outcomes = await s.send(batch)
                    self.written(outcomes)
                }
            }
        }
        draining = false
        resumePump()
    }

    /// The transport's word on the write in flight.
    func written(_ outcomes: [SendOutcome]) {
        writing?.outcomes = outcomes
        drainOn()
    }

    /// What became of a batch: delivered ones counted and recorded as done,
    /// refused ones dropped and recorded as done; false when the link failed
    /// (the failed one and those after it go back to the outbox, first and
    /// in order, for presence to drain after the reconnect).
    func settle(_ batch: [OutgoingMessage], _ outcomes: [SendOutcome]) -> Bool {
        var done: [String] = []
        var linkFailed = false
        var delivered: [String] = []
        for (m, outcome) in zip(batch, outcomes) {
            switch outcome {
            case .delivered:
                RuntimeMetrics.sends.increment()
                observer.sent(name, m.plugin, m.room, m.text)
                if !heldActions.isEmpty { delivered.append(m.id) }
            case .refused(let error):
                dropped(m, error.message)
            case .failed:
                linkFailed = true
            }
            if linkFailed { break }
            done.append(m.id)
        }
        outbox.settle(done.count)
        markDone(done)
        // Moderation that waited for these sends goes now, behind them on the link.
        for id in delivered { if let held = heldActions.removeValue(forKey: id) { dispatch(held) } }
        return !linkFailed && done.count == batch.count
    }

    /// Sends that will not go out again and moderation steps that will not
    /// be taken again: recorded as done in the journal. Not once it is
    /// closed: a step answered after that is taken again after the restart.
    func markDone(_ ids: [String]) {
        guard !ids.isEmpty, let host, !hostClosed else { return }
        do {
            try onLoop(host) { try $0.markDelivered(ids) }
        } catch {
            journalFailed(error)
        }
    }

    /// Runs `body` isolated to this runner: at once on the loop's thread
    /// (a write completed there), else as a job on the loop (`later`).
    nonisolated func onRunner(_ body: @escaping @Sendable (isolated BotRunner) -> Void) {
        if executor.loop.inEventLoop { onLoopThread(body) } else { later(body) }
    }

    /// Why a send or a moderation step made at `time` is dropped as stale. The
    /// age is rounded up: "1 s ago, over outbox_expiry (1 s)" would read as no reason.
    func overExpiry(madeAt time: Double, now: Double) -> String {
        let age = time > 0 ? "made \(Int((now - time).rounded(.up))) s ago" : "waited"
        return "\(age), over outbox_expiry (\(Int(spec.presence.outboxExpiry)) s)"
    }

    /// A send that will never go out: logged and counted here; the caller
    /// records it as done in the journal, so a restart does not retry it.
    func dropped(_ m: OutgoingMessage, _ why: String) {
        RuntimeMetrics.sendsDropped.increment()
        log(.warn, "send to \(m.room) dropped: \(why)", plugin: m.plugin)
        // What waited for it would come without the words it was to follow, and late.
        for a in heldActions.removeValue(forKey: m.id) ?? [] {
            log(.warn, "\(a.heldSummary) dropped with the send it waited for", plugin: a.plugin)
            if case .moderate(_, let answer) = a.kind {
                markDone(a.step.map { [$0.id] } ?? [])
                tellModeration(a.plugin, answer, refused: "dropped with the send it waited for (\(why))")
            }
        }
    }
}

/// A write's outcomes on their way back to the drain. Reported inside the
/// write's own call (a socket that took it at once), the drain takes them
/// when the call returns, already on its loop and isolated; reported later,
/// they go through `onRunner`, whose isolation check costs more than this
/// box does.
private final class WriteHandback: Sendable {
    private enum State {
        case inCall
        case reported([SendOutcome])
        case later
    }

    private let state = Mutex(State.inCall)

    /// From the write's callback: true when the drain takes the outcomes as its call returns.
    func report(_ outcomes: [SendOutcome]) -> Bool {
        state.withLock { s in
            guard case .inCall = s else { return false }
            s = .reported(outcomes)
            return true
        }
    }

    /// When the write's call returned: what was reported inside it, if
    /// anything; a report after this goes its own way.
    func callReturned() -> [SendOutcome]? {
        state.withLock { s in
            if case .reported(let outcomes) = s { return outcomes }
            s = .later
            return nil
        }
    }
}
