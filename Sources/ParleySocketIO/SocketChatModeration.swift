import ParleyCore
import ParleyWire

/// Parley's events on SocketChat that the seed's event set lacks: a
/// moderator's requests and what the embedded server broadcasts for them,
/// and a client's wish not to be sent typing updates. In one place so the
/// client transport and the server never disagree.
///
/// A request goes to the room's namespace with an ack id and is answered
/// `[true]` once done, or `[false, reason]`.
enum SocketChatModeration {
    /// `kickUser({user, reason})`: the user leaves the room; they may come back.
    static let kick = "kickUser"
    /// `muteUser({user, seconds, reason})`: the room drops their messages for that long.
    static let mute = "muteUser"
    /// `deleteMessage({id})`: the message with that `newChatMessage` id is withdrawn.
    static let delete = "deleteMessage"

    /// `userKicked({nickname, reason, by})`, to the room, the kicked user included.
    static let kicked = "userKicked"
    /// `userMuted({nickname, seconds, reason, by})`, to the room, once.
    static let muted = "userMuted"
    /// `messageDeleted({id, by})`, to the room.
    static let deleted = "messageDeleted"
    /// `messageDropped({seconds, reason})`, to a muted sender for each message
    /// not relayed: muted for `seconds` more.
    static let dropped = "messageDropped"
    /// `nameTaken({nickname})`, to a client whose name another connection
    /// took over, just before the server disconnects it from the room.
    static let nameTaken = "nameTaken"
    /// `typingUpdates(false)` / `typingUpdates(true)`, from a client: stop or
    /// start sending this socket the room's `userTypingUpdate`s. A bot asks
    /// for them only while a plugin listens to typing. Other servers ignore
    /// the event and keep sending.
    static let typingUpdates = "typingUpdates"

    /// The longest mute, in seconds (about 31,700 years).
    static let maxSeconds: Double = 1e12

    /// The event a client sends for `action`.
    static func request(_ action: ModerationAction) -> (event: String, payload: JSONValue) {
        switch action {
        case .kick(_, let user, let reason):
            (kick, ["user": .string(user), "reason": .string(reason)])
        case .mute(_, let user, let seconds, let reason):
            (mute, ["user": .string(user), "seconds": .number(seconds), "reason": .string(reason)])
        case .delete(_, let id):
            (delete, ["id": .string(id)])
        }
    }

    /// The action a client's event asks for in `room`; nil when `name` is not a
    /// moderation event, `.failure` with what is wrong when its payload is unusable.
    static func action(_ name: String, _ args: [JSONValue], room: String) -> Result<ModerationAction, Malformed>? {
        let payload = args.first
        // A missing reason is an empty one; a reason of another type is a mistake.
        let reason = payload?["reason"] == nil ? "" : payload?["reason"]?.string
        switch name {
        case kick:
            guard let user = payload?["user"]?.string, let reason else {
                return .failure(Malformed("\(kick) needs {user: string, reason?: string}"))
            }
            return .success(.kick(room: room, user: user, reason: reason))
        case mute:
            guard let user = payload?["user"]?.string, let seconds = payload?["seconds"]?.number, let reason else {
                return .failure(Malformed("\(mute) needs {user: string, seconds: number, reason?: string}"))
            }
            return .success(.mute(room: room, user: user, seconds: seconds, reason: reason))
        case delete:
            guard let id = payload?["id"]?.string else { return .failure(Malformed("\(delete) needs {id: string}")) }
            return .success(.delete(room: room, messageId: id))
        default:
            return nil
        }
    }

    struct Malformed: Error {
        var message: String
        init(_ message: String) { self.message = message }
    }

    /// The ack of a done request.
    static let done: [JSONValue] = [true]

    /// The ack of a refused request.
    static func refusal(_ reason: String) -> [JSONValue] { [false, .string(reason)] }

    /// Nil when the ack says done, else the server's reason.
    static func refusal(in ack: [JSONValue]) -> String? {
        if ack.first?.bool == true { return nil }
        return ack.dropFirst().first?.string ?? "the server refused without a reason"
    }
}
