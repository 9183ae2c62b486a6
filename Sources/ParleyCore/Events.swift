import ParleyLua

/// A chat message as plugins see it (`msg.room`, `msg.user`, ...).
///
/// Its fields are in one `Shared` box: an event is copied several times
/// between the transport and the plugins, and a copy then costs one
/// reference count, not one a string.
public struct ChatMessage: Sendable, Equatable {
    private struct Fields: Sendable, Equatable {
        var room, user, text: String
        var id: String?
        var time: Double?
        var replayed: Bool
    }

    private var fields: Shared<Fields>

    public var room: String {
        get { fields.value.room }
        set { fields = fields.with { $0.room = newValue } }
    }
    public var user: String {
        get { fields.value.user }
        set { fields = fields.with { $0.user = newValue } }
    }
    public var text: String {
        get { fields.value.text }
        set { fields = fields.with { $0.text = newValue } }
    }
    /// The server's id when the transport gives one; otherwise the bot assigns one.
    public var id: String? {
        get { fields.value.id }
        set { fields = fields.with { $0.id = newValue } }
    }
    /// Seconds since 1970; nil means "now" on the bot's clock.
    public var time: Double? {
        get { fields.value.time }
        set { fields = fields.with { $0.time = newValue } }
    }
    /// The message was posted while the bot was away (disconnected or
    /// stopped) and reaches it late, through a transport's catch-up after a
    /// (re)connect. Plugins see it as `msg.replayed`, so one that reacts to
    /// "now" (a flood counter, a greeting) can tell; the bot also drops a
    /// replayed message whose server id its history already holds.
    public var replayed: Bool {
        get { fields.value.replayed }
        set { fields = fields.with { $0.replayed = newValue } }
    }

    public init(room: String, user: String, text: String, id: String? = nil, time: Double? = nil, replayed: Bool = false) {
        fields = Shared(Fields(room: room, user: user, text: text, id: id, time: time, replayed: replayed))
    }

    public static func == (a: Self, b: Self) -> Bool { Shared.same(a.fields, b.fields) }
}

public struct RosterEntry: Sendable, Equatable {
    public var user: String
    public var online: Bool
    public init(user: String, online: Bool) {
        self.user = user
        self.online = online
    }
}

/// The bot's connection as plugins see it in `connection` events.
public enum ConnectionState: String, Sendable, CaseIterable {
    case connecting, online, offline, backoff, kicked
    case gaveUp = "gave_up"
}

/// Everything a transport (or the test harness) can deliver to a bot.
extension BotEvent {
    /// The bot's own message, join or leave. Servers echo a bot's messages to
    /// it and announce its joins on every (re)connect; plugins never see them,
    /// so a reconnect is not an arrival and a greeter never greets itself.
    /// The one own-echo rule: the router applies it (`Bot.handle`, for `run`
    /// and `parley plugin test` alike), and the runtime also drops such events
    /// before they cross to the plugins' thread.
    public func isOwn(by name: String) -> Bool {
        switch self {
        case .join(_, let user, _), .leave(_, let user, _): user == name
        case .message(let m): m.user == name
        default: false
        }
    }
}

public enum BotEvent: Sendable, Equatable {
    case message(ChatMessage)
    case join(room: String, user: String, time: Double?)
    case leave(room: String, user: String, time: Double?)
    case typing(room: String, user: String, on: Bool)
    case roster(room: String, users: [RosterEntry])
    case connection(ConnectionState)

    /// The event kind plugins register for with `bot.on`.
    public var kind: String {
        switch self {
        case .message: "message"
        case .join: "join"
        case .leave: "leave"
        case .typing: "typing"
        case .roster: "roster"
        case .connection: "connection"
        }
    }
}

/// A room's last-seen cursor: the server's id and time of the newest message
/// the bot handled there. A transport that can catch up after a reconnect
/// asks the server for what came after it.
public struct RoomCursor: Sendable, Equatable {
    /// The server's message id (opaque to the bot).
    public var cursor: String
    /// The server's time of that message, seconds since 1970.
    public var time: Double

    public init(cursor: String, time: Double) {
        self.cursor = cursor
        self.time = time
    }
}
