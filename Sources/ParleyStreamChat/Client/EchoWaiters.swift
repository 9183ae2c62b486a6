import NIOConcurrencyHelpers
import NIOCore
import ParleyCore

/// Sends waiting for their echo. The server relays lines in the order it
/// reads them and echoes each to its sender, so echoes come back in send
/// order: each own message that arrives completes the oldest line waiting
/// (by order, not by text, so a server that trims or rewrites a line still
/// confirms it). Registered before the write, so a fast echo finds its waiter.
final class EchoWaiters: Sendable {
    private struct Waiter {
        var id: UInt64
        var lines: Int
        var done: @Sendable (Result<Void, TransportError>) -> Void
    }
    private struct State {
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
        var ended: TransportError?
        var lastHeard = NIODeadline.now()
    }
    private let state = NIOLockedValueBox(State())

    /// Waits for `lines` echoes; returns the waiter's id, or nil when the link
    /// has already ended (`done` is then called with the reason).
    func wait(lines: Int, _ done: @escaping @Sendable (Result<Void, TransportError>) -> Void) -> UInt64? {
        let outcome = state.withLockedValue { s -> Result<UInt64, TransportError> in
            if let e = s.ended { return .failure(e) }
            s.nextID += 1
            s.waiters.append(Waiter(id: s.nextID, lines: lines, done: done))
            return .success(s.nextID)
        }
        switch outcome {
        case .success(let id): return id
        case .failure(let e):
            done(.failure(e))
            return nil
        }
    }

    /// The server sent a line, of any kind: it is alive, if behind.
    func heard() {
        let now = NIODeadline.now()
        state.withLockedValue { $0.lastHeard = now }
    }

    /// When the server last sent a line.
    var lastHeard: NIODeadline { state.withLockedValue { $0.lastHeard } }

    /// One answer came back: an own message (or its `::DROPPED::`) for sends;
    /// `::OK` or `::REFUSED::` for moderation frames, which wait in a set of
    /// their own. A failure ends its waiter whatever lines it still waits for.
    func answered(_ result: Result<Void, TransportError> = .success(())) {
        let done = state.withLockedValue { s -> (@Sendable (Result<Void, TransportError>) -> Void)? in
            guard !s.waiters.isEmpty else { return nil }
            s.waiters[0].lines -= 1
            if case .success = result, s.waiters[0].lines > 0 { return nil }
            return s.waiters.removeFirst().done
        }
        done?(result)
    }

    /// Fails every waiter, and every later wait, with `error`; with `id`, only
    /// if that waiter is still waiting (its timeout). True when it ended them.
    @discardableResult
    func end(_ error: TransportError, ifWaiting id: UInt64? = nil) -> Bool {
        let failed = state.withLockedValue { s -> [Waiter]? in
            if let id, !s.waiters.contains(where: { $0.id == id }) { return nil }
            if s.ended == nil { s.ended = error }
            defer { s.waiters.removeAll() }
            return s.waiters
        }
        guard let failed else { return false }
        for w in failed { w.done(.failure(error)) }
        return true
    }
}
