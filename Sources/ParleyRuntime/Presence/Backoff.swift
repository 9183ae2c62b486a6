import ParleyCore
import ParleyJournal

/// Reconnect delays: exponential bounds with full jitter (the delay is drawn
/// uniformly between 0 and the bound), so a fleet that lost its server at
/// once does not come back in lockstep.
struct Backoff {
    let options: PresenceOptions
    private var generator: SeededRandom
    private(set) var attempt = 0

    init(options: PresenceOptions, seed: UInt64) {
        self.options = options
        self.generator = SeededRandom(seed: seed)
    }

    /// Counts a failed attempt and returns how long to wait before the next one.
    mutating func nextDelay() -> Double {
        attempt += 1
        let bound = options.backoffBound(attempt: attempt)
        return Double.random(in: 0...bound, using: &generator)
    }

    var gaveUp: Bool { options.maxAttempts.map { attempt >= $0 } ?? false }

    /// The wait after a link that had proved itself was lost: the first
    /// attempt's, and no failure counted (nothing failed yet).
    mutating func afterLoss() -> Double {
        attempt = 0
        return Double.random(in: 0...options.backoffBound(attempt: 1), using: &generator)
    }

    /// How long a link must stay up to count as a connection that worked:
    /// 10 s, or the longest wait between attempts when that is shorter. A
    /// server that accepts and drops at once (a balancer with no backend)
    /// keeps the backoff growing, and counts towards `max_attempts`.
    var provenAfter: Double { min(10, options.backoffMax) }
}
