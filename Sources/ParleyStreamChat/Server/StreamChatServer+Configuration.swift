import ParleyNet
import ParleyWire

extension StreamChatServer {
    /// Where the server listens and the limits that keep one client from
    /// hurting the others. The defaults suit a public server; tests shrink them.
    public struct Configuration: Sendable {
        /// The address to bind; loopback by default so nothing is exposed by accident.
        public var host: String
        /// The port to bind; 0 picks a free one (read it back from `StreamChatServer.port`).
        public var port: Int
        /// A connection that has not sent `USR_NAME` this long after it opened
        /// is dropped; nil never drops. A named client may stay silent for ever:
        /// lurking is normal in chat.
        public var loginTimeout: Duration?
        /// TCP keepalive on every client socket: the protocol has no heartbeat,
        /// so the kernel's probes find a client that vanished without a FIN
        /// (nil: off).
        public var keepalive: TCPKeepalive?
        /// A client that has sent this many bytes without completing a frame is
        /// dropped, which bounds the receive buffer of every connection.
        public var maxPendingBytes: Int
        /// Connections beyond this are closed as soon as they are accepted.
        public var maxConnections: Int
        /// A client with this many bytes queued for it (it does not read) is
        /// dropped, so a stalled reader cannot make every broadcast grow its queue.
        public var maxOutboundBytes: Int
        /// The names whose `KICK` and `MUTE` frames are obeyed. Without a
        /// `moderatorToken` anyone may connect under one: trust them only
        /// where the names are.
        public var moderators: [String]
        /// When set, a moderator's name is taken only by a connection that
        /// sent `TOKEN::{moderatorToken}::END` before its `USR_NAME`; any
        /// other is refused the name and dropped.
        public var moderatorToken: String?
        /// Receives one line per notable event: dropped clients, refused frames.
        public var log: @Sendable (String) -> Void
        /// Sees every line the room broadcasts (joins, leaves, relayed
        /// messages), once each, in broadcast order, before any client gets
        /// it. An observation tap for tests that need the server's own record
        /// of what the room received (the chaos runner: a client's view has
        /// gaps while it reconnects). Called under the room's lock: keep it cheap.
        public var observe: @Sendable (StreamChat.ServerLine) -> Void = { _ in }

        public init(
            host: String = "127.0.0.1",
            port: Int = 0,
            loginTimeout: Duration? = .seconds(60),
            keepalive: TCPKeepalive? = TCPKeepalive(),
            maxPendingBytes: Int = 65_536,
            maxConnections: Int = 20_000,
            maxOutboundBytes: Int = 4 * 1024 * 1024,
            moderators: [String] = [],
            moderatorToken: String? = nil,
            log: @escaping @Sendable (String) -> Void = { _ in }
        ) {
            self.host = host
            self.port = port
            self.loginTimeout = loginTimeout
            self.keepalive = keepalive
            self.maxPendingBytes = maxPendingBytes
            self.maxConnections = maxConnections
            self.maxOutboundBytes = maxOutboundBytes
            self.moderators = moderators
            self.moderatorToken = moderatorToken
            self.log = log
        }
    }

    /// Counters since the server started.
    public struct Stats: Sendable, Equatable {
        /// Open TCP connections, registered or not.
        public var connectedClients: Int = 0
        /// Connections that have sent a valid `USR_NAME` and not left.
        public var registeredClients: Int = 0
        /// `MSG` frames broadcast (once each, however many clients received them).
        public var messagesRelayed: Int = 0
        /// Frames refused without dropping the client: invalid text, `MSG` before
        /// `USR_NAME`, a second `USR_NAME`, a `KICK` or `MUTE` the server will not do.
        public var framesRefused: Int = 0
        /// Clients closed by the server: garbage, overflow, no name in time, not reading, invalid name, server full,
        /// a name a newer connection took.
        public var clientsDropped: Int = 0

        public init() {}
    }
}
