import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket
import ParleyWire
import Synchronization

/// Where a link hands what it receives: packets in order, then exactly one
/// `closed` (nil: closed on purpose by this side).
struct LinkSink: Sendable {
    var packet: @Sendable (EngineIO.Packet) -> Void
    var closed: @Sendable (TransportError?) -> Void
    /// Text frames that are not Engine.IO (logged and dropped, never fatal).
    var malformed: @Sendable (String) -> Void
}

/// One WebSocket connection carrying Engine.IO packets, one packet per frame.
///
/// Written straight on NIO's WebSocket codec: Foundation's WebSocket task does
/// not work on Linux, and owning the pipeline lets the frame limit follow the
/// server's `maxPayload` and lets a ping be answered on the event loop without
/// a hop.
final class WebSocketLink: EngineIOLink {
    let channel: Channel
    private let closing: NIOLockedValueBox<Bool>
    /// The largest message accepted; the server's maxPayload once its open packet is read.
    let frameLimit: FrameLimit

    private init(channel: Channel, closing: NIOLockedValueBox<Bool>, frameLimit: FrameLimit) {
        self.channel = channel
        self.closing = closing
        self.frameLimit = frameLimit
    }

    private enum Upgrade: Sendable {
        case upgraded(Channel)
        case refused
    }

    /// Connects and upgrades; throws `TransportError` when the TCP connect,
    /// TLS or the HTTP upgrade fails.
    static func connect(endpoint: SocketIOEndpoint, sid: String?, headers: [String: String], tls: TLSConfiguration?,
                        maxFrameSize: Int, timeout: Double, sink: LinkSink) async throws -> WebSocketLink {
        let closing = NIOLockedValueBox(false)
        let limit = FrameLimit(max(maxFrameSize, 1024))
        let sslContext: NIOSSLContext?
        do {
            sslContext = try tls.map { try NIOSSLContext(configuration: $0) }
        } catch {
            // A CA file that is not PEM: the config is wrong, and retrying would not help.
            throw TransportError(.refused, "cannot set up TLS (ca_file): \(error)")
        }
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: endpoint.target(transport: .websocket, sid: sid),
                                   headers: HTTPHeaders(extra: headers))
        head.headers.replaceOrAdd(name: "Host", value: endpoint.hostHeader)
        let requestHead = head
        let frameLimit = max(maxFrameSize, 1024)
        let upgradeResult: EventLoopFuture<Upgrade>
        do {
            upgradeResult = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.milliseconds(Int64(timeout * 1000)))
                .channelOption(ChannelOptions.tcpOption(.tcp_nodelay), value: 1)
                .connect(host: endpoint.host, port: endpoint.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if let sslContext {
                            let handler = try NIOSSLClientHandler(context: sslContext, serverHostname: endpoint.host.isIPAddress ? nil : endpoint.host)
                            try channel.pipeline.syncOperations.addHandler(handler)
                        }
                        let upgrader = NIOTypedWebSocketClientUpgrader<Upgrade>(maxFrameSize: frameLimit) { channel, _ in
                            channel.eventLoop.makeCompletedFuture {
                                let ops = channel.pipeline.syncOperations
                                try ops.addHandler(NIOWebSocketFrameAggregator(
                                    minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 100_000, maxAccumulatedFrameSize: frameLimit))
                                try ops.addHandler(WebSocketLinkHandler(sink: sink, closing: closing, limit: limit))
                                return .upgraded(channel)
                            }
                        }
                        let config = NIOTypedHTTPClientUpgradeConfiguration<Upgrade>(
                            upgradeRequestHead: requestHead, upgraders: [upgrader],
                            notUpgradingCompletionHandler: { channel in
                                channel.close(promise: nil)
                                return channel.eventLoop.makeSucceededFuture(.refused)
                            })
                        // The server's first frame (the open packet) often shares a TCP
                        // segment with the 101 answer: forward those bytes, never drop them.
                        var pipeline = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: config)
                        pipeline.leftOverBytesStrategy = .forwardBytes
                        return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: pipeline)
                    }
                }
        } catch {
            throw TransportError(.connect, "cannot connect to \(endpoint.host):\(endpoint.port): \(error)")
        }
        let outcome: Upgrade
        do {
            outcome = try await upgradeResult.get()
        } catch {
            throw TransportError(.connect, "WebSocket upgrade to \(endpoint.host):\(endpoint.port) failed: \(error)")
        }
        guard case .upgraded(let channel) = outcome else {
            throw TransportError(.connect, "\(endpoint.host):\(endpoint.port) refused the WebSocket upgrade (is the path \(endpoint.path) right?)")
        }
        return WebSocketLink(channel: channel, closing: closing, frameLimit: limit)
    }

    /// Writes packets without waiting (heartbeat answers, acks).
    func enqueue(_ packets: [EngineIO.Packet]) {
        _ = write(packets)
    }

    /// Writes packets, one frame each, with one flush, and waits for the write.
    func send(_ packets: [EngineIO.Packet]) async throws {
        do {
            try await write(packets)?.get()
        } catch {
            throw TransportError(.closed, "WebSocket write failed: \(error)")
        }
    }

    private func write(_ packets: [EngineIO.Packet]) -> EventLoopFuture<Void>? {
        let channel = self.channel
        var last: EventLoopFuture<Void>?
        for p in packets {
            let frame: WebSocketFrame
            switch EngineIO.encode(p) {
            case .text(let s):
                frame = WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: channel.allocator.buffer(string: s))
            case .binary(let b):
                frame = WebSocketFrame(fin: true, opcode: .binary, maskKey: .random(), data: channel.allocator.buffer(bytes: b))
            }
            last = channel.write(frame)
        }
        channel.flush()
        return last
    }

    /// Closes with a close frame; the sink then hears `closed(nil)`.
    func close() {
        closing.withLockedValue { $0 = true }
        let channel = self.channel
        let frame = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(),
                                   data: channel.allocator.buffer(bytes: [0x03, 0xE8]))
        channel.writeAndFlush(frame).whenComplete { _ in channel.close(promise: nil) }
    }

    /// Drops the connection without a close frame.
    func abort() {
        closing.withLockedValue { $0 = true }
        channel.close(promise: nil)
    }
}

/// Frames in, Engine.IO packets out. WebSocket pings are answered here;
/// Engine.IO pings (text `2`) are the connection's business, one layer up.
final class WebSocketLinkHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let sink: LinkSink
    private let closing: NIOLockedValueBox<Bool>
    private let limit: FrameLimit
    private var finished = false
    /// An open packet was read (a broken one after that is noise, not a failed open).
    private var opened = false

    init(sink: LinkSink, closing: NIOLockedValueBox<Bool>, limit: FrameLimit) {
        self.sink = sink
        self.closing = closing
        self.limit = limit
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        if (frame.opcode == .text || frame.opcode == .binary), frame.length > limit.value {
            finish(TransportError(.protocolViolation, "the server sent a \(frame.length)-byte message, over its maxPayload (\(limit.value))"))
            context.close(promise: nil)
            return
        }
        switch frame.opcode {
        case .text:
            let text = String(buffer: frame.unmaskedData)
            do {
                let packet = try EngineIO.decode(text: text)
                if case .open = packet { opened = true }
                sink.packet(packet)
            } catch {
                if text.hasPrefix("0"), !opened {
                    // A broken open packet: nothing can follow it, so fail now rather than at the connect timeout.
                    finish(TransportError(.protocolViolation, "the Engine.IO open packet is malformed (\(error))"))
                    context.close(promise: nil)
                    return
                }
                sink.malformed("dropped a frame that is not Engine.IO (\(error)): \(String(text.prefix(80)).debugDescription)")
            }
        case .binary:
            sink.packet(.binary(Array(frame.unmaskedData.readableBytesView)))
        case .ping:
            let pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .connectionClose:
            finish(closing.withLockedValue { $0 } ? nil : TransportError(.closed, "the server closed the WebSocket"))
            context.close(promise: nil)
        default:
            break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        finish(TransportError(.closed, "WebSocket error: \(error)"))
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(closing.withLockedValue { $0 } ? nil : TransportError(.closed, "the server closed the connection"))
        context.fireChannelInactive()
    }

    private func finish(_ error: TransportError?) {
        guard !finished else { return }
        finished = true
        sink.closed(error)
    }
}

/// A frame-size limit that can be lowered once the server's maxPayload is known.
final class FrameLimit: Sendable {
    private let bytes: Synchronization.Atomic<Int>
    init(_ bytes: Int) { self.bytes = Synchronization.Atomic(bytes) }
    var value: Int { bytes.load(ordering: .relaxed) }
    func set(_ newValue: Int) { bytes.store(newValue, ordering: .relaxed) }
}

extension String {
    /// A literal IPv4 or IPv6 address (no SNI is sent for those).
    var isIPAddress: Bool {
        if contains(":") { return true }
        let parts = split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { UInt8($0) != nil }
    }
}
