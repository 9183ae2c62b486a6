import ParleyCore
import ParleyWire

/// A chat as the bot's runtime sees it.
extension RESTChat {
    func message(room: String, replayed: Bool = false) -> ChatMessage {
        ChatMessage(room: room, user: nickname, text: content, id: id, time: time, replayed: replayed)
    }

    /// Where this chat leaves the room's last-seen cursor.
    var cursor: RoomCursor { RoomCursor(cursor: id, time: time) }
}

