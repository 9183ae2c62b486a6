#if canImport(Glibc)
import Glibc
#endif
import NIOCore

/// TCP keepalive probe settings for StreamChat, a protocol without a heartbeat.
///
/// A quiet room is normal chat, so neither side may read silence as death.
/// The kernel's probes do it instead: they get an answer from any live peer
/// (however quiet its user) and none from one that vanished without a FIN.
public struct TCPKeepalive: Sendable, Equatable {
    /// Seconds of silence before the first probe.
    public var idle: Int
    /// Seconds between unanswered probes.
    public var interval: Int
    /// Unanswered probes before the kernel ends the connection.
    public var count: Int

    public init(idle: Int = 60, interval: Int = 10, count: Int = 3) {
        self.idle = idle
        self.interval = interval
        self.count = count
    }

    /// The longest a vanished peer goes unnoticed on an idle link, in seconds.
    public var bound: Int { idle + interval * count }

    /// The socket options that turn it on, as `(level, name, value)`; the
    /// NIO bootstraps apply them (kept as plain numbers so this module needs no NIO).
    public var socketOptions: [(level: Int32, name: Int32, value: Int32)] {
        [(Int32(SOL_SOCKET), Int32(SO_KEEPALIVE), 1),
         (Int32(IPPROTO_TCP), Int32(TCP_KEEPIDLE), Int32(idle)),
         (Int32(IPPROTO_TCP), Int32(TCP_KEEPINTVL), Int32(interval)),
         (Int32(IPPROTO_TCP), Int32(TCP_KEEPCNT), Int32(count))]
    }
}

extension Channel {
    /// Turns on TCP keepalive with these probe settings (nil: off).
    package func setKeepalive(_ keepalive: TCPKeepalive?) throws {
        guard let options = syncOptions else { return }
        guard let keepalive else {
            return try options.setOption(ChannelOptions.socketOption(.so_keepalive), value: 0)
        }
        for o in keepalive.socketOptions {
            try options.setOption(ChannelOptions.Types.SocketOption(level: .init(rawValue: o.level), name: .init(rawValue: o.name)),
                                  value: Int(o.value))
        }
    }
}
