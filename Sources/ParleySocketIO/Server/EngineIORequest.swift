import NIOHTTP1

/// What an Engine.IO request asks for, read from its URI; or why it cannot be served.
///
/// The WebSocket upgrader and the HTTP handler both read requests here, so an
/// upgrade the upgrader declines reaches the HTTP handler and is refused with
/// the same answer.
struct EngineIORequest: Equatable {
    enum Transport: String {
        case polling, websocket
    }

    var transport: Transport
    /// Absent on a handshake.
    var sid: String?
    /// False when a handshake asks (`echo=false`) not to be sent the
    /// client's own messages back: a bot drops them anyway, and each would
    /// wake it for nothing.
    var ownEcho = true

    /// The refusals, with the JavaScript server's codes and messages.
    enum Refusal: Error, Equatable {
        case notFound
        case unknownTransport
        case unknownSession
        case badHandshakeMethod
        case badRequest
        case unsupportedVersion
        case payloadTooLarge
        case full

        var status: HTTPResponseStatus {
            switch self {
            case .notFound: .notFound
            case .payloadTooLarge: .payloadTooLarge
            case .full: .serviceUnavailable
            default: .badRequest
            }
        }

        /// The response body: JSON `{"code":…,"message":…}` where Engine.IO defines one.
        var body: (text: String, contentType: String) {
            switch self {
            case .notFound: ("Not Found", "text/plain; charset=UTF-8")
            case .payloadTooLarge: ("Payload Too Large", "text/plain; charset=UTF-8")
            case .unknownTransport: Self.json(0, "Transport unknown")
            case .unknownSession: Self.json(1, "Session ID unknown")
            case .badHandshakeMethod: Self.json(2, "Bad handshake method")
            case .badRequest: Self.json(3, "Bad request")
            case .full: Self.json(4, "Server full")
            case .unsupportedVersion: Self.json(5, "Unsupported protocol version")
            }
        }

        private static func json(_ code: Int, _ message: String) -> (String, String) {
            (#"{"code":\#(code),"message":"\#(message)"}"#, "application/json")
        }
    }

    /// Checks, in order: the path, `EIO=4`, a transport this server allows.
    /// Whether a `sid` names a live session is for the caller to find out.
    static func read(uri: String, config: SocketChatServer.Configuration) -> Result<EngineIORequest, Refusal> {
        let (path, query) = split(uri)
        guard path == config.path else { return .failure(.notFound) }
        var eio: Substring?
        var transport: Substring?
        var sid: Substring?
        var echo: Substring?
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let value = parts.count == 2 ? parts[1] : ""
            switch parts[0] {
            case "EIO": eio = value
            case "transport": transport = value
            case "sid": sid = value
            case "echo": echo = value
            default: continue
            }
        }
        guard eio == "4" else { return .failure(.unsupportedVersion) }
        guard let name = transport, let chosen = Transport(rawValue: String(name)) else { return .failure(.unknownTransport) }
        switch chosen {
        case .polling where !config.allowPolling, .websocket where !config.allowWebSocket:
            return .failure(.unknownTransport)
        default:
            // An empty sid is no sid, as in the JavaScript server.
            return .success(EngineIORequest(transport: chosen, sid: sid.flatMap { $0.isEmpty ? nil : String($0) },
                                            ownEcho: echo != "false" && echo != "0"))
        }
    }

    private static func split(_ uri: String) -> (Substring, Substring) {
        guard let q = uri.firstIndex(of: "?") else { return (uri[...], "") }
        return (uri[..<q], uri[uri.index(after: q)...])
    }
}
