import ParleyLua
import ParleyWire

/// Why a plugin reported an error action.
public enum PluginErrorKind: String, Sendable {
    case syntax, runtime, budget, memory, quota
    /// The circuit breaker switched the plugin off.
    case pluginDisabled = "disabled"

    /// The report of a failed VM call.
    package init(_ failure: PluginFailureKind) {
        switch failure {
        case .syntax: self = .syntax
        case .runtime: self = .runtime
        case .budget: self = .budget
        case .memory: self = .memory
        }
    }
}

/// Something a plugin did, attributed to it: what the harness prints and
/// what the runtime hands to the transport and the log.
public struct BotAction: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case send(room: String, text: String)
        case typing(room: String, on: Bool)
        case log(LogLevel, String)
        case error(PluginErrorKind, String)
        /// `bot.away(seconds)`: leave the chat cleanly and come back after `seconds`.
        case away(seconds: Double)
    }

    public var plugin: String
    public var kind: Kind
    /// For a committed send: the message as the outbox queues it and the
    /// transport writes it (its id reports the delivery, `Bot.markDelivered`).
    public var message: OutgoingMessage?

    public init(plugin: String, _ kind: Kind, message: OutgoingMessage? = nil) {
        self.plugin = plugin
        self.kind = kind
        self.message = message
    }

    /// One JSON object, keys in a fixed order (the harness's output format).
    public var json: String {
        var o = JSONObjectWriter()
        o.add("plugin", plugin)
        switch kind {
        case .send(let room, let text):
            o.add("action", "send"); o.add("room", room); o.add("text", text)
        case .typing(let room, let on):
            o.add("action", "typing"); o.add("room", room); o.add("on", on)
        case .log(let level, let text):
            o.add("action", "log"); o.add("level", level.rawValue); o.add("text", text)
        case .error(let kind, let message):
            o.add("action", "error"); o.add("kind", kind.rawValue); o.add("message", message)
        case .away(let seconds):
            o.add("action", "away"); o.add("seconds", seconds)
        }
        return o.finish()
    }
}
