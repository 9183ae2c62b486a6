/// The StreamChat raw TCP protocol: what a frame and a server line look like,
/// and the rules user text must follow. The client transport and the embedded
/// server both read their framing from here, so the two never disagree.
///
/// Client → server frames have no delimiter of their own: `USR_NAME::{name}::END`,
/// `MSG::{text}::END`, `LEAVE::::END`, and Parley's moderation frames
/// `KICK::{user}::{reason}::END` and `MUTE::{user}::{seconds}::{reason}::END`.
/// Because user text may never contain `::END`, the first `::END` always ends
/// a frame. Server → client lines are `{name} has joined`, `{name} has left`
/// and `{name}::{message}`, and Parley's notices, which start with `::` (no
/// name is empty, so no other line can): `::KICKED::…`, `::MUTED::…`,
/// `::DROPPED::…`, `::OK`, `::REFUSED::…`. Parley's server ends each with `\n`.
public enum StreamChat {
    /// The longest message, counted in Swift `Character`s (grapheme clusters), as the seed does.
    public static let maxCharacters = 300
    /// Substrings user text (and names) may never contain.
    public static let forbiddenTokens = ["USR_NAME::", "MSG::", "LEAVE::", "::END"]
    /// The one room StreamChat has, as plugins see it.
    public static let room = "lobby"

    /// Why a text may not be sent.
    public enum TextProblem: Error, Equatable, Sendable, CustomStringConvertible {
        case empty
        case tooLong(characters: Int)
        case forbiddenToken(String)
        case lineBreak
        case controlCharacter(Unicode.Scalar)

        public var description: String {
            switch self {
            case .empty: "empty message"
            case .tooLong(let n): "message is \(n) characters; StreamChat allows \(StreamChat.maxCharacters)"
            case .forbiddenToken(let t): "message contains the protocol token '\(t)'"
            case .lineBreak: "message contains a line break"
            case .controlCharacter(let u):
                "message contains the control character \(u.escaped(asASCII: true)), which a raw TCP client's terminal would act on"
            }
        }
    }

    /// Checks one line of user text against the protocol's rules.
    /// The byte count bounds the character count, so long texts are only
    /// segmented into graphemes when they might be over the limit.
    ///
    /// Tokens are searched for in the UTF-8 bytes, not in `Character`s: the
    /// wire is bytes, and a combining mark after `MSG::` would hide the token
    /// from a grapheme-level search while the bytes still carry it.
    ///
    /// - Parameter controls: whether control characters may pass (a server
    ///   that relays them as U+FFFD lets them); a client never sends one.
    public static func check(_ text: String, controls: Bool = false) -> TextProblem? {
        if text.isEmpty { return .empty }
        let bytes = Array(text.utf8)
        for (t, tb) in zip(forbiddenTokens, forbiddenTokenBytes) where find(tb, in: bytes, from: 0) != nil {
            return .forbiddenToken(t)
        }
        if bytes.contains(where: { $0 == 0x0A || $0 == 0x0D }) { return .lineBreak }
        // Bytes below 0x20 and 0x7F are ASCII controls; C1 controls are 0xC2 0x80...0x9F.
        if !controls, bytes.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 }),
           let u = text.unicodeScalars.first(where: isControl) {
            return .controlCharacter(u)
        }
        if text.utf8.count > maxCharacters {
            let n = text.count
            if n > maxCharacters { return .tooLong(characters: n) }
        }
        return nil
    }

    /// Why a user name is refused: empty, a line break, a protocol token or `::`
    /// (which would make `{name}::{message}` ambiguous), or over the length limit.
    public static func checkName(_ name: String) -> TextProblem? {
        if find(separator, in: Array(name.utf8), from: 0) != nil { return .forbiddenToken("::") }
        return check(name)
    }

    /// C0 controls but tab, DEL and C1 controls: what a raw TCP client's
    /// terminal would act on (clear the screen, set the window's title).
    public static func isControl(_ u: Unicode.Scalar) -> Bool {
        (u.value < 0x20 && u != "\t") || (0x7F...0x9F).contains(u.value)
    }

    /// Splits multi-line text into the messages that go on the wire, one per
    /// non-empty line (the protocol has no way to carry a line break).
    public static func lines(of text: String) -> [String] {
        // Split on every line break Swift knows (as `bot.send`'s per-line
        // length check does), so the two always agree on what a line is.
        text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline).map(String.init)
    }
}

// MARK: client frames

extension StreamChat {
    public enum ClientFrame: Equatable, Sendable {
        case userName(String)
        case message(String)
        case leave
        /// A moderator removes `user` from the room (they may come back).
        case kick(user: String, reason: String)
        /// A moderator silences `user` for `seconds`.
        case mute(user: String, seconds: Double, reason: String)
        /// The server's moderator token, sent before `USR_NAME`: on a server
        /// that has one, only a connection that sent it may take a moderator's name.
        case token(String)

        /// The frame's bytes (no delimiter: `::END` ends it).
        public var encoded: [UInt8] {
            switch self {
            case .userName(let n): Array("USR_NAME::\(n)::END".utf8)
            case .message(let t): Array("MSG::\(t)::END".utf8)
            case .leave: Array("LEAVE::::END".utf8)
            case .kick(let u, let r): Array("KICK::\(u)::\(r)::END".utf8)
            case .mute(let u, let s, let r): Array("MUTE::\(u)::\(StreamChat.format(seconds: s))::\(r)::END".utf8)
            case .token(let t): Array("TOKEN::\(t)::END".utf8)
            }
        }
    }

    /// A client sent bytes that are not a frame.
    public struct FrameError: Error, Equatable, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { message }

        public init(message: String) { self.message = message }
    }

    /// Cuts client frames out of a TCP byte stream: any number of frames per
    /// read, and frames split across reads. Line breaks between frames are
    /// ignored (some clients send them).
    public struct ClientFrameDecoder: Sendable {
        private var window = ByteWindow()
        /// Bytes received but not yet part of a complete frame.
        public var pendingCount: Int { window.pendingCount }

        public init() {}

        public mutating func append<C: Collection>(_ bytes: C) where C.Element == UInt8 { window.append(bytes) }

        /// The next complete frame, nil when more bytes are needed.
        /// Throws on bytes that cannot start a frame, or a frame that is not valid UTF-8.
        public mutating func next() throws(FrameError) -> ClientFrame? {
            let buffer = window.buffer
            while window.start < buffer.count,
                  buffer[window.start] == 0x0A || buffer[window.start] == 0x0D || buffer[window.start] == 0x20 {
                window.start += 1
            }
            window.scanFrom = max(window.scanFrom, window.start)
            guard let end = StreamChat.find(StreamChat.endToken, in: buffer, from: window.scanFrom) else {
                window.scanFrom = max(window.start, buffer.count - (StreamChat.endToken.count - 1))
                // Fail early on a prefix that can never become a frame.
                let have = buffer[window.start...]
                if !have.isEmpty, !StreamChat.prefixes.contains(where: { p in
                    have.count < p.count ? p.starts(with: have) : have.starts(with: p)
                }) {
                    throw FrameError(message: "bytes that are not a StreamChat frame: \(StreamChat.preview(have))")
                }
                return nil
            }
            let frame = buffer[window.start..<end]
            window.consume(through: end + StreamChat.endToken.count)
            guard String(validating: frame, as: UTF8.self) != nil else {
                throw FrameError(message: "frame is not valid UTF-8")
            }
            // Compare bytes: a combining mark after the prefix must not hide it.
            if frame.starts(with: StreamChat.prefixes[0]) { return .userName(String(decoding: frame.dropFirst(10), as: UTF8.self)) }
            if frame.starts(with: StreamChat.prefixes[1]) { return .message(String(decoding: frame.dropFirst(5), as: UTF8.self)) }
            if frame.elementsEqual(StreamChat.prefixes[2]) { return .leave }
            if frame.starts(with: StreamChat.prefixes[3]) { return try Self.kick(frame.dropFirst(6)) }
            if frame.starts(with: StreamChat.prefixes[4]) { return try Self.mute(frame.dropFirst(6)) }
            if frame.starts(with: StreamChat.prefixes[5]) { return .token(String(decoding: frame.dropFirst(7), as: UTF8.self)) }
            throw FrameError(message: "unknown frame: \(StreamChat.preview(frame))")
        }

        /// `{user}::{reason}`: the name ends at the first `::` (names cannot hold one).
        private static func kick(_ body: ArraySlice<UInt8>) throws(FrameError) -> ClientFrame {
            guard let (user, reason) = StreamChat.splitField(body) else {
                throw FrameError(message: "malformed KICK frame, want KICK::{user}::{reason}::END: \(StreamChat.preview(body))")
            }
            return .kick(user: user, reason: String(decoding: reason, as: UTF8.self))
        }

        /// `{user}::{seconds}::{reason}`, seconds a finite number.
        private static func mute(_ body: ArraySlice<UInt8>) throws(FrameError) -> ClientFrame {
            guard let (user, rest) = StreamChat.splitField(body), let (number, reason) = StreamChat.splitField(rest),
                  let seconds = StreamChat.seconds(number.utf8) else {
                throw FrameError(message: "malformed MUTE frame, want MUTE::{user}::{seconds}::{reason}::END: \(StreamChat.preview(body))")
            }
            return .mute(user: user, seconds: seconds, reason: String(decoding: reason, as: UTF8.self))
        }
    }

    static let endToken = Array("::END".utf8)
    static let prefixes = [Array("USR_NAME::".utf8), Array("MSG::".utf8), Array("LEAVE::".utf8),
                           Array("KICK::".utf8), Array("MUTE::".utf8), Array("TOKEN::".utf8)]
    static let forbiddenTokenBytes = forbiddenTokens.map { Array($0.utf8) }
    static let separator = Array("::".utf8)

    static func find(_ needle: [UInt8], in hay: [UInt8], from: Int) -> Int? {
        guard hay.count - from >= needle.count else { return nil }
        var i = from
        let last = hay.count - needle.count
        while i <= last {
            if hay[i] == needle[0] {
                var j = 1
                while j < needle.count && hay[i + j] == needle[j] { j += 1 }
                if j == needle.count { return i }
            }
            i += 1
        }
        return nil
    }

    /// The non-empty field before the first `::` and what follows it; nil without one.
    static func splitField(_ bytes: ArraySlice<UInt8>) -> (String, ArraySlice<UInt8>)? {
        let base = Array(bytes)
        guard let r = find(separator, in: base, from: 0), r > 0 else { return nil }
        return (String(decoding: base[..<r], as: UTF8.self), bytes.dropFirst(r + 2))
    }

    /// The longest duration the wire carries, in seconds (about 31,700 years).
    public static let maxSeconds = 1e12

    /// A duration as the wire writes it (digits and a point: `60`, `1.5`), to
    /// the millisecond; nil for anything else or over `maxSeconds`.
    static func seconds<C: Collection>(_ bytes: C) -> Double? where C.Element == UInt8 {
        guard !bytes.isEmpty, bytes.allSatisfy({ (0x30...0x39).contains($0) || $0 == 0x2E }),
              let value = Double(String(decoding: bytes, as: UTF8.self)), value <= maxSeconds else { return nil }
        return (value * 1000).rounded() / 1000
    }

    /// A duration in the wire's form: whole seconds bare (`60`), otherwise to the
    /// millisecond (`1.5`, `0.001`), never an exponent; clamped to 0...`maxSeconds`.
    public static func format(seconds: Double) -> String {
        let ms = Int64((min(max(seconds.isNaN ? 0 : seconds, 0), maxSeconds) * 1000).rounded())
        let whole = ms / 1000, fraction = ms % 1000
        if fraction == 0 { return String(whole) }
        var digits = String(fraction)
        digits = String(repeating: "0", count: 3 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return "\(whole).\(digits)"
    }

    static func preview<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        let cut = bytes.prefix(40)
        let s = String(decoding: cut, as: UTF8.self).unicodeScalars.map { $0.isASCII && $0.value >= 0x20 ? String($0) : "?" }.joined()
        return "'" + s + (bytes.count > 40 ? "…'" : "'")
    }
}

// MARK: server lines

extension StreamChat {
    public enum ServerLine: Equatable, Sendable {
        case joined(String)
        case left(String)
        case message(user: String, text: String)
        /// `::KICKED::{user}::{reason}`, to the room (the kicked user too) before their `has left`.
        case kicked(user: String, reason: String)
        /// `::MUTED::{user}::{seconds}::{reason}`, to the room once.
        case muted(user: String, seconds: Double, reason: String)
        /// `::DROPPED::{seconds}::{reason}`, to a muted sender for each line not relayed:
        /// muted for `seconds` more. It answers the line as its echo would.
        case dropped(seconds: Double, reason: String)
        /// `::OK`, to a moderator: the KICK or MUTE was done (after its notice).
        case ok
        /// `::REFUSED::{reason}`, to a client whose KICK or MUTE was refused.
        case refused(String)
        /// `::TAKEN::{reason}`, to a connection whose name a newer one took,
        /// just before the server closes it.
        case taken(String)

        /// The line as Parley's server writes it, ending in `\n`.
        public var encoded: [UInt8] {
            switch self {
            case .joined(let n): Array("\(n) has joined\n".utf8)
            case .left(let n): Array("\(n) has left\n".utf8)
            case .message(let u, let t): Array("\(u)::\(t)\n".utf8)
            case .kicked(let u, let r): Array("::KICKED::\(u)::\(r)\n".utf8)
            case .muted(let u, let s, let r): Array("::MUTED::\(u)::\(StreamChat.format(seconds: s))::\(r)\n".utf8)
            case .dropped(let s, let r): Array("::DROPPED::\(StreamChat.format(seconds: s))::\(r)\n".utf8)
            case .ok: Array("::OK\n".utf8)
            case .refused(let r): Array("::REFUSED::\(r)\n".utf8)
            case .taken(let r): Array("::TAKEN::\(r)\n".utf8)
            }
        }

        /// Reads one line (without its line end). Names never contain `::`,
        /// so a line with `::` is a message; nil for anything else.
        ///
        /// The search is on UTF-8 bytes: at the `Character` level a combining
        /// mark after `::` would hide the separator, and `bob::\u{301} has joined`
        /// would read as a join of a user called `bob::́`.
        public init?(line: String) {
            let bytes = Array(line.utf8)
            if let r = StreamChat.find(StreamChat.separator, in: bytes, from: 0) {
                guard r > 0 else {
                    guard let notice = Self(notice: bytes[2...]) else { return nil }
                    self = notice
                    return
                }
                self = .message(user: String(decoding: bytes[..<r], as: UTF8.self),
                                text: String(decoding: bytes[(r + 2)...], as: UTF8.self))
            } else if let name = StreamChat.name(in: bytes, before: StreamChat.joinedSuffix) {
                self = .joined(name)
            } else if let name = StreamChat.name(in: bytes, before: StreamChat.leftSuffix) {
                self = .left(name)
            } else {
                return nil
            }
        }
    }

    static let joinedSuffix = Array(" has joined".utf8)
    static let leftSuffix = Array(" has left".utf8)
    /// The notices after their leading `::` (`::OK` has no field and is matched whole).
    static let noticeWords = ["KICKED", "MUTED", "DROPPED", "REFUSED", "TAKEN"].map { Array("\($0)::".utf8) }

    /// The non-empty name in front of `suffix`, nil when the line does not end with it.
    static func name(in line: [UInt8], before suffix: [UInt8]) -> String? {
        guard line.count > suffix.count, line.suffix(suffix.count).elementsEqual(suffix) else { return nil }
        return String(decoding: line.dropLast(suffix.count), as: UTF8.self)
    }

    /// Cuts server lines out of a TCP byte stream. Lines end in `\n` (or
    /// `\r\n`). The original server's delimiting is undocumented, so a client
    /// may also call `takeUnterminated()` after a quiet period to read what
    /// arrived without a line end as one line.
    public struct ServerLineSplitter: Sendable {
        private var window = ByteWindow()
        public var pendingCount: Int { window.pendingCount }
        public init() {}

        public mutating func append<C: Collection>(_ bytes: C) where C.Element == UInt8 { window.append(bytes) }

        /// The next complete line, decoded leniently (invalid UTF-8 becomes U+FFFD).
        public mutating func next() -> String? {
            let buffer = window.buffer
            guard let nl = buffer[window.scanFrom...].firstIndex(of: 0x0A) else {
                window.scanFrom = buffer.count
                return nil
            }
            var end = nl
            if end > window.start && buffer[end - 1] == 0x0D { end -= 1 }
            let line = String(decoding: buffer[window.start..<end], as: UTF8.self)
            window.consume(through: nl + 1)
            return line
        }

        /// Whatever is buffered without a line end, as one line; nil when empty.
        public mutating func takeUnterminated() -> String? {
            guard window.pendingCount > 0 else { return nil }
            defer { window.consume(through: window.buffer.count) }
            return String(decoding: window.buffer[window.start...], as: UTF8.self)
        }
    }
}

extension StreamChat.ServerLine {
    /// A server notice, what follows its leading `::`; nil for anything else.
    init?(notice body: ArraySlice<UInt8>) {
        if body.elementsEqual("OK".utf8) {
            self = .ok
            return
        }
        guard let word = StreamChat.noticeWords.firstIndex(where: { body.starts(with: $0) }) else { return nil }
        let rest = body.dropFirst(StreamChat.noticeWords[word].count)
        let text = { (b: ArraySlice<UInt8>) in String(decoding: b, as: UTF8.self) }
        switch word {
        case 0:
            guard let (user, reason) = StreamChat.splitField(rest) else { return nil }
            self = .kicked(user: user, reason: text(reason))
        case 1:
            guard let (user, more) = StreamChat.splitField(rest), let (number, reason) = StreamChat.splitField(more),
                  let seconds = StreamChat.seconds(number.utf8) else { return nil }
            self = .muted(user: user, seconds: seconds, reason: text(reason))
        case 2:
            guard let (number, reason) = StreamChat.splitField(rest), let seconds = StreamChat.seconds(number.utf8) else { return nil }
            self = .dropped(seconds: seconds, reason: text(reason))
        case 3:
            self = .refused(text(rest))
        default:
            self = .taken(text(rest))
        }
    }
}

/// Received bytes of a stream protocol, consumed from the front. Consumed
/// bytes are dropped in bulk and a search resumes where the last one stopped,
/// so a peer dripping one byte at a time, or sending many lines in one read,
/// costs linear time, not quadratic.
struct ByteWindow: Sendable {
    private(set) var buffer: [UInt8] = []
    /// Where the unread bytes begin.
    var start = 0
    /// Where the search for a delimiter resumes: bytes before it are known not to hold one.
    var scanFrom = 0
    var pendingCount: Int { buffer.count - start }

    mutating func append<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        if start == buffer.count {
            // Drained: give back a buffer that a burst made big. Only a
            // line's worth is kept, as every bot holds one of these.
            buffer.removeAll(keepingCapacity: buffer.capacity <= 256)
            start = 0
            scanFrom = 0
        } else if start > 0 && start >= buffer.count / 2 {
            buffer.removeFirst(start)
            scanFrom -= start
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Marks everything before `end` as read.
    mutating func consume(through end: Int) {
        start = end
        scanFrom = end
    }
}
