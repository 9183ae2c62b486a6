import ParleyLua
import ParleyWire

/// What a transport can do, declared once by each transport so the router and
/// the plugins degrade gracefully where it lacks something. Plugins read it
/// as `bot.transport` (for example, a moderator that cannot remove a user warns).
public struct TransportCapabilities: Sendable, Equatable {
    /// `streamchat`, `socketio`, `rest`, `stomp`; `harness` in `parley plugin test`.
    public var name: String
    /// More than one room per connection.
    public var rooms: Bool
    /// Typing indicators, both ways.
    public var typing: Bool
    /// The server tells who is online.
    public var roster: Bool
    /// The server can page its own history.
    public var serverHistory: Bool
    /// The bot can remove a user from a room.
    public var kick: Bool
    /// The bot can silence a user in a room for a while.
    public var mute: Bool
    /// The bot can delete a message.
    public var delete: Bool
    /// Longest message in Swift `Character`s (grapheme clusters); nil: no limit.
    public var maxCharacters: Int?
    /// Longest message in UTF-8 bytes; nil: only the plugin limit applies.
    public var maxBytes: Int?
    /// Text the transport can never carry (protocol tokens).
    public var forbiddenSubstrings: [String]
    /// Whether sent text may hold control characters (C0 but tab and line
    /// breaks, DEL, C1); where not, `bot.send` refuses them.
    public var controls: Bool
    /// Each line of a text goes out as a message of its own (StreamChat's
    /// frames end at a line): the rate cap charges a text a token per line.
    public var linesAreMessages: Bool

    public init(name: String, rooms: Bool = true, typing: Bool = true, roster: Bool = true, serverHistory: Bool = false,
                kick: Bool = false, mute: Bool = false, delete: Bool = false, maxCharacters: Int? = nil, maxBytes: Int? = nil, forbiddenSubstrings: [String] = [],
                linesAreMessages: Bool = false, controls: Bool = true) {
        self.linesAreMessages = linesAreMessages
        self.controls = controls
        self.name = name
        self.rooms = rooms
        self.typing = typing
        self.roster = roster
        self.serverHistory = serverHistory
        self.kick = kick
        self.mute = mute
        self.delete = delete
        self.maxCharacters = maxCharacters
        self.maxBytes = maxBytes
        self.forbiddenSubstrings = forbiddenSubstrings
    }

    /// The harness's transport: everything, no limits beyond the plugin's own.
    public static let harness = TransportCapabilities(name: "harness", kick: true, mute: true, delete: true)

    /// These capabilities with `other`'s rules for text (length, forbidden
    /// tokens, control characters, a message per line): `parley plugin test
    /// --config` refuses what the configured transport would.
    public func withTextRules(of other: TransportCapabilities) -> TransportCapabilities {
        var c = self
        c.maxCharacters = other.maxCharacters
        c.maxBytes = other.maxBytes
        c.forbiddenSubstrings = other.forbiddenSubstrings
        c.controls = other.controls
        c.linesAreMessages = other.linesAreMessages
        return c
    }

    /// `bot.transport` as the plugin sees it.
    package var luaValue: LuaValue {
        var fields: [(String, LuaValue)] = [
            ("name", .string(name)), ("rooms", .bool(rooms)), ("typing", .bool(typing)), ("roster", .bool(roster)),
            ("history", .bool(serverHistory)), ("kick", .bool(kick)), ("mute", .bool(mute)), ("delete", .bool(delete)),
            ("forbidden", .list(forbiddenSubstrings.map { .string($0) })), ("controls", .bool(controls)),
        ]
        if let maxCharacters { fields.append(("max_characters", .int(Int64(maxCharacters)))) }
        if let maxBytes { fields.append(("max_bytes", .int(Int64(maxBytes)))) }
        return .record(fields)
    }

    /// How many chat messages `text` goes out as: its lines that are not
    /// empty where `linesAreMessages`, else one. Counted by scalar, as the
    /// line breaks Swift knows (`Character.isNewline`) are all single scalars
    /// or CR LF, which joins a run of breaks anyway.
    public func messageCount(of text: String) -> Int {
        linesAreMessages ? Self.lineCount(of: text) : 1
    }

    /// The lines of `text` that are not empty, one at least.
    public static func lineCount(of text: String) -> Int {
        var lines = 0, inLine = false
        for s in text.unicodeScalars {
            switch s.value {
            case 0x0A...0x0D, 0x85, 0x2028, 0x2029: inLine = false
            default:
                if !inLine { lines += 1 }
                inLine = true
            }
        }
        return max(1, lines)
    }

    /// The control character in `text` that this transport cannot carry, as
    /// words (`U+0007`), or nil. `bot.send` makes the same check in C.
    package func controlProblem(_ text: String) -> String? {
        guard !controls, let u = text.unicodeScalars.first(where: StreamChat.isControl) else { return nil }
        let hex = String(u.value, radix: 16, uppercase: true)
        return "the control character U+\(String(repeating: "0", count: max(0, 4 - hex.count)) + hex), which \(name) cannot carry"
    }

    /// `text` as this transport carries it, for text from outside (a web
    /// API, a payload, a user's words quoted back): each forbidden token
    /// loses its last character (`MSG::` → `MSG:`), a control character it
    /// cannot carry becomes a space, each line is cut to `maxCharacters` and
    /// the whole to `maxBytes`, with "…" where cut. `bot.send` then takes it,
    /// unless it is blank or a quota is spent.
    package func fit(_ text: String, maxBytes: Int) -> String {
        var t = text
        // Line breaks stay: each line is a message of its own.
        let cannotCarry = { (u: Unicode.Scalar) in StreamChat.isControl(u) && u != "\n" && u != "\r" }
        if !controls, t.unicodeScalars.contains(where: cannotCarry) {
            t = String(String.UnicodeScalarView(t.unicodeScalars.map { cannotCarry($0) ? " " : $0 }))
        }
        // Each replacement shortens the text, so a token that a replacement makes anew is met on a later round.
        for token in forbiddenSubstrings where !token.isEmpty {
            while let r = t.range(of: token) { t.replaceSubrange(r, with: token.dropLast()) }
        }
        if let max = maxCharacters, max > 1 {
            t = t.split(separator: "\n", omittingEmptySubsequences: false)
                .map { $0.count > max ? String($0.prefix(max - 1)) + "…" : String($0) }
                .joined(separator: "\n")
        }
        if t.utf8.count > maxBytes {
            var kept = "", bytes = 3   // "…" is three bytes
            for c in t {
                bytes += c.utf8.count
                if bytes > maxBytes { break }
                kept.append(c)
            }
            t = kept + "…"
        }
        return t
    }

    /// Why `text` is too long in characters for this transport, checked line
    /// by line (transports send each line of a multi-line text as one message).
    package func characterProblem(_ text: String) -> String? {
        guard let max = maxCharacters else { return nil }
        for line in text.split(whereSeparator: \.isNewline) {
            let n = line.count
            if n > max { return "message too long: \(n) characters, \(name) allows \(max)" }
        }
        return nil
    }
}
