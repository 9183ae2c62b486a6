/// A JSON value that keeps object key order (so re-encoding is stable and byte-comparable).
///
/// Objects are ordered pairs rather than a dictionary: peers (and golden files)
/// compare frames byte for byte, and duplicate keys survive a round trip instead
/// of being silently merged.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// Integral values within ±2^53 serialize without a fraction.
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    /// Order-sensitive: `{"a":1,"b":2}` and `{"b":2,"a":1}` differ, as their texts do.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.number(a), .number(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }
}

/// Why a JSON text was refused, and where (a UTF-8 byte offset).
public struct JSONError: Error, Sendable, Equatable, CustomStringConvertible {
    public var offset: Int
    public var message: String

    public init(offset: Int, message: String) {
        self.offset = offset
        self.message = message
    }

    public var description: String { "invalid JSON at byte \(offset): \(message)" }
}

// MARK: reading values

extension JSONValue {
    /// The value under `key` when this is an object (the first one if the key repeats).
    public subscript(key: String) -> JSONValue? {
        guard case .object(let pairs) = self else { return nil }
        return pairs.first { $0.0 == key }?.1
    }

    /// The element at `index` when this is an array and the index is in range.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let items) = self, items.indices.contains(index) else { return nil }
        return items[index]
    }

    public var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var number: Double? {
        if case .number(let d) = self { return d }
        return nil
    }

    /// The number as an `Int`, only when it is integral and fits.
    public var int: Int? {
        if case .number(let d) = self { return Int(exactly: d) }
        return nil
    }

    public var bool: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    public var array: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }

    public var object: [(String, JSONValue)]? {
        if case .object(let pairs) = self { return pairs }
        return nil
    }
}

// MARK: writing

extension JSONValue: CustomStringConvertible {
    /// Compact encoding, keys in stored order.
    public var text: String {
        var bytes: [UInt8] = []
        write(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    public var description: String { text }

    /// Appends the compact encoding as UTF-8 (one buffer for a whole frame).
    @inlinable
    public func write<Sink: JSONSink>(to out: inout Sink) {
        switch self {
        case .null: out.appendUTF8("null")
        case .bool(let b): out.appendUTF8(b ? "true" : "false")
        case .number(let d): out.appendUTF8(JSONValue.numberText(d))
        case .string(let s): JSONText.appendString(s, to: &out)
        case .array(let items):
            out.appendByte(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.appendByte(UInt8(ascii: ",")) }
                item.write(to: &out)
            }
            out.appendByte(UInt8(ascii: "]"))
        case .object(let pairs):
            out.appendByte(UInt8(ascii: "{"))
            for (i, (key, value)) in pairs.enumerated() {
                if i > 0 { out.appendByte(UInt8(ascii: ",")) }
                JSONText.appendString(key, to: &out)
                out.appendByte(UInt8(ascii: ":"))
                value.write(to: &out)
            }
            out.appendByte(UInt8(ascii: "}"))
        }
    }

    /// Integers a JavaScript peer holds exactly (±2^53) are written as integers, so
    /// ids and counts look as a JS peer writes them; NaN and infinities, which JSON
    /// cannot hold, become `null` as `JSON.stringify` makes them.
    @usableFromInline
    static func numberText(_ d: Double) -> String {
        guard d.isFinite else { return "null" }
        if d == d.rounded(.towardZero), abs(d) <= 9_007_199_254_740_992 { return String(Int64(d)) }
        return String(d)
    }
}

// MARK: literals

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByNilLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// Keeps the literal's key order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(elements) }
}
