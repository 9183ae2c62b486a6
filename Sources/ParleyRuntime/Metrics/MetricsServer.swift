import Metrics
import NIOCore
import NIOHTTP1
import NIOPosix
import Prometheus

/// `--metrics HOST:PORT`: Prometheus text at `GET /metrics`.
///
/// Bootstraps swift-metrics with the Prometheus backend (once per process,
/// as swift-metrics requires) and serves the registry over a minimal
/// HTTP/1.1 listener; any other path is a 404.
public final class MetricsServer: Sendable {
    private let channel: any Channel
    public let port: Int

    private init(channel: any Channel) {
        self.channel = channel
        self.port = channel.localAddress?.port ?? 0
    }

    public static func start(host: String, port: Int) async throws -> MetricsServer {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // Handlers and journal syncs take micro- to milliseconds; the default buckets start at 5 ms.
        factory.defaultDurationHistogramBuckets = [
            .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1),
            .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
            .milliseconds(100), .milliseconds(250), .seconds(1), .seconds(5),
        ]
        MetricsSystem.bootstrap(factory)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(MetricsHandler(registry: registry))
                }
            }
            .bind(host: host, port: port).get()
        return MetricsServer(channel: channel)
    }

    public func shutdown() async {
        try? await channel.close().get()
    }
}

private final class MetricsHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let registry: PrometheusCollectorRegistry
    private var path = ""

    init(registry: PrometheusCollectorRegistry) { self.registry = registry }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): path = head.uri
        case .body: break
        case .end:
            let found = path == "/metrics" || path.hasPrefix("/metrics?")
            let body = found ? registry.emitToString() : "not found: try /metrics\n"
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: found ? "text/plain; version=0.0.4" : "text/plain")
            headers.add(name: "Content-Length", value: String(body.utf8.count))
            let head = HTTPResponseHead(version: .http1_1, status: found ? .ok : .notFound, headers: headers)
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}
