import ParleyCore
import ParleyWire

/// Chat over STOMP in Parley's words, both ways, with no I/O (so the mapping
/// is tested on its own): a MESSAGE frame's JSON body → an event, and a send
/// → a SEND frame.
///
/// The body template names the fields (`{type}`, `{room}`, `{sender}`,
/// `{message}`); the type table says which `type` is a join, a message, a
/// leave or typing. The room comes from the subscription the frame arrived
/// on, not from the body, so a body cannot speak for another room.
struct STOMPChatMapper: Sendable {
    let options: STOMPOptions
    let botName: String

    init(options: STOMPOptions, botName: String) {
        self.options = options
        self.botName = botName
    }

    /// `{room}` / `{user}` filled into a destination template.
    static func destination(_ template: String, room: String = "", user: String = "") -> String {
        template.replacingOccurrences(of: "{room}", with: room).replacingOccurrences(of: "{user}", with: user)
    }

    /// What a MESSAGE on a room's subscription means, or why it means nothing.
    func map(_ frame: STOMPFrame, room: String) -> Result<TransportEvent?, TransportError> {
        let body: JSONValue
        do {
            body = try JSONValue.parse(bytes: frame.body)
        } catch {
            return .failure(TransportError(.protocolViolation, "a message on \(room) is not JSON (\(error)): \(String(frame.bodyText.prefix(80)).debugDescription)"))
        }
        let template = options.body
        guard let sender = template.read(.sender, from: body) else {
            return .failure(TransportError(.protocolViolation, "a message on \(room) has no sender: \(String(body.text.prefix(80)))"))
        }
        let type = template.read(.type, from: body) ?? options.types.message
        let text = template.read(.message, from: body) ?? ""
        let t = options.types
        if let kick = options.kickType, type == kick {
            return .success(sender == botName ? .kicked(text.isEmpty ? "logged in elsewhere (\(kick))" : text) : nil)
        }
        switch type {
        case t.message: return .success(.chat(.message(ChatMessage(room: room, user: sender, text: text))))
        case t.join where !t.join.isEmpty: return .success(.chat(.join(room: room, user: sender, time: nil)))
        case t.leave where !t.leave.isEmpty: return .success(.chat(.leave(room: room, user: sender, time: nil)))
        case t.typing where !t.typing.isEmpty: return .success(.chat(.typing(room: room, user: sender, on: true)))
        case t.typingStop where !t.typingStop.isEmpty: return .success(.chat(.typing(room: room, user: sender, on: false)))
        default: return .success(nil)
        }
    }

    /// Any MESSAGE on the kick destination: the body's message field, else its text, is the reason.
    func kickReason(_ frame: STOMPFrame) -> String {
        if let body = try? JSONValue.parse(bytes: frame.body), let m = options.body.read(.message, from: body), !m.isEmpty { return m }
        let text = frame.bodyText
        return text.isEmpty ? "logged in elsewhere" : String(text.prefix(200))
    }

    /// A SEND of `type` with `text` to `room`'s send destination.
    func send(type: String, room: String, text: String) -> STOMPFrame {
        let body = options.body.render([.type: type, .room: room, .sender: botName, .message: text])
        return STOMPFrame("SEND", [("destination", Self.destination(options.send, room: room, user: botName)),
                                   ("content-type", "application/json")], text: body)
    }
}
