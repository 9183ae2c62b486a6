/// A place in a source file. Lines are 1-based; columns are 1-based and count Unicode
/// scalars, so they match what an editor shows for most text.
public struct TOMLPosition: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public static func < (lhs: TOMLPosition, rhs: TOMLPosition) -> Bool {
        (lhs.line, lhs.column) < (rhs.line, rhs.column)
    }

    public var description: String { "\(line):\(column)" }
}

/// A parsed value together with where it was written.
///
/// Why positions on every value: config errors found long after parsing (by a reader
/// or by another module validating semantics) must still point at the right line.
public struct TOMLNode: Sendable {
    public enum Kind: Sendable {
        case string(String)
        case integer(Int64)
        case float(Double)
        case bool(Bool)
        case datetime(TOMLDateTime)
        case array([TOMLNode])
        case table(TOMLTable)
    }

    public let kind: Kind
    /// Where the value starts: its first character, the `[`/`{` of an array or inline
    /// table, or the header of a `[table]`.
    public let position: TOMLPosition

    public init(kind: Kind, position: TOMLPosition) {
        self.kind = kind
        self.position = position
    }

    public var line: Int { position.line }

    /// The same value without positions.
    public var plain: TOMLValue {
        switch kind {
        case .string(let v): .string(v)
        case .integer(let v): .integer(v)
        case .float(let v): .float(v)
        case .bool(let v): .bool(v)
        case .datetime(let v): .datetime(v)
        case .array(let items): .array(items.map(\.plain))
        case .table(let t): .table(t.plain)
        }
    }

    public var stringValue: String? { if case .string(let v) = kind { v } else { nil } }
    public var integerValue: Int64? { if case .integer(let v) = kind { v } else { nil } }
    public var floatValue: Double? { if case .float(let v) = kind { v } else { nil } }
    public var boolValue: Bool? { if case .bool(let v) = kind { v } else { nil } }
    public var datetimeValue: TOMLDateTime? { if case .datetime(let v) = kind { v } else { nil } }
    public var arrayValue: [TOMLNode]? { if case .array(let v) = kind { v } else { nil } }
    public var tableValue: TOMLTable? { if case .table(let v) = kind { v } else { nil } }

    /// The TOML name of the value's type: `string`, `integer`, `local date`, ...
    public var typeName: String {
        switch kind {
        case .string: "string"
        case .integer: "integer"
        case .float: "float"
        case .bool: "boolean"
        case .datetime(let d): d.kind.typeName
        case .array: "array"
        case .table: "table"
        }
    }

    /// A short rendering for "got ..." in messages: `"sometimes"`, `integer 42`, `a table`.
    public var summary: String {
        switch kind {
        case .string(let v): KeyPath.quoted(v, limit: 40)
        case .integer(let v): "integer \(v)"
        case .float(let v): "float \(v)"
        case .bool(let v): "boolean \(v)"
        case .datetime(let d): "\(d.kind.typeName) \(d.text)"
        case .array: "an array"
        case .table: "a table"
        }
    }
}

/// A parsed table: its entries in file order, each with the position of its key.
///
/// It also carries the file name and its own key path so that a subtree handed to
/// another module (say, a plugin's config) can still produce `file:line: key` errors.
public struct TOMLTable: Sendable {
    public struct Entry: Sendable {
        public let key: String
        /// Where the key (its last component, for dotted keys) is written. For tables
        /// created by a header, the position of that component in the header.
        public let keyPosition: TOMLPosition
        public let value: TOMLNode
    }

    public let entries: [Entry]
    /// Where the table is defined: its `[header]`, its `{`, or the dotted key that created it.
    public let position: TOMLPosition
    /// Key components from the document root (`["bot", "limits"]`); for tables inside
    /// arrays, the path of the array.
    public let path: [String]
    /// The file name given to the parser.
    public let file: String
    private let index: [String: Int]

    init(entries: [Entry], position: TOMLPosition, path: [String], file: String, index: [String: Int]) {
        self.entries = entries
        self.position = position
        self.path = path
        self.file = file
        self.index = index
    }

    /// An empty table, for callers that want a default subtree.
    public init(file: String, path: [String] = [], position: TOMLPosition = TOMLPosition(line: 1, column: 1)) {
        self.init(entries: [], position: position, path: path, file: file, index: [:])
    }

    public var keys: [String] { entries.map(\.key) }
    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }

    public func entry(_ key: String) -> Entry? {
        index[key].map { entries[$0] }
    }

    public subscript(key: String) -> TOMLNode? {
        entry(key)?.value
    }

    /// `path` rendered as a dotted key, `""` for the root.
    public var displayPath: String { KeyPath.display(path) }

    /// The same table without positions.
    public var plain: TOMLValue.Table {
        var out = TOMLValue.Table()
        for entry in entries { out[entry.key] = entry.value.plain }
        return out
    }
}
