import ParleyConfig
import ParleyCore
import ParleyWire

/// Where a Socket.IO server is and how to address its Engine.IO requests.
///
/// Config gives `server` as `ws://host:port`, `wss://host:port`,
/// `http(s)://host:port` or a bare `host:port` (plain WebSocket); the
/// Engine.IO path and extra query parameters come from `[bot.socketio]`.
public struct SocketIOEndpoint: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var tls: Bool
    /// The Engine.IO path, trailing slash kept (`/socket.io/`).
    public var path: String
    /// Extra query parameters, sent on every request in this order.
    public var query: [(String, String)]

    public init(host: String, port: Int, tls: Bool = false, path: String = "/socket.io/", query: [(String, String)] = []) {
        self.host = host
        self.port = port
        self.tls = tls
        self.path = path
        self.query = query
    }

    public static func == (a: SocketIOEndpoint, b: SocketIOEndpoint) -> Bool {
        a.host == b.host && a.port == b.port && a.tls == b.tls && a.path == b.path
            && a.query.map(\.0) == b.query.map(\.0) && a.query.map(\.1) == b.query.map(\.1)
    }

    /// Splits a `server` value into TLS or not and `host:port` (a scheme's
    /// default port when the URL names none); nil when it is not one of the forms.
    public static func parse(_ server: String) -> (tls: Bool, hostPort: String)? {
        let lower = server.lowercased()
        for (scheme, tls) in [("wss://", true), ("https://", true), ("ws://", false), ("http://", false)] where lower.hasPrefix(scheme) {
            var rest = server.dropFirst(scheme.count)
            if rest.hasSuffix("/") { rest = rest.dropLast() }
            if rest.contains("/") { return nil }
            if !rest.contains(":") || rest.hasSuffix("]") { return (tls, rest + (tls ? ":443" : ":80")) }
            return (tls, String(rest))
        }
        if lower.contains("://") { return nil }
        return (false, server)
    }

    /// The bot's `server` (`ws://`, `wss://`, `http(s)://` or `host:port`),
    /// else the embedded server of `transport` (REST reaches its server the same way).
    public static func of(_ bot: TransportTarget, transport: String) throws(ConfigError) -> SocketIOEndpoint {
        guard let server = bot.server else {
            let a = try bot.embeddedAddress(transport: transport)
            return SocketIOEndpoint(host: a.host, port: a.port)
        }
        guard let (tls, hostPort) = parse(server) else {
            throw bot.serverError("'\(Redactor.url(server))' is not ws://host:port, wss://host:port, http(s)://host:port or host:port")
        }
        let a = try HostPort.parse(hostPort, file: bot.file, line: bot.line)
        return SocketIOEndpoint(host: a.host, port: a.port, tls: tls)
    }

    /// The request target of an Engine.IO request: `path?EIO=4&transport=…[&sid=…][&extra]`.
    func target(transport: SocketIOOptions.Link, sid: String?) -> String {
        var s = path + "?EIO=\(EngineIO.version)&transport=" + transport.rawValue
        if let sid { s += "&sid=" + sid.percentEncoded }
        for (k, v) in query { s += "&" + k.percentEncoded + "=" + v.percentEncoded }
        return s
    }

    /// The same request as an absolute `http(s)://` URL, for the HTTP client.
    func url(transport: SocketIOOptions.Link, sid: String?) -> String {
        return (tls ? "https://" : "http://") + host.urlHost + ":\(port)" + target(transport: transport, sid: sid)
    }
}

