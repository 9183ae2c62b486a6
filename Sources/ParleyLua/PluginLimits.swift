/// Everything a plugin may burn, with the documented defaults.
///
/// The CPU, memory, send and log limits are enforced in C inside the VM; the
/// timer and state limits by the plugin API in ParleyCore. Both read this one
/// struct, so a limit is configured in one place.
public struct PluginLimits: Sendable, Equatable {
    /// Lua VM instructions per event (handler call, timer firing, load).
    public var instructions: Int = 10_000_000
    /// Wall-clock budget per event, in milliseconds.
    public var timeMilliseconds: Int = 250
    /// Memory cap of the plugin's VM, in bytes.
    public var memoryBytes: Int = 32 << 20
    /// `bot.send` calls per event.
    public var sendsPerEvent: Int = 20
    /// Sends of this plugin waiting in the bot's outbox (offline, or held by
    /// the rate cap) before `bot.send` says "outbox full": a runaway plugin is
    /// refused and reported instead of growing the outbox without bound.
    public var outboxSends: Int = 1000
    /// Longest message in bytes when the transport sets no limit of its own.
    public var messageBytes: Int = 4096
    /// Log lines (`bot.log.*`, `print`) per event; each line is cut to `logLineBytes`.
    public var logLinesPerEvent: Int = 100
    public var logLineBytes: Int = 1024
    /// Live timers per plugin, and the shortest interval `bot.after`/`bot.every` accept.
    public var timers: Int = 100
    public var minTimerInterval: Double = 0.1
    /// State: key length, one value's encoded size, and all of a plugin's state.
    public var stateKeyBytes: Int = 256
    public var stateValueBytes: Int = 64 << 10
    public var stateTotalBytes: Int = 1 << 20
    /// Consecutive failed events after which the plugin is disabled.
    public var failuresBeforeDisable: Int = 5

    public init() {}
}
