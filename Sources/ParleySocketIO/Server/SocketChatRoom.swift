import NIOCore
import ParleyWire
import Synchronization

/// The SocketChat behaviour for one namespace, as the seed's Node server has it.
///
/// Its state is the seed's: `userList`, in join order, of `{id, nickname,
/// isConnected}` (a user who disconnects stays, marked offline; only
/// `exitUser` removes one), and `typingUsers`, an ordered map of nick → 1.
/// Every event is answered by broadcasts to the whole room, the sender
/// included, in the seed's order and with the seed's argument shapes.
///
/// State changes and the broadcasts they cause happen under one lock, so the
/// packets of two events never interleave and every member sees one history.
/// Each broadcast is encoded once, under the lock, from the state it reports.
final class SocketChatRoom: Sendable {
    /// What became of one event, for the ack and the counters.
    enum Outcome: Equatable {
        case handled(ack: [JSONValue])
        /// Known event, unusable arguments: ignored.
        case refused(String)
        /// An event SocketChat does not have: ignored.
        case unknown
    }

    private struct User {
        var id: String
        var nickname: String
        var isConnected: Bool

        /// Keys in the order the seed's object literal creates them.
        var json: JSONValue {
            ["id": .string(id), "nickname": .string(nickname), "isConnected": .bool(isConnected)]
        }
    }

    private struct State {
        var users: [User] = []
        /// `typingUsers`' keys, in insertion order; each maps to 1.
        var typing: [String] = []
        var audience = RoomAudience()

        var userList: JSONValue { .array(users.map(\.json)) }
        var typingUsers: JSONValue { .object(typing.map { ($0, 1) }) }

        mutating func stopTyping(_ nick: String) {
            typing.removeAll { $0 == nick }
        }
    }

    let namespace: String
    private let registry: SessionRegistry
    private let state = Mutex(State())

    init(namespace: String, registry: SessionRegistry) {
        self.namespace = namespace
        self.registry = registry
    }

    /// True when the room holds nothing worth keeping: no members, no users, nobody typing.
    var isIdle: Bool {
        state.withLock { $0.audience.count == 0 && $0.users.isEmpty && $0.typing.isEmpty }
    }

    /// Makes a socket a member: from now on it receives the room's broadcasts.
    func join(_ socketID: String, session: EngineIOSession) {
        state.withLock { $0.audience.add(socketID, session) }
    }

    /// Runs one client event. Arguments are checked as strings; anything else is
    /// refused rather than stored, so a client cannot put non-string nicknames
    /// into everyone's user list.
    func handle(event name: String, _ args: [JSONValue], from socketID: String) -> Outcome {
        switch name {
        case "connectUser":
            guard let nick = args.first?.string else { return .refused("connectUser needs a nickname string") }
            connectUser(nick, socketID: socketID)
            return .handled(ack: [])
        case "chatMessage":
            guard args.count >= 2, let nick = args[0].string, let message = args[1].string else {
                return .refused("chatMessage needs a nickname and a message string")
            }
            chatMessage(nick, message)
            // python-socketio's SocketChat fixture returns True, and its clients expect the ack.
            return .handled(ack: [true])
        case "startType", "stopType":
            guard let nick = args.first?.string else { return .refused("\(name) needs a nickname string") }
            setTyping(nick, name == "startType")
            return .handled(ack: [])
        case "exitUser":
            guard let nick = args.first?.string else { return .refused("exitUser needs a nickname string") }
            exitUser(nick, socketID: socketID)
            return .handled(ack: [])
        default:
            return .unknown
        }
    }

    /// The socket left (closed, disconnected the namespace, or was dropped): its
    /// user goes offline and everyone hears of it. With `announce` false (server
    /// shutdown) it just stops receiving: telling N leaving clients about N
    /// departures would cost N² writes for nobody.
    func disconnect(_ socketID: String, session: EngineIOSession, announce: Bool) {
        state.withLock { s in
            guard s.audience.remove(socketID, session), announce else { return }
            // As the seed: the user matched by socket id goes offline; with no
            // match the nickname is `undefined`, sent as null, and all three go out anyway.
            var nickname: JSONValue = .null
            if let i = s.users.firstIndex(where: { $0.id == socketID }) {
                s.users[i].isConnected = false
                nickname = .string(s.users[i].nickname)
                s.stopTyping(s.users[i].nickname)
            }
            emit("userList", [s.userList], in: s)
            emit("userExitUpdate", [nickname], in: s)
            emit("userTypingUpdate", [s.typingUsers], in: s)
        }
    }

    private func connectUser(_ nick: String, socketID: String) {
        state.withLock { s in
            let info: User
            if let i = s.users.firstIndex(where: { $0.nickname == nick }) {
                // A returning nickname takes over the entry, whichever socket held it.
                s.users[i].isConnected = true
                s.users[i].id = socketID
                info = s.users[i]
            } else {
                info = User(id: socketID, nickname: nick, isConnected: true)
                s.users.append(info)
            }
            emit("userList", [s.userList], in: s)
            emit("userConnectUpdate", [info.json], in: s)
        }
    }

    private func chatMessage(_ nick: String, _ message: String) {
        let date = LocaleDate.now()
        state.withLock { s in
            s.stopTyping(nick)
            emit("userTypingUpdate", [s.typingUsers], in: s)
            emit("newChatMessage", [.string(nick), .string(message), .string(date)], in: s)
        }
        registry.countRelayed()
    }

    private func setTyping(_ nick: String, _ typing: Bool) {
        state.withLock { s in
            if typing {
                if !s.typing.contains(nick) { s.typing.append(nick) }
            } else {
                s.stopTyping(nick)
            }
            emit("userTypingUpdate", [s.typingUsers], in: s)
        }
    }

    /// As the seed: removes the entry of this socket, whatever the nickname
    /// argument says, and announces the argument.
    private func exitUser(_ nick: String, socketID: String) {
        state.withLock { s in
            if let i = s.users.firstIndex(where: { $0.id == socketID }) { s.users.remove(at: i) }
            emit("userExitUpdate", [.string(nick)], in: s)
        }
    }

    /// Called with the lock held: encodes once and queues for every member.
    private func emit(_ event: String, _ args: [JSONValue], in s: State) {
        let packet = Outbound.message(.event(event, args, namespace: namespace))
        for members in s.audience.enqueue(packet) {
            members.loop.execute {
                // Taken under the lock so no broadcast slips between take and reschedule.
                let batches = self.state.withLock { _ in members.take() }
                for batch in batches { batch.deliver() }
            }
        }
    }
}
