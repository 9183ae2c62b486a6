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
    public let port: Int
    /// The host the server listens on.
    public let host: String

    private let listener: any Channel
    private let hub: Hub

    private init(listener: any Channel, hub: Hub, host: String) {
        self.listener = listener
        self.hub = hub
        self.host = host
        self.port = listener.localAddress?.port ?? 0
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
        let outbound = max(1, config.maxOutboundBytes)
        let bootstrap = ServerBootstrap(group: group)
            // A restarted server must be able to bind the port its predecessor's
            // connections still hold in TIME_WAIT.
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            // Thousands of simulated users connect at once in the bench and demo.
            .serverChannelOption(.backlog, value: 4096)
            // Chat lines are small and latency matters more than packet count.
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            // The outbound bound: past `high` queued bytes the channel turns
            // unwritable and the handler drops the client that does not read.
            .childChannelOption(.writeBufferWaterMark, value: .init(low: outbound / 2, high: outbound))
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let keepalive = config.keepalive { try channel.setKeepalive(keepalive) }
                    let ops = channel.pipeline.syncOperations
                    try ops.addHandler(ByteToMessageHandler(StreamChatFrameDecoder(maxPendingBytes: config.maxPendingBytes)))
                    try ops.addHandler(StreamChatConnectionHandler(hub: hub, config: config))
                }
            }
        let listener = try await bootstrap.bind(host: config.host, port: config.port).get()
        return StreamChatServer(listener: listener, hub: hub, host: config.host)
    }

    /// A consistent snapshot of the server's counters.
    public var stats: Stats { hub.stats }

    /// Stops accepting, closes every client and waits until all are closed.
    ///
    /// Clients get no `has left` lines: everyone is leaving at once, and
    /// telling N clients about N departures would cost N² writes. Once this
    /// returns, a new server can bind the same port. Calling it twice is harmless.
    public func shutdown() async {
        try? await listener.close()
        let clients = hub.closeAll()
        for client in clients { client.close(promise: nil) }
        for client in clients { try? await client.closeFuture.get() }
    }
}
