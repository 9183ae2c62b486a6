extension SocketChatServer {
    /// Where the server listens, how Engine.IO behaves, and the limits that keep
    /// one client from hurting the others. The defaults are the JavaScript
    /// server's; tests shrink the intervals.
    public struct Configuration: Sendable {
        /// The address to bind; loopback by default so nothing is exposed by accident.
        public var host: String
        /// The port to bind; 0 picks a free one (read it back from `SocketChatServer.port`).
        public var port: Int
        /// The request path Engine.IO is served on; any other path gets 404. Clients
        /// send the trailing slash, so it is part of the default.
        public var path: String
        /// How often the server pings each session (sent to clients in the handshake).
        public var pingInterval: Duration
        /// How long a session may take to answer a ping before it is dropped.
        public var pingTimeout: Duration
        /// The largest polling body or WebSocket message a client may send, in bytes
        /// (announced in the handshake); more drops the client.
        public var maxPayload: Int
        /// Whether clients may use WebSocket, directly or by upgrading a polling session.
        public var allowWebSocket: Bool
        /// Whether clients may use HTTP long-polling.
        public var allowPolling: Bool
        /// A session that has not connected to a Socket.IO namespace within this time
        /// is closed: it holds a slot and says nothing.
        public var connectTimeout: Duration
        /// Open TCP connections, and separately open Engine.IO sessions, are each capped
        /// here: a connection beyond it is closed on accept, a handshake beyond it is refused.
        public var maxConnections: Int
        /// A session with this many bytes waiting for it (it does not read, or does
        /// not poll) is dropped, so a stalled client cannot make every broadcast grow its queue.
        public var maxOutboundBytes: Int
        /// The nicknames whose `kickUser`, `muteUser` and `deleteMessage` every room
        /// obeys. SocketChat does not authenticate nicknames: without a
        /// `moderatorToken`, trust them only where the names are.
        public var moderators: [String]
        /// When set, a moderator's nickname (and its rights) is only for a
        /// client whose Socket.IO CONNECT carries `{"token": moderatorToken}`.
        public var moderatorToken: String?
        /// Offline users each room keeps in its `userList`, the ones that left
        /// last. The original keeps every name that ever connected and sends
        /// them all on every join and leave, which grows without end.
        public var offlineUsers: Int
        /// Receives one line per notable event: dropped clients, refused packets.
        public var log: @Sendable (String) -> Void

        public init(
            host: String = "127.0.0.1",
            port: Int = 0,
            path: String = "/socket.io/",
            pingInterval: Duration = .seconds(25),
            pingTimeout: Duration = .seconds(20),
            maxPayload: Int = 1_000_000,
            allowWebSocket: Bool = true,
            allowPolling: Bool = true,
            connectTimeout: Duration = .seconds(45),
            maxConnections: Int = 20_000,
            maxOutboundBytes: Int = 4 * 1024 * 1024,
            moderators: [String] = [],
            moderatorToken: String? = nil,
            offlineUsers: Int = 100,
            log: @escaping @Sendable (String) -> Void = { _ in }
        ) {
            self.host = host
            self.port = port
            self.path = path
            self.pingInterval = pingInterval
            self.pingTimeout = pingTimeout
            self.maxPayload = maxPayload
            self.allowWebSocket = allowWebSocket
            self.allowPolling = allowPolling
            self.connectTimeout = connectTimeout
            self.maxConnections = maxConnections
            self.maxOutboundBytes = maxOutboundBytes
            self.moderators = moderators
            self.moderatorToken = moderatorToken
            self.offlineUsers = offlineUsers
            self.log = log
        }
    }

    /// Counters since the server started.
    public struct Stats: Sendable, Equatable {
        /// Open Engine.IO sessions, whatever their transport.
        public var sessions: Int = 0
        /// `chatMessage` events broadcast (once each, however many clients received them).
        public var messagesRelayed: Int = 0
        /// Packets refused without dropping the client: events with missing or
        /// ill-typed arguments, unknown events, invalid namespaces, moderation
        /// requests the room will not carry out.
        public var packetsRefused: Int = 0
        /// Sessions and connections closed by the server: malformed packets, missed
        /// pongs, no CONNECT in time, oversize payloads, not reading, server full.
        public var clientsDropped: Int = 0

        public init() {}
    }
}
