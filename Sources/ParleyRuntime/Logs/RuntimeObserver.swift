import Logging
import Synchronization
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
    /// Every chat event a bot's transport delivered, before filtering (its own echoes included, where the server sends them).
    public var event: @Sendable (_ bot: String, _ event: BotEvent) -> Void = { _, _ in }
    /// Whether `event` wants typing changes even from a bot none of whose
    /// plugins listens to typing (a transcript that shows who types): else
    /// such a bot asks its server not to send them, where the server can.
    public var hearsTyping = false
    /// A send the transport confirmed.
    public var sent: @Sendable (_ bot: String, _ plugin: String, _ room: String, _ text: String) -> Void = { _, _, _, _ in }
    public var connection: @Sendable (_ bot: String, _ state: ConnectionState) -> Void = { _, _ in }
    /// Shared by every bot reporting here (copies share it): a fleet's
    /// connect failures in the log, at most `HeldLines.perSecond` a second.
    let connectFailures = HeldLines(noun: "connect failures")
    /// The same for lost links and returns: a server restart under a fleet
    /// loses every bot's link at once, and brings them all back.
    let linkLosses = HeldLines(noun: "lost links")
    let returns = HeldLines(noun: "returns online")
    /// And for rooms' shed events: a fleet in one busy room sheds in every bot.
    let sheds = HeldLines(noun: "shed reports")

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

/// Lines every bot of a fleet says at about one time: connect failures (in
/// an outage every bot fails on every attempt) and coming online. A thousand
/// of them would bury everything else: past ten lines a second (a burst of
/// ten) the rest are counted, and the count goes out with the next line let
/// through. One bot alone is never held back.
final class HeldLines: Sendable {
    static let perSecond = 10.0
    private let state = Mutex<(tokens: Double, at: Double, held: Int, flushing: Bool)>((perSecond, 0, 0, false))
    /// What the lines are, in the count: "connect failures".
    let noun: String

    init(noun: String) { self.noun = noun }

    /// Nil when the line is held back; else what to add to it (the count of
    /// those held back since the last one, if any).
    func admit(now: Double) -> String? {
        state.withLock { s in
            s.tokens = min(Self.perSecond, s.tokens + max(0, now - s.at) * Self.perSecond)
            s.at = now
            guard s.tokens >= 1 else {
                s.held += 1
                return nil
            }
            s.tokens -= 1
            defer { s.held = 0 }
            return s.held == 0 ? "" : " (and \(s.held) more \(noun) of this process held back)"
        }
    }

    /// After a held line: true for the one caller that should say the count
    /// later (`flush`), when no later line may come to carry it (a fleet's
    /// links are lost once, all together).
    func claimFlush() -> Bool {
        state.withLock { s in
            guard !s.flushing else { return false }
            s.flushing = true
            return true
        }
    }

    /// The count held back since the last line, as a line of its own (nil
    /// when a line let through has said it meanwhile).
    func flush() -> String? {
        state.withLock { s in
            s.flushing = false
            guard s.held > 0 else { return nil }
            defer { s.held = 0 }
            return "\(s.held) more \(noun) of this process held back"
        }
    }
}

/// What a fleet's log says of all its bots at once, so that 10,000 bots do
/// not log 10,000 alike lines: each bot's first `online` (through
/// `HeldLines`), the moment the last of them came online, and the sends
/// its plainly stopped bots left behind. (`Fleet` sums up their plain stops
/// and their reloads.)
final class FleetLines: Sendable {
    let size: Int
    let online = HeldLines(noun: "bots online")
    private let cameOnline = Mutex(0)
    /// Bots a stop left with sends not delivered: their names (the first
    /// few), how many, and their sends the journals keep or that are lost.
    private let unsent = Mutex((names: [String](), bots: 0, kept: 0, lost: 0))
    private let start = ContinuousClock.now

    init(size: Int) { self.size = size }

    /// Counts a bot's first time online; the line that says the whole fleet
    /// is, when this was the last of them.
    func firstOnline() -> String? {
        let n = cameOnline.withLock { n in
            n += 1
            return n
        }
        guard n == size else { return nil }
        let took = (Double((ContinuousClock.now - start).wholeMilliseconds) / 1000).formatted(.number.precision(.fractionLength(1)))
        return "all \(size) bots online, \(took) s after the start"
    }

    /// A plainly stopped bot's sends not delivered, for `unsentAtStop`.
    func leftUnsent(_ n: Int, by bot: String, journaled: Bool) {
        unsent.withLock { u in
            if u.names.count < 3 { u.names.append(bot) }
            u.bots += 1
            if journaled { u.kept += n } else { u.lost += n }
        }
    }

    /// One line for every bot the stop left with sends not delivered, nil
    /// when none was: "112 bots stopped with 8765 sends not delivered (g092,
    /// g062, g136 and 109 more): their journals send 8765 after the restart".
    func unsentAtStop() -> String? {
        let u = unsent.withLock { $0 }
        guard u.bots > 0 else { return nil }
        let total = u.kept + u.lost
        let names = u.names.joined(separator: ", ") + (u.bots > u.names.count ? " and \(u.bots - u.names.count) more" : "")
        var fates: [String] = []
        if u.kept > 0 { fates.append("their journals send \(u.kept) after the restart (within outbox_expiry)") }
        if u.lost > 0 { fates.append("\(u.lost) are lost, as their bots have no journal") }
        return "\(u.bots) bot\(u.bots == 1 ? "" : "s") stopped with \(total) send\(total == 1 ? "" : "s") not delivered (\(names)): "
            + fates.joined(separator: "; ")
    }
}
