/// The four TOML string forms: basic `"..."`, literal `'...'`, and their multi-line
/// `"""` / `'''` variants. Strings are collected as bytes and decoded once, so scanning
/// stays linear however long the string is.
extension Scanner {
    /// Scans the string at the cursor, which must be at `"` or `'`.
    /// Keys pass `allowMultiline: false` because TOML forbids multi-line keys.
    mutating func scanString(allowMultiline: Bool) throws(ConfigError) -> String {
        let start = position
        guard let quote = peek(), quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
            throw error("expected a string, got \(describeNext())")
        }
        let basic = quote == UInt8(ascii: "\"")
        if peek(1) == quote && peek(2) == quote {
            guard allowMultiline else { throw error("a multi-line string cannot be a key") }
            advance(3)
            _ = try consumeNewline()  // a newline right after the opening delimiter is trimmed
            return try scanMultiline(quote: quote, basic: basic, start: start)
        }
        advance()
        var out: [UInt8] = []
        while let b = peek() {
            switch b {
            case quote:
                advance()
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\") where basic:
                try scanEscape(into: &out, multiline: false)
            case 0x0A, 0x0D:
                throw error("unterminated string: newline before the closing \(basic ? "\"" : "'") (use \(basic ? "\"\"\"" : "'''") for multi-line strings)", at: start)
            default:
                if isControl(b) { throw controlCharacterError(b) }
                out.append(b)
                advance()
            }
        }
        throw error("unterminated string", at: start)
    }

    /// Body of a multi-line string after the opening delimiter. Up to two quote
    /// characters may touch the closing delimiter (`""""` ends with one `"` of content).
    private mutating func scanMultiline(quote: UInt8, basic: Bool, start: TOMLPosition) throws(ConfigError) -> String {
        var out: [UInt8] = []
        while let b = peek() {
            switch b {
            case quote:
                var run = 0
                while peek(run) == quote { run += 1 }
                if run > 5 { throw error("too many quote characters at the end of a multi-line string") }
                out.append(contentsOf: repeatElement(quote, count: run >= 3 ? run - 3 : run))
                advance(run)
                if run >= 3 { return String(decoding: out, as: UTF8.self) }
            case UInt8(ascii: "\\") where basic:
                try scanEscape(into: &out, multiline: true)
            case 0x0D:
                guard peek(1) == 0x0A else { throw error("carriage return without line feed in string") }
                out.append(0x0A)  // newlines are normalised to LF
                advance(2)
            case 0x0A:
                out.append(0x0A)
                advance()
            default:
                if isControl(b) { throw controlCharacterError(b) }
                out.append(b)
                advance()
            }
        }
        throw error("unterminated multi-line string", at: start)
    }

    /// An escape sequence at the cursor (which is at the backslash).
    private mutating func scanEscape(into out: inout [UInt8], multiline: Bool) throws(ConfigError) {
        let start = position
        advance()
        guard let c = peek() else { throw error("unterminated string") }
        switch c {
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "\""): out.append(c)
        case UInt8(ascii: "\\"): out.append(c)
        case UInt8(ascii: "u"), UInt8(ascii: "U"):
            advance()
            let count = c == UInt8(ascii: "u") ? 4 : 8
            var value: UInt32 = 0
            for _ in 0..<count {
                guard let h = peek(), let digit = hexDigitValue(h) else {
                    throw error("\\\(Character(Unicode.Scalar(c))) needs exactly \(count) hex digits", at: start)
                }
                value = value << 4 | UInt32(digit)
                advance()
            }
            guard let scalar = Unicode.Scalar(value) else {
                throw error("\\\(Character(Unicode.Scalar(c)))\(hex(value, width: count)) is not a Unicode scalar value", at: start)
            }
            UTF8.encode(scalar) { out.append($0) }
            return
        case 0x20, 0x09, 0x0A, 0x0D:
            // Line-ending backslash: drop the newline and all whitespace after it.
            guard multiline else { throw error("invalid escape sequence \\ \(describeEscape(c))", at: start) }
            skipWhitespace()
            guard try consumeNewline() else {
                throw error("a backslash followed by whitespace must end the line", at: start)
            }
            while true {
                skipWhitespace()
                guard try consumeNewline() else { break }
            }
            return
        default:
            throw error("invalid escape sequence \\\(describeEscape(c))", at: start)
        }
        advance()
    }

    private func describeEscape(_ c: UInt8) -> String {
        if c >= 0x21 && c < 0x7F { return String(Character(Unicode.Scalar(c))) }
        return "followed by \(describeNext())"
    }

    private func controlCharacterError(_ b: UInt8) -> ConfigError {
        error("control character \(Self.scalarName(b)) must be escaped in a string")
    }
}

func hexDigitValue(_ b: UInt8) -> UInt8? {
    switch b {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): b - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): b - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): b - UInt8(ascii: "A") + 10
    default: nil
    }
}
