import Synchronization

/// Namespace → SocketChat room. Every namespace a client names is a room of
/// its own, made on first CONNECT.
///
/// A room that holds nothing (no members, no users, nobody typing) is
/// forgotten when its last member leaves, so clients naming ever new
/// namespaces do not grow the server. Members are only added under this
/// directory's lock, which is taken before a room's: a forgotten room can
/// never gain a member, and its state was the initial one anyway.
final class RoomDirectory: Sendable {
    private let rooms = Mutex<[String: SocketChatRoom]>([:])
    private let registry: SessionRegistry
    private let moderators: Set<String>
    /// The moderator token, if the server has one (see `SocketChatRoom`).
    let moderatorToken: String?
    /// Offline users each room keeps in its list.
    let offlineUsers: Int

    init(registry: SessionRegistry, moderators: Set<String> = [], moderatorToken: String? = nil, offlineUsers: Int = 100) {
        self.registry = registry
        self.moderators = moderators
        self.moderatorToken = moderatorToken
        self.offlineUsers = offlineUsers
    }

    /// The room for `namespace`, with the socket already a member.
    func join(_ namespace: String, socketID: String, session: EngineIOSession, trusted: Bool = false, ownEcho: Bool = true) -> SocketChatRoom {
        rooms.withLock { rooms in
            let room = rooms[namespace] ?? SocketChatRoom(namespace: namespace, registry: registry, moderators: moderators,
                                                          guarded: moderatorToken != nil, offlineUsers: offlineUsers)
            rooms[namespace] = room
            room.join(socketID, session: session, trusted: trusted, ownEcho: ownEcho)
            return room
        }
    }

    /// Runs the room's disconnect logic for the socket, then forgets the room if it is idle.
    func leave(_ room: SocketChatRoom, socketID: String, session: EngineIOSession, announce: Bool) {
        room.disconnect(socketID, session: session, announce: announce)
        rooms.withLock { rooms in
            if rooms[room.namespace] === room, room.isIdle { rooms[room.namespace] = nil }
        }
    }
}
