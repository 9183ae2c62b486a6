// Strict RFC 8259 parsing. Input comes from the network, so every path ends in a
// value or a `JSONError`: no trap, no unbounded recursion (the depth limit).

extension JSONValue {
    /// Parses a whole JSON text; whitespace may surround the value, nothing else may.
    public static func parse(_ text: String, maxDepth: Int = 64) throws(JSONError) -> JSONValue {
        var text = text
        return try text.withUTF8 { document($0, maxDepth: maxDepth) }.get()
    }

    /// Parses a whole JSON text given as UTF-8 bytes. Invalid UTF-8 inside a string is an error.
    public static func parse<C: Collection>(bytes: C, maxDepth: Int = 64) throws(JSONError) -> JSONValue
    where C.Element == UInt8 {
        // Arrays and their slices are read in place; anything else is copied once.
        let result = bytes.withContiguousStorageIfAvailable { document($0, maxDepth: maxDepth) }
            ?? Array(bytes).withUnsafeBufferPointer { document($0, maxDepth: maxDepth) }
        return try result.get()
    }

    /// The whole text's value. A `Result`, since the `with…` calls that
    /// lend the bytes only rethrow untyped errors.
    private static func document(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) -> Result<JSONValue, JSONError> {
        var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
        do throws(JSONError) { return .success(try parser.document()) } catch { return .failure(error) }
    }
}

/// A cursor over UTF-8 bytes. Every read checks `i < bytes.count` first.
private struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    var i = 0

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    mutating func document() throws(JSONError) -> JSONValue {
        skipWhitespace()
        let v = try value(depth: 0)
        skipWhitespace()
        if i < bytes.count { throw fail("unexpected characters after the value") }
        return v
    }

    private func fail(_ message: String, at offset: Int? = nil) -> JSONError {
        JSONError(offset: offset ?? i, message: message)
    }

    private var peek: UInt8? { i < bytes.count ? bytes[i] : nil }

    private mutating func skipWhitespace() {
        while let b = peek, b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { i += 1 }
    }

    private mutating func value(depth: Int) throws(JSONError) -> JSONValue {
        guard let b = peek else { throw fail("unexpected end of input") }
        switch b {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw fail("unexpected character")
        }
    }

    private mutating func literal(_ word: StaticString) throws(JSONError) {
        let start = i
        let count = word.utf8CodeUnitCount
        guard bytes.count - i >= count else { throw fail("invalid literal", at: start) }
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: count)
        for k in 0..<count where bytes[i + k] != expected[k] { throw fail("invalid literal", at: start) }
        i += count
    }

    private mutating func enter(_ depth: Int) throws(JSONError) {
        if depth > maxDepth { throw fail("nesting deeper than \(maxDepth)") }
        i += 1
        skipWhitespace()
    }

    private mutating func array(depth: Int) throws(JSONError) -> JSONValue {
        try enter(depth)
        var items: [JSONValue] = []
        if peek == UInt8(ascii: "]") { i += 1; return .array(items) }
        // Room for a Socket.IO event's name and arguments at once (a chat
        // message has five items): grown from empty, a five-item array is
        // allocated and copied four times.
        items.reserveCapacity(6)
        while true {
            items.append(try value(depth: depth))
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): i += 1; skipWhitespace()
            case UInt8(ascii: "]"): i += 1; return .array(items)
            case nil: throw fail("unterminated array")
            default: throw fail("expected ',' or ']'")
            }
        }
    }

    private mutating func object(depth: Int) throws(JSONError) -> JSONValue {
        try enter(depth)
        var pairs: [(String, JSONValue)] = []
        if peek == UInt8(ascii: "}") { i += 1; return .object(pairs) }
        while true {
            guard peek == UInt8(ascii: "\"") else { throw fail(peek == nil ? "unterminated object" : "expected a string key") }
            let key = try string()
            skipWhitespace()
            guard peek == UInt8(ascii: ":") else { throw fail("expected ':'") }
            i += 1
            skipWhitespace()
            pairs.append((key, try value(depth: depth)))
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): i += 1; skipWhitespace()
            case UInt8(ascii: "}"): i += 1; return .object(pairs)
            case nil: throw fail("unterminated object")
            default: throw fail("expected ',' or '}'")
            }
        }
    }

    // MARK: numbers

    private mutating func digits() -> Int {
        let start = i
        while let b = peek, b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") { i += 1 }
        return i - start
    }

    private mutating func number() throws(JSONError) -> Double {
        let start = i
        if peek == UInt8(ascii: "-") { i += 1 }
        if peek == UInt8(ascii: "0") {
            i += 1
            if let b = peek, b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") { throw fail("leading zero", at: start) }
        } else if digits() == 0 {
            throw fail("expected a digit")
        }
        if peek == UInt8(ascii: ".") {
            i += 1
            if digits() == 0 { throw fail("expected a digit after '.'") }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            i += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { i += 1 }
            if digits() == 0 { throw fail("expected a digit in the exponent") }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
        guard let d = Double(text), d.isFinite else { throw fail("number out of range", at: start) }
        return d
    }

    // MARK: strings

    private mutating func string() throws(JSONError) -> String {
        let start = i
        i += 1  // the opening quote
        var runStart = i
        // Filled only once an escape is met; plain strings are decoded straight from the input.
        var unescaped: [UInt8]? = nil
        // Escapes are decoded to valid UTF-8, so only raw bytes above 0x7F
        // need checking: without any, `String(decoding:)` takes the bytes as
        // they are, where the generic `String(validating:)` costs about a
        // thousand instructions a string (most strings of a chat are ASCII).
        var ascii = true
        while true {
            guard let b = peek else { throw fail("unterminated string", at: start) }
            switch b {
            case UInt8(ascii: "\""):
                let run = UnsafeBufferPointer(rebasing: bytes[runStart..<i])
                i += 1
                let decoded: String?
                if var buffer = unescaped {
                    buffer.append(contentsOf: run)
                    decoded = ascii ? String(decoding: buffer, as: UTF8.self) : String(validating: buffer, as: UTF8.self)
                } else {
                    decoded = ascii ? String(decoding: run, as: UTF8.self) : String(validating: run, as: UTF8.self)
                }
                guard let s = decoded else { throw fail("invalid UTF-8 in string", at: start) }
                return s
            case UInt8(ascii: "\\"):
                // Taken out of the optional while it grows: a copy left in it
                // would be copied whole at every escape (quadratic in them).
                var buffer = unescaped.take() ?? []
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i]))
                try escape(into: &buffer)
                unescaped = buffer
                runStart = i
            case 0x00..<0x20:
                throw fail("control character in string")
            case 0x80...:
                ascii = false
                i += 1
            default:
                i += 1
            }
        }
    }

    /// Decodes one escape (the cursor is on the backslash) and appends its UTF-8.
    private mutating func escape(into buffer: inout [UInt8]) throws(JSONError) {
        let start = i
        i += 1
        guard let b = peek else { throw fail("unterminated string") }
        i += 1
        switch b {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(b)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            let unit = try hex4(escapeStart: start)
            var scalar = Unicode.Scalar(unit)
            if (0xD800...0xDBFF).contains(unit) {
                scalar = lowSurrogate(after: unit)
            }
            // A lone surrogate is no character; U+FFFD keeps the rest of the text (as JS `TextDecoder` does).
            UTF8.encode(scalar ?? "\u{FFFD}") { buffer.append($0) }
        default:
            throw fail("invalid escape", at: start)
        }
    }

    /// The scalar of a surrogate pair when `\uDC00`…`\uDFFF` follows a high surrogate;
    /// otherwise nil, leaving the cursor where it was.
    private mutating func lowSurrogate(after high: UInt16) -> Unicode.Scalar? {
        guard bytes.count - i >= 6, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else { return nil }
        let save = i
        i += 2
        guard let low = try? hex4(escapeStart: save), (0xDC00...0xDFFF).contains(low) else {
            i = save
            return nil
        }
        return Unicode.Scalar(0x10000 + ((UInt32(high) - 0xD800) << 10) + (UInt32(low) - 0xDC00))
    }

    private mutating func hex4(escapeStart: Int) throws(JSONError) -> UInt16 {
        guard bytes.count - i >= 4 else { throw fail("invalid \\u escape", at: escapeStart) }
        var unit: UInt16 = 0
        for _ in 0..<4 {
            let b = bytes[i]
            let digit: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = b - UInt8(ascii: "A") + 10
            default: throw fail("invalid \\u escape", at: escapeStart)
            }
            unit = unit << 4 | UInt16(digit)
            i += 1
        }
        return unit
    }
}
