import ParleyWire

/// The last packet text of each event that carries a whole state every time
/// it is sent (SocketChat's `userTypingUpdate`, sent with every message of a
/// room), by namespace.
///
/// Why: a packet the same, byte for byte, as the last one of its event in its
/// namespace decodes to the same state, so it says nothing new; it is dropped
/// before its JSON is decoded. That is two of the four frames a SocketChat
/// bot reads for each reply it sends.
struct StateRepeats: Sendable {
    /// Event names whose packets each carry a whole state.
    let events: Set<String>
    private var last: [Key: String] = [:]

    private struct Key: Hashable {
        var namespace: String
        var event: String
    }

    init(events: Set<String>) { self.events = events }

    /// Whether `text` is the last packet of some whole-state event, again.
    func isRepeat(_ text: String) -> Bool {
        !last.isEmpty && last.values.contains(text)
    }

    /// Forgets every last packet: the next of each event is delivered
    /// whatever it says (the server stopped sending it for a while, say).
    mutating func forget() { last = [:] }

    /// Keeps `packet`'s text as the last of its event when it is a
    /// whole-state event. Only a plain event can be a repeat: one asking for
    /// an ack must be answered every time, and one with attachments is not
    /// all in its text; either still changes the state, so it forgets the last.
    mutating func record(_ text: String, _ packet: SocketIO.Packet) {
        guard !events.isEmpty, let name = packet.eventName, events.contains(name) else { return }
        let key = Key(namespace: packet.namespace, event: name)
        if packet.type == .event, packet.id == nil { last[key] = text } else { last[key] = nil }
    }
}
