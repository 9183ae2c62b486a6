import ParleyConfig

/// `[bot.socketio]`: the Socket.IO transport's own keys.
///
/// The defaults speak to a SocketChat server (the seed's event set, one room
/// in the default namespace); every event name can be changed so the same
/// transport talks to other Socket.IO chat servers.
public struct SocketIOOptions: Sendable, Equatable {
    /// How Engine.IO carries packets.
    public enum Link: String, Sendable, CaseIterable { case websocket, polling }

    /// Tried in order: with `["websocket", "polling"]` a server that refuses
    /// WebSocket is reached by long-polling; with `["polling", "websocket"]`
    /// the session starts polling and upgrades when the server offers it.
    public var transports: [Link] = [.websocket, .polling]
    /// The Engine.IO path; the trailing slash matters (servers answer 404 without it).
    public var path = "/socket.io/"
    /// Extra HTTP headers on every request (handshake, polling, upgrade).
    public var headers: [String: String] = [:]
    /// Extra query parameters on every request.
    public var query: [String: String] = [:]
    /// The CONNECT auth payload (`{"token": "…"}` and the like); nil sends none.
    public var auth: [String: String]?
    /// A PEM file of extra trusted CAs for `wss://` / `https://` (the system trust store is always used).
    public var caFile: String?
    /// The namespace of the single room (SocketChat: `/`).
    public var namespace = "/"
    /// Servers with one namespace per room: each room in `rooms` connects
    /// `namespaceTemplate` with `{room}` replaced.
    public var namespacePerRoom = false
    public var namespaceTemplate = "/{room}"
    /// How long an emit that asks for an ack waits for it.
    public var ackTimeout: Double = 10
    /// Ask the server to ack every chat send and count a send delivered only
    /// when the ack arrives (the outbox keeps it otherwise). Needs a server
    /// that acks; the SocketChat seed server does not, so the default is off.
    public var ackSends = false
    /// The event names.
    public var events = SocketChatEvents()

    public init() {}

    static func read(_ t: TableReader) throws -> SocketIOOptions {
        var o = SocketIOOptions()
        let links = try t.stringArray("transports", default: o.transports.map(\.rawValue))
        var parsed: [Link] = []
        for name in links {
            guard let link = Link(rawValue: name) else {
                throw t.error("transports", "unknown transport '\(name)' (websocket, polling)")
            }
            if parsed.contains(link) { throw t.error("transports", "'\(name)' is listed twice") }
            parsed.append(link)
        }
        if parsed.isEmpty { throw t.error("transports", "name at least one of websocket, polling") }
        o.transports = parsed
        o.path = try t.string("path", default: o.path)
        if !o.path.hasPrefix("/") { throw t.error("path", "the path must start with '/' (e.g. \"/socket.io/\")") }
        // Servers answer 404 without the trailing slash; the JS client adds it too.
        if !o.path.hasSuffix("/") { o.path += "/" }
        o.headers = try stringTable(t, "headers") ?? [:]
        o.query = try stringTable(t, "query") ?? [:]
        o.auth = try stringTable(t, "auth")
        o.caFile = try t.optionalString("ca_file")
        o.namespace = try t.string("namespace", default: o.namespace)
        if !o.namespace.hasPrefix("/") { throw t.error("namespace", "a namespace starts with '/'") }
        o.namespacePerRoom = try t.bool("namespace_per_room", default: o.namespacePerRoom)
        o.namespaceTemplate = try t.string("namespace_template", default: o.namespaceTemplate)
        if !o.namespaceTemplate.hasPrefix("/") || !o.namespaceTemplate.contains("{room}") {
            throw t.error("namespace_template", "a namespace template starts with '/' and contains {room}")
        }
        o.ackTimeout = try t.double("ack_timeout", default: o.ackTimeout, range: 0.01...3600)
        o.ackSends = try t.bool("ack_sends", default: o.ackSends)
        o.events = try t.optionalTable("events") { e in try SocketChatEvents.read(e) } ?? SocketChatEvents()
        return o
    }

    /// A table of string values (`[bot.socketio.headers]`).
    private static func stringTable(_ t: TableReader, _ key: String) throws -> [String: String]? {
        guard t.contains(key) else { return nil }
        return try t.table(key) { sub in
            var out: [String: String] = [:]
            for k in sub.keys { out[k] = try sub.string(k) }
            return out
        }
    }
}

/// The Socket.IO event names a bot uses, SocketChat's by default. An empty
/// name turns that event off (a server without typing, say).
public struct SocketChatEvents: Sendable, Equatable {
    /// Sent on connect with the bot's name.
    public var connectUser = "connectUser"
    /// Received: the whole user list, `[{id, nickname, isConnected}]` → `roster`.
    public var userList = "userList"
    /// Received: `{nickname, isConnected}` → `join`.
    public var userConnect = "userConnectUpdate"
    /// Received: a nickname → `leave`.
    public var userExit = "userExitUpdate"
    /// Received: `(nick, msg, date)` → `message`.
    public var newMessage = "newChatMessage"
    /// Received: the set of typing users `{nick: 1, …}` → `typing` by difference.
    public var typingUpdate = "userTypingUpdate"
    /// Sent by `bot.send`: `(name, text)`.
    public var chatMessage = "chatMessage"
    public var startType = "startType"
    public var stopType = "stopType"
    /// Sent on a clean leave with the bot's name.
    public var exitUser = "exitUser"

    public init() {}

    static var keys: [(String, WritableKeyPath<SocketChatEvents, String>)] { [
        ("connect_user", \.connectUser), ("user_list", \.userList), ("user_connect", \.userConnect),
        ("user_exit", \.userExit), ("new_message", \.newMessage), ("typing_update", \.typingUpdate),
        ("chat_message", \.chatMessage), ("start_type", \.startType), ("stop_type", \.stopType),
        ("exit_user", \.exitUser),
    ] }

    static func read(_ t: TableReader) throws(ConfigError) -> SocketChatEvents {
        var e = SocketChatEvents()
        for (key, path) in keys { e[keyPath: path] = try t.string(key, default: e[keyPath: path]) }
        if e.chatMessage.isEmpty { throw t.error("chat_message", "the send event cannot be turned off") }
        return e
    }
}
