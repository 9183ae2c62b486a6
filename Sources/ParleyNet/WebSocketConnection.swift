import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket
import ParleyCore
import Synchronization

/// Where a WebSocket client connects.
package struct WebSocketTarget: Sendable {
    package var host: String
    package var port: Int
    /// The request target: path and query, e.g. `/socket.io/?EIO=4&transport=websocket`.
    package var requestTarget: String
    /// Extra request headers (auth tokens, cookies) from config.
    package var headers: [String: String]
    /// Set for `wss://`.
    package var tls: TLSConfiguration?
    /// The loop the connection lives on (the bot's; nil: a shared one).
    package var loop: (any EventLoop)?

    package init(host: String, port: Int, requestTarget: String, headers: [String: String], tls: TLSConfiguration?,
                 loop: (any EventLoop)?) {
        self.host = host
        self.port = port
        self.requestTarget = requestTarget
        self.headers = headers
        self.tls = tls
        self.loop = loop
    }

    /// The `Host` header: brackets around IPv6, the port left out when it is
    /// the scheme's default.
    package var hostHeader: String {
        port == (tls == nil ? 80 : 443) ? host.urlHost : "\(host.urlHost):\(port)"
    }
}

/// One message received (fragments already joined), as its bytes: the
/// protocol above parses them where they lie, with no `String` of the whole
/// frame in between.
package struct ReceivedMessage: Sendable {
    package var isText: Bool
    package var data: ByteBuffer
}

/// Where a connection hands what it receives.
package struct WebSocketSink: Sendable {
    /// Each message, in order, on the connection's loop. Return an error to
    /// close the connection with it (a protocol layer that knows nothing good
    /// can follow, e.g. a broken Engine.IO open packet).
    package var message: @Sendable (ReceivedMessage) -> TransportError?
    /// Exactly once; nil when this side closed on purpose.
    package var closed: @Sendable (TransportError?) -> Void

    package init(message: @escaping @Sendable (ReceivedMessage) -> TransportError?,
                 closed: @escaping @Sendable (TransportError?) -> Void) {
        self.message = message
        self.closed = closed
    }
}

/// A WebSocket client connection, written straight on NIO's WebSocket codec.
///
/// Foundation's WebSocket task does not work on Linux toolchains, and owning
/// the pipeline lets the frame limit follow what the protocol above learns
/// (Engine.IO's `maxPayload`) and lets heartbeats be answered on the event
/// loop without a hop. Socket.IO and STOMP both ride on this one type.
package final class WebSocketConnection: Sendable {
    private let channel: Channel
    private let writer: NIOLoopBound<ClientFrameWriter>
    private let closing: NIOLockedValueBox<Bool>
    /// The largest message accepted; a protocol may lower it once it knows more.
    package let frameLimit: FrameLimit

    private init(channel: Channel, writer: NIOLoopBound<ClientFrameWriter>, closing: NIOLockedValueBox<Bool>, frameLimit: FrameLimit) {
        self.channel = channel
        self.writer = writer
        self.closing = closing
        self.frameLimit = frameLimit
    }

    private enum Upgrade: Sendable {
        case upgraded(Channel, NIOLoopBound<ClientFrameWriter>)
        case refused
    }

    /// Connects and upgrades; throws `TransportError` when the TCP connect,
    /// TLS or the HTTP upgrade fails.
    package static func connect(to target: WebSocketTarget, maxFrameSize: Int, timeout: Double,
                        sink: WebSocketSink) async throws -> WebSocketConnection {
        let closing = NIOLockedValueBox(false)
        let frameLimit = max(maxFrameSize, 1024)
        let limit = FrameLimit(frameLimit)
        let sslContext: NIOSSLContext?
        do {
            sslContext = try target.tls.map { try NIOSSLContext(configuration: $0) }
        } catch {
            // A CA file that is not PEM: the config is wrong, and retrying would not help.
            throw TransportError(.refused, "cannot set up TLS (ca_file): \(error)")
        }
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target.requestTarget,
                                   headers: HTTPHeaders(extra: target.headers))
        head.headers.replaceOrAdd(name: "Host", value: target.hostHeader)
        let requestHead = head
        // The TCP connect has its own timeout; the upgrade answer needs one
        // too, or a server (or a silent link) that accepts and never answers
        // would hold the bot's connect, and its shutdown, forever.
        let answered = NIOLockedValueBox(false)
        let timedOut = NIOLockedValueBox(false)
        let upgradeResult: EventLoopFuture<Upgrade>
        do {
            upgradeResult = try await ClientBootstrap.forChat(connectTimeout: timeout, on: target.loop)
                .connect(host: target.host, port: target.port) { channel in
                    let timer = channel.eventLoop.scheduleTask(in: .milliseconds(Int64(timeout * 1000))) {
                        guard !answered.withLockedValue({ $0 }) else { return }
                        timedOut.withLockedValue { $0 = true }
                        channel.close(promise: nil)
                    }
                    // Cancelled once the server answers or the channel closes: a
                    // pending timer holds the channel for the whole timeout.
                    channel.closeFuture.whenComplete { _ in timer.cancel() }
                    return channel.eventLoop.makeCompletedFuture {
                        if let sslContext {
                            let handler = try NIOSSLClientHandler(context: sslContext, serverHostname: target.host.isIPAddress ? nil : target.host)
                            try channel.pipeline.syncOperations.addHandler(handler)
                        }
                        // Protocol errors are answered by WebSocketConnectionHandler, which
                        // names the cause before the link closes (NIO's own handler closes first).
                        let upgrader = NIOTypedWebSocketClientUpgrader<Upgrade>(maxFrameSize: frameLimit,
                                                                                 enableAutomaticErrorHandling: false) { channel, _ in
                            channel.eventLoop.makeCompletedFuture {
                                answered.withLockedValue { $0 = true }
                                timer.cancel()
                                let ops = channel.pipeline.syncOperations
                                let writer = ClientFrameWriter()
                                try ops.addHandler(writer, position: .before(try ops.handler(type: WebSocketFrameEncoder.self)))
                                try ops.addHandler(NIOWebSocketFrameAggregator(
                                    minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 100_000, maxAccumulatedFrameSize: frameLimit))
                                try ops.addHandler(WebSocketConnectionHandler(sink: sink, writer: writer, closing: closing, limit: limit))
                                return .upgraded(channel, NIOLoopBound(writer, eventLoop: channel.eventLoop))
                            }
                        }
                        let config = NIOTypedHTTPClientUpgradeConfiguration<Upgrade>(
                            upgradeRequestHead: requestHead, upgraders: [upgrader],
                            notUpgradingCompletionHandler: { channel in
                                answered.withLockedValue { $0 = true }
                                timer.cancel()
                                channel.close(promise: nil)
                                return channel.eventLoop.makeSucceededFuture(.refused)
                            })
                        // The server's first frame (Engine.IO's open packet, STOMP's
                        // nothing yet) often shares a TCP segment with the 101 answer:
                        // forward those bytes, never drop them.
                        var pipeline = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: config)
                        pipeline.leftOverBytesStrategy = .forwardBytes
                        return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: pipeline)
                    }
                }
        } catch {
            throw TransportError(.connect, "cannot connect to \(target.host):\(target.port): \(NetworkErrors.describe(error))")
        }
        let outcome: Upgrade
        do {
            outcome = try await upgradeResult.get()
        } catch {
            if timedOut.withLockedValue({ $0 }) {
                throw TransportError(.timeout, "no answer to the WebSocket upgrade from \(target.host):\(target.port) within \(timeout) s")
            }
            throw TransportError(.connect, "WebSocket upgrade to \(target.host):\(target.port) failed: \(NetworkErrors.describe(error))")
        }
        guard case .upgraded(let channel, let writer) = outcome else {
            let path = target.requestTarget.split(separator: "?", maxSplits: 1).first.map(String.init) ?? target.requestTarget
            throw TransportError(.connect, "\(target.host):\(target.port) refused the WebSocket upgrade (is the path \(path) right?)")
        }
        return WebSocketConnection(channel: channel, writer: writer, closing: closing, frameLimit: limit)
    }

    /// Writes frames with one flush, without waiting (heartbeat answers, acks).
    package func enqueue(_ frames: [ClientFrame]) {
        if !frames.isEmpty { _ = write(frames) }
    }

    /// Writes frames with one flush and waits for the write.
    package nonisolated(nonsending) func send(_ frames: [ClientFrame]) async throws {
        do {
            try await write(frames).valueOnCaller()
        } catch {
            throw TransportError(.closed, "WebSocket write failed: \(error)")
        }
    }

    /// Writes frames with one flush; the future completes with the write
    /// (at once when the socket took it, on its own loop).
    ///
    /// Every frame and the flush in one event-loop task. Called off the loop
    /// (a load generator, a link on a shared loop), each write and the flush
    /// would be a task of its own, and each task wakes the loop: a batch of
    /// replies would cost a wake per frame instead of one.
    package func write(_ frames: [ClientFrame]) -> EventLoopFuture<Void> {
        let loop = channel.eventLoop
        guard !frames.isEmpty else { return loop.makeSucceededVoidFuture() }
        let promise = loop.makePromise(of: Void.self)
        if loop.inEventLoop {
            writer.value.write(frames, promise: promise)
        } else {
            let writer = self.writer
            loop.execute { writer.value.write(frames, promise: promise) }
        }
        return promise.futureResult
    }

    /// Closes with a close frame (1000); the sink then hears `closed(nil)`.
    package func close() {
        closing.withLockedValue { $0 = true }
        let channel = self.channel
        write([ClientFrame(.connectionClose, bytes: [0x03, 0xE8])]).whenComplete { _ in channel.close(promise: nil) }
    }

    /// Drops the connection without a close frame.
    package func abort() {
        closing.withLockedValue { $0 = true }
        channel.close(promise: nil)
    }
}

/// Frames in, messages out. WebSocket pings are answered here; a protocol's
/// own heartbeat is the business of the layer above.
final class WebSocketConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame

    private let sink: WebSocketSink
    private let writer: ClientFrameWriter
    private let limit: FrameLimit
    private var ending: LinkEnding

    init(sink: WebSocketSink, writer: ClientFrameWriter, closing: NIOLockedValueBox<Bool>, limit: FrameLimit) {
        self.sink = sink
        self.writer = writer
        self.ending = LinkEnding(closing: closing)
        self.limit = limit
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        if (frame.opcode == .text || frame.opcode == .binary), frame.length > limit.value {
            finish(TransportError(.protocolViolation, "the server sent a \(frame.length)-byte message, over the limit (\(limit.value))"))
            context.close(promise: nil)
            return
        }
        let message: ReceivedMessage
        switch frame.opcode {
        case .text, .binary:
            message = ReceivedMessage(isText: frame.opcode == .text, data: frame.unmaskedData)
        case .ping:
            writer.write([ClientFrame(.pong, bytes: frame.unmaskedData.readableBytesView)], promise: nil)
            return
        case .connectionClose:
            finish(ending.closedByBot ? nil : TransportError(.closed, "the server closed the WebSocket\(Self.reason(frame))"))
            context.close(promise: nil)
            return
        default:
            return
        }
        if let error = sink.message(message) {
            finish(error)
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // A frame the decoder or the aggregator refused: said as what the
        // server sent, and answered with the close code RFC 6455 gives it.
        let refused: (String, WebSocketErrorCode)?
        switch error {
        case NIOWebSocketError.invalidFrameLength, NIOWebSocketFrameAggregator.Error.accumulatedFrameSizeIsTooLarge:
            refused = ("the server sent a WebSocket message over the limit of \(limit.value) bytes", .messageTooLarge)
        case let e as NIOWebSocketError:
            refused = ("the server broke the WebSocket protocol (\(e))", .protocolError)
        case let e as NIOWebSocketFrameAggregator.Error:
            refused = ("the server broke the WebSocket protocol (\(e))", .protocolError)
        default:
            refused = nil
        }
        guard let (why, code) = refused else {
            finish(TransportError(.closed, "WebSocket error: \(error)"))
            context.close(promise: nil)
            return
        }
        // The end is claimed before the close frame goes (its write, done at
        // once, closes the channel, which would tell a closed link), and told
        // after it (whoever hears of it may close the channel at once).
        guard ending.tell() else { return }
        let close = ClientFrame(.connectionClose, capacity: 2) { $0.write(webSocketErrorCode: code) }
        let promise = context.eventLoop.makePromise(of: Void.self)
        writer.write([close], promise: promise)
        let bound = context.loopBound
        promise.futureResult.whenComplete { _ in bound.value.close(promise: nil) }
        sink.closed(TransportError(.protocolViolation, why))
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(ending.inactive)
        context.fireChannelInactive()
    }

    private func finish(_ error: TransportError?) {
        if ending.tell() { sink.closed(error) }
    }

    /// The close frame's code and reason, for the log (`: 1000 STOMP died`).
    private static func reason(_ frame: WebSocketFrame) -> String {
        var data = frame.unmaskedData
        guard let code = data.readInteger(as: UInt16.self) else { return "" }
        let text = data.readString(length: data.readableBytes) ?? ""
        return text.isEmpty ? " (\(code))" : " (\(code) \(text))"
    }
}

/// A frame-size limit that can be changed once the protocol above knows the
/// server's own limit.
package final class FrameLimit: Sendable {
    private let bytes: Synchronization.Atomic<Int>
    package init(_ bytes: Int) { self.bytes = Synchronization.Atomic(bytes) }
    package var value: Int { bytes.load(ordering: .relaxed) }
    package func set(_ newValue: Int) { bytes.store(newValue, ordering: .relaxed) }
}

extension String {
    /// The host as it goes in a URL or a `Host` header: IPv6 in brackets.
    package var urlHost: String { contains(":") ? "[\(self)]" : self }

    /// A literal IPv4 or IPv6 address (no SNI is sent for those).
    package var isIPAddress: Bool {
        if contains(":") { return true }
        let parts = split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { UInt8($0) != nil }
    }
}
