/// A cursor over the UTF-8 bytes of a document that always knows its line and column.
///
/// Why bytes: TOML's structure is pure ASCII, so walking bytes is simple and linear.
/// Why incremental positions: computing a column on demand would be quadratic on a
/// long line, and the parser records a position for every key and value.
struct Scanner {
    let bytes: [UInt8]
    let file: String
    private(set) var index = 0
    private(set) var line = 1
    private(set) var column = 1

    init(bytes: [UInt8], file: String) throws(ConfigError) {
        self.bytes = bytes
        self.file = file
        if let bad = Self.firstInvalidUTF8(in: bytes) {
            let line = 1 + bytes[..<bad].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
            throw ConfigError(kind: .syntax, file: file, line: line, message: "invalid UTF-8 (TOML files must be UTF-8)")
        }
        // A byte order mark is not part of the document.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    }

    var position: TOMLPosition { TOMLPosition(line: line, column: column) }
    var atEnd: Bool { index >= bytes.count }

    func peek(_ offset: Int = 0) -> UInt8? {
        let i = index + offset
        return i < bytes.count ? bytes[i] : nil
    }

    mutating func advance() {
        guard index < bytes.count else { return }
        let b = bytes[index]
        index += 1
        if b == 0x0A {
            line += 1
            column = 1
        } else if b & 0xC0 != 0x80 {  // continuation bytes do not start a new column
            column += 1
        }
    }

    mutating func advance(_ count: Int) {
        for _ in 0..<count { advance() }
    }

    /// Spaces and tabs, the only whitespace TOML knows.
    mutating func skipWhitespace() {
        while let b = peek(), b == 0x20 || b == 0x09 { advance() }
    }

    /// A `#` comment up to (not including) the end of the line, if the cursor is at one.
    mutating func skipComment() throws(ConfigError) {
        guard peek() == UInt8(ascii: "#") else { return }
        advance()
        while let b = peek(), b != 0x0A {
            if b == 0x0D {
                if peek(1) == 0x0A { return }
                throw error("carriage return without line feed in comment")
            }
            if isControl(b) { throw error("control character \(Self.scalarName(b)) is not allowed in a comment") }
            advance()
        }
    }

    /// Consumes LF or CRLF. A lone CR is not a TOML newline.
    mutating func consumeNewline() throws(ConfigError) -> Bool {
        switch peek() {
        case 0x0A:
            advance()
            return true
        case 0x0D:
            guard peek(1) == 0x0A else { throw error("carriage return without line feed") }
            advance(2)
            return true
        default:
            return false
        }
    }

    /// Whitespace, comments and newlines, as allowed between array elements.
    mutating func skipBlank() throws(ConfigError) {
        while true {
            skipWhitespace()
            try skipComment()
            guard try consumeNewline() else { return }
        }
    }

    func error(_ message: String, at position: TOMLPosition? = nil, kind: ConfigError.Kind = .syntax, key: String? = nil) -> ConfigError {
        let p = position ?? self.position
        return ConfigError(kind: kind, file: file, line: p.line, column: p.column, key: key, message: message)
    }

    /// The next character as it should appear after "got" in a message.
    func describeNext() -> String {
        guard let b = peek() else { return "end of file" }
        switch b {
        case 0x0A, 0x0D: return "end of line"
        case 0x20: return "' '"
        case 0x09: return "tab"
        case _ where isControl(b): return Self.scalarName(b)
        case _ where b < 0x80: return "'\(Character(Unicode.Scalar(b)))'"
        default:
            let length = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2
            let end = min(index + length, bytes.count)
            let text = String(decoding: bytes[index..<end], as: UTF8.self)
            // Invisible characters (BOM, zero-width space, ...) are named, not shown.
            if let scalar = text.unicodeScalars.first {
                switch scalar.properties.generalCategory {
                case .format, .control, .spaceSeparator, .lineSeparator, .paragraphSeparator, .nonspacingMark, .enclosingMark, .unassigned, .privateUse:
                    return "U+" + hex(scalar.value, width: 4)
                default:
                    break
                }
            }
            return "'\(text)'"
        }
    }

    static func scalarName(_ b: UInt8) -> String { "U+" + hex(UInt32(b), width: 4) }

    /// Index of the first byte that does not start a well-formed UTF-8 sequence
    /// (overlong forms, surrogates and values above U+10FFFF are rejected).
    static func firstInvalidUTF8(in bytes: [UInt8]) -> Int? {
        var i = 0
        let n = bytes.count
        while i < n {
            let lead = bytes[i]
            if lead < 0x80 {
                i += 1
                continue
            }
            let length: Int
            var scalar: UInt32
            switch lead {
            case 0xC2...0xDF: length = 2; scalar = UInt32(lead & 0x1F)
            case 0xE0...0xEF: length = 3; scalar = UInt32(lead & 0x0F)
            case 0xF0...0xF4: length = 4; scalar = UInt32(lead & 0x07)
            default: return i
            }
            guard i + length <= n else { return i }
            for k in 1..<length {
                let c = bytes[i + k]
                guard c & 0xC0 == 0x80 else { return i }
                scalar = scalar << 6 | UInt32(c & 0x3F)
            }
            if length == 3 && (scalar < 0x800 || (0xD800...0xDFFF).contains(scalar)) { return i }
            if length == 4 && (scalar < 0x10000 || scalar > 0x10FFFF) { return i }
            i += length
        }
        return nil
    }
}

/// Control characters TOML forbids in strings and comments (tab is allowed).
@inline(__always)
func isControl(_ b: UInt8) -> Bool {
    (b < 0x20 && b != 0x09) || b == 0x7F
}
