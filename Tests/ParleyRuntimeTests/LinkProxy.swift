import NIOCore
import NIOPosix
import Synchronization

/// A loopback TCP proxy that can go silent: `blackhole()` stops forwarding in
/// both directions without closing anything, the way a dead NAT entry or a
/// pulled cable looks to both ends. Used to prove heartbeat loss is noticed.
/// `silenceExisting()` does the same to the connections open now only, so a
/// client that notices and reconnects gets through at once (a dead NAT entry:
/// the old flow is gone, a new one works).
final class LinkProxy: Sendable {
    let port: Int
    private let channel: Channel
    private let silent: SilentFlag
    private let links: Links

    private init(port: Int, channel: Channel, silent: SilentFlag, links: Links) {
        self.port = port
        self.channel = channel
        self.silent = silent
        self.links = links
    }

    static func start(upstreamPort: Int) async throws -> LinkProxy {
        let box = SilentFlag()
        let links = Links()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { inbound in
                ClientBootstrap(group: inbound.eventLoop)
                    .connect(host: "127.0.0.1", port: upstreamPort)
                    .flatMapThrowing { outbound in
                        // Both channels are on inbound's event loop, where this runs.
                        let link = SilentFlag()
                        links.open.withLock { $0.append(link) }
                        links.clients.withLock { $0.append(inbound) }
                        try inbound.pipeline.syncOperations.addHandler(Glue(peer: outbound, silent: box, link: link))
                        try outbound.pipeline.syncOperations.addHandler(Glue(peer: inbound, silent: box, link: link))
                    }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return LinkProxy(port: channel.localAddress!.port!, channel: channel, silent: box, links: links)
    }

    func blackhole() { silent.set(true) }
    func restore() { silent.set(false) }

    /// Closes the client's side of every connection made so far (what a
    /// server restart looks like to the client), silenced ones included.
    func closeClientSides() {
        for c in links.clients.withLock({ l in defer { l.removeAll() }; return l }) { c.close(promise: nil) }
    }

    /// Every connection open now goes silent for good; later ones flow.
    func silenceExisting() {
        let now = links.open.withLock { l in defer { l.removeAll() }; return l }
        for l in now { l.set(true) }
    }

    func stop() async { try? await channel.close().get() }
}

/// The connections' own flags, for `silenceExisting`, and their client
/// sides, for `closeClientSides`.
private final class Links: Sendable {
    let open = Mutex<[SilentFlag]>([])
    let clients = Mutex<[Channel]>([])
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
    /// This connection's own switch (`silenceExisting`).
    private let link: SilentFlag

    init(peer: Channel, silent: SilentFlag, link: SilentFlag) {
        self.peer = peer
        self.silent = silent
        self.link = link
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Test traffic is small: forward without backpressure.
        if !silent.isSilent, !link.isSilent { peer.writeAndFlush(unwrapInboundIn(data), promise: nil) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        // A silenced link carries no close either (a pulled cable sends no
        // FIN): otherwise the far end's own timeout could close the link
        // first and the test would prove that end's check, not this one's.
        if !silent.isSilent, !link.isSilent { peer.close(promise: nil) }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }
}
