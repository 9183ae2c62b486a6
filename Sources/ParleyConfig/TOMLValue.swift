/// A TOML value without source positions.
///
/// Why a second representation next to `TOMLNode`: other modules (the Lua bridge,
/// plugin config) want plain data they can convert or compare, not parser positions.
/// Tables keep key insertion order so that round trips and listings follow the file.
public enum TOMLValue: Sendable, Hashable {
    case string(String)
    case integer(Int64)
    case float(Double)
    case bool(Bool)
    /// Dates and times keep their original text; see `TOMLDateTime`.
    case datetime(TOMLDateTime)
    /// TOML 1.0 arrays may mix types.
    case array([TOMLValue])
    case table(Table)

    /// The TOML name of the value's type, as used in error messages.
    public var typeName: String {
        switch self {
        case .string: "string"
        case .integer: "integer"
        case .float: "float"
        case .bool: "boolean"
        case .datetime(let d): d.kind.typeName
        case .array: "array"
        case .table: "table"
        }
    }

    public var stringValue: String? { if case .string(let v) = self { v } else { nil } }
    public var integerValue: Int64? { if case .integer(let v) = self { v } else { nil } }
    public var floatValue: Double? { if case .float(let v) = self { v } else { nil } }
    public var boolValue: Bool? { if case .bool(let v) = self { v } else { nil } }
    public var datetimeValue: TOMLDateTime? { if case .datetime(let v) = self { v } else { nil } }
    public var arrayValue: [TOMLValue]? { if case .array(let v) = self { v } else { nil } }
    public var tableValue: Table? { if case .table(let v) = self { v } else { nil } }
}

extension TOMLValue {
    /// A table whose keys keep the order in which they were first inserted.
    ///
    /// Why not `Dictionary`: config listings, error messages and the Lua side should see
    /// keys in file order, and equality should not depend on hash seeds.
    public struct Table: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
        public typealias Element = (key: String, value: TOMLValue)

        public private(set) var keys: [String] = []
        public private(set) var values: [TOMLValue] = []
        private var index: [String: Int] = [:]

        public init() {}

        /// Later duplicates replace earlier values but keep the first position.
        public init(_ pairs: some Sequence<(String, TOMLValue)>) {
            for (key, value) in pairs { self[key] = value }
        }

        public init(dictionaryLiteral elements: (String, TOMLValue)...) {
            self.init(elements)
        }

        public var count: Int { keys.count }
        public var isEmpty: Bool { keys.isEmpty }

        /// Setting a new key appends it; setting nil removes it (linear, rarely needed).
        public subscript(key: String) -> TOMLValue? {
            get { index[key].map { values[$0] } }
            set {
                if let i = index[key] {
                    if let newValue {
                        values[i] = newValue
                    } else {
                        keys.remove(at: i)
                        values.remove(at: i)
                        index[key] = nil
                        for j in i..<keys.count { index[keys[j]] = j }
                    }
                } else if let newValue {
                    index[key] = keys.count
                    keys.append(key)
                    values.append(newValue)
                }
            }
        }

        public struct Iterator: IteratorProtocol {
            let table: Table
            var position = 0
            public mutating func next() -> Element? {
                guard position < table.keys.count else { return nil }
                defer { position += 1 }
                return (table.keys[position], table.values[position])
            }
        }

        public func makeIterator() -> Iterator { Iterator(table: self) }
        public var underestimatedCount: Int { keys.count }

        /// Order-sensitive: two tables are equal when they list the same pairs in the same order.
        public static func == (lhs: Table, rhs: Table) -> Bool {
            lhs.keys == rhs.keys && lhs.values == rhs.values
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(keys)
            hasher.combine(values)
        }
    }
}

// Literals make expected values in tests and defaults in code read like TOML.
extension TOMLValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .float(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: TOMLValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, TOMLValue)...) { self = .table(Table(elements)) }
}
