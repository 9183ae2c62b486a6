import Foundation
import Logging
import Metrics
import ParleyCore
import ParleyJournal
import ParleyLua
import ParleyNet
import Synchronization

/// Presence: connect, go online, pump events, reconnect with full-jitter
/// backoff when the link dies; every change is a `connection` event.
extension BotRunner {
    func presenceLoop() async -> BotOutcome {
        while !stopping {
            if let failure { return .failed(failure) }
            setState(.connecting)
            if stopping { break }
            let s: any TransportSession
            switch await connect() {
            case .online(let session): s = session
            case .retry: continue
            case .done(let outcome): return outcome
            }
            if stopping {
                await s.leave()
                break
            }
            await online(s)
            let kicked = await pump(s)
            if let outcome = await offline(s, kicked: kicked) { return outcome }
        }
        if let failure { return .failed(failure) }
        return .stopped
    }

    /// What one connection attempt came to.
    enum Attempt {
        case online(any TransportSession)
        /// Failed, and the backoff is over: try again.
        case retry
        case done(BotOutcome)
    }

    // The steps of `presenceLoop`, each out of line: a bot's one long-lived
    // task keeps the deepest its async frames ever went (Swift's task
    // allocator reuses its slabs and never frees them), so the frame that
    // stays under the pump for the whole session is kept small.

    /// One connection attempt; a failed one waits out its backoff here.
    @inline(never)
    func connect() async -> Attempt {
        do {
            // The journal's last-seen cursors: a transport with catch-up
            // resumes from them, so nothing is missed across a reconnect or a restart.
            // The link lives on the bot's loop, beside its plugins.
            let cursors = host.map { onLoop($0) { $0.lastSeenCursors() } } ?? [:]
            // In a task of its own: a handshake's async frames (a WebSocket's
            // are 2 KB) then go with that task instead of staying in the bot's.
            // Awaited through a race with `stop()`: a connect that hangs (a
            // server that does not answer, a retried login) is abandoned, and
            // closed should it still succeed.
            let transport = spec.transport, loop = executor.loop
            let race = ConnectRace()
            let attempt = Task(executorPreference: executor) {
                do {
                    let session = try await transport.connect(resumingAfter: cursors, on: loop)
                    if !race.finish(.success(session)) { await session.close() }
                } catch {
                    race.finish(.failure(error))
                }
            }
            abandonConnect = { attempt.cancel(); race.finish(.failure(CancellationError())) }
            defer { abandonConnect = nil }
            if stopping { abandonConnect?() }
            return .online(try await race.result.get())
        } catch where stopping {
            return .retry
        } catch let error as TransportError where error.kind == .refused {
            // The server is fine; the bot's own config is not (a name the
            // protocol cannot carry). Retrying would never help.
            log(.error, "cannot connect: \(error)")
            return .done(.failed(error.message))
        } catch let error as TransportError where error.kind == .kicked {
            log(.error, "kicked by the server: \(error.message)")
            setState(.kicked)
            return .done(.kicked(error.message))
        } catch {
            stats.connectFailures += 1
            if let more = observer.connectFailures.admit(now: BotHost.now()) { log(.warn, "cannot connect: \(error)\(more)") }
            if let outcome = await waitBackoff() { return .done(outcome) }
            return .retry
        }
    }

    /// Logs `text` under the ten-a-second rule of `lines`, with the count it
    /// held back since its last line; false when it holds this one back too,
    /// which is then counted in a line of its own about a second later
    /// (unless a line let through says it first).
    @discardableResult
    func say(_ level: LogRecord.Level, _ text: @autoclosure () -> String, under lines: HeldLines) -> Bool {
        if let more = lines.admit(now: BotHost.now()) {
            log(level, text() + more)
            return true
        }
        guard lines.claimFlush() else { return false }
        let observer = self.observer
        _ = executor.schedule(after: 1.1) {
            if let text = lines.flush() {
                observer.log(LogRecord(time: BotHost.now(), bot: "parley", plugin: nil, level: level, text: text))
            }
        }
        return false
    }

    /// The link is up: the bot is online and its outbox drains.
    @inline(never)
    func online(_ s: any TransportSession) async {
        session = s
        linkGeneration += 1
        typingReceived = true
        if let host { syncTyping(host) }
        onlineSince = BotHost.now()
        if everOnline {
            stats.reconnects += 1
            RuntimeMetrics.reconnects.increment()
            // The other half of "link lost": an operator reading the log sees the outage end.
            let away = (onlineSince - offlineSince).formatted(.number.precision(.fractionLength(1)))
            say(.info, "back online after \(away) s offline (reconnect \(stats.reconnects))", under: observer.returns)
        } else {
            // The first time: a start that went well is as plain in the log as one that did not.
            let rooms = spec.options.rooms.isEmpty ? "" : ", rooms \(spec.options.rooms.joined(separator: ", "))"
            let line = "online (\(spec.transport.capabilities.name)\(rooms))"
            if let fleet = fleetLines {
                if let more = fleet.online.admit(now: BotHost.now()) { log(.info, line + more) }
                if let all = fleet.firstOnline() { observer.log(LogRecord(time: BotHost.now(), bot: "parley", plugin: nil, level: .info, text: all)) }
            } else {
                log(.info, line)
            }
        }
        everOnline = true
        setState(.online)
        kickDrain()
        takeStepsAwaitingLink()
    }

    /// The session ended (kicked when `kicked` says why): nil to connect
    /// again, once any wait the reason calls for is over.
    @inline(never)
    func offline(_ s: any TransportSession, kicked: String?) async -> BotOutcome? {
        session = nil
        offlineSince = BotHost.now()
        typingQueue.removeAll()
        if let kicked {
            await s.close()
            setState(.kicked)
            guard case .reclaim(let delay) = spec.transport.kickPolicy, !stopping else {
                log(.error, "kicked by the server: \(kicked)")
                return .kicked(kicked)
            }
            // The account is ours: take it back after the delay (no backoff: the server is fine).
            log(.warn, "kicked by the server: \(kicked); logging in again in \(delay) s (kick_policy reclaim)")
            await sleep(until: BotHost.now() + delay)
            return nil
        }
        if let failure {
            await s.close()
            return .failed(failure)
        }
        if stopping { return nil }
        setState(.offline)
        if let until = awayUntil {
            // A deliberate absence (`bot.away`): no backoff, come back on time.
            awayUntil = nil
            await sleep(until: until)
            return nil
        }
        if let until = serverWaitUntil {
            // The server asked for the wait (Retry-After): it is the backoff, and coming back sooner would only be refused.
            serverWaitUntil = nil
            backoffDelay = until - BotHost.now()
            setState(.backoff)
            await sleep(until: until)
            return nil
        }
        // A link that stayed up starts the backoff afresh; one dropped at once is a failed attempt.
        return await waitBackoff(failed: BotHost.now() - onlineSince < backoff.provenAfter)
    }

    /// Waits before the next attempt; nil to try again, an outcome to give up.
    @inline(never)
    func waitBackoff(failed: Bool = true) async -> BotOutcome? {
        let delay = backoff.nextDelay(failed: failed)
        if backoff.gaveUp {
            let why = "gave up after \(backoff.attempt) failed connection attempts"
            log(.error, why)
            setState(.gaveUp)
            return .gaveUp(why)
        }
        backoffDelay = delay
        setState(.backoff)
        await sleep(until: BotHost.now() + delay)
        return nil
    }

    /// Sleeps in short steps so `stop()` is never kept waiting by a backoff.
    @inline(never)
    func sleep(until t: Double) async {
        while !stopping {
            let left = t - BotHost.now()
            if left <= 0 { return }
            try? await Task.sleep(for: .milliseconds(Int(min(left, 0.1) * 1000) + 1))
        }
    }

    @inline(never)
    func setState(_ s: ConnectionState) {
        RuntimeMetrics.bots.move(from: state, to: s)
        state = s
        let gone: Double? = s == .online || !everOnline ? nil : offlineSince
        presence.withLock { [backoffDelay, reconnects = stats.reconnects] in
            $0 = PresenceStatus(state: s, backoffDelay: backoffDelay, reconnects: reconnects, offlineSince: gone,
                                failure: $0.failure, failedAt: $0.failedAt)
        }
        observer.connection(name, s)
        handle(.connection(s))
    }
}

/// A connect attempt against `stop()`: whichever finishes it first wins; the
/// other learns it lost (a session that connected too late is then closed).
final class ConnectRace: Sendable {
    private let state = Mutex<(outcome: Result<any TransportSession, any Error>?, waiter: CheckedContinuation<Result<any TransportSession, any Error>, Never>?)>((nil, nil))

    /// Settles the race; false when it was already settled.
    @discardableResult
    func finish(_ outcome: Result<any TransportSession, any Error>) -> Bool {
        let (won, waiter) = state.withLock { s in
            guard s.outcome == nil else { return (false, nil as CheckedContinuation<Result<any TransportSession, any Error>, Never>?) }
            s.outcome = outcome
            defer { s.waiter = nil }
            return (true, s.waiter)
        }
        waiter?.resume(returning: outcome)
        return won
    }

    /// The winning outcome, once there is one.
    var result: Result<any TransportSession, any Error> {
        get async {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { s -> Result<any TransportSession, any Error>? in
                    if s.outcome == nil { s.waiter = continuation }
                    return s.outcome
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}

/// A bot's presence, published on each change for readers on other threads.
struct PresenceStatus: Sendable {
    var state = ConnectionState.offline
    /// The delay of the backoff the bot is in (or was last in).
    var backoffDelay = 0.0
    var reconnects = 0
    /// When a bot that had been online lost its link (`BotHost.now()`);
    /// nil while online, and before it first was.
    var offlineSince: Double?
    /// Why the bot stopped on an error (it could not start, its journal
    /// failed): said by `/readyz` and the dashboard, where the state alone
    /// would read as an ordinary `offline`.
    var failure: String?
    /// When it stopped so, seconds since 1970: what the dashboard counts "failed for" from.
    var failedAt = 0.0
}
