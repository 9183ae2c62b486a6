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
        /// `bot.http(req, fn)`, committed: the runtime makes the request and
        /// hands the answer back to the plugin as an event.
        case http(HTTPCall)
        /// `bot.kick`, `bot.mute`, `bot.delete`, committed: the transport
        /// carries it out. `answer`: the plugin passed a function, which gets
        /// the outcome as an event under this id (unique in the bot, as `HTTPCall.id`).
        case moderate(ModerationAction, answer: Int64? = nil)
        /// What a webhook's handler answered: `parley plugin test` prints it,
        /// the runtime's HTTP server sends it (`WebhookReply`).
        case webhookReply(path: String, status: Int, body: String)
    }

    public var plugin: String
    public var kind: Kind
    /// For a committed send: the message as the outbox queues it and the
    /// transport writes it (its id reports the delivery, `Bot.markDelivered`).
    public var message: OutgoingMessage?
    /// For a committed moderation step: the step as the journal keeps it
    /// (its id marks it done, `Bot.markDelivered`).
    public var step: ModerationStep?

    public init(plugin: String, _ kind: Kind, message: OutgoingMessage? = nil, step: ModerationStep? = nil) {
        self.plugin = plugin
        self.kind = kind
        self.message = message
        self.step = step
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
        case .http(let call):
            o.add("action", "http"); o.add("method", call.method); o.add("url", call.url)
            if !call.headers.isEmpty {
                // In the plugin's order; a credential's value is not printed, its presence is.
                var h = JSONObjectWriter()
                for header in call.headers { h.add(header.name, header.isCredential ? "***" : header.value) }
                o.add("headers", raw: h.finish())
            }
            if let body = call.body { o.add("body", String(decoding: body, as: UTF8.self)) }
        case .webhookReply(let path, let status, let body):
            o.add("action", "webhook_reply"); o.add("path", path); o.add("status", status); o.add("body", body)
        case .moderate(let m, _):
            switch m {
            case .kick(let room, let user, let reason):
                o.add("action", "kick"); o.add("room", room); o.add("user", user); o.add("reason", reason)
            case .mute(let room, let user, let seconds, let reason):
                o.add("action", "mute"); o.add("room", room); o.add("user", user); o.add("seconds", seconds); o.add("reason", reason)
            case .delete(let room, let id):
                o.add("action", "delete"); o.add("room", room); o.add("id", id)
            }
        }
        return o.finish()
    }
}

/// An outbound HTTP request a plugin made (`bot.http`), checked against its
/// bot's `[bot.http]` allow list when it was made.
public struct HTTPCall: Sendable, Equatable {
    /// Unique in its bot for the life of the process: the answer comes back
    /// under it, and finds no one when the plugin was reloaded meanwhile.
    public var id: Int64
    public var method: String
    public var url: String
    /// Names as the plugin wrote them, in its order.
    public var headers: [HTTPHeader]
    public var body: [UInt8]?
    /// Seconds, at most `[bot.http] timeout`.
    public var timeout: Double

    public init(id: Int64, method: String, url: String, headers: [HTTPHeader] = [], body: [UInt8]? = nil, timeout: Double) {
        self.id = id
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// One header line.
public struct HTTPHeader: Sendable, Equatable {
    public var name: String
    public var value: String
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    /// Carries a credential: a webhook's caller's never reach a plugin, and a
    /// plugin's own stay with the origin it gave them to.
    public var isCredential: Bool {
        switch name.lowercased() {
        case "authorization", "cookie", "proxy-authorization": true
        default: false
        }
    }
}

/// What became of an `HTTPCall`: the plugin's `fn(res)` or `fn(nil, reason)`.
public enum HTTPOutcome: Sendable, Equatable {
    case response(status: Int, headers: [HTTPHeader], body: [UInt8])
    case failed(String)
}

extension [BotAction] {
    /// Appends `rhs`, as the standard one does; into an empty list it takes
    /// `rhs`'s storage instead of copying it, which is how a turn gathers
    /// its handlers' actions (most turns have one handler).
    public static func += (lhs: inout Self, rhs: Self) {
        if lhs.isEmpty { lhs = rhs } else { lhs.append(contentsOf: rhs) }
    }
}
