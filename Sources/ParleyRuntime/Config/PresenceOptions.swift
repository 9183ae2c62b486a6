import Foundation
import ParleyConfig

/// How a bot stays connected (`[bot.presence]`): connect timeout, reconnect
/// backoff with full jitter, and how long a send may wait in the outbox while
/// the bot is offline.
public struct PresenceOptions: Sendable, Equatable {
    public var connectTimeout: Double = 10
    /// First backoff bound, in seconds; each failed attempt multiplies it by `backoffFactor`, up to `backoffMax`.
    public var backoffInitial: Double = 0.5
    public var backoffFactor: Double = 2
    public var backoffMax: Double = 30
    /// Give up after this many failed attempts in a row; nil: never.
    public var maxAttempts: Int?
    /// A send older than this when the bot comes back online is dropped (and logged).
    public var outboxExpiry: Double = 300

    public init() {}

    /// The upper bound of the wait before attempt `n` (1-based): the delay is drawn uniformly below it.
    public func backoffBound(attempt n: Int) -> Double {
        let exponent = Double(max(0, n - 1))
        return min(backoffMax, backoffInitial * pow(backoffFactor, exponent))
    }

    static func read(_ t: TableReader) throws(ConfigError) -> PresenceOptions {
        var o = PresenceOptions()
        o.connectTimeout = try t.double("connect_timeout", default: o.connectTimeout, range: 0.01...3600)
        o.backoffInitial = try t.double("backoff_initial", default: o.backoffInitial, range: 0.001...3600)
        o.backoffFactor = try t.double("backoff_factor", default: o.backoffFactor, range: 1...100)
        o.backoffMax = try t.double("backoff_max", default: o.backoffMax, range: 0.001...86_400)
        // The cap would win from the first attempt: the operator meant something else.
        if o.backoffInitial > o.backoffMax {
            throw t.error(t.contains("backoff_max") ? "backoff_max" : "backoff_initial",
                          "backoff_initial (\(o.backoffInitial.formatted()) s) is more than backoff_max (\(o.backoffMax.formatted()) s), which caps every wait")
        }
        let attempts = try t.int("max_attempts", default: 0, range: 0...1_000_000)
        o.maxAttempts = attempts == 0 ? nil : attempts
        o.outboxExpiry = try t.double("outbox_expiry", default: o.outboxExpiry, range: 0...604_800)
        return o
    }
}
