import ParleyConfig

/// How a bot holds up under a flood (`[bot.flow]`): what it does with more
/// incoming events than its plugins can handle, and how fast it may talk.
///
/// Incoming: each room has a bounded queue of events waiting for the plugins.
/// When a room's queue is full the oldest waiting *message or typing* event
/// of that room is shed (drop-oldest: the newest text is the one worth
/// answering, and a canary sent after a flood must still be answered); joins,
/// leaves and rosters are shed only when nothing else is left to shed, and
/// history catch-up is never shed. Every shed event is counted
/// (`parley_events_shed_total`) and logged once a second per room.
///
/// Outgoing: a token bucket caps the bot's sends (all rooms together, since
/// servers rate-limit a connection): `send_burst` may go at once, then
/// `send_rate` per second. Sends beyond it wait in the outbox, in order; the
/// outbox itself is bounded per plugin by `[bot.limits] outbox_sends`.
public struct FlowOptions: Sendable, Equatable {
    /// Events waiting per room before the oldest is shed.
    public var roomQueue: Int = 1000
    /// Sends per second, all rooms together; 0 = no cap.
    public var sendRate: Double = 10
    /// Sends that may go at once after a quiet spell.
    public var sendBurst: Int = 20

    public init() {}

    static func read(_ t: TableReader) throws(ConfigError) -> FlowOptions {
        var o = FlowOptions()
        o.roomQueue = try t.int("room_queue", default: o.roomQueue, range: 1...10_000_000)
        o.sendRate = try t.double("send_rate", default: o.sendRate, range: 0...1_000_000)
        o.sendBurst = try t.int("send_burst", default: o.sendBurst, range: 1...1_000_000)
        return o
    }
}
