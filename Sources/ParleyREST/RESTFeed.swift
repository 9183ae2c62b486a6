import ParleyCore
import ParleyWire

/// Turns the server's chat objects into bot events, for catch-up and live
/// events alike, so both follow the same rules:
///
/// - the bot's own chats (by `user_id`) are dropped: the server broadcasts
///   every chat to its sender too;
/// - a chat already delivered in this session (by `chat_id`) is dropped: a
///   chat posted while catch-up ran arrives both in the catch-up answer and
///   live;
/// - a person's first chat in a room, as far as this transport knows, comes
///   with a `join` before it. REST channels have no presence events; this is
///   what lets a greeter work. People known from the backfill, or from an
///   earlier session of this process, are not announced again.
///
/// A value type with no I/O, so the rules are tested on their own.
struct RESTFeed: Sendable {
    let ownUserId: String
    /// Nicknames seen per room (survives sessions: the transport keeps it).
    var known: [String: Set<String>] = [:]
    /// `chat_id`s delivered in this session, per room (the newest `limit`).
    private var delivered: [String: Set<String>] = [:]
    private var order: [String: [String]] = [:]
    private let limit = 4096

    init(ownUserId: String, known: [String: Set<String>] = [:]) {
        self.ownUserId = ownUserId
        self.known = known
    }

    /// What one chat means for plugins: nothing, a message, or a join and a message.
    mutating func events(for chat: RESTChat, room: String, replayed: Bool) -> [BotEvent] {
        if chat.userId == ownUserId { return [] }
        guard remember(chat.id, room: room) else { return [] }
        var out: [BotEvent] = []
        if known[room, default: []].insert(chat.nickname).inserted {
            out.append(.join(room: room, user: chat.nickname, time: chat.time))
        }
        out.append(.message(chat.message(room: room, replayed: replayed)))
        return out
    }

    /// Backfilled chats: their authors are known, their ids delivered.
    mutating func backfilled(_ chats: [RESTChat], room: String) {
        for c in chats {
            known[room, default: []].insert(c.nickname)
            _ = remember(c.id, room: room)
        }
    }

    /// False when the id was delivered already.
    private mutating func remember(_ id: String, room: String) -> Bool {
        guard delivered[room, default: []].insert(id).inserted else { return false }
        order[room, default: []].append(id)
        if order[room]!.count > limit * 2 {
            let old = order[room]!.prefix(order[room]!.count - limit)
            delivered[room]!.subtract(old)
            order[room]!.removeFirst(old.count)
        }
        return true
    }
}
