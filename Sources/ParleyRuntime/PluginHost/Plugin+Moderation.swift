import ParleyCore
import ParleyLua
import ParleyStore

/// `bot.kick`, `bot.mute`, `bot.delete`: staged in the open transaction and
/// carried out by the transport once the handler committed. Where the chat
/// cannot do it (`bot.transport.kick` and its siblings), the call returns
/// `nil, "not supported by <transport>"` and nothing is staged.
extension Plugin {
    /// `moderate(verb, room, target, seconds, reason, answer)`: `true`, or
    /// with `answer` the id under which the prelude keeps the plugin's function.
    func moderate(_ a: [LuaValue]) -> Result<[LuaValue], HostCallError> {
        guard a.count >= 3, let verb = a[0].stringValue, let room = a[1].stringValue, let target = a[2].stringValue,
              !room.isEmpty, !target.isEmpty else {
            let who = a.first?.stringValue ?? "moderate"
            return .failure(HostCallError("bot.\(who): the room and the \(who == "delete" ? "message id" : "user") must be non-empty strings"))
        }
        let transport = services.transport
        let reason = a.count > 4 ? a[4].stringValue ?? "" : ""
        if reason.utf8.count > 500 { return .failure(HostCallError("bot.\(verb): the reason is over 500 bytes")) }
        // What the transport would refuse is refused here, where the plugin can see it.
        if reason.contains(where: \.isNewline) { return .success([.nil, .string("the reason must be one line")]) }
        if let token = transport.forbiddenSubstrings.first(where: { !$0.isEmpty && reason.contains($0) }) {
            return .success([.nil, .string("the reason contains '\(token)', which \(transport.name) forbids")])
        }
        if let control = transport.controlProblem(reason) { return .success([.nil, .string("the reason contains \(control)")]) }
        if verb != "delete", target == services.name { return .success([.nil, .string("the bot cannot \(verb) itself")]) }
        let action: ModerationAction
        switch verb {
        case "kick":
            guard transport.kick else { return .success([.nil, .string("not supported by \(transport.name)")]) }
            action = .kick(room: room, user: target, reason: reason)
        case "mute":
            guard transport.mute else { return .success([.nil, .string("not supported by \(transport.name)")]) }
            guard a.count > 3, let s = a[3].numberValue, s.isFinite, s >= 1, s <= 7 * 86_400 else {
                return .failure(HostCallError("bot.mute: seconds must be a number from 1 to 604800"))
            }
            action = .mute(room: room, user: target, seconds: s.rounded(), reason: reason)
        case "delete":
            guard transport.delete else { return .success([.nil, .string("not supported by \(transport.name)")]) }
            action = .delete(room: room, messageId: target)
        default:
            return .failure(HostCallError("unknown moderation step \(verb)"))
        }
        if staged.moderation.count >= limits.sendsPerEvent {
            return refuse("moderation", "more than \(limits.sendsPerEvent) moderation steps in one event (limits.sends_per_event)")
        }
        guard a.count > 5, a[5] == .bool(true) else {
            staged.moderation.append((action, nil))
            return .success([.bool(true)])
        }
        let id = nextTimerId
        nextTimerId += 1
        staged.moderation.append((action, id))
        return .success([.int(id)])
    }
}

extension Bot {
    /// The outcome of a moderation step whose plugin passed a function,
    /// delivered as its own event: `fn(true)` or `fn(nil, reason)`.
    public func answer(plugin name: String, moderation id: Int64, refused reason: String?) throws(StoreError) -> [BotAction] {
        guard let p = plugins.first(where: { $0.name == name }),
              let callback = p.moderationInFlight.removeValue(forKey: id), !p.isDisabled else { return [] }
        return try deliver(to: p, kind: "moderation") { w in
            w.beginTable(array: 0, pairs: reason == nil ? 1 : 2)
            w.key(.id); w.write(callback)
            if let reason { w.key(.error); w.write(reason) }
        }
    }
}
