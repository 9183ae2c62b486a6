import NIOCore
import NIOPosix

/// Which event loop a chat link is opened on.
public enum ChatEventLoop {
    /// Unset (a bot's case): the shared loops, so a plugin that keeps its
    /// Lua thread busy never holds up any link's reads, writes or
    /// heartbeats. Set around `connect`: that loop, for a caller that wants
    /// its link and its own code on one thread (the Socket.IO bench's load
    /// generator, which must take as little of the machine as it can).
    @TaskLocal public static var preferred: (any EventLoop)?
}

extension ClientBootstrap {
    /// The bootstrap every chat link starts from (StreamChat, WebSocket,
    /// STOMP over TCP): the shared event loops (or `ChatEventLoop.preferred`), the connect timeout, no Nagle
    /// (chat lines are small and a reply's latency is what people notice),
    /// and receive buffers that start at 512 bytes.
    ///
    /// Why the buffer size: NIO keeps each channel's receive buffer for its
    /// next read, 2 KiB by default, and chat lines are a few dozen bytes; at
    /// 10,000 simulated users that is 20 MiB of mostly empty buffers. The
    /// adaptive allocator still grows a buffer that a read fills, up to 64 KiB.
    package static func forChat(connectTimeout seconds: Double) -> ClientBootstrap {
        ClientBootstrap(group: ChatEventLoop.preferred ?? MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.milliseconds(Int64(seconds * 1000)))
            .channelOption(ChannelOptions.tcpOption(.tcp_nodelay), value: 1)
            .channelOption(ChannelOptions.recvAllocator,
                           value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 512, maximum: 65536))
    }
}
