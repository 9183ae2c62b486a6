import ParleyConfig

/// A transport as a config file and the fleet know it: its name, how it reads
/// its `[bot.<name>]` table, and (through the options it reads) how it makes
/// a bot's `Transport`.
///
/// Why a registry and not an enum: adding a transport is then a module that
/// declares one `TransportDriver`, and one line in the list the program runs
/// with; nothing in the config reader or the fleet changes.
public struct TransportDriver: Sendable {
    /// The value of `transport = "…"`, and the name of its `[bot.<name>]` table.
    public let name: String
    /// Reads `[bot.<name>]` (nil when the bot has none) and, when this is the
    /// bot's transport, checks the bot's other keys against what it can carry.
    public let read: @Sendable (_ table: TableReader?, _ bot: TransportBotKeys) throws -> any TransportOptions

    public init(name: String,
                read: @escaping @Sendable (_ table: TableReader?, _ bot: TransportBotKeys) throws -> any TransportOptions) {
        self.name = name
        self.read = read
    }
}

/// A transport's own settings, read from `[bot.<name>]`: they make the
/// transport of one bot.
public protocol TransportOptions: Sendable {
    func makeTransport(for bot: TransportTarget) throws(ConfigError) -> any Transport
}

/// The keys of a `[[bot]]` a transport may check while its table is read.
public struct TransportBotKeys: Sendable {
    /// The `[[bot]]` table, for errors that point at its keys.
    public var table: TableReader
    /// Whether `transport` names this transport (only then are the bot's keys checked).
    public var chosen: Bool
    /// The bot's names: one, or a fleet's (`count`) with `{n}` filled in.
    public var names: [String]
    public var rooms: [String]
    public var server: String?
    /// Makes a path from the config absolute (against the config file's folder).
    public var resolve: @Sendable (String) -> String

    public init(table: TableReader, chosen: Bool, names: [String], rooms: [String], server: String?,
                resolve: @escaping @Sendable (String) -> String) {
        self.table = table
        self.chosen = chosen
        self.names = names
        self.rooms = rooms
        self.server = server
        self.resolve = resolve
    }
}

/// One bot, as its transport is made for it.
public struct TransportTarget: Sendable {
    public var name: String
    public var rooms: [String]
    /// The config's `server`; nil: the embedded server's `embedded` address, if there is one.
    public var server: String?
    public var embedded: HostPort?
    /// What a bot on the embedded server connects with (its moderator token):
    /// used only when `server` is nil.
    public var embeddedAuth: [String: String] = [:]
    public var connectTimeout: Double
    /// Where the transport logs, with the bot's name.
    public var log: @Sendable (String) -> Void
    /// The config file and the `[[bot]]` line, for errors.
    public var file: String
    public var line: Int

    public init(name: String, rooms: [String], server: String?, embedded: HostPort?, connectTimeout: Double,
                log: @escaping @Sendable (String) -> Void, file: String, line: Int) {
        self.name = name
        self.rooms = rooms
        self.server = server
        self.embedded = embedded
        self.connectTimeout = connectTimeout
        self.log = log
        self.file = file
        self.line = line
    }

    /// The `server` (`host:port`), else the embedded server's address, else an error naming the transport.
    public func address(transport: String) throws(ConfigError) -> HostPort {
        guard let server else { return try embeddedAddress(transport: transport) }
        return try HostPort.parse(server, file: file, line: line)
    }

    /// The embedded server's address, or the error of a bot that names no server where none runs.
    public func embeddedAddress(transport: String) throws(ConfigError) -> HostPort {
        guard let embedded else {
            throw ConfigError(kind: .missingKey, file: file, line: line, key: "bot.server",
                              message: "no server and no embedded \(transport) server")
        }
        return embedded
    }

    /// A config error about this bot's `server`.
    public func serverError(_ message: String) -> ConfigError {
        ConfigError(kind: .invalidValue, file: file, line: line, key: "bot.server", message: message)
    }
}

/// `host:port` of a server or a listener.
public struct HostPort: Sendable, Hashable {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// `host:port`, with a bracketed IPv6 host allowed (`[::1]:5080`); port 0
    /// (pick a free one) only where `allowAnyPort` says a listener is meant.
    public static func parse(_ s: String, file: String = "", line: Int = 0, key: String = "bot.server",
                             allowAnyPort: Bool = false) throws(ConfigError) -> HostPort {
        let ports = allowAnyPort ? 0...65535 : 1...65535
        guard let colon = s.lastIndex(of: ":"), let port = Int(s[s.index(after: colon)...]), ports.contains(port) else {
            throw ConfigError(kind: .invalidValue, file: file, line: line, key: key,
                              message: "'\(s)' is not host:port (e.g. 127.0.0.1:5080)")
        }
        var host = String(s[..<colon])
        let bracketed = host.hasPrefix("[") && host.hasSuffix("]")
        if bracketed { host = String(host.dropFirst().dropLast()) }
        if host.isEmpty {
            throw ConfigError(kind: .invalidValue, file: file, line: line, key: key, message: "'\(s)' has no host")
        }
        // A URL (`http://host:port`) or a second port is no host: said here, not met as "unknown host" on every reconnect.
        if host.contains("/") || (!bracketed && host.contains(":")) || host.contains(where: { $0.isWhitespace }) {
            throw ConfigError(kind: .invalidValue, file: file, line: line, key: key,
                              message: "'\(s)' is not host:port (e.g. 127.0.0.1:5080; no scheme or path, IPv6 in brackets)")
        }
        return HostPort(host: host, port: port)
    }
}

/// The transports a program knows, in the order their names are listed.
public struct TransportRegistry: Sendable {
    public let drivers: [TransportDriver]

    public init(_ drivers: [TransportDriver]) {
        self.drivers = drivers
    }

    public var names: [String] { drivers.map(\.name) }
}
