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

/// Where JSON text is written: an array of bytes, or the buffer of a frame
/// about to be sent, so a message needs no copy between its text and the wire.
public protocol JSONSink {
    mutating func appendByte(_ byte: UInt8)
    mutating func appendBytes(_ bytes: UnsafeRawBufferPointer)
}

extension JSONSink {
    /// A string's UTF-8, from where the string keeps it.
    @inlinable
    public mutating func appendUTF8(_ s: String) {
        var s = s
        s.withUTF8 { appendBytes(UnsafeRawBufferPointer($0)) }
    }
}

extension Array: JSONSink where Element == UInt8 {
    @inlinable
    public mutating func appendByte(_ byte: UInt8) { append(byte) }
    @inlinable
    public mutating func appendBytes(_ bytes: UnsafeRawBufferPointer) { append(contentsOf: bytes) }
}

/// Counts what a writer appends, to size the memory it then writes into.
public struct JSONByteCount: JSONSink {
    public var bytes = 0
    public init() {}
    @inlinable
    public mutating func appendByte(_ byte: UInt8) { bytes += 1 }
    @inlinable
    public mutating func appendBytes(_ bytes: UnsafeRawBufferPointer) { self.bytes += bytes.count }
}

/// Writes into memory of a fixed size: an append is a compare and a store,
/// where a growable buffer checks its room and its owner every time. What
/// does not fit is dropped and `overflowed` set; the writer then sizes the
/// memory with `JSONByteCount` and writes again.
public struct JSONMemorySink: JSONSink {
    @usableFromInline var memory: UnsafeMutableRawBufferPointer
    /// Bytes written so far.
    public var written = 0
    /// Some text did not fit: what was written is not the whole text.
    public var overflowed = false
    public init(_ memory: UnsafeMutableRawBufferPointer) { self.memory = memory }
    @inlinable
    public mutating func appendByte(_ byte: UInt8) {
        guard written < memory.count else { return overflowed = true }
        memory[written] = byte
        written += 1
    }
    @inlinable
    public mutating func appendBytes(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count <= memory.count - written else { return overflowed = true }
        UnsafeMutableRawBufferPointer(rebasing: memory[written ..< written + bytes.count]).copyMemory(from: bytes)
        written += bytes.count
    }
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
    /// `String` once, since each `String` append costs some hundreds of
    /// instructions. Inlinable, so each sink gets its own specialized copy.
    @inlinable
    public static func appendString<Sink: JSONSink>(_ s: String, to out: inout Sink) {
        out.appendByte(UInt8(ascii: "\""))
        if s.utf8.withContiguousStorageIfAvailable({ appendEscaped($0, to: &out) }) == nil {
            Array(s.utf8).withUnsafeBufferPointer { appendEscaped($0, to: &out) }
        }
        out.appendByte(UInt8(ascii: "\""))
    }

    /// Runs that need no escape are copied whole. Every escape starts at an
    /// ASCII byte or at the 0xE2 of U+2028/U+2029, so each cut falls between scalars.
    @inlinable
    static func appendEscaped<Sink: JSONSink>(_ utf8: UnsafeBufferPointer<UInt8>, to out: inout Sink) {
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
                out.appendBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(utf8)[run..<i]))
                out.appendUTF8(escape)
                run = next
            }
            i = next
        }
        out.appendBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(utf8)[run..<utf8.count]))
    }

    /// A byte that starts an escape: a control character, `"`, `\\`, or the
    /// 0xE2 that may begin U+2028/U+2029.
    @inlinable @inline(__always)
    static func mayNeedEscape(_ b: UInt8) -> Bool {
        b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") || b == 0xE2
    }

    /// `\uXXXX` in lower-case hex, as JSON writes a control character or U+2028/U+2029.
    @usableFromInline
    static func unicodeEscape(_ value: UInt32) -> String {
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
