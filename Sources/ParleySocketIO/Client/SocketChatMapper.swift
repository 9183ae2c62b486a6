import ParleyCore
import ParleyWire

/// SocketChat's events in Parley's words: `userList` → `roster`,
/// `userConnectUpdate` → `join`, `userExitUpdate` → `leave`,
/// `newChatMessage` → `message`, `userTypingUpdate` → `typing`. Moderation
/// notices (`userKicked`, …) map to nothing: a kick's `userExitUpdate` follows it.
///
/// A value type with no I/O, so the mapping is tested on its own. The server
/// sends the whole set of typing users each time; the mapper keeps the last
/// set per room and reports only who started and who stopped.
struct SocketChatMapper: Sendable {
    let events: SocketChatEvents
    let botName: String
    private var typing: [String: [String]] = [:]

    init(events: SocketChatEvents, botName: String) {
        self.events = events
        self.botName = botName
    }

    /// Forgets the typing sets: the next set of each room counts from
    /// nobody typing (the server stopped sending them for a while).
    mutating func forgetTyping() { typing = [:] }

    /// What one server event means for plugins (often nothing).
    mutating func map(_ name: String, _ args: [JSONValue], room: String) -> [BotEvent] {
        switch name {
        case "": return []
        case events.newMessage:
            guard let user = args.first?.string, let text = args.dropFirst().first?.string else { return [] }
            // Parley's server adds the message's id (what `deleteMessage` names); the seed's has none.
            return [.message(ChatMessage(room: room, user: user, text: text, id: args.count > 3 ? args[3].string : nil))]
        case events.userConnect:
            // `{id, nickname, isConnected}`; a bare nickname from simpler servers.
            guard let user = args.first?["nickname"]?.string ?? args.first?.string else { return [] }
            return [.join(room: room, user: user, time: nil)]
        case events.userExit:
            // The seed server also sends `userExitUpdate(null)` after an `exitUser`: nobody left.
            guard let user = args.first?.string ?? args.first?["nickname"]?.string else { return [] }
            return [.leave(room: room, user: user, time: nil)]
        case events.userList:
            guard let list = args.first?.array else { return [] }
            let entries = list.compactMap { e -> RosterEntry? in
                guard let user = e["nickname"]?.string else { return nil }
                return RosterEntry(user: user, online: e["isConnected"]?.bool ?? true)
            }
            return [.roster(room: room, users: entries)]
        case events.typingUpdate:
            guard let set = args.first?.object else { return [] }
            let now = set.map(\.0).filter { $0 != botName }
            let before = typing[room] ?? []
            typing[room] = now
            return now.filter { !before.contains($0) }.map { .typing(room: room, user: $0, on: true) }
                + before.filter { !now.contains($0) }.map { .typing(room: room, user: $0, on: false) }
        default:
            return []
        }
    }
}
