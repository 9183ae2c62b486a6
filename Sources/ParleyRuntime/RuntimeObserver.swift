import Foundation
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

/// Where the runtime reports what happens: log lines, and taps for tools
/// that show a transcript (`parley demo`) or count things (tests, benches).
/// Every callback may be called from any thread.
public struct RuntimeObserver: Sendable {
    public var log: @Sendable (LogRecord) -> Void
    /// Every chat event a bot's transport delivered, before filtering (own echoes included).
    public var event: @Sendable (_ bot: String, _ event: BotEvent) -> Void = { _, _ in }
    /// A send the transport confirmed.
    public var sent: @Sendable (_ bot: String, _ plugin: String, _ room: String, _ text: String) -> Void = { _, _, _, _ in }
    public var connection: @Sendable (_ bot: String, _ state: ConnectionState) -> Void = { _, _ in }

    public init(log: @escaping @Sendable (LogRecord) -> Void) { self.log = log }

    /// Log lines to standard error: `time bot[plugin] level: text`.
    public static let standardError = RuntimeObserver { r in
        let who = r.plugin.map { "\(r.bot)[\($0)]" } ?? r.bot
        LogOutput.standardError.write("\(timestamp(r.time)) \(who) \(r.level.rawValue): \(r.text)")
    }

    static func timestamp(_ t: Double) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: Date(timeIntervalSince1970: t))
    }
}
