import Crypto
import Foundation
import Hummingbird
import HummingbirdCore
import NIOHTTPTypes
import Logging
import Metrics
import NIOCore
import NIOPosix
import ParleyCore
import Prometheus
import Synchronization

/// `--http HOST:PORT`: the runtime's own web server, on Hummingbird.
///
/// - `GET /`: the dashboard (with a `FleetWatch`), live from `GET /events`
///   (server-sent events) and `GET /api/fleet` (one snapshot).
/// - `GET /metrics`: Prometheus text (swift-metrics' Prometheus backend).
/// - `GET /healthz`, `GET /readyz`: for Kubernetes' probes (see `Health`).
/// - `/hooks/BOT/PLUGIN/PATH`: a plugin's `bot.webhook`. The request
///   becomes an event of that bot; the answer is sent once the handler's
///   transaction is durable.
///
/// With a token, every request but the webhooks' (which have their own
/// signatures) and the probes' must carry it: `Authorization: Bearer TOKEN`, or `?token=`
/// for the browser's page and event stream, which cannot set headers.
public enum HTTPServer {
    /// Largest webhook body; larger is 413.
    public static let maxBodyBytes = 1 << 20
    /// Webhook requests a plugin takes per second (a burst of as many); more is 429.
    public static let webhookRate = 10.0

    /// What one client may hold: webhooks are open to anyone who can
    /// connect, so a slow or idle client must not use up the process's file
    /// descriptors (and fail `/healthz` with them).
    public struct Limits: Sendable {
        /// A connection with no request under way (headers half sent
        /// included) is closed after this.
        public var idleTimeout = Duration.seconds(30)
        /// A request must have arrived whole (body included) this long after
        /// its headers began; else its connection is closed.
        public var requestTimeout = Duration.seconds(10)
        /// Connections open at once; more are closed as they arrive.
        public var maxConnections = 512
        /// Dashboard streams (`/events`) open at once; more are answered 503.
        /// A stream never idles, so without its own cap open pages could hold
        /// every connection and shut the probes out.
        public var maxStreams = 64
        public init() {}
    }

    /// A plain-text answer (refusals, the probes).
    /// One of the runtime's own webhook answers, as text.
    static func reply(_ r: WebhookReply) -> Response {
        text(HTTPResponse.Status(code: r.status), r.body)
    }

    static func text(_ status: HTTPResponse.Status, _ body: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"],
                 body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    /// 405, with the methods the path takes.
    static func notAllowed(_ body: String, allow: String) -> Response {
        var refused = text(.methodNotAllowed, body)
        refused.headers[.allow] = allow
        return refused
    }

    /// Bootstraps swift-metrics with the Prometheus backend, once per process
    /// (swift-metrics allows only one); the registry `/metrics` prints.
    public static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // Handlers and journal syncs take micro- to milliseconds; the default buckets start at 5 ms.
        factory.defaultDurationHistogramBuckets = [
            .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1),
            .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
            .milliseconds(100), .milliseconds(250), .seconds(1), .seconds(5),
        ]
        MetricsSystem.bootstrap(factory)
        RuntimeMetrics.registerAll()
        return registry
    }()

    /// Binds `host:port` and lets it go, so an address in use or not this
    /// host's is found before any bot connects rather than after they all
    /// started. Another process may still take it in between: then the
    /// server's own bind fails, as before. A bare socket that never listens:
    /// a listener, however brief, would accept a client's connection and
    /// leave it unanswered.
    public static func probe(host: String, port: Int) throws {
        let address = try SocketAddress.makeAddressResolvingHost(host, port: port)
        let fd = socket(address.protocol.rawValue, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw IOError(errnoCode: errno, reason: "socket") }
        defer { close(fd) }
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        let bound = address.withSockAddr { pointer, size in bind(fd, pointer, socklen_t(size)) }
        if bound != 0 { throw IOError(errnoCode: errno, reason: "bind") }
    }

    /// The server's own event loop. The embedded chat servers and the
    /// transports' timers use NIO's shared group, which a fleet's join storm
    /// can keep busy for tens of seconds: a probe or a page must not queue
    /// behind chat traffic.
    static let loop = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    /// The server as a service of the process's service group.
    /// - Parameter onRunning: called with the bound port once it listens.
    public static func application(host: String, port: Int, runners: [BotRunner], logger: Logger,
                                   watch: FleetWatch? = nil, token: String? = nil, readyBackoff: Double = RuntimeOptions().readyBackoff,
                                   limits: Limits = Limits(),
                                   onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        let registry = Self.registry
        // The loops' lateness is read only here (metrics, dashboard): measured once served.
        runners.first?.loops.watchLag()
        let hooks = Webhooks(runners: runners, logger: logger)
        // HEAD is answered as GET without the body (a stream's is never started).
        let router = Router(options: .autoGenerateHeadEndpoints)
        if let token { router.add(middleware: BearerToken(token: token)) } else { router.add(middleware: AddressedByIP()) }
        router.get("/metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                     body: .init(byteBuffer: ByteBuffer(string: registry.emitToString())))
        }
        if let watch { Dashboard.routes(router, watch: watch, runners: runners, maxStreams: limits.maxStreams) }
        Health.routes(router, runners: runners, readyBackoff: readyBackoff)
        router.on("/hooks/**", method: .post) { req, ctx in await hooks.respond(req, ctx) }
        router.on("/hooks/**", method: .put) { req, ctx in await hooks.respond(req, ctx) }
        router.on("/hooks/**", method: .get) { req, ctx in await hooks.respond(req, ctx) }
        // HEAD too: it would run the handler, and its sends, for a link checker.
        for method in [HTTPRequest.Method.head, .delete, .patch] {
            router.on("/hooks/**", method: method) { _, _ in Self.notAllowed("webhooks take GET, POST and PUT\n", allow: "GET, POST, PUT") }
        }
        // The read-only paths say what they take, rather than that they are not there.
        for path in ["/metrics"] + Health.paths + (watch == nil ? [] : Dashboard.paths) {
            for method in [HTTPRequest.Method.post, .put, .delete, .patch] {
                router.on(RouterPath(path), method: method) { _, _ in Self.notAllowed("\(path) takes GET and HEAD\n", allow: "GET, HEAD") }
            }
        }
        let open = ConnectionCap.Count()
        let channel = HTTP1Channel.Configuration(
            additionalChannelHandlers: [ConnectionCap(open, max: limits.maxConnections), RequestDeadline(limits.requestTimeout.timeAmount)],
            idleTimeout: limits.idleTimeout.timeAmount)
        return Application(router: router, server: .http1(configuration: channel),
                           configuration: .init(address: .hostname(host, port: port), serverName: "parley"),
                           onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) },
                           eventLoopGroupProvider: .shared(loop), logger: logger)
    }
}

/// The webhook half of the server: finds the bot and plugin, checks size,
/// signature and rate, and hands the request to the bot.
final class Webhooks: Sendable {
    private let runners: [String: BotRunner]
    private let logger: Logger
    /// Per "bot/plugin": tokens left and when they were counted.
    private let buckets = Mutex<[String: (tokens: Double, at: Double)]>([:])
    /// Refused signatures in the log: a line a second per webhook, with a count.
    private let refusals = Mutex(QuotaLog())

    init(runners: [BotRunner], logger: Logger) {
        self.runners = Dictionary(runners.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        self.logger = logger
    }

    func respond(_ request: Request, _ context: some RequestContext) async -> Response {
        // The count of refusals held back goes out with the next request, whatever it is.
        let held = refusals.withLock { $0.flush(now: Date().timeIntervalSince1970, force: false) }
        for (_, line) in held { logger.warning("\(line)") }
        let parts = context.parameters.getCatchAll().map(String.init)
        guard parts.count >= 3, let runner = runners[parts[0]] else { return HTTPServer.reply(.notFound) }
        let plugin = parts[1]
        let path = parts[2...].joined(separator: "/")
        switch await runner.servesWebhook(plugin: plugin, path: path) {
        case .notFound: return HTTPServer.reply(.notFound)
        case .pluginDisabled: return HTTPServer.reply(.pluginTurnedOff(plugin))
        case .served: break
        }
        // A declared length over the limit is refused before any of the body is waited for.
        if let declared = request.headers[.contentLength], !declared.isEmpty, declared.allSatisfy(\.isASCII), declared.allSatisfy(\.isNumber),
           Int(declared).map({ $0 > HTTPServer.maxBodyBytes }) ?? true {
            return HTTPServer.text(.contentTooLarge, "body over \(HTTPServer.maxBodyBytes) bytes\n")
        }
        let body: ByteBuffer
        do {
            // A body that drips is cut off by `RequestDeadline`, which closes the connection.
            body = try await request.body.collect(upTo: HTTPServer.maxBodyBytes)
        } catch {
            return HTTPServer.text(.contentTooLarge, "body over \(HTTPServer.maxBodyBytes) bytes\n")
        }
        let bytes = Array(body.readableBytesView)
        if let secret = runner.spec.webhookSecrets[plugin] {
            let signature = request.headers.first { $0.name.canonicalName == "x-hub-signature-256" }?.value ?? ""
            guard Self.verify(signature, body: bytes, secret: secret) else {
                // Anyone can send these: a flood of them must not flood the log.
                let now = Date().timeIntervalSince1970
                let key = runner.name + "/" + plugin
                if let line = refusals.withLock({ $0.report(plugin: key, "webhook \(key)/\(path): bad or missing X-Hub-Signature-256, refused (401)", now: now) }) {
                    logger.warning("\(line)")
                }
                return HTTPServer.text(.unauthorized, "bad signature\n")
            }
        }
        guard take(token: runner.name + "/" + plugin) else {
            var busy = HTTPServer.text(.tooManyRequests, "more than \(Int(HTTPServer.webhookRate)) requests a second\n")
            busy.headers[.retryAfter] = "1"
            return busy
        }
        let hook = WebhookRequest(method: request.method.rawValue, path: path, query: request.uri.query ?? "",
                                  headers: request.headers.map { HTTPHeader($0.name.canonicalName, $0.value) }, body: bytes)
        let reply = await runner.webhook(plugin: plugin, hook)
        return HTTPServer.reply(reply)
    }

    /// GitHub's scheme: `sha256=` and the hex HMAC-SHA256 of the body, compared in constant time.
    static func verify(_ header: String, body: [UInt8], secret: String) -> Bool {
        guard header.hasPrefix("sha256="), let given = hexBytes(header.dropFirst(7)), given.count == 32 else { return false }
        let key = SymmetricKey(data: Array(secret.utf8))
        return HMAC<SHA256>.isValidAuthenticationCode(given, authenticating: body, using: key)
    }

    private static func hexBytes(_ s: Substring) -> [UInt8]? {
        let digits = Array(s.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        var i = 0
        while i < digits.count {
            guard let hi = hex(digits[i]), let lo = hex(digits[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }

    private static func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case 48...57: c - 48
        case 97...102: c - 87
        case 65...70: c - 55
        default: nil
        }
    }

    /// A token bucket per plugin: `webhookRate` a second, bursts of as many.
    private func take(token key: String) -> Bool {
        let now = BotRunner.monotonic()
        return buckets.withLock { b in
            var (tokens, at) = b[key] ?? (HTTPServer.webhookRate, now)
            tokens = min(HTTPServer.webhookRate, tokens + (now - at) * HTTPServer.webhookRate)
            guard tokens >= 1 else {
                b[key] = (tokens, now)
                return false
            }
            b[key] = (tokens - 1, now)
            return true
        }
    }
}

extension Duration {
    /// NIO's kind of duration.
    var timeAmount: TimeAmount {
        .nanoseconds(components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000)
    }
}

/// Closes a connection whose request has not arrived whole (its body
/// included) within the deadline of its head: a client that drips a body
/// must not hold a connection, on any route. Closing, not answering 408:
/// the body's reader is the request's handler, mid-read.
final class RequestDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let limit: TimeAmount
    private var pending: Scheduled<Void>?

    init(_ limit: TimeAmount) { self.limit = limit }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            pending?.cancel()
            let channel = context.channel
            pending = context.eventLoop.scheduleTask(in: limit) { channel.close(promise: nil) }
        case .end:
            pending?.cancel()
            pending = nil
        case .body:
            break
        }
        context.fireChannelRead(data)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        pending?.cancel()
        pending = nil
    }
}

/// Closes a connection that arrives while `max` are open: the server's
/// file descriptors stay bounded whoever connects.
final class ConnectionCap: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    /// The open connections of one server.
    final class Count: Sendable {
        let open = Atomic(0)
    }

    private let count: Count
    private let max: Int

    init(_ count: Count, max: Int) {
        self.count = count
        self.max = max
    }

    private var counted = false

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { enter(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        enter(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        leave()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        leave()
    }

    private func enter(_ context: ChannelHandlerContext) {
        guard !counted else { return }
        counted = true
        if count.open.wrappingAdd(1, ordering: .relaxed).newValue > max { context.close(promise: nil) }
    }

    private func leave() {
        guard counted else { return }
        counted = false
        count.open.wrappingSubtract(1, ordering: .relaxed)
    }
}
