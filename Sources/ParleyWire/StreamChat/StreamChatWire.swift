/// The StreamChat raw TCP protocol: what a frame and a server line look like,
/// and the rules user text must follow. The client transport and the embedded
/// server both read their framing from here, so the two never disagree.
///
/// Client → server frames have no delimiter of their own: `USR_NAME::{name}::END`,
/// `MSG::{text}::END`, `LEAVE::::END`. Because user text may never contain
/// `::END`, the first `::END` always ends a frame. Server → client lines are
/// `{name} has joined`, `{name} has left` and `{name}::{message}`; Parley's
/// server ends each with `\n`.
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

        public var description: String {
            switch self {
            case .empty: "empty message"
            case .tooLong(let n): "message is \(n) characters; StreamChat allows \(StreamChat.maxCharacters)"
            case .forbiddenToken(let t): "message contains the protocol token '\(t)'"
            case .lineBreak: "message contains a line break"
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
    public static func check(_ text: String) -> TextProblem? {
        if text.isEmpty { return .empty }
        let bytes = Array(text.utf8)
        for (t, tb) in zip(forbiddenTokens, forbiddenTokenBytes) where find(tb, in: bytes, from: 0) != nil {
            return .forbiddenToken(t)
        }
        if bytes.contains(where: { $0 == 0x0A || $0 == 0x0D }) { return .lineBreak }
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

        /// The frame's bytes (no delimiter: `::END` ends it).
        public var encoded: [UInt8] {
            switch self {
            case .userName(let n): Array("USR_NAME::\(n)::END".utf8)
            case .message(let t): Array("MSG::\(t)::END".utf8)
            case .leave: Array("LEAVE::::END".utf8)
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
            throw FrameError(message: "unknown frame: \(StreamChat.preview(frame))")
        }
    }

    static let endToken = Array("::END".utf8)
    static let prefixes = [Array("USR_NAME::".utf8), Array("MSG::".utf8), Array("LEAVE::".utf8)]
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

        /// The line as Parley's server writes it, ending in `\n`.
        public var encoded: [UInt8] {
            switch self {
            case .joined(let n): Array("\(n) has joined\n".utf8)
            case .left(let n): Array("\(n) has left\n".utf8)
            case .message(let u, let t): Array("\(u)::\(t)\n".utf8)
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
                guard r > 0 else { return nil }
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
            // Drained: give back a buffer that one large frame made big.
            buffer.removeAll(keepingCapacity: buffer.capacity <= 4096)
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
