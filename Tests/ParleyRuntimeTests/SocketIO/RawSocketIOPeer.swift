import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import ParleyWire
import Synchronization
import ParleyTestSupport

/// A scriptable Engine.IO "server" that speaks nothing on its own: it accepts
/// `GET /socket.io/?EIO=4&transport=websocket`, upgrades, and from then on
/// sends exactly the frames a test tells it to (well-formed or not) and
/// records every frame the client sends. Any other HTTP request (a polling
/// attempt, a wrong path) gets a 404 and is recorded in `refusedRequests`.
///
/// It answers WebSocket ping frames and close frames, nothing else: no
/// Engine.IO pings, so tests announce a long pingInterval (the default of
/// `RawSocketIOConnection.open`) unless they mean to test the heartbeat.
final class RawSocketIOPeer: Sendable {
    let port: Int
    private let listener: Channel
    private let registry: Registry

    private init(port: Int, listener: Channel, registry: Registry) {
        self.port = port
        self.listener = listener
        self.registry = registry
    }

    static func start() async throws -> RawSocketIOPeer {
        let registry = Registry()
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.tcpOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let upgrader = NIOWebSocketServerUpgrader(
                        maxFrameSize: 1 << 24,
                        shouldUpgrade: { channel, head in
                            let ok = head.method == .GET && head.uri.hasPrefix("/socket.io/?")
                                && head.uri.contains("EIO=4") && head.uri.contains("transport=websocket")
                            return channel.eventLoop.makeSucceededFuture(ok ? HTTPHeaders() : nil)
                        },
                        upgradePipelineHandler: { channel, head in
                            channel.eventLoop.makeCompletedFuture {
                                let connection = RawSocketIOConnection(channel: channel, uri: head.uri)
                                try channel.pipeline.syncOperations.addHandler(
                                    NIOWebSocketFrameAggregator(minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 10_000,
                                                                maxAccumulatedFrameSize: 1 << 24))
                                try channel.pipeline.syncOperations.addHandler(RawFrameHandler(connection: connection))
                                registry.connections.withLock { $0.append(connection) }
                            }
                        })
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                        withServerUpgrade: (upgraders: [upgrader], completionHandler: { context in
                            context.pipeline.syncOperations.removeHandler(name: "raw-refuser", promise: nil)
                        }))
                    try channel.pipeline.syncOperations.addHandler(RefusingHTTPHandler(registry: registry), name: "raw-refuser")
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return RawSocketIOPeer(port: listener.localAddress!.port!, listener: listener, registry: registry)
    }

    /// Upgraded connections, in the order they came.
    var connections: [RawSocketIOConnection] { registry.connections.withLock { $0 } }

    /// Request targets answered with 404 (polling attempts, wrong paths).
    var refusedRequests: [String] { registry.refused.withLock { $0 } }

    /// The `index`th upgraded connection (0 is the first), once it exists.
    func connection(_ index: Int, timeout: Double = 15) async throws -> RawSocketIOConnection {
        guard await eventually(timeout, { connections.count > index }) else {
            throw PeerError("no WebSocket connection #\(index) within \(timeout) s (have \(connections.count))")
        }
        return connections[index]
    }

    /// Stops listening and drops every connection.
    func stop() async {
        try? await listener.close()
        for c in connections { c.abort() }
    }

    fileprivate final class Registry: Sendable {
        let connections = Mutex<[RawSocketIOConnection]>([])
        let refused = Mutex<[String]>([])
    }
}

/// One upgraded WebSocket connection of a `RawSocketIOPeer`.
final class RawSocketIOConnection: Sendable {
    /// A frame the client sent.
    enum Frame: Sendable, Equatable {
        case text(String)
        case binary([UInt8])
    }

    /// The request target the client upgraded with.
    let uri: String
    private let channel: Channel
    private let inbox = Mutex<[Frame]>([])
    private let closedFlag = Mutex(false)

    fileprivate init(channel: Channel, uri: String) {
        self.channel = channel
        self.uri = uri
    }

    // MARK: what the client sent

    /// Every frame the client sent, in order.
    var received: [Frame] { inbox.withLock { $0 } }

    /// The text frames the client sent, in order.
    var texts: [String] { received.compactMap { if case .text(let s) = $0 { s } else { nil } } }

    /// How many text frames equal `text` exactly.
    func count(of text: String) -> Int { texts.filter { $0 == text }.count }

    /// True once the TCP connection is gone (closed by either side).
    var isClosed: Bool { closedFlag.withLock { $0 } }

    /// Waits for a text frame that `match` accepts and returns the first one.
    @discardableResult
    func waitForText(_ what: String, timeout: Double = 10, _ match: @escaping (String) -> Bool) async throws -> String {
        guard await eventually(timeout, { texts.contains(where: match) }), let hit = texts.first(where: match) else {
            throw PeerError("the client did not send \(what) within \(timeout) s; it sent \(texts.map { String($0.prefix(120)) })")
        }
        return hit
    }

    /// Waits until the connection is closed; false if it is still open after `timeout`.
    func waitUntilClosed(timeout: Double = 10) async -> Bool {
        await eventually(timeout) { isClosed }
    }

    // MARK: sending

    /// One text frame (any Engine.IO packet, well-formed or not).
    func send(_ text: String) async throws {
        try await write(.text, channel.allocator.buffer(string: text))
    }

    /// One text frame holding exactly these bytes (need not be UTF-8).
    func send(textBytes: [UInt8]) async throws {
        try await write(.text, channel.allocator.buffer(bytes: textBytes))
    }

    /// One binary frame (an attachment, or a stray one).
    func send(binary: [UInt8]) async throws {
        try await write(.binary, channel.allocator.buffer(bytes: binary))
    }

    private func write(_ opcode: WebSocketOpcode, _ data: ByteBuffer) async throws {
        try await channel.writeAndFlush(WebSocketFrame(fin: true, opcode: opcode, data: data))
    }

    /// A close frame (1000), then the TCP close.
    func close() async {
        var data = channel.allocator.buffer(capacity: 2)
        data.write(webSocketErrorCode: .normalClosure)
        try? await channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .connectionClose, data: data))
        try? await channel.close()
    }

    /// The TCP close alone.
    func abort() {
        channel.close(promise: nil)
    }

    // MARK: the standard opening

    /// The Engine.IO open packet for this connection.
    static func openPacket(sid: String = "raw", pingInterval: Int = 25000, pingTimeout: Int = 20000, maxPayload: Int = 1_000_000) -> String {
        #"0{"sid":"\#(sid)","upgrades":[],"pingInterval":\#(pingInterval),"pingTimeout":\#(pingTimeout),"maxPayload":\#(maxPayload)}"#
    }

    /// What a SocketChat client sends once its namespace is connected.
    static func connectUser(_ name: String) -> String {
        #"42["connectUser",\#(JSONValue.string(name).text)]"#
    }

    /// The standard opening of a SocketChat session on `/`: the open packet,
    /// the client's `40…`, our `40{"sid":"s1"}`, the client's `42["connectUser",NAME]`.
    func open(name: String, pingInterval: Int = 25000, pingTimeout: Int = 20000, maxPayload: Int = 1_000_000,
              timeout: Double = 10) async throws {
        try await send(Self.openPacket(pingInterval: pingInterval, pingTimeout: pingTimeout, maxPayload: maxPayload))
        try await waitForText("a CONNECT for /", timeout: timeout) { $0 == "40" || $0.hasPrefix("40{") }
        try await send(#"40{"sid":"s1"}"#)
        let announce = Self.connectUser(name)
        try await waitForText(announce, timeout: timeout) { $0 == announce }
    }

    fileprivate func record(_ frame: Frame) { inbox.withLock { $0.append(frame) } }
    fileprivate func markClosed() { closedFlag.withLock { $0 = true } }
}

/// Records the client's frames; answers WebSocket pings and closes.
private final class RawFrameHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let connection: RawSocketIOConnection
    private var sentClose = false

    init(connection: RawSocketIOConnection) { self.connection = connection }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            connection.record(.text(String(buffer: frame.unmaskedData)))
        case .binary:
            connection.record(.binary(Array(frame.unmaskedData.readableBytesView)))
        case .ping:
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
        case .connectionClose:
            guard !sentClose else { return }
            sentClose = true
            let echo = WebSocketFrame(fin: true, opcode: .connectionClose, data: frame.unmaskedData)
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(echo)).whenComplete { _ in channel.close(promise: nil) }
        default:
            break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        connection.markClosed()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }
}

/// Answers every request the upgrader declined with 404 and closes.
private final class RefusingHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let registry: RawSocketIOPeer.Registry

    init(registry: RawSocketIOPeer.Registry) { self.registry = registry }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else {
            if case .head(let head) = unwrapInboundIn(data) { registry.refused.withLock { $0.append(head.uri) } }
            return
        }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Length", value: "9")
        headers.add(name: "Connection", value: "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .notFound, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: "not found")))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}
