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
        guard !draining, session != nil, !outbox.isEmpty || !typingQueue.isEmpty else { return }
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
            var batch: [Outbox.Entry] = [], done: [String] = []
            var wait = 0.0
            let now = BotHost.now()
            while batch.count < Self.sendBatchLimit, let e = outbox.first {
                if outbox.isExpired(e, now: now) {
                    outbox.removeFirst()
                    dropped(e, "expired after waiting \(Int(spec.presence.outboxExpiry)) s offline")
                    done.append(e.id)
                    continue
                }
                // The rate cap: stop at the first send without a token (the outbox keeps it meanwhile).
                wait = sendRate.take(now: Self.monotonic())
                if wait > 0 { break }
                outbox.removeFirst()
                batch.append(e)
            }
            rateHeld = wait > 0
            resumePump()
            var linkFailed = false
            if !batch.isEmpty {
                inFlight = batch.count
                let outcomes = await s.send(batch.map { OutgoingMessage(room: $0.room, text: $0.text, id: $0.id) })
                inFlight = 0
                for (e, outcome) in zip(batch, outcomes) {
                    switch outcome {
                    case .delivered:
                        RuntimeMetrics.sends.increment()
                        observer.sent(name, e.plugin, e.room, e.text)
                        done.append(e.id)
                    case .refused(let error):
                        dropped(e, error.message)
                        done.append(e.id)
                    case .failed:
                        linkFailed = true
                    }
                }
                // The failed one and those after it: the link is going down;
                // presence reconnects and drains them again, first and in order.
                let unsent = batch.dropFirst(linkFailed ? outcomes.count - 1 : outcomes.count)
                if !unsent.isEmpty { outbox.putBack(Array(unsent)) }
                linkFailed = linkFailed || !unsent.isEmpty
            }
            if !done.isEmpty {
                do {
                    try await host?.markDelivered(done)
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
    func dropped(_ e: Outbox.Entry, _ why: String) {
        RuntimeMetrics.sendsDropped.increment()
        log(.warn, "send to \(e.room) dropped: \(why)", plugin: e.plugin)
    }
}
