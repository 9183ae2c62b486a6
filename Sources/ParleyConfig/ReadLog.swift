import Synchronization

/// Which keys of one table a `TableReader` has consumed, plus an error held back
/// until the read finishes.
///
/// Why a lock-protected reference: the reader is handed to a closure by value (so it
/// can be passed on to helper functions freely) yet the unknown-key check at the end
/// must see every key the closure touched. A `Mutex` keeps that Sendable honestly.
final class ReadLog: Sendable {
    private struct State {
        var read: Set<String> = []
        var deferred: ConfigError?
        var missing: ConfigError?
    }

    private let state = Mutex(State())

    func markRead(_ key: String) {
        state.withLock { _ = $0.read.insert(key) }
    }

    func wasRead(_ key: String) -> Bool {
        state.withLock { $0.read.contains(key) }
    }

    var readKeys: Set<String> {
        state.withLock { $0.read }
    }

    /// Keeps the first error only: it is the one nearest the top of the reading code.
    func deferError(_ error: ConfigError) {
        state.withLock { if $0.deferred == nil { $0.deferred = error } }
    }

    var deferredError: ConfigError? {
        state.withLock { $0.deferred }
    }

    /// Keeps the first only, as `deferError` does.
    func deferMissing(_ error: ConfigError) {
        state.withLock { if $0.missing == nil { $0.missing = error } }
    }

    var missingError: ConfigError? {
        state.withLock { $0.missing }
    }
}
