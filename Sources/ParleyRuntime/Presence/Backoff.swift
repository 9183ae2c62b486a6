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

    mutating func reset() { attempt = 0 }
}
