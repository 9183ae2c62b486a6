import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import ParleyCore
import ParleyNet
import ParleyWire

/// STOMP straight over TCP (`stomp://host:port`, TLS with `stomp+ssl://`).
final class STOMPTCPLink: STOMPLink {
    private let channel: Channel
    private let closing: NIOLockedValueBox<Bool>

    private init(channel: Channel, closing: NIOLockedValueBox<Bool>) {
        self.channel = channel
        self.closing = closing
    }

    static func connect(host: String, port: Int, tls: Bool, maxFrameSize: Int, timeout: Double, on loop: (any EventLoop)?,
                        sink: STOMPLinkSink) async throws -> STOMPTCPLink {
        let closing = NIOLockedValueBox(false)
        let sslContext: NIOSSLContext?
        do {
            sslContext = tls ? try NIOSSLContext(configuration: TransportTLS.configuration(caFile: nil)) : nil
        } catch {
            throw TransportError(.refused, "TLS settings for \(host):\(port) are unusable: \(error)")
        }
        let bootstrap = ClientBootstrap.forChat(connectTimeout: timeout, on: loop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let ops = channel.pipeline.syncOperations
                    if let sslContext {
                        try ops.addHandler(try NIOSSLClientHandler(context: sslContext, serverHostname: host.isIPAddress ? nil : host))
                    }
                    try ops.addHandler(ByteToMessageHandler(STOMPFrameDecoder(maxFrameBytes: maxFrameSize)))
                    try ops.addHandler(STOMPTCPHandler(sink: sink, closing: closing))
                }
            }
        do {
            let channel = try await bootstrap.connect(host: host, port: port).get()
            return STOMPTCPLink(channel: channel, closing: closing)
        } catch {
            throw TransportError(.connect, "cannot connect to STOMP server \(host):\(port): \(NetworkErrors.describe(error))")
        }
    }

    func enqueue(_ bytes: [UInt8]) {
        channel.writeAndFlush(channel.allocator.buffer(bytes: bytes), promise: nil)
    }

    func send(_ bytes: [UInt8]) async throws {
        do {
            try await channel.writeAndFlush(channel.allocator.buffer(bytes: bytes)).get()
        } catch {
            throw TransportError(.closed, "STOMP write failed: \(error)")
        }
    }

    func close() {
        closing.withLockedValue { $0 = true }
        channel.close(promise: nil)
    }

    func abort() { close() }
}

/// Frames in, to the sink; the first error or close is reported once.
private final class STOMPTCPHandler: ChannelInboundHandler {
    typealias InboundIn = STOMPItem

    private let sink: STOMPLinkSink
    private var ending: LinkEnding

    init(sink: STOMPLinkSink, closing: NIOLockedValueBox<Bool>) {
        self.sink = sink
        self.ending = LinkEnding(closing: closing)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !ending.isTold else { return }
        sink.item(unwrapInboundIn(data))
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // The frame decoder's own errors say what the server did wrong.
        finish(error as? TransportError ?? TransportError(.closed, "connection error: \(NetworkErrors.describe(error, established: true))"))
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(ending.inactive)
        context.fireChannelInactive()
    }

    private func finish(_ error: TransportError?) {
        if ending.tell() { sink.closed(error) }
    }
}
