import NIOCore
import NIOPosix
import ParleyNet

/// The embedded SocketChat server behind `parley serve --socketio` and
/// `parley demo --transport socketio`.
///
/// It speaks Engine.IO v4 (WebSocket, HTTP long-polling, and the upgrade from
/// one to the other) and Socket.IO v5 (codecs in `ParleyWire`), and hosts the
/// seed's SocketChat behaviour in every namespace, each namespace a room of
/// its own. Like the StreamChat server it defends itself: payloads, queues
/// and sessions are bounded, silent and non-reading clients are dropped, and
/// malformed input costs only the client that sent it its connection.
///
/// ```swift
/// let server = try await SocketChatServer.start(.init(port: 0))
/// print(server.port)  // ws://127.0.0.1:PORT/socket.io/?EIO=4&transport=websocket
/// await server.shutdown()
/// ```
public final class SocketChatServer: Sendable {
    /// The port the server listens on (the one picked when `Configuration.port` is 0).
    public var port: Int { listener.port }
    /// The host the server listens on.
    public var host: String { listener.host }

    private let listener: ChatListener
    private let registry: SessionRegistry

    private init(listener: ChatListener, registry: SessionRegistry) {
        self.listener = listener
        self.registry = registry
    }

    /// Binds the listener and starts accepting clients.
    ///
    /// - Parameters:
    ///   - config: addresses, Engine.IO settings and limits.
    ///   - group: the event loops connections and sessions run on; the shared NIO
    ///     singleton by default, so starting and stopping servers creates no threads.
    public static func start(
        _ config: Configuration,
        on group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> SocketChatServer {
        let registry = SessionRegistry(maxConnections: config.maxConnections)
        let server = ServerContext(config: config, registry: registry, rooms: RoomDirectory(registry: registry, moderators: Set(config.moderators), moderatorToken: config.moderatorToken,
                                                                                                     offlineUsers: config.offlineUsers))
        let bootstrap = ServerBootstrap.forChat(on: group, maxOutboundBytes: config.maxOutboundBytes)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    switch registry.admit(channel) {
                    case .admitted:
                        channel.closeFuture.whenComplete { _ in registry.release(channel) }
                        try EngineIOPipeline.configure(channel, server: server)
                    case .full(let n):
                        registry.countDropped()
                        config.log("dropped \(server.peer(of: channel)): server full (\(n) connections)")
                        throw ChannelError.ioOnClosedChannel
                    case .closing:
                        throw ChannelError.ioOnClosedChannel
                    }
                }
            }
        let listener = try await ChatListener(bootstrap, host: config.host, port: config.port)
        return SocketChatServer(listener: listener, registry: registry)
    }

    /// A consistent snapshot of the server's counters.
    public var stats: Stats { registry.stats }

    /// Stops accepting, ends every session and closes every connection, and waits
    /// until all are closed.
    ///
    /// Rooms announce nothing: everyone is leaving at once, and telling N
    /// clients about N departures would cost N² writes. Once this returns, a new
    /// server can bind the same port. Calling it twice is harmless.
    public func shutdown() async {
        await listener.close()
        let (sessions, connections) = registry.closeAll()
        let ended = sessions.map { session in session.loop.submit { session.shutdown() } }
        for done in ended { try? await done.get() }
        for connection in connections { connection.close(promise: nil) }
        for connection in connections { try? await connection.closeFuture.get() }
    }
}
