import ParleyCore
import ParleyRuntime
import ParleyServers
import ParleyTransports

/// The embedded chat servers `parley run` starts for bots whose config names
/// no `server`: one per transport that needs it, on loopback, on free ports.
public final class EmbeddedServers: Sendable {
    public let streamchat: StreamChatServer?
    public let socketio: SocketChatServer?

    private init(streamchat: StreamChatServer?, socketio: SocketChatServer?) {
        self.streamchat = streamchat
        self.socketio = socketio
    }

    /// Starts what `bots` need: a server for each transport some bot without
    /// a `server` speaks. `log` gets each server's notable events.
    public static func start(for bots: [BotConfig], log: @escaping @Sendable (String) -> Void) async throws -> EmbeddedServers {
        try await start(Set(bots.filter { $0.server == nil }.map(\.transport)), log: log)
    }

    /// Starts one server of each of `kinds` (those that have one: StreamChat, Socket.IO).
    public static func start(_ kinds: Set<TransportKind>, log: @escaping @Sendable (String) -> Void = { _ in }) async throws -> EmbeddedServers {
        let streamchat = kinds.contains(.streamchat)
            ? try await StreamChatServer.start(.init(log: { log("streamchat: \($0)") })) : nil
        let socketio: SocketChatServer?
        do {
            socketio = kinds.contains(.socketio) ? try await SocketChatServer.start(.init(log: { log("socketio: \($0)") })) : nil
        } catch {
            await streamchat?.shutdown()
            throw error
        }
        return EmbeddedServers(streamchat: streamchat, socketio: socketio)
    }

    /// A transport with default options for `name` on the embedded server of
    /// `kind` (the demo's bots and people); nil when that server is not running.
    public func transport(_ kind: TransportKind, name: String) -> (any Transport)? {
        switch kind {
        case .streamchat: streamchat.map { StreamChatTransport(host: "127.0.0.1", port: $0.port, name: name) }
        case .socketio: socketio.map { SocketIOTransport(endpoint: SocketIOEndpoint(host: "127.0.0.1", port: $0.port), name: name) }
        case .rest, .stomp: nil
        }
    }

    /// Where each one listens, for `BotSpecs.make`.
    public var addresses: [TransportKind: (host: String, port: Int)] {
        var a: [TransportKind: (host: String, port: Int)] = [:]
        if let streamchat { a[.streamchat] = ("127.0.0.1", streamchat.port) }
        if let socketio { a[.socketio] = ("127.0.0.1", socketio.port) }
        return a
    }

    public func shutdown() async {
        await streamchat?.shutdown()
        await socketio?.shutdown()
    }
}
