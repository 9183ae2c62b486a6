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
