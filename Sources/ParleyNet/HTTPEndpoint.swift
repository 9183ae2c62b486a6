import ParleyConfig
import ParleyCore

/// A server reached over HTTP or WebSocket: host, port, and whether with TLS.
///
/// Config gives `server` as `ws://host:port`, `wss://host:port`,
/// `http(s)://host:port` or a bare `host:port` (plain).
public struct HTTPEndpoint: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var tls: Bool

    public init(host: String, port: Int, tls: Bool = false) {
        self.host = host
        self.port = port
        self.tls = tls
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

    /// The bot's `server`, else the embedded server of `transport`.
    public static func of(_ bot: TransportTarget, transport: String) throws(ConfigError) -> HTTPEndpoint {
        guard let server = bot.server else {
            let a = try bot.embeddedAddress(transport: transport)
            return HTTPEndpoint(host: a.host, port: a.port)
        }
        guard let (tls, hostPort) = parse(server) else {
            throw bot.serverError("'\(server)' is not ws://host:port, wss://host:port, http(s)://host:port or host:port")
        }
        let a = try HostPort.parse(hostPort, file: bot.file, line: bot.line)
        return HTTPEndpoint(host: a.host, port: a.port, tls: tls)
    }
}
