import ParleyConfig

/// `[bot.http]`: where a bot's plugins may send requests (`bot.http`), and
/// what each plugin may spend on them. Nothing is reachable by default.
public struct HTTPOptions: Sendable, Equatable {
    /// `allow`: hosts, `*.domain` wildcards and addresses, each optionally with a port.
    public var allow: [AllowedHost] = []
    /// `timeout`: seconds for a whole request, redirects included; a plugin may ask for less.
    public var timeout: Double = 10
    /// `max_bytes`: the largest response body; a longer one fails the request.
    public var maxBytes: Int = 1 << 20
    /// `requests_per_event`: `bot.http` calls one handler may make.
    public var requestsPerEvent: Int = 5
    /// `in_flight`: a plugin's requests not yet answered.
    public var inFlight: Int = 10
    /// Redirects followed, each checked like the first request.
    public static let maxRedirects = 5

    public init() {}

    static func read(_ t: TableReader) throws(ConfigError) -> HTTPOptions {
        var o = HTTPOptions()
        var allow: [AllowedHost] = []
        for entry in try t.stringArray("allow", default: []) {
            guard let host = AllowedHost(entry) else {
                throw t.error("allow", "'\(entry)' is not a host, *.domain or address, with an optional :port")
            }
            allow.append(host)
        }
        o.allow = allow
        o.timeout = try t.double("timeout", default: o.timeout, range: 0.1...600)
        o.maxBytes = try t.int("max_bytes", default: o.maxBytes, range: 1...(64 << 20))
        o.requestsPerEvent = try t.int("requests_per_event", default: o.requestsPerEvent, range: 0...1000)
        o.inFlight = try t.int("in_flight", default: o.inFlight, range: 1...10_000)
        return o
    }

    /// The entry that lets a plugin reach `host:port`, if any.
    func entry(host: String, port: Int) -> AllowedHost? {
        allow.first { $0.matches(host: host, port: port) }
    }
}

/// One `allow` entry: `api.example.com`, `*.example.org`, `127.0.0.1:8080`, `[::1]:8080`.
public struct AllowedHost: Sendable, Equatable {
    /// Lower case, without brackets; `*.example.org` keeps its `*.`.
    public var host: String
    public var port: Int?

    public init?(_ text: String) {
        var rest = Substring(text.lowercased())
        var port: Int?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return nil }
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let p = Int(after.dropFirst()), (1...65535).contains(p) else { return nil }
                port = p
            }
            rest = rest[rest.index(after: rest.startIndex)..<close]
            guard rest.contains(":") else { return nil }
        } else if let colon = rest.lastIndex(of: ":") {
            guard rest.firstIndex(of: ":") == colon else { return nil }  // IPv6 needs brackets
            guard let p = Int(rest[rest.index(after: colon)...]), (1...65535).contains(p) else { return nil }
            port = p
            rest = rest[..<colon]
        }
        let name = rest.hasPrefix("*.") ? rest.dropFirst(2) : rest
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || "-.:".contains($0) }) else { return nil }
        host = String(rest)
        self.port = port
    }

    func matches(host other: String, port other_port: Int) -> Bool {
        if let port, port != other_port { return false }
        let h = other.lowercased()
        if host.hasPrefix("*.") { return h.hasSuffix(host.dropFirst(1)) }
        return h == host
    }

    /// Whether this entry names that exact address (only such an entry lets
    /// a request reach a loopback or private address).
    func names(address: IPAddress) -> Bool {
        IPAddress(host) == address
    }
}
