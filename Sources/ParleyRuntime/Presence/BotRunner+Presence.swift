import Foundation
import Logging
import Metrics
import ParleyCore
import ParleyJournal
import ParleyLua
import ParleyNet

/// Presence: connect, go online, pump events, reconnect with full-jitter
/// backoff when the link dies; every change is a `connection` event.
extension BotRunner {
    func presenceLoop() async -> BotOutcome {
        while !stopping {
            if let failure { return .failed(failure) }
            await setState(.connecting)
            if stopping { break }
            let s: any TransportSession
            do {
                // The journal's last-seen cursors: a transport with catch-up
                // resumes from them, so nothing is missed across a reconnect or a restart.
                // The link lives on the bot's loop, beside its plugins.
                let cursors = await host?.lastSeenCursors() ?? [:]
                s = try await spec.transport.connect(resumingAfter: cursors, on: executor.loop)
            } catch let error as TransportError where error.kind == .refused {
                // The server is fine; the bot's own config is not (a name the
                // protocol cannot carry). Retrying would never help.
                log(.error, "cannot connect: \(error)")
                return .failed(error.message)
            } catch let error as TransportError where error.kind == .kicked {
                log(.error, "kicked by the server: \(error.message)")
                await setState(.kicked)
                return .kicked(error.message)
            } catch {
                stats.connectFailures += 1
                log(.warn, "cannot connect: \(error)")
                if let outcome = await waitBackoff() { return outcome }
                continue
            }
            if stopping {
                await s.leave()
                break
            }
            session = s
            backoff.reset()
            if everOnline {
                stats.reconnects += 1
                RuntimeMetrics.reconnects.increment()
            }
            everOnline = true
            await setState(.online)
            kickDrain()
            let kicked = await pump(s)
            session = nil
            typingQueue.removeAll()
            if let kicked {
                await s.close()
                await setState(.kicked)
                guard case .reclaim(let delay) = spec.transport.kickPolicy, !stopping else {
                    log(.error, "kicked by the server: \(kicked)")
                    return .kicked(kicked)
                }
                // The account is ours: take it back after the delay (no backoff: the server is fine).
                log(.warn, "kicked by the server: \(kicked); logging in again in \(delay) s (kick_policy reclaim)")
                await sleep(until: BotHost.now() + delay)
                continue
            }
            if let failure {
                await s.close()
                return .failed(failure)
            }
            if stopping { break }
            await setState(.offline)
            if let until = awayUntil {
                // A deliberate absence (`bot.away`): no backoff, come back on time.
                awayUntil = nil
                await sleep(until: until)
                continue
            }
            if let outcome = await waitBackoff() { return outcome }
        }
        if let failure { return .failed(failure) }
        return .stopped
    }

    /// Waits before the next attempt; nil to try again, an outcome to give up.
    func waitBackoff() async -> BotOutcome? {
        let delay = backoff.nextDelay()
        if backoff.gaveUp {
            let why = "gave up after \(backoff.attempt) failed connection attempts"
            log(.error, why)
            await setState(.gaveUp)
            return .gaveUp(why)
        }
        backoffDelay = delay
        await setState(.backoff)
        await sleep(until: BotHost.now() + delay)
        return nil
    }

    /// Sleeps in short steps so `stop()` is never kept waiting by a backoff.
    func sleep(until t: Double) async {
        while !stopping {
            let left = t - BotHost.now()
            if left <= 0 { return }
            try? await Task.sleep(for: .milliseconds(Int(min(left, 0.1) * 1000) + 1))
        }
    }

    func setState(_ s: ConnectionState) async {
        state = s
        observer.connection(name, s)
        await handle(.connection(s))
    }
}
