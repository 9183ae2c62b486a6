import NIOCore
import NIOPosix
import ParleyNet
import ParleyWire

/// The embedded StreamChat server behind `parley serve` and `parley demo`.
///
/// It speaks the seed's raw TCP protocol (frames and lines live in
/// `ParleyWire.StreamChat`) to any number of clients, and defends itself the
/// way a public server has to: every per-connection buffer is bounded, idle
/// and non-reading clients are dropped, and no byte sequence can crash it.
/// A misbehaving client only ever costs that client its connection.
///
/// ```swift
/// let server = try await StreamChatServer.start(.init(port: 0))
/// print(server.port)
/// await server.shutdown()
/// ```
public final class StreamChatServer: Sendable {
    /// The port the server listens on (the one picked when `Configuration.port` is 0).
    public var port: Int { listener.port }
    /// The host the server listens on.
    public var host: String { listener.host }

    private let listener: ChatListener
    private let hub: Hub

    private init(listener: ChatListener, hub: Hub) {
        self.listener = listener
        self.hub = hub
    }

    /// Binds the listener and starts accepting clients.
    ///
    /// - Parameters:
    ///   - config: addresses and limits.
    ///   - group: the event loops connections run on; the shared NIO singleton
    ///     by default, so starting and stopping servers (as tests do) creates no threads.
    public static func start(
        _ config: Configuration,
        on group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> StreamChatServer {
        let hub = Hub(maxConnections: config.maxConnections, observe: config.observe)
        let bootstrap = ServerBootstrap.forChat(on: group, maxOutboundBytes: config.maxOutboundBytes)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let keepalive = config.keepalive { try channel.setKeepalive(keepalive) }
                    let ops = channel.pipeline.syncOperations
                    try ops.addHandler(ByteToMessageHandler(StreamChatFrameDecoder(maxPendingBytes: config.maxPendingBytes)))
                    try ops.addHandler(StreamChatConnectionHandler(hub: hub, config: config))
                }
            }
        let listener = try await ChatListener(bootstrap, host: config.host, port: config.port)
        return StreamChatServer(listener: listener, hub: hub)
    }

    /// A consistent snapshot of the server's counters.
    public var stats: Stats { hub.stats }

    /// Stops accepting, closes every client and waits until all are closed.
    ///
    /// Clients get no `has left` lines: everyone is leaving at once, and
    /// telling N clients about N departures would cost N² writes. Once this
    /// returns, a new server can bind the same port. Calling it twice is harmless.
    public func shutdown() async {
        await listener.close()
        let clients = hub.closeAll()
        for client in clients { client.close(promise: nil) }
        for client in clients { try? await client.closeFuture.get() }
    }
}
