/// Standard Base64 (RFC 4648 §4), as Engine.IO long-polling carries binary
/// packets. ParleyWire has no Foundation, so it brings its own.
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Encodes with `=` padding.
    public static func encode<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var it = bytes.makeIterator()
        while let b0 = it.next() {
            let b1 = it.next()
            let b2 = it.next()
            let n = UInt32(b0) << 16 | UInt32(b1 ?? 0) << 8 | UInt32(b2 ?? 0)
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(b1 == nil ? UInt8(ascii: "=") : alphabet[Int(n >> 6 & 63)])
            out.append(b2 == nil ? UInt8(ascii: "=") : alphabet[Int(n & 63)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes the standard alphabet, with or without the final `=` padding.
    /// Nil for anything else: a foreign character, whitespace, padding in the
    /// middle, or a length no encoder produces.
    public static func decode(_ text: Substring) -> [UInt8]? {
        var utf8 = text.utf8[...]
        // Padding is one or two `=` at the end, and only where it completes a 4-character group.
        var padding = 0
        while padding < 2, utf8.last == UInt8(ascii: "=") {
            utf8 = utf8.dropLast()
            padding += 1
        }
        let count = utf8.count
        if count % 4 == 1 { return nil }
        if padding > 0, (count + padding) % 4 != 0 { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(count * 3 / 4)
        var n: UInt32 = 0
        var filled = 0
        for c in utf8 {
            guard let v = value(of: c) else { return nil }
            n = n << 6 | UInt32(v)
            filled += 1
            if filled == 4 {
                out.append(UInt8(n >> 16 & 0xFF))
                out.append(UInt8(n >> 8 & 0xFF))
                out.append(UInt8(n & 0xFF))
                n = 0
                filled = 0
            }
        }
        switch filled {
        case 2: out.append(UInt8(n >> 4 & 0xFF))
        case 3:
            out.append(UInt8(n >> 10 & 0xFF))
            out.append(UInt8(n >> 2 & 0xFF))
        default: break
        }
        return out
    }

    private static func value(of c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): c - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): c - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
