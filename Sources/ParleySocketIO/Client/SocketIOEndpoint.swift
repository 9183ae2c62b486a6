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

