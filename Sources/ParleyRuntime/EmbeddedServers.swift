import ParleyCore
import ParleyServers

/// The embedded chat servers `parley run` starts for bots whose config names
/// no `server`: one per transport that needs it, on loopback, on free ports.
public final class EmbeddedServers: Sendable {
    public let streamchat: StreamChatServer?
    public let socketio: SocketChatServer?

    private init(streamchat: StreamChatServer?, socketio: SocketChatServer?) {
        self.streamchat = streamchat
        self.socketio = socketio
    }

    /// Starts what `bots` need; `log` gets each server's notable events.
    public static func start(for bots: [BotConfig], log: @escaping @Sendable (String) -> Void) async throws -> EmbeddedServers {
        let needed = Set(bots.filter { $0.server == nil }.map(\.transport))
        let streamchat = needed.contains(.streamchat)
            ? try await StreamChatServer.start(.init(log: { log("streamchat: \($0)") })) : nil
        let socketio: SocketChatServer?
        do {
            socketio = needed.contains(.socketio) ? try await SocketChatServer.start(.init(log: { log("socketio: \($0)") })) : nil
        } catch {
            await streamchat?.shutdown()
            throw error
        }
        return EmbeddedServers(streamchat: streamchat, socketio: socketio)
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
