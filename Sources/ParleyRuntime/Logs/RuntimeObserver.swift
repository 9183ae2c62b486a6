import Logging
import ParleyCore

/// One line of the runtime's log.
public struct LogRecord: Sendable {
    public enum Level: String, Sendable { case info, warn, error }
    public var time: Double
    public var bot: String
    /// The plugin that logged it, when a plugin did.
    public var plugin: String?
    public var level: Level
    public var text: String
}

/// Where the runtime reports what happens: log lines (through swift-log),
/// and taps for tools that show a transcript (`parley demo`) or count things
/// (tests, benches). Every callback may be called from any thread.
public struct RuntimeObserver: Sendable {
    /// Every bot's log lines, with `bot`, `transport` and `plugin` metadata.
    public var logger: Logger
    /// Every chat event a bot's transport delivered, before filtering (own echoes included).
    public var event: @Sendable (_ bot: String, _ event: BotEvent) -> Void = { _, _ in }
    /// A send the transport confirmed.
    public var sent: @Sendable (_ bot: String, _ plugin: String, _ room: String, _ text: String) -> Void = { _, _, _, _ in }
    public var connection: @Sendable (_ bot: String, _ state: ConnectionState) -> Void = { _, _ in }

    /// Log lines to `logger`.
    public init(logger: Logger) { self.logger = logger }

    /// Log lines handed to `log` as records (the demo's transcript, tests).
    public init(log: @escaping @Sendable (LogRecord) -> Void) {
        logger = Logger(label: "parley") { _ in ForwardingLogHandler(sink: log) }
    }

    /// Logs a record as the runtime would have.
    public func log(_ r: LogRecord) {
        var metadata: Logger.Metadata = ["bot": .string(r.bot)]
        if let plugin = r.plugin { metadata["plugin"] = .string(plugin) }
        logger.log(level: r.level.logLevel, "\(r.text)", metadata: metadata)
    }
}

extension LogRecord.Level {
    var logLevel: Logger.Level {
        switch self {
        case .info: .info
        case .warn: .warning
        case .error: .error
        }
    }
}
