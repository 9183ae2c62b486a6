import ParleyWire

/// `bot.json`: Lua values as JSON text and back, within fixed bounds.
///
/// - JSON `null` is Lua `nil`: an object's null member is absent, an array's
///   null is a hole.
/// - A table whose keys are exactly 1…n is an array; any other table, the
///   empty one included, is an object, its number keys written as text.
///   Object keys stay strings when read back (`"1"` is not `1` in Lua).
/// - Strings must be UTF-8. NaN and the infinities have no JSON form.
///   Integers beyond ±2^53 lose precision, as in JavaScript.
public enum LuaJSON {
    /// The longest JSON text either way.
    public static let maxBytes = 1 << 20
    /// The deepest nesting of arrays and objects either way: values cross
    /// between Lua and Swift nested at most `PARLEY_MAX_DEPTH` (32) deep.
    public static let maxDepth = 30

    public static func encode(_ value: LuaValue) -> Result<String, LuaJSONError> {
        do {
            let text = try json(value, depth: 0).text
            guard text.utf8.count <= maxBytes else { return .failure(LuaJSONError("more than \(maxBytes) bytes of JSON")) }
            return .success(text)
        } catch {
            return .failure(error)
        }
    }

    public static func decode(_ bytes: [UInt8]) -> Result<LuaValue, LuaJSONError> {
        guard bytes.count <= maxBytes else { return .failure(LuaJSONError("more than \(maxBytes) bytes of JSON")) }
        do {
            return .success(lua(try JSONValue.parse(bytes: bytes, maxDepth: maxDepth)))
        } catch {
            return .failure(LuaJSONError(error.description))
        }
    }

    static func json(_ v: LuaValue, depth: Int) throws(LuaJSONError) -> JSONValue {
        switch v {
        case .nil: return .null
        case .bool(let b): return .bool(b)
        case .int(let i): return .number(Double(i))
        case .double(let d):
            guard d.isFinite else { throw LuaJSONError("\(d.isNaN ? "NaN" : d > 0 ? "inf" : "-inf") has no JSON form") }
            return .number(d)
        case .bytes(let raw): return .string(try text(raw))
        case .table(let array, let hash):
            guard depth < maxDepth else { throw LuaJSONError("tables nested more than \(maxDepth) deep") }
            if hash.isEmpty, !array.isEmpty {
                var items: [JSONValue] = []
                items.reserveCapacity(array.count)
                for item in array { items.append(try json(item, depth: depth + 1)) }
                return .array(items)
            }
            var pairs: [(String, JSONValue)] = []
            pairs.reserveCapacity(array.count + hash.count)
            for (i, item) in array.enumerated() { pairs.append((String(i + 1), try json(item, depth: depth + 1))) }
            // A Lua table's own order changes from run to run (Lua seeds its hashes
            // afresh), so the same table must be written in one fixed order: numbers
            // by value, then strings by their bytes.
            let sorted = hash.count > 1 ? hash.sorted(by: Self.keyPrecedes) : hash
            for pair in sorted { pairs.append((try key(pair.key), try json(pair.value, depth: depth + 1))) }
            // Only a number key can meet a string of the same text ([1] and ["1"]).
            if pairs.count > 1, !array.isEmpty || hash.contains(where: { if case .bytes = $0.key { false } else { true } }) {
                var seen = Set<String>()
                for (k, _) in pairs where !seen.insert(k).inserted {
                    throw LuaJSONError("the key \"\(k)\" appears twice, as a number and as a string")
                }
            }
            return .object(pairs)
        }
    }

    /// The order of an object's members: number keys by value, then the rest by bytes.
    static func keyPrecedes(_ a: LuaPair, _ b: LuaPair) -> Bool {
        switch (a.key, b.key) {
        case let (.bytes(x), .bytes(y)): return x.lexicographicallyPrecedes(y)
        case (.bytes, _): return false
        case (_, .bytes): return true
        default: return (a.key.numberValue ?? 0) < (b.key.numberValue ?? 0)
        }
    }

    static func key(_ k: LuaValue) throws(LuaJSONError) -> String {
        switch k {
        case .bytes(let raw): return try text(raw)
        case .int(let i): return String(i)
        case .double(let d) where d.isFinite: return JSONText.number(d)
        default: throw LuaJSONError("an object key must be a string or a number")
        }
    }

    static func text(_ raw: [UInt8]) throws(LuaJSONError) -> String {
        guard let s = String(validating: raw, as: UTF8.self) else { throw LuaJSONError("a string is not UTF-8 text") }
        return s
    }

    static func lua(_ j: JSONValue) -> LuaValue {
        switch j {
        case .null: return .nil
        case .bool(let b): return .bool(b)
        case .number(let d):
            if d.rounded() == d, abs(d) < 9.2e18 { return .int(Int64(d)) }
            return .double(d)
        case .string(let s): return .string(s)
        case .array(let items): return .table(array: items.map(lua), hash: [])
        case .object(let pairs): return .table(array: [], hash: pairs.map { LuaPair(key: .string($0.0), value: lua($0.1)) })
        }
    }
}

/// Why `bot.json` refused a value or a text.
public struct LuaJSONError: Error, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
