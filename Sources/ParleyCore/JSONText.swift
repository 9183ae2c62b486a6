import ParleyLua
import ParleyWire

extension LuaValue {
    /// JSON text of a value (for `parley journal dump`). A table with only an
    /// array part is a JSON array; any other table an object with string keys.
    public var json: String {
        switch self {
        case .nil: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d): return JSONText.number(d)
        case .bytes: return JSONText.string(stringValue ?? "")
        case .table(let array, let hash):
            if hash.isEmpty, !array.isEmpty { return "[" + array.map(\.json).joined(separator: ",") + "]" }
            var o = JSONObjectWriter()
            for (i, v) in array.enumerated() { o.add(String(i + 1), raw: v.json) }
            for p in hash {
                let key: String
                switch p.key {
                case .bytes: key = p.key.stringValue ?? ""
                case .int(let i): key = String(i)
                case .double(let d): key = JSONText.number(d)
                case .bool(let b): key = b ? "true" : "false"
                default: continue
                }
                o.add(key, raw: p.value.json)
            }
            return o.finish()
        }
    }
}
