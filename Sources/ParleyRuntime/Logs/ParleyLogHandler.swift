#if canImport(Glibc)
import Glibc
#endif
import Logging
import ParleyWire

/// What a log line looks like: `text` for people, `json` for log shippers.
public enum LogFormat: String, Sendable, CaseIterable {
    /// `2026-11-27T12:37:10.273Z greeter[moderator] warn: text`
    case text
    /// One object per line: `{"time":…,"level":…,"bot":…,"plugin":…,"message":…}` and any other metadata.
    case json
}

/// The swift-log handler of `run`, `serve` and `demo`: one line per record
/// on standard error, through `LogOutput`, so a log that fails never stops a
/// bot. Secrets are masked before a line reaches a logger (each bot's
/// transport redactor), never here.
public struct ParleyLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    private let format: LogFormat
    private let output: LogOutput

    public init(format: LogFormat, level: Logger.Level, output: LogOutput = .standardError) {
        self.format = format
        self.logLevel = level
        self.output = output
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var all = metadata
        if let extra = event.metadata { all.merge(extra) { $1 } }
        let time = Self.timestamp(Clock.wallTime())
        switch format {
        case .text:
            let bot = all.removeValue(forKey: "bot").map { "\($0)" }
            let plugin = all.removeValue(forKey: "plugin").map { "\($0)" }
            let who = bot.map { b in plugin.map { "\(b)[\($0)]" } ?? b } ?? "parley"
            all.removeValue(forKey: "transport")
            let rest = all.isEmpty ? "" : " (" + all.keys.sorted().map { "\($0)=\(all[$0]!)" }.joined(separator: " ") + ")"
            output.write(Self.oneLine("\(time) \(who) \(Self.name(event.level)): \(event.message)\(rest)"))
        case .json:
            var o = JSONObjectWriter()
            o.add("time", time)
            o.add("level", Self.name(event.level))
            for key in all.keys.sorted() { o.add(key, "\(all[key]!)") }
            o.add("message", "\(event.message)")
            output.write(o.finish())
        }
    }

    /// A record is one line: control characters (a chat user's name or text
    /// carried into a plugin's log line) are written escaped, never raw, so
    /// no one can forge a line or drive the operator's terminal.
    public static func oneLine(_ line: String) -> String {
        // C0, DEL, and the lead bytes of C1 controls and U+2028/U+2029.
        guard line.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 || $0 == 0xE2 }) else { return line }
        var out = ""
        out.reserveCapacity(line.utf8.count + 16)
        for u in line.unicodeScalars {
            switch u.value {
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0..<0x20, 0x7F...0x9F, 0x2028, 0x2029: out += "\\u{\(String(u.value, radix: 16))}"
            default: out.unicodeScalars.append(u)
            }
        }
        return out
    }

    /// swift-log's levels as Parley has always printed them (`warn`, not `warning`).
    public static func name(_ level: Logger.Level) -> String {
        switch level {
        case .warning: "warn"
        default: level.rawValue
        }
    }

    /// `2026-11-27T12:37:10.273Z`, without a formatter object per line.
    static func timestamp(_ t: Double) -> String {
        var seconds = time_t(t.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let ms = Int((t - t.rounded(.down)) * 1000)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let millis = ms < 10 ? "00\(ms)" : ms < 100 ? "0\(ms)" : "\(ms)"
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(millis)Z"
    }
}

/// A swift-log handler that hands each record to a closure as a `LogRecord`:
/// how the demo's transcript and the tests read the runtime's log.
struct ForwardingLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace
    let sink: @Sendable (LogRecord) -> Void

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var all = metadata
        if let extra = event.metadata { all.merge(extra) { $1 } }
        let level: LogRecord.Level = switch event.level {
        case .warning: .warn
        case .error, .critical: .error
        default: .info
        }
        sink(LogRecord(time: Clock.wallTime(), bot: all["bot"].map { "\($0)" } ?? "parley",
                       plugin: all["plugin"].map { "\($0)" }, level: level, text: "\(event.message)"))
    }
}

enum Clock {
    /// Seconds since 1970, as log lines show them.
    static func wallTime() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
