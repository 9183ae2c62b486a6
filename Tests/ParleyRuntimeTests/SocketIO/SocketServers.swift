import Foundation
import ParleyCore
import ParleySocketIO
import Testing

/// The two Socket.IO servers every scenario runs against: python-socketio
/// (the third-party reference) and Parley's embedded SocketChat server.
enum SocketServerKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case python, embedded
    var testDescription: String { rawValue }
}

/// How a test wants its server.
struct SocketServerSettings: Sendable {
    var pingInterval: Double = 25
    var pingTimeout: Double = 20
    var pollingOnly = false
    var authToken: String?
    /// python only: append what the room receives to this file (`--record`), kept across restarts.
    var record: String?
}

/// A running Socket.IO chat server of either kind, restartable on its port.
final class SocketServer: Sendable {
    let kind: SocketServerKind
    let port: Int
    let settings: SocketServerSettings
    private let python: PythonPeer?
    private let embedded: SocketChatServer?

    private init(kind: SocketServerKind, port: Int, settings: SocketServerSettings, python: PythonPeer?, embedded: SocketChatServer?) {
        self.kind = kind
        self.port = port
        self.settings = settings
        self.python = python
        self.embedded = embedded
    }

    static func start(_ kind: SocketServerKind, _ settings: SocketServerSettings = .init(), port: Int = 0) async throws -> SocketServer {
        switch kind {
        case .python:
            var args = ["--ping-interval", String(settings.pingInterval), "--ping-timeout", String(settings.pingTimeout)]
            if settings.pollingOnly { args += ["--transports", "polling"] }
            if let t = settings.authToken { args += ["--auth-token", t] }
            if let r = settings.record { args += ["--record", r] }
            let p = try await PythonSocketChat.start(args, port: port)
            return SocketServer(kind: kind, port: p.port, settings: settings, python: p, embedded: nil)
        case .embedded:
            let s = try await SocketChatServer.start(.init(
                port: port, pingInterval: .milliseconds(Int(settings.pingInterval * 1000)),
                pingTimeout: .milliseconds(Int(settings.pingTimeout * 1000)), allowWebSocket: !settings.pollingOnly))
            return SocketServer(kind: kind, port: s.port, settings: settings, python: nil, embedded: s)
        }
    }

    func stop() async {
        await python?.stop()
        await embedded?.shutdown()
    }

    /// A new server of the same kind and settings on the same port (all state lost).
    func restarted() async throws -> SocketServer {
        await stop()
        for attempt in 0..<50 {
            do {
                return try await SocketServer.start(kind, settings, port: port)
            } catch where attempt < 49 {
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        throw PeerError("unreachable")
    }

    /// A Socket.IO client transport for `name` on this server (or on `port`, a proxy in front of it).
    func transport(_ name: String, port: Int? = nil, rooms: [String] = ["lobby"], options: SocketIOOptions = SocketIOOptions(),
                   log: @escaping @Sendable (String) -> Void = { _ in }) -> SocketIOTransport {
        SocketIOTransport(endpoint: SocketIOEndpoint(host: "127.0.0.1", port: port ?? self.port), name: name,
                          rooms: rooms, options: options, connectTimeout: 5, log: log)
    }
}
