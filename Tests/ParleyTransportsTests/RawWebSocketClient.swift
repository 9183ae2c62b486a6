import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Synchronization

/// The event loops of the SocketChat tests' servers and clients: their own, so
/// that other suites' load on NIO's shared loops does not delay their timers.
let testGroup = MultiThreadedEventLoopGroup(numberOfThreads: 2)

/// A deliberately dumb WebSocket client: NIO's client upgrade, then exactly the
/// frames a test gives it (any size, fragmented, binary), and every frame the
/// server sends kept in arrival order, close frames included. It knows no
/// Engine.IO beyond, on request, answering `2` with `3`: tests speak the
/// protocol themselves, byte for byte.
///
/// What must happen on time (the upgrade request, first frames, pongs) happens
/// on the client's event loop, and arrivals are timestamped there: the test
/// tasks share two threads with suites that block them, and a starved test
/// must not look like a slow server.
final class RawWebSocketClient: Sendable {
    enum Event: Equatable, Sendable {
        case text(String)
        case binary([UInt8])
        case pong([UInt8])
        /// A close frame, or the connection ending without one.
        case closed
    }

    struct Received: Sendable {
        let event: Event
        let at: ContinuousClock.Instant
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let channel: any Channel
    private let inbox: Inbox

    private init(channel: any Channel, inbox: Inbox) {
        self.channel = channel
        self.inbox = inbox
    }

    /// Connects and upgrades; fails when the server answers anything but 101.
    ///
    /// - Parameters:
    ///   - reading: false stops reading from the socket once upgraded, to play a client that does not read.
    ///   - answeringPings: answer every `2` text frame with `3`, as a live Engine.IO client does.
    ///   - greeting: text frames sent as soon as the upgrade is done.
    static func connect(
        port: Int,
        query: String = "EIO=4&transport=websocket",
        path: String = "/socket.io/",
        reading: Bool = true,
        answeringPings: Bool = false,
        greeting: [String] = []
    ) async throws -> RawWebSocketClient {
        let inbox = Inbox()
        let upgraded = testGroup.next().makePromise(of: Void.self)
        var bootstrap = ClientBootstrap(group: testGroup)
        if !reading {
            // A small receive window fills up after a few frames.
            bootstrap = bootstrap.channelOption(.socketOption(.so_rcvbuf), value: 4096)
        }
        bootstrap = bootstrap
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let upgrader = NIOWebSocketClientUpgrader(
                        maxFrameSize: 1 << 24,
                        automaticErrorHandling: false,
                        upgradePipelineHandler: { channel, _ in
                            channel.eventLoop.makeCompletedFuture {
                                try channel.pipeline.syncOperations.addHandler(FrameCollector(inbox: inbox, answeringPings: answeringPings))
                                for text in greeting {
                                    channel.write(WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(string: text)), promise: nil)
                                }
                                channel.flush()
                                if !reading { channel.setOption(.autoRead, value: false).whenComplete { _ in } }
                            }
                        }
                    )
                    try channel.pipeline.syncOperations.addHTTPClientHandlers(
                        leftOverBytesStrategy: .forwardBytes,
                        withClientUpgrade: (upgraders: [upgrader], completionHandler: { _ in upgraded.succeed() })
                    )
                    var headers = HTTPHeaders()
                    headers.add(name: "Host", value: "127.0.0.1:\(port)")
                    headers.add(name: "Content-Length", value: "0")
                    let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "\(path)?\(query)", headers: headers)
                    try channel.pipeline.syncOperations.addHandler(UpgradeStarter(request: head, promise: upgraded))
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: "127.0.0.1", port: port).get()
        } catch {
            upgraded.fail(error)  // NIO traps on promises left unfulfilled
            throw error
        }
        do {
            try await upgraded.futureResult.get()
        } catch {
            try? await channel.close()
            throw error
        }
        return RawWebSocketClient(channel: channel, inbox: inbox)
    }

    func send(_ text: String) {
        send(WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(string: text)))
    }

    func send(binary: [UInt8]) {
        send(WebSocketFrame(fin: true, opcode: .binary, maskKey: .random(), data: ByteBuffer(bytes: binary)))
    }

    /// Any frame as given: fragments, control frames, oversize ones.
    func send(_ frame: WebSocketFrame) {
        channel.writeAndFlush(frame, promise: nil)
    }

    /// Closes the TCP connection without a close frame, like a crashed client.
    func disconnect() async {
        try? await channel.close()
    }

    /// The next event, or nil when nothing arrives in time.
    func next(timeout: Duration = .seconds(10)) async -> Event? {
        await received(timeout: timeout)?.event
    }

    /// The next event with the time it arrived.
    func received(timeout: Duration = .seconds(10)) async -> Received? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let received = inbox.take() { return received }
            if ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    /// The next text frame; throws on anything else.
    func text(timeout: Duration = .seconds(10)) async throws -> String {
        switch await next(timeout: timeout) {
        case .text(let text): return text
        case let other: throw Failure(description: "expected a text frame, got \(other.map { "\($0)" } ?? "nothing within \(timeout)")")
        }
    }

    /// Reads text frames until one satisfies `match`; returns it. Throws if the connection ends first.
    func text(timeout: Duration = .seconds(10), where match: (String) -> Bool) async throws -> String {
        while true {
            let text = try await text(timeout: timeout)
            if match(text) { return text }
        }
    }

    /// True when the server closes the connection in time (frames before the close are discarded).
    func closedByServer(within timeout: Duration = .seconds(10)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while let event = await next(timeout: deadline - ContinuousClock.now) {
            if event == .closed { return true }
        }
        return false
    }
}

/// What the server sent, in order; filled on the channel's loop, read by tests.
private final class Inbox: Sendable {
    private let events = Mutex<(queue: [RawWebSocketClient.Received], closed: Bool)>(([], false))

    func add(_ event: RawWebSocketClient.Event) {
        let now = ContinuousClock.now
        events.withLock { e in
            guard !e.closed else { return }
            if event == .closed { e.closed = true }
            e.queue.append(.init(event: event, at: now))
        }
    }

    func take() -> RawWebSocketClient.Received? {
        events.withLock { $0.queue.isEmpty ? nil : $0.queue.removeFirst() }
    }
}

private final class FrameCollector: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame
    private let inbox: Inbox
    private let answeringPings: Bool

    init(inbox: Inbox, answeringPings: Bool) {
        self.inbox = inbox
        self.answeringPings = answeringPings
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        let bytes = Array(frame.unmaskedData.readableBytesView)
        switch frame.opcode {
        case .text:
            let text = String(decoding: bytes, as: UTF8.self)
            inbox.add(.text(text))
            if answeringPings, text == "2" {
                let pong = WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(string: "3"))
                context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
            }
        case .binary: inbox.add(.binary(bytes))
        case .pong: inbox.add(.pong(bytes))
        case .connectionClose:
            inbox.add(.closed)
            context.close(promise: nil)
        default: break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        inbox.add(.closed)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// Sends the upgrade request once connected; fails the upgrade when the server
/// answers with something else than 101, or hangs up.
private final class UpgradeStarter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias OutboundOut = HTTPClientRequestPart
    private let request: HTTPRequestHead
    private let promise: EventLoopPromise<Void>

    init(request: HTTPRequestHead, promise: EventLoopPromise<Void>) {
        self.request = request
        self.promise = promise
    }

    func channelActive(context: ChannelHandlerContext) {
        context.write(wrapOutboundOut(.head(request)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.fireChannelActive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(error)
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(RawWebSocketClient.Failure(description: "connection closed before the upgrade"))
        context.fireChannelInactive()
    }
}

/// One plain HTTP request per connection (`Connection: close`), for long-polling.
/// Async, so that a held long-poll does not block a test thread.
enum RawHTTP {
    struct Response: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: String
    }

    /// A request under way: its connection, to hang up on, and its answer.
    struct Pending: Sendable {
        let channel: any Channel
        let response: EventLoopFuture<Response>

        func get() async throws -> Response { try await response.get() }
    }

    static func request(_ method: HTTPMethod = .GET, port: Int, uri: String, body: String? = nil, headers extra: [(String, String)] = []) async throws -> Response {
        try await start(method, port: port, uri: uri, body: body, headers: extra).get()
    }

    static func start(_ method: HTTPMethod = .GET, port: Int, uri: String, body: String? = nil, headers extra: [(String, String)] = []) async throws -> Pending {
        let promise = testGroup.next().makePromise(of: Response.self)
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: "127.0.0.1:\(port)")
        headers.add(name: "Connection", value: "close")
        headers.add(name: "Content-Length", value: String(body?.utf8.count ?? 0))
        for (name, value) in extra { headers.add(name: name, value: value) }
        let head = HTTPRequestHead(version: .http1_1, method: method, uri: uri, headers: headers)
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: testGroup)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        try channel.pipeline.syncOperations.addHandler(ResponseCollector(request: head, body: body, promise: promise))
                    }
                }
                .connect(host: "127.0.0.1", port: port).get()
        } catch {
            promise.fail(error)  // NIO traps on promises left unfulfilled
            throw error
        }
        return Pending(channel: channel, response: promise.futureResult)
    }

    /// Sends the request once connected, then collects the response.
    private final class ResponseCollector: ChannelInboundHandler {
        typealias InboundIn = HTTPClientResponsePart
        typealias OutboundOut = HTTPClientRequestPart
        private let request: HTTPRequestHead
        private let requestBody: String?
        private let promise: EventLoopPromise<Response>
        private var head: HTTPResponseHead?
        private var body = ByteBuffer()

        init(request: HTTPRequestHead, body: String?, promise: EventLoopPromise<Response>) {
            self.request = request
            self.requestBody = body
            self.promise = promise
        }

        func channelActive(context: ChannelHandlerContext) {
            context.write(wrapOutboundOut(.head(request)), promise: nil)
            if let requestBody { context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: requestBody)))), promise: nil) }
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            context.fireChannelActive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let h): head = h
            case .body(var part): body.writeBuffer(&part)
            case .end:
                if let head {
                    promise.succeed(Response(status: Int(head.status.code), headers: head.headers, body: String(buffer: body)))
                }
                context.close(promise: nil)
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            promise.fail(RawWebSocketClient.Failure(description: "connection closed without a complete response"))
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            promise.fail(error)
            context.close(promise: nil)
        }
    }
}
