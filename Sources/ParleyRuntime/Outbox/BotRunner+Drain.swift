import Foundation
import Logging
import Metrics
import ParleyCore
import ParleyJournal
import ParleyLua
import ParleyNet

/// The outbox drain: queued sends to the transport in batches, paced by the
/// rate cap, recorded as delivered once the transport confirmed them.
extension BotRunner {
    func kickDrain() {
        guard !draining, session != nil, outbox.queuedCount > 0 || !typingQueue.isEmpty else { return }
        draining = true
        // Starts on this thread at once: a plain `Task` would first wake a
        // cooperative-pool thread only to hop back here. An unstructured task
        // does not inherit the run's executor preference, so it names it:
        // each completed write (on this same loop) then resumes the drain
        // here, not on the pool.
        Task.immediate(executorPreference: executor) { await self.drain() }
    }

    /// Sends handed to the transport in one batch at most: all of a busy
    /// moment's replies in one write, while a send failure (the link going
    /// down) puts back no more than this.
    static let sendBatchLimit = 64

    /// Hands queued sends to the transport in order, as many at a time as
    /// are waiting (up to `sendBatchLimit`) and the rate cap allows.
    func drain() async {
        defer {
            draining = false
            resumePump()
        }
        while let s = session {
            if !typingQueue.isEmpty {
                let t = typingQueue.removeFirst()
                try? await s.typing(room: t.room, on: t.on)
                continue
            }
            // Expired sends are dropped on the way, and recorded as done with the batch.
            var wait = 0.0
            let (batch, expired) = outbox.takeBatch(limit: Self.sendBatchLimit, now: BotHost.now()) {
                // The rate cap: stop at the first send without a token (the outbox keeps it meanwhile).
                wait = sendRate.take(now: Self.monotonic())
                return wait == 0
            }
            var done: [String] = []
            for m in expired {
                dropped(m, "expired after waiting \(Int(spec.presence.outboxExpiry)) s offline")
                done.append(m.id)
            }
            rateHeld = wait > 0
            resumePump()
            var linkFailed = false
            if !batch.isEmpty {
                let outcomes = await s.send(batch)
                var settled = 0
                for (m, outcome) in zip(batch, outcomes) {
                    switch outcome {
                    case .delivered:
                        RuntimeMetrics.sends.increment()
                        observer.sent(name, m.plugin, m.room, m.text)
                    case .refused(let error):
                        dropped(m, error.message)
                    case .failed:
                        linkFailed = true
                    }
                    if linkFailed { break }
                    settled += 1
                    done.append(m.id)
                }
                // The failed one and those after it: the link is going down;
                // presence reconnects and drains them again, first and in order.
                outbox.settle(settled)
                linkFailed = linkFailed || settled < batch.count
            }
            if !done.isEmpty {
                do {
                    if let host { try onLoop(host) { try $0.markDelivered(done) } }
                } catch {
                    fail("journal failed: \(error)")
                }
            }
            if linkFailed { break }
            if batch.isEmpty, done.isEmpty {
                guard wait > 0 else { break }
                try? await Task.sleep(for: .milliseconds(Int((wait * 1000).rounded(.up))))
            }
        }
    }

    /// A send that will never go out: logged and counted here; the caller
    /// records it as done in the journal, so a restart does not retry it.
    func dropped(_ m: OutgoingMessage, _ why: String) {
        RuntimeMetrics.sendsDropped.increment()
        log(.warn, "send to \(m.room) dropped: \(why)", plugin: m.plugin)
    }
}
