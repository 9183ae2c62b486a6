import NIOCore
import ParleyCore
import ParleyWire
import Synchronization

/// The SocketChat behaviour for one namespace, as the seed's Node server has it.
///
/// Its state is the seed's: `userList`, in join order, of `{id, nickname,
/// isConnected}` (a user who disconnects stays, marked offline; `exitUser`
/// removes one, and beyond the seed, so does going offline while the room
/// already keeps `offlineUsers` others), and `typingUsers`, an ordered map
/// of nick → 1.
/// Every event is answered by broadcasts to the whole room, the sender
/// included, in the seed's order and with the seed's argument shapes.
///
/// State changes and the broadcasts they cause happen under one lock, so the
/// packets of two events never interleave and every member sees one history.
/// Each broadcast is encoded once, under the lock, from the state it reports.
///
/// Beyond the seed, each `newChatMessage` carries an id (a fourth argument),
/// and the room's moderators may kick, mute and delete (`SocketChatModeration`).
/// And unlike the seed, which believes the nickname in every packet, a socket
/// speaks, types and leaves only as the name it connected with: else anyone
/// could speak as a moderator, or get another person struck.
final class SocketChatRoom: Sendable {
    /// What became of one event, for the ack and the counters.
    enum Outcome: Equatable {
        case handled(ack: [JSONValue])
        /// Known event, unusable arguments: ignored.
        case refused(String)
        /// An event SocketChat does not have: ignored.
        case unknown
        /// A moderation request the room will not carry out: acked `[false, reason]`.
        case denied(String)
        /// A `chatMessage` from a muted user, not relayed: the sender gets
        /// `messageDropped` and the ack `[false, why]`.
        case muted(seconds: Double, reason: String)
    }

    /// Messages that may still be deleted, per room: the newest ones.
    static let deletableMessages = 1000

    private struct User {
        var id: String
        var nickname: String
        var isConnected: Bool

        /// Keys in the order the seed's object literal creates them.
        var json: JSONValue {
            ["id": .string(id), "nickname": .string(nickname), "isConnected": .bool(isConnected)]
        }
    }

    private struct Mute {
        var until: ContinuousClock.Instant
        var reason: String
    }

    private struct State {
        var users: [User] = []
        /// The nicknames of the offline users, oldest first.
        var offline: [String] = []
        /// `typingUsers`' keys, in insertion order; each maps to 1.
        var typing: [String] = []
        var audience = RoomAudience()
        /// By nickname; an expired entry goes when its user next speaks.
        var mutes: [String: Mute] = [:]
        var messages = MessageIDs(limit: SocketChatRoom.deletableMessages)
        /// Sockets whose CONNECT carried the moderator token.
        var trusted: Set<String> = []
        /// Sockets whose handshake asked not to be sent their own doings back
        /// (`echo=false`): their messages and typing go to everyone else.
        var unechoed: Set<String> = []
        /// Sockets that asked not to be sent typing updates (`typingUpdates(false)`):
        /// a bot whose plugins do not listen to typing would read each for nothing.
        var untyped: Set<String> = []

        /// Who a socket's own message or typing change skips: itself, if it asked.
        func echoSkip(_ socketID: String) -> String? {
            unechoed.contains(socketID) ? socketID : nil
        }

        /// The socket left the room: what it asked for or was granted goes with it.
        mutating func forget(_ socketID: String) {
            trusted.remove(socketID)
            unechoed.remove(socketID)
            untyped.remove(socketID)
        }

        var userList: JSONValue { .array(users.map(\.json)) }
        var typingUsers: JSONValue { .object(typing.map { ($0, 1) }) }

        mutating func stopTyping(_ nick: String) {
            typing.removeAll { $0 == nick }
        }

        /// The user at `i` went offline; the room forgets whoever left first
        /// beyond `kept`.
        mutating func wentOffline(_ i: Int, kept: Int) {
            users[i].isConnected = false
            offline.append(users[i].nickname)
            while offline.count > kept {
                let gone = offline.removeFirst()
                users.removeAll { $0.nickname == gone && !$0.isConnected }
            }
        }

        /// This nickname is gone from the list, or back online.
        mutating func noLongerOffline(_ nick: String) {
            if let j = offline.firstIndex(of: nick) { offline.remove(at: j) }
        }
    }

    let namespace: String
    private let registry: SessionRegistry
    /// Nicknames whose moderation requests the room carries out.
    private let moderators: Set<String>
    /// With a moderator token, a moderator's nickname is only for a socket
    /// that connected with it: nobody else can take the name, or its rights.
    private let guarded: Bool
    /// Offline users the list keeps, the ones that left last.
    private let offlineUsers: Int
    private let state = Mutex(State())

    init(namespace: String, registry: SessionRegistry, moderators: Set<String> = [], guarded: Bool = false, offlineUsers: Int = 100) {
        self.namespace = namespace
        self.registry = registry
        self.moderators = moderators
        self.guarded = guarded
        self.offlineUsers = max(0, offlineUsers)
    }

    /// True when the room holds nothing worth keeping: no members, no users, nobody typing.
    var isIdle: Bool {
        state.withLock { $0.audience.count == 0 && $0.users.isEmpty && $0.typing.isEmpty }
    }

    /// Makes a socket a member: from now on it receives the room's broadcasts.
    /// `trusted`: its CONNECT carried the moderator token. `ownEcho`: false
    /// when its handshake asked not to be sent its own messages back.
    func join(_ socketID: String, session: EngineIOSession, trusted: Bool = false, ownEcho: Bool = true) {
        state.withLock {
            $0.audience.add(socketID, session)
            if trusted { $0.trusted.insert(socketID) }
            if !ownEcho { $0.unechoed.insert(socketID) }
        }
    }

    /// Runs one client event. Arguments are checked as strings; anything else is
    /// refused rather than stored, so a client cannot put non-string nicknames
    /// into everyone's user list. A socket no longer in the room (kicked, its
    /// DISCONNECT on the way) changes nothing.
    func handle(event name: String, _ args: [JSONValue], from socketID: String) -> Outcome {
        switch name {
        case "connectUser":
            guard let nick = args.first?.string else { return .refused("connectUser needs a nickname string") }
            // Said in the ack (the web chat shows it), not only logged.
            if let refusal = connectUser(nick, socketID: socketID) { return .denied(refusal) }
            return .handled(ack: [])
        case "chatMessage":
            guard args.count >= 2, let nick = args[0].string, let message = args[1].string else {
                return .refused("chatMessage needs a nickname and a message string")
            }
            guard message.contains(where: { !$0.isWhitespace }) else { return .denied("an empty message") }
            if let outcome = chatMessage(nick, message, socketID: socketID) { return outcome }
            // python-socketio's SocketChat fixture returns True, and its clients expect the ack.
            return .handled(ack: [true])
        case "startType", "stopType":
            guard let nick = args.first?.string else { return .refused("\(name) needs a nickname string") }
            if let refusal = setTyping(nick, name == "startType", socketID: socketID) { return .denied(refusal) }
            return .handled(ack: [])
        case SocketChatModeration.typingUpdates:
            guard case .bool(let on)? = args.first else { return .refused("\(name) needs true or false") }
            state.withLock { s in
                guard s.audience.contains(socketID) else { return }
                if on { s.untyped.remove(socketID) } else { s.untyped.insert(socketID) }
            }
            return .handled(ack: [])
        case "exitUser":
            guard let nick = args.first?.string else { return .refused("exitUser needs a nickname string") }
            if let refusal = exitUser(nick, socketID: socketID) { return .denied(refusal) }
            return .handled(ack: [])
        default:
            switch SocketChatModeration.action(name, args, room: namespace) {
            case nil: return .unknown
            case .failure(let malformed): return .denied(malformed.message)
            case .success(let action):
                return moderate(action, socketID: socketID).map { .denied($0) } ?? .handled(ack: SocketChatModeration.done)
            }
        }
    }

    /// The socket left (closed, disconnected the namespace, or was dropped): its
    /// user goes offline and everyone hears of it. With `announce` false (server
    /// shutdown) it just stops receiving: telling N leaving clients about N
    /// departures would cost N² writes for nobody.
    func disconnect(_ socketID: String, session: EngineIOSession, announce: Bool) {
        state.withLock { s in
            guard s.audience.remove(socketID, session) else { return }
            s.forget(socketID)
            guard announce else { return }
            // As the seed: the user matched by socket id goes offline; with no
            // match the nickname is `undefined`, sent as null, and all three go out anyway.
            var nickname: JSONValue = .null
            if let i = s.users.firstIndex(where: { $0.id == socketID }) {
                nickname = .string(s.users[i].nickname)
                s.stopTyping(s.users[i].nickname)
                s.wentOffline(i, kept: offlineUsers)
            }
            emit("userList", [s.userList], in: s)
            emit("userExitUpdate", [nickname], in: s)
            emitTyping(in: s)
        }
    }

    /// The longest nickname, in characters: a name is shown in every list and
    /// line. The web chat's name box (`Web/chat.html`) takes as many.
    static let maxNicknameCharacters = 64

    /// Why a nickname cannot be used, or nil.
    static func nicknameProblem(_ nick: String) -> String? {
        if !nick.contains(where: { !$0.isWhitespace }) { return "a nickname must not be empty" }
        if nick.count > maxNicknameCharacters { return "a nickname is at most \(maxNicknameCharacters) characters" }
        if nick.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "a nickname must not contain control characters"
        }
        return nil
    }

    /// Called with the lock held: why this socket may not act as `nick`, or nil.
    /// Its name is the user entry it holds, set by its `connectUser`.
    /// `unnamed`: whether a socket with no name yet may act (typing, which
    /// only shows a name, as the seed lets any socket do).
    private static func impostor(_ nick: String, socketID: String, in s: State, unnamed: Bool = false) -> String? {
        guard let own = s.users.first(where: { $0.id == socketID })?.nickname else {
            if unnamed { return nil }
            return "this connection has no name in the room: send connectUser first (or another connection took the name over)"
        }
        return own == nick ? nil : "this connection is \(JSONValue.string(own).text), not \(JSONValue.string(nick).text)"
    }

    /// Nil once done; why not for a moderator's name from a socket without the token.
    private func connectUser(_ nick: String, socketID: String) -> String? {
        if let problem = Self.nicknameProblem(nick) { return problem }
        return state.withLock { s -> String? in
            guard s.audience.contains(socketID) else { return nil }
            if guarded, moderators.contains(nick), !s.trusted.contains(socketID) {
                return "\(JSONValue.string(nick).text) is a moderator's name: only a client that connects with the moderator token may use it"
            }
            let info: User
            if let i = s.users.firstIndex(where: { $0.nickname == nick }) {
                // A returning nickname takes over the entry, whichever socket held it;
                // a socket still holding it is told, and leaves the room.
                let old = s.users[i].id
                if old != socketID, let session = s.audience.session(of: old), s.audience.remove(old, session) {
                    s.forget(old)
                    let notice = Outbound.message(.event(SocketChatModeration.nameTaken, [["nickname": .string(nick)]], namespace: namespace))
                    session.loop.execute { [namespace] in
                        session.send(notice)
                        session.kicked(from: namespace, socketID: old)
                    }
                }
                if !s.users[i].isConnected { s.noLongerOffline(nick) }
                s.users[i].isConnected = true
                s.users[i].id = socketID
                info = s.users[i]
            } else {
                info = User(id: socketID, nickname: nick, isConnected: true)
                s.users.append(info)
            }
            emit("userList", [s.userList], in: s)
            emit("userConnectUpdate", [info.json], in: s)
            return nil
        }
    }

    /// Relays the message with a fresh id, unless its sender (the nickname it
    /// names, or the one its socket connected as) is muted: then the outcome.
    private func chatMessage(_ nick: String, _ message: String, socketID: String) -> Outcome? {
        let date = LocaleDate.now()
        let muted = state.withLock { s -> Outcome? in
            guard s.audience.contains(socketID) else { return .refused("chatMessage from a socket no longer in the room") }
            if let refusal = Self.impostor(nick, socketID: socketID, in: s) { return .denied(refusal) }
            if let mute = s.mutes[nick] {
                let left = ContinuousClock.now.duration(to: mute.until)
                if left > .zero { return .muted(seconds: (left / .seconds(1)).rounded(.up), reason: mute.reason) }
                s.mutes[nick] = nil
            }
            let id = s.messages.next()
            s.stopTyping(nick)
            // Counted before it goes out: whoever reads the stats after receiving it sees it counted.
            registry.countRelayed()
            let skip = s.echoSkip(socketID)
            emitTyping(in: s, skipping: skip)
            emit("newChatMessage", [.string(nick), .string(message), .string(date), .string(id)], in: s, skipping: skip)
            return nil
        }
        return muted
    }

    private func setTyping(_ nick: String, _ typing: Bool, socketID: String) -> String? {
        state.withLock { s -> String? in
            guard s.audience.contains(socketID) else { return nil }
            if let refusal = Self.impostor(nick, socketID: socketID, in: s, unnamed: true) { return refusal }
            if typing {
                if !s.typing.contains(nick) { s.typing.append(nick) }
            } else {
                s.stopTyping(nick)
            }
            emitTyping(in: s, skipping: s.echoSkip(socketID))
            return nil
        }
    }

    /// Removes the entry of this socket, which must be the name it gives.
    private func exitUser(_ nick: String, socketID: String) -> String? {
        state.withLock { s -> String? in
            guard s.audience.contains(socketID) else { return nil }
            if let refusal = Self.impostor(nick, socketID: socketID, in: s) { return refusal }
            if let i = s.users.firstIndex(where: { $0.id == socketID }) { s.users.remove(at: i) }
            emit("userExitUpdate", [.string(nick)], in: s)
            return nil
        }
    }

    /// Carries out a moderator's request; returns why not, or nil once done
    /// (its broadcasts queued, so the ack goes out behind them).
    private func moderate(_ action: ModerationAction, socketID: String) -> String? {
        state.withLock { s -> String? in
            guard s.audience.contains(socketID) else { return "you are not in this room" }
            guard let by = s.users.first(where: { $0.id == socketID })?.nickname else {
                return "send connectUser before moderating"
            }
            guard moderators.contains(by) else { return "\(JSONValue.string(by).text) is not a moderator" }
            if guarded, !s.trusted.contains(socketID) { return "this client did not connect with the moderator token" }
            switch action {
            case .kick(_, let user, let reason):
                return kick(user, reason: reason, by: by, in: &s)
            case .mute(_, let user, let seconds, let reason):
                guard seconds > 0, seconds <= SocketChatModeration.maxSeconds else {
                    return "seconds must be more than 0 (and at most 10^12)"
                }
                guard s.users.contains(where: { $0.nickname == user }) else { return Self.noUser(user) }
                s.mutes[user] = Mute(until: .now + .milliseconds(Int64(seconds * 1000)), reason: reason)
                emit(SocketChatModeration.muted, [["nickname": .string(user), "seconds": .number(seconds),
                                                   "reason": .string(reason), "by": .string(by)]], in: s)
                return nil
            case .delete(_, let id):
                guard s.messages.remove(id) else {
                    return "no message \(JSONValue.string(id).text) in this room (deleted already, or older than the newest \(Self.deletableMessages))"
                }
                emit(SocketChatModeration.deleted, [["id": .string(id), "by": .string(by)]], in: s)
                return nil
            }
        }
    }

    /// Called with the lock held. Everyone, the user included, hears of the kick;
    /// then their socket leaves (a DISCONNECT behind the notice), their entry
    /// goes as with `exitUser`, and the others get the leave.
    private func kick(_ user: String, reason: String, by: String, in s: inout State) -> String? {
        guard let i = s.users.firstIndex(where: { $0.nickname == user }) else { return Self.noUser(user) }
        let victim = s.users.remove(at: i)
        if !victim.isConnected { s.noLongerOffline(user) }
        emit(SocketChatModeration.kicked, [["nickname": .string(user), "reason": .string(reason), "by": .string(by)]], in: s)
        if let session = s.audience.session(of: victim.id), s.audience.remove(victim.id, session) {
            s.forget(victim.id)
            // Queued after the drain that carries the notice to the user.
            session.loop.execute { [namespace] in session.kicked(from: namespace, socketID: victim.id) }
        }
        s.stopTyping(user)
        emit("userList", [s.userList], in: s)
        emit("userExitUpdate", [.string(user)], in: s)
        emitTyping(in: s)
        return nil
    }

    private static func noUser(_ user: String) -> String {
        "no user \(JSONValue.string(user).text) in this room"
    }

    /// Called with the lock held: the room's typing set, to everyone who wants typing updates.
    private func emitTyping(in s: State, skipping: String? = nil) {
        emit("userTypingUpdate", [s.typingUsers], in: s, skipping: skipping, unwanted: s.untyped)
    }

    /// Called with the lock held: encodes once and queues for every member
    /// but `skipping` and those in `unwanted`.
    private func emit(_ event: String, _ args: [JSONValue], in s: State, skipping: String? = nil, unwanted: Set<String> = []) {
        var packet = Outbound.message(.event(event, args, namespace: namespace))
        packet.skipping = skipping
        packet.unwanted = unwanted
        for members in s.audience.enqueue(packet) {
            members.loop.execute {
                // Taken under the lock so no broadcast slips between take and reschedule.
                let batches = self.state.withLock { _ in members.take() }
                for batch in batches { batch.deliver() }
            }
        }
    }
}

/// A room's message ids, and those of its newest messages, which a moderator
/// may still delete: at least the newest `limit`, fewer than twice that (the
/// oldest are forgotten in bulk, so a message costs O(1) amortised). An id is
/// a random prefix, one per room, and a count: cheap, and not the same after
/// a restart.
struct MessageIDs {
    private let prefix = String(SessionRegistry.makeID().prefix(8))
    private var count = 0
    private var order: [String] = []
    private var live: Set<String> = []
    let limit: Int

    init(limit: Int) { self.limit = limit }

    /// A new message's id, deletable from now on.
    mutating func next() -> String {
        count += 1
        let id = "\(prefix)-\(count)"
        order.append(id)
        live.insert(id)
        if order.count >= 2 * limit {
            for old in order[..<(order.count - limit)] { live.remove(old) }
            order.removeFirst(order.count - limit)
        }
        return id
    }

    /// True when `id` was deletable (it no longer is).
    mutating func remove(_ id: String) -> Bool {
        live.remove(id) != nil
    }
}
