import ParleyCore

/// The outgoing rate cap (`[bot.flow] send_rate`, `send_burst`): a token
/// bucket. It holds up to `burst` tokens, gains `rate` per second, and each
/// send takes one; with none left the outbox waits rather than the server
/// throttling or banning the bot. The caller supplies a monotonic clock so
/// a wall-clock jump can neither stall the bot nor let a burst through.
struct SendRate {
    let rate: Double
    let burst: Double
    private var tokens: Double
    private var last: Double

    init(_ flow: FlowOptions, now: Double) {
        rate = flow.sendRate
        burst = Double(flow.sendBurst)
        tokens = burst
        last = now
    }

    /// Takes `cost` tokens and returns 0, or returns how long to wait for the
    /// next one (nothing taken). A send that costs more than is there (a
    /// StreamChat text of many lines) still goes once one token is: the
    /// tokens go below zero, and what follows waits out the debt.
    mutating func take(now: Double, cost: Int = 1) -> Double {
        guard rate > 0 else { return 0 }
        tokens = min(burst, tokens + max(0, now - last) * rate)
        last = now
        // A token due "now" up to rounding counts as there (clock sums are not exact).
        if tokens >= 1 - 1e-9 {
            tokens = cost == 1 ? max(0, tokens - 1) : tokens - Double(cost)
            return 0
        }
        return (1 - tokens) / rate
    }
}
