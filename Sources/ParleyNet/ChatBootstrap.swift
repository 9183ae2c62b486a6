import NIOCore
import NIOPosix

extension ClientBootstrap {
    /// The bootstrap every chat link starts from (StreamChat, WebSocket,
    /// STOMP over TCP): `loop` (the bot's; nil: one of the shared loops), the connect timeout, no Nagle
    /// (chat lines are small and a reply's latency is what people notice),
    /// and receive buffers that start at 512 bytes.
    ///
    /// Why the buffer size: NIO keeps each channel's receive buffer for its
    /// next read, 2 KiB by default, and chat lines are a few dozen bytes; at
    /// 10,000 simulated users that is 20 MiB of mostly empty buffers. The
    /// adaptive allocator still grows a buffer that a read fills, up to 64 KiB.
    package static func forChat(connectTimeout seconds: Double, on loop: (any EventLoop)?) -> ClientBootstrap {
        ClientBootstrap(group: loop ?? MultiThreadedEventLoopGroup.singleton.next())
            .connectTimeout(.milliseconds(Int64(seconds * 1000)))
            .channelOption(ChannelOptions.tcpOption(.tcp_nodelay), value: 1)
            .channelOption(ChannelOptions.recvAllocator,
                           value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 512, maximum: 65536))
    }
}

extension ServerBootstrap {
    /// The listener both embedded chat servers start from: `SO_REUSEADDR`
    /// (a restarted server must bind the port its predecessor's connections
    /// still hold in TIME_WAIT), a backlog for thousands of simulated users
    /// connecting at once, no Nagle (chat lines are small), and the outbound
    /// bound: past `maxOutboundBytes` queued bytes a connection turns
    /// unwritable and its handler drops the client that does not read.
    package static func forChat(on group: any EventLoopGroup, maxOutboundBytes: Int) -> ServerBootstrap {
        let outbound = max(1, maxOutboundBytes)
        return ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(.backlog, value: 4096)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelOption(.writeBufferWaterMark, value: .init(low: outbound / 2, high: outbound))
    }
}

/// A bound listening socket and the address it took (the port is the one
/// picked when 0 was asked for).
package struct ChatListener: Sendable {
    package let channel: any Channel
    package let host: String
    package let port: Int

    package init(_ bootstrap: ServerBootstrap, host: String, port: Int) async throws {
        do { channel = try await bootstrap.bind(host: host, port: port).get() } catch { throw ListenError(host: host, port: port, error) }
        self.host = host
        self.port = channel.localAddress?.port ?? 0
    }

    /// Stops accepting; the connections already accepted stay open.
    package func close() async { try? await channel.close() }
}
