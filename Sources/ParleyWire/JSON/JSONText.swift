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
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where u.value < 0x20 || u.value == 0x2028 || u.value == 0x2029:
                let hex = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(u)
            }
        }
        out += "\""
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
