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

    /// How long to wait before the next attempt. A failed attempt counts
    /// (`failed`); a link that proved itself and was then lost starts afresh:
    /// the first attempt's wait, and nothing counted.
    mutating func nextDelay(failed: Bool = true) -> Double {
        attempt = failed ? attempt + 1 : 0
        let bound = options.backoffBound(attempt: max(1, attempt))
        return Double.random(in: 0...bound, using: &generator)
    }

    var gaveUp: Bool { options.maxAttempts.map { attempt >= $0 } ?? false }

    /// How long a link must stay up to count as a connection that worked:
    /// 10 s, or the longest wait between attempts when that is shorter. A
    /// server that accepts and drops at once (a balancer with no backend)
    /// keeps the backoff growing, and counts towards `max_attempts`.
    var provenAfter: Double { min(10, options.backoffMax) }
}
