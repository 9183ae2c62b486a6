import NIOCore
import NIOPosix
import Synchronization

/// A loopback TCP proxy that can go silent: `blackhole()` stops forwarding in
/// both directions without closing anything, the way a dead NAT entry or a
/// pulled cable looks to both ends. Used to prove heartbeat loss is noticed.
final class LinkProxy: Sendable {
    let port: Int
    private let channel: Channel
    private let silent: SilentFlag

    private init(port: Int, channel: Channel, silent: SilentFlag) {
        self.port = port
        self.channel = channel
        self.silent = silent
    }

    static func start(upstreamPort: Int) async throws -> LinkProxy {
        let box = SilentFlag()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { inbound in
                ClientBootstrap(group: inbound.eventLoop)
                    .connect(host: "127.0.0.1", port: upstreamPort)
                    .flatMap { outbound in
                        inbound.pipeline.addHandler(Glue(peer: outbound, silent: box)).flatMap {
                            outbound.pipeline.addHandler(Glue(peer: inbound, silent: box))
                        }
                    }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return LinkProxy(port: channel.localAddress!.port!, channel: channel, silent: box)
    }

    func blackhole() { silent.set(true) }
    func restore() { silent.set(false) }

    func stop() async { try? await channel.close().get() }
}

/// Shares the proxy's flag with its handlers.
private final class SilentFlag: Sendable {
    private let flag = Atomic(false)
    var isSilent: Bool { flag.load(ordering: .relaxed) }
    func set(_ on: Bool) { flag.store(on, ordering: .relaxed) }
}

/// Copies bytes to the other side unless the proxy is silent.
private final class Glue: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let peer: Channel
    private let silent: SilentFlag

    init(peer: Channel, silent: SilentFlag) {
        self.peer = peer
        self.silent = silent
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Test traffic is small: forward without backpressure.
        if !silent.isSilent { peer.writeAndFlush(unwrapInboundIn(data), promise: nil) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        peer.close(promise: nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }
}
