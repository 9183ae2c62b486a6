import AsyncHTTPClient
import ParleyCore
import ParleyNet
import ParleyWire

/// Where a STOMP server listens and over what: `ws://host:port/path`,
/// `wss://…` (STOMP over WebSocket, RabbitMQ Web-STOMP: `/ws`), or
/// `stomp://host:port`, `stomp+ssl://host:port` (STOMP over TCP).
public struct STOMPEndpoint: Sendable, Equatable, CustomStringConvertible {
    public enum Link: String, Sendable { case websocket, tcp }

    public var link: Link
    public var host: String
    public var port: Int
    public var tls: Bool
    /// Path and query of the WebSocket upgrade (`/ws`); unused over TCP.
    public var requestTarget: String

    public init(link: Link, host: String, port: Int, tls: Bool = false, requestTarget: String = "/ws") {
        self.link = link
        self.host = host
        self.port = port
        self.tls = tls
        self.requestTarget = requestTarget
    }

    /// Parses a URL; nil when it is none of the four forms or has no host.
    public static func parse(_ url: String) -> STOMPEndpoint? {
        let schemes: [(String, Link, Bool, Int)] = [
            ("ws://", .websocket, false, 80), ("wss://", .websocket, true, 443),
            ("stomp://", .tcp, false, 61613), ("stomp+ssl://", .tcp, true, 61614),
        ]
        let lower = url.lowercased()
        guard let (scheme, link, tls, defaultPort) = schemes.first(where: { lower.hasPrefix($0.0) }) else { return nil }
        let rest = url.dropFirst(scheme.count)
        let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        let authority = rest[..<slash]
        var target = String(rest[slash...])
        if target.isEmpty || target.hasPrefix("?") { target = "/" + target }
        var host = String(authority)
        var port = defaultPort
        if let close = authority.lastIndex(of: "]"), authority.hasPrefix("[") {
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let p = Int(after.dropFirst()), (1...65535).contains(p) else { return nil }
                port = p
            }
        } else if let colon = authority.lastIndex(of: ":") {
            guard let p = Int(authority[authority.index(after: colon)...]), (1...65535).contains(p) else { return nil }
            host = String(authority[..<colon])
            port = p
        }
        if host.isEmpty || host.contains("@") { return nil }
        if link == .tcp, target != "/" { return nil }
        return STOMPEndpoint(link: link, host: host, port: port, tls: tls, requestTarget: target)
    }

    /// The URL for logs: query values masked (a token may ride in one).
    public var description: String {
        switch link {
        case .websocket: return Redactor.url((tls ? "wss://" : "ws://") + host.urlHost + ":\(port)" + requestTarget)
        case .tcp: return (tls ? "stomp+ssl://" : "stomp://") + host.urlHost + ":\(port)"
        }
    }
}

/// Asks the chat-management server which socket server to use.
///
/// The endpoint answers a GET with `200` and either JSON `{"url": "ws://host:port/ws"}`
/// or the URL as plain text. Asked before every (re)connect, so a bot follows
/// its users to another socket server after a failover.
enum STOMPDiscovery {
    static func resolve(_ url: String, client: HTTPClient, timeout: Double) async throws -> STOMPEndpoint {
        let text: String
        do {
            text = try await HTTPClients.request(
                client: client, url: url, method: .GET, headers: [:], body: nil,
                timeout: .milliseconds(Int64(timeout * 1000)), limit: 64 << 10)
        } catch let e as TransportError {
            throw TransportError(e.kind, "STOMP discovery failed: \(e.message)")
        }
        let trimmed = String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        let address = (try? JSONValue.parse(trimmed))?["url"]?.string ?? trimmed
        guard let endpoint = STOMPEndpoint.parse(address) else {
            throw TransportError(.protocolViolation,
                                 "discovery \(Redactor.url(url)) answered \(String(trimmed.prefix(120)).debugDescription), not {\"url\": \"ws://host:port/path\"} or a ws://, wss://, stomp:// URL")
        }
        return endpoint
    }
}
