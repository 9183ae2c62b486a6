/// Minimal JSON text writing with a fixed key order.
///
/// Foundation's encoders sort or shuffle keys; transcripts must be stable
/// line for line so golden files can be compared byte for byte.
public struct JSONObjectWriter {
    private var text = "{"
    private var first = true

    public init() {}

    private mutating func key(_ k: String) {
        if !first { text += "," }
        first = false
        JSONText.appendString(k, to: &text)
        text += ":"
    }

    public mutating func add(_ k: String, _ v: String) { key(k); JSONText.appendString(v, to: &text) }
    public mutating func add(_ k: String, _ v: Bool) { key(k); text += v ? "true" : "false" }
    public mutating func add(_ k: String, _ v: Int) { key(k); text += String(v) }
    public mutating func add(_ k: String, _ v: Double) { key(k); text += JSONText.number(v) }
    /// Adds an already-encoded JSON value.
    public mutating func add(_ k: String, raw: String) { key(k); text += raw }

    public mutating func finish() -> String { text + "}" }
}

/// JSON text pieces: escaped strings and numbers, shared by `JSONObjectWriter`
/// and `JSONValue` so every JSON Parley writes escapes the same way.
public enum JSONText {
    public static func appendString(_ s: String, to out: inout String) {
        out += "\""
        // Runs that need no escape are appended whole: a scalar at a time
        // costs about 300 instructions each. Every escape starts at an ASCII
        // byte or at the 0xE2 of U+2028/U+2029, so each cut falls between scalars.
        let utf8 = s.utf8
        var run = utf8.startIndex
        var i = run
        while i < utf8.endIndex {
            let b = utf8[i]
            var next = utf8.index(after: i)
            var escape: String? = nil
            switch b {
            case UInt8(ascii: "\""): escape = "\\\""
            case UInt8(ascii: "\\"): escape = "\\\\"
            case 0x0A: escape = "\\n"
            case 0x0D: escape = "\\r"
            case 0x09: escape = "\\t"
            case 0x00..<0x20: escape = unicodeEscape(UInt32(b))
            case 0xE2:
                // U+2028 and U+2029 are E2 80 A8 and E2 80 A9.
                let second = next, third = next < utf8.endIndex ? utf8.index(after: next) : next
                if third < utf8.endIndex, utf8[second] == 0x80, utf8[third] == 0xA8 || utf8[third] == 0xA9 {
                    escape = unicodeEscape(utf8[third] == 0xA8 ? 0x2028 : 0x2029)
                    next = utf8.index(after: third)
                }
            default: break
            }
            if let escape {
                out += s[run..<i]
                out += escape
                run = next
            }
            i = next
        }
        out += s[run..<utf8.endIndex]
        out += "\""
    }

    /// `\uXXXX` in lower-case hex, as JSON writes a control character or U+2028/U+2029.
    private static func unicodeEscape(_ value: UInt32) -> String {
        let hex = String(value, radix: 16)
        return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    }

    public static func string(_ s: String) -> String {
        var out = ""
        appendString(s, to: &out)
        return out
    }

    public static func number(_ d: Double) -> String {
        if d.isNaN || d.isInfinite { return "null" }
        if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
        return String(d)
    }
}
