/// What the dashboard shows, as the JSON `/api/fleet` and `/events` send:
/// read-only snapshots of the running bots.
public struct FleetReport: Codable, Sendable {
    /// Seconds since 1970.
    public var time: Double
    /// Bots in the process; the first `FleetWatch.maxCards` are reported.
    public var botCount: Int
    public var bots: [BotReport]
    /// The bot loops, in order: the `loop` of a bot is an index here.
    public var loops: [LoopReport]
    /// The last log lines of every bot, oldest first (masked as in the logs).
    public var logs: [LogLine]
}

/// A bot loop: its bots, and how late it ran what was due, by a probe due
/// every second (`BotLoops.watchLag`): a plugin holding the loop shows here.
public struct LoopReport: Codable, Sendable {
    public var bots: Int
    /// The last probe's lateness, and the greatest of the last minute's.
    public var lagMilliseconds: Double
    public var lagMaxMilliseconds: Double
}

public struct BotReport: Codable, Sendable {
    public var name: String
    public var transport: String
    /// The bot loop it runs on (an index of `FleetReport.loops`).
    public var loop: Int
    /// `connecting`, `online`, `offline`, `backoff`, `kicked`, `gave_up`.
    public var state: String
    /// When the bot entered that state, seconds since 1970.
    public var stateSince: Double
    public var reconnects: Int
    /// Per second, in 10 s steps over the last 10 minutes, oldest first.
    public var eventsPerSecond: [Double]
    public var repliesPerSecond: [Double]
    public var plugins: [PluginReport]
    /// The journal's last sync, in milliseconds; nil without a journal (or before its first).
    public var journalSyncMilliseconds: Double?
    /// The bot's loop did not answer within a second (a join storm, a slow
    /// plugin): `plugins` and the journal's sync are from its last answer.
    public var loopBusy: Bool
}

public struct PluginReport: Codable, Sendable {
    public var name: String
    public var events: Int
    /// Errors by kind (`runtime`, `budget`, `memory`, `quota`, ...).
    public var errors: [String: Int]
    /// Over its last 256 events, against its limits.
    public var instructionsP50: Int
    public var instructionsP99: Int
    public var instructionLimit: Int
    public var millisecondsP50: Double
    public var millisecondsP99: Double
    public var millisecondLimit: Int
    public var memoryBytes: Int
    public var memoryCap: Int
    /// Its sends the transport has not taken yet.
    public var outboxWaiting: Int
    /// Switched off by the circuit breaker.
    public var isDisabled: Bool
    /// Why the last load of its file failed (`syntax: …`): with `running`,
    /// the version loaded before runs on; without, the plugin does not run.
    public var loadProblem: String?
    public var running: Bool
}

public struct LogLine: Codable, Sendable {
    public var time: Double
    public var level: String
    public var bot: String?
    public var plugin: String?
    public var text: String
}
