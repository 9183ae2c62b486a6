import ParleyConfig
import ParleyCore
import ParleyWire

/// `[bot.stomp]`: the STOMP transport's own keys.
///
/// The defaults speak to RabbitMQ's Web-STOMP with a CocoTalk-style chat: one
/// topic per room, JSON bodies `{"type","roomId","sender","message"}`. Every
/// destination and field can be changed for other brokers and apps (a Spring
/// app with `/sub/…` and `/pub/…`, say).
public struct STOMPOptions: Sendable, Equatable {
    /// The CONNECT `host` header. RabbitMQ reads it as the vhost, so `/`.
    public var host = "/"
    public var login: String?
    /// Never logged (CONNECT frames are redacted before any log line).
    public var passcode: String?
    /// Extra CONNECT headers (an auth token for a Spring app, say).
    public var connectHeaders: [String: String] = [:]
    /// Extra HTTP headers on the WebSocket upgrade.
    public var headers: [String: String] = [:]
    /// Milliseconds: how often the bot promises to beat, and how often it
    /// asks the server to; 0 turns that direction off. The negotiated
    /// periods are the larger of each pair, as the spec says.
    public var heartBeat = (send: 10_000, receive: 10_000)
    /// Seconds of grace on top of two missed server beats before the link counts as dead.
    public var heartBeatMargin: Double = 1
    /// Destination templates; `{room}` is the room name.
    public var subscribe = "/topic/chat.room.{room}"
    public var send = "/topic/chat.room.{room}"
    /// The JSON body of a chat frame, both ways: `{type}`, `{room}`,
    /// `{sender}`, `{message}` are filled in when sending, and the same
    /// fields are read from what arrives.
    public var body = STOMPBodyTemplate.default
    /// Message types ↔ events.
    public var types = STOMPMessageTypes()
    /// Send the join type on connect and the leave type on a clean leave, per room.
    public var announce = true
    /// Seconds a SEND waits for its RECEIPT; then it counts as not delivered
    /// (the outbox keeps it) and the link is dropped.
    public var receiptTimeout: Double = 10
    /// An HTTP(S) URL asked for the socket server's address before every
    /// (re)connect; it answers `{"url": "ws://host:port/path"}` or the URL as plain text.
    public var discovery: String?
    /// A destination (`{user}` is the bot's name) on which any message means
    /// "logged in elsewhere".
    public var kickDestination: String?
    /// A message type that, sent with the bot's name as sender, means "logged in elsewhere".
    public var kickType: String?
    public var kickPolicy = KickPolicy.stop
    /// The largest frame accepted from the server.
    public var maxFrameBytes = 1 << 20

    public init() {}

    public static func == (a: STOMPOptions, b: STOMPOptions) -> Bool {
        a.host == b.host && a.login == b.login && a.passcode == b.passcode && a.connectHeaders == b.connectHeaders
            && a.headers == b.headers && a.heartBeat == b.heartBeat && a.heartBeatMargin == b.heartBeatMargin
            && a.subscribe == b.subscribe && a.send == b.send && a.body == b.body && a.types == b.types
            && a.announce == b.announce && a.receiptTimeout == b.receiptTimeout && a.discovery == b.discovery
            && a.kickDestination == b.kickDestination && a.kickType == b.kickType && a.kickPolicy == b.kickPolicy
            && a.maxFrameBytes == b.maxFrameBytes
    }

    static func read(_ t: TableReader) throws -> STOMPOptions {
        var o = STOMPOptions()
        o.host = try t.string("host", default: o.host)
        o.login = try t.optionalString("login")
        o.passcode = try t.optionalString("passcode")
        for key in ["host", "login", "passcode"] {
            // CONNECT headers are not escaped: a line break would end the header.
            if let v = try t.optionalString(key), v.contains(where: \.isNewline) { throw t.error(key, "must not contain a line break") }
        }
        o.connectHeaders = try stringTable(t, "connect_headers")
        o.headers = try stringTable(t, "headers")
        let beats = try t.intArray("heart_beat", default: [o.heartBeat.send, o.heartBeat.receive])
        guard beats.count == 2, beats.allSatisfy({ (0...3_600_000).contains($0) }) else {
            throw t.error("heart_beat", "expected [send_ms, receive_ms], each 0 (off) to 3600000")
        }
        o.heartBeat = (beats[0], beats[1])
        o.heartBeatMargin = try t.double("heart_beat_margin", default: o.heartBeatMargin, range: 0...3600)
        o.subscribe = try destination(t, "subscribe", default: o.subscribe, placeholder: "{room}")
        o.send = try destination(t, "send", default: o.send, placeholder: nil)
        if t.contains("body") {
            do {
                o.body = try STOMPBodyTemplate(try t.string("body"))
            } catch let e as STOMPBodyTemplate.Problem {
                throw t.error("body", e.message)
            }
        }
        o.types = try t.optionalTable("types") { s in try STOMPMessageTypes.read(s) } ?? STOMPMessageTypes()
        o.announce = try t.bool("announce", default: o.announce)
        o.receiptTimeout = try t.double("receipt_timeout", default: o.receiptTimeout, range: 0.01...3600)
        o.discovery = try t.optionalString("discovery")
        if let d = o.discovery, !(d.lowercased().hasPrefix("http://") || d.lowercased().hasPrefix("https://")) {
            throw t.error("discovery", "expected an http:// or https:// URL")
        }
        o.kickDestination = try t.optionalString("kick_destination")
        if let k = o.kickDestination, !k.hasPrefix("/") { throw t.error("kick_destination", "a destination starts with '/'") }
        o.kickType = try t.optionalString("kick_type").flatMap { $0.isEmpty ? nil : $0 }
        let policy = try t.oneOf("kick_policy", ["stop", "reclaim"], default: "stop")
        let delay = try t.double("reclaim_delay", default: 5, range: 0...86_400)
        o.kickPolicy = policy == "reclaim" ? .reclaim(after: delay) : .stop
        o.maxFrameBytes = try t.int("max_frame_bytes", default: o.maxFrameBytes, range: 1024...(1 << 28))
        return o
    }

    private static func destination(_ t: TableReader, _ key: String, default d: String, placeholder: String?) throws -> String {
        let v = try t.string(key, default: d)
        if !v.hasPrefix("/") { throw t.error(key, "a destination starts with '/' (e.g. \"/topic/chat.room.{room}\")") }
        if let placeholder, !v.contains(placeholder) { throw t.error(key, "one subscription per room needs \(placeholder) in the template") }
        return v
    }

    private static func stringTable(_ t: TableReader, _ key: String) throws -> [String: String] {
        guard t.contains(key) else { return [:] }
        return try t.table(key) { sub in
            var out: [String: String] = [:]
            for k in sub.keys { out[k] = try sub.string(k) }
            return out
        }
    }
}

/// `[bot.stomp.types]`: the `type` field's values and what they mean. An
/// empty value turns that kind off (no typing on a server without it).
public struct STOMPMessageTypes: Sendable, Equatable {
    public var join = "ENTER"
    public var message = "TALK"
    public var leave = "LEAVE"
    /// Typing started (or, with no `typing_stop`, typing at all).
    public var typing = "TYPING"
    public var typingStop = ""

    public init() {}

    static func read(_ t: TableReader) throws(ConfigError) -> STOMPMessageTypes {
        var m = STOMPMessageTypes()
        m.join = try t.string("join", default: m.join)
        m.message = try t.string("message", default: m.message)
        m.leave = try t.string("leave", default: m.leave)
        m.typing = try t.string("typing", default: m.typing)
        m.typingStop = try t.string("typing_stop", default: m.typingStop)
        if m.message.isEmpty { throw t.error("message", "the chat message type cannot be turned off") }
        let kinds = [("join", m.join), ("message", m.message), ("leave", m.leave), ("typing", m.typing),
                     ("typing_stop", m.typingStop)].filter { !$0.1.isEmpty }
        for (i, kind) in kinds.enumerated() {
            if let first = kinds[..<i].first(where: { $0.1 == kind.1 }) {
                throw t.error(kind.0, "\(first.0) and \(kind.0) share the type name '\(kind.1)'")
            }
        }
        return m
    }
}

/// The JSON body of a chat frame, as a template: string values `{type}`,
/// `{room}`, `{sender}`, `{message}` (anywhere in nested objects) are filled
/// in to send, and name the fields to read from what arrives. Other values
/// are sent as they are (a fixed `"app":"parley"`, say).
public struct STOMPBodyTemplate: Sendable, Equatable {
    public static let `default` = try! STOMPBodyTemplate(
        #"{"type":"{type}","roomId":"{room}","sender":"{sender}","message":"{message}"}"#)

    public enum Field: String, Sendable, CaseIterable { case type, room, sender, message }

    struct Problem: Error { var message: String }

    public let text: String
    public let json: JSONValue
    /// Where each field sits: a path of object keys.
    public let paths: [Field: [String]]

    public init(_ text: String) throws {
        self.text = text
        do {
            json = try JSONValue.parse(text)
        } catch {
            throw Problem(message: "not JSON: \(error)")
        }
        guard case .object = json else { throw Problem(message: "the body template must be a JSON object") }
        var found: [Field: [String]] = [:]
        func walk(_ v: JSONValue, _ path: [String]) {
            switch v {
            case .object(let pairs): for (k, sub) in pairs { walk(sub, path + [k]) }
            case .string(let s): if let f = Field.allCases.first(where: { "{\($0.rawValue)}" == s }) { found[f] = path }
            default: break
            }
        }
        walk(json, [])
        for required in [Field.sender, .message] where found[required] == nil {
            throw Problem(message: "the body template needs a field whose value is \"{\(required.rawValue)}\"")
        }
        paths = found
    }

    public static func == (a: STOMPBodyTemplate, b: STOMPBodyTemplate) -> Bool { a.text == b.text }

    /// The body with the fields filled in.
    public func render(_ values: [Field: String]) -> String {
        func fill(_ v: JSONValue) -> JSONValue {
            switch v {
            case .object(let pairs): return .object(pairs.map { ($0.0, fill($0.1)) })
            case .array(let items): return .array(items.map(fill))
            case .string(let s):
                if let f = Field.allCases.first(where: { "{\($0.rawValue)}" == s }) { return .string(values[f] ?? "") }
                return v
            default: return v
            }
        }
        return fill(json).text
    }

    /// A field of a received body; numbers and booleans read as their text (`"roomId": 1`).
    public func read(_ field: Field, from body: JSONValue) -> String? {
        guard let path = paths[field] else { return nil }
        var v: JSONValue? = body
        for key in path { v = v?[key] }
        switch v {
        case .string(let s)?: return s
        case .number?, .bool?: return v!.text
        default: return nil
        }
    }
}
