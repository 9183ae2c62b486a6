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
        // Most chat text needs no escape: one scan of its bytes, then the string whole.
        if s.utf8.withContiguousStorageIfAvailable({ !$0.contains(where: mayNeedEscape) }) == true {
            out += "\""
            out += s
            out += "\""
            return
        }
        var bytes: [UInt8] = []
        appendString(s, to: &bytes)
        out += String(decoding: bytes, as: UTF8.self)
    }

    /// The same into bytes: a whole frame is built as bytes and made a
    /// `String` once, since each `String` append costs some hundreds of instructions.
    public static func appendString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        if s.utf8.withContiguousStorageIfAvailable({ appendEscaped($0, to: &out) }) == nil {
            Array(s.utf8).withUnsafeBufferPointer { appendEscaped($0, to: &out) }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Runs that need no escape are copied whole. Every escape starts at an
    /// ASCII byte or at the 0xE2 of U+2028/U+2029, so each cut falls between scalars.
    private static func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        var run = 0
        var i = 0
        while i < utf8.count {
            let b = utf8[i]
            guard mayNeedEscape(b) else {
                i += 1
                continue
            }
            var next = i + 1
            var escape: String? = nil
            switch b {
            case UInt8(ascii: "\""): escape = "\\\""
            case UInt8(ascii: "\\"): escape = "\\\\"
            case 0x0A: escape = "\\n"
            case 0x0D: escape = "\\r"
            case 0x09: escape = "\\t"
            case 0x00..<0x20: escape = unicodeEscape(UInt32(b))
            default:
                // U+2028 and U+2029 are E2 80 A8 and E2 80 A9.
                if i + 2 < utf8.count, utf8[i + 1] == 0x80, utf8[i + 2] == 0xA8 || utf8[i + 2] == 0xA9 {
                    escape = unicodeEscape(utf8[i + 2] == 0xA8 ? 0x2028 : 0x2029)
                    next = i + 3
                }
            }
            if let escape {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run..<i]))
                out.append(contentsOf: escape.utf8)
                run = next
            }
            i = next
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run..<utf8.count]))
    }

    /// A byte that starts an escape: a control character, `"`, `\\`, or the
    /// 0xE2 that may begin U+2028/U+2029.
    @inline(__always)
    private static func mayNeedEscape(_ b: UInt8) -> Bool {
        b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") || b == 0xE2
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
