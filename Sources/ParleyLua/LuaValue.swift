/// A Lua value copied out of (or into) a plugin VM.
///
/// Values cross the C/Swift boundary as bytes in the codec described in
/// `parley_lua.h`, never as live `lua_State` access, so Swift code never makes
/// a Lua call that could `longjmp`. Strings are bytes because Lua strings are:
/// a plugin may store binary data (`string.pack`) and must get it back intact.
public enum LuaValue: Sendable, Hashable {
    case `nil`
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case bytes([UInt8])
    /// `array` holds keys 1...n in order; `hash` the other pairs in the order they were read.
    indirect case table(array: [LuaValue], hash: [LuaPair])

    public static func string(_ s: String) -> LuaValue { .bytes(Array(s.utf8)) }

    /// The text of a string value (UTF-8, invalid sequences replaced), or nil.
    public var stringValue: String? {
        if case .bytes(let b) = self { return String(decoding: b, as: UTF8.self) }
        return nil
    }

    /// A number as Double (integers converted), or nil.
    public var numberValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }

    public var isNil: Bool { if case .nil = self { return true } else { return false } }

    /// Field lookup in a table by string key (nil when absent or not a table).
    public subscript(key: String) -> LuaValue {
        guard case .table(_, let hash) = self else { return .nil }
        let k = LuaValue.string(key)
        return hash.first(where: { $0.key == k })?.value ?? .nil
    }

    /// A table built from string keys, in the given order.
    public static func record(_ fields: [(String, LuaValue)]) -> LuaValue {
        .table(array: [], hash: fields.map { LuaPair(key: .string($0.0), value: $0.1) })
    }

    public static func list(_ items: [LuaValue]) -> LuaValue { .table(array: items, hash: []) }
}

public struct LuaPair: Sendable, Hashable {
    public var key: LuaValue
    public var value: LuaValue
    public init(key: LuaValue, value: LuaValue) {
        self.key = key
        self.value = value
    }
}
