/// The tables of a document while it is being parsed, and TOML's rules about who may
/// define or extend which table.
///
/// Why an arena of mutable tables addressed by index: `[a.b]` and dotted keys reach
/// back into tables created earlier; with value types that would mean copying nested
/// tables on every write. Indices give O(1) access; `finalize` then builds the
/// immutable `TOMLTable` tree once, in linear time.
///
/// The rules (TOML 1.0, matching the toml-test suite):
/// - a key may be assigned once;
/// - `[t]` may define a table once; it may define a table that headers only implied
///   (`[a]` after `[a.b]`), but not one created by dotted keys;
/// - dotted keys may create and extend tables, and pass through tables implied by
///   headers, but may not add to a table defined by a header (`[a.b]` then `b.x = 1`
///   under `[a]`);
/// - inline tables and static arrays are complete when closed: nothing may extend them;
/// - `[[t]]` appends to an array of tables, never to a static array.
struct TableTree {
    static let rootID = 0

    /// How a table came to exist; decides what may extend it later.
    enum Origin {
        /// Implied by a header such as `[a.b]` (for `a`); a later `[a]` may still define it.
        case implicit
        /// Defined by a `[header]`, or an element of `[[array]]`, or the root.
        case header
        /// Created by a dotted key, or an implicit table a dotted key passed through.
        case dotted
        /// The top of an inline table, sealed once its `}` is read.
        case inline
    }

    enum Slot {
        /// A finished value: scalar, static array or closed inline table.
        case value(TOMLNode)
        case table(Int)
        case tableArray(Int)
    }

    struct Entry {
        let key: String
        let keyPosition: TOMLPosition
        var slot: Slot
    }

    struct Table {
        var entries: [Entry] = []
        var index: [String: Int] = [:]
        var origin: Origin
        var position: TOMLPosition
        let depth: Int
        let path: [String]
    }

    struct TableArray {
        var elements: [Int]
        let position: TOMLPosition
    }

    private var tables: [Table]
    private var tableArrays: [TableArray] = []
    let file: String
    let maxDepth: Int

    init(file: String, maxDepth: Int) {
        self.file = file
        self.maxDepth = maxDepth
        tables = [Table(origin: .header, position: TOMLPosition(line: 1, column: 1), depth: 0, path: [])]
    }

    func depth(of table: Int) -> Int { tables[table].depth }
    func path(of table: Int) -> [String] { tables[table].path }

    // MARK: Headers

    /// `[a.b.c]`: returns the table that following key/values go into.
    mutating func defineTable(_ key: [KeyPart], at position: TOMLPosition) throws(ConfigError) -> Int {
        guard let last = key.last else { throw error(.syntax, [], at: position, "empty table header") }
        let parent = try walkHeader(key.dropLast(), at: position)
        let path = tables[parent].path + [last.name]
        guard let existing = entry(parent, last.name) else {
            return try addTable(parent: parent, part: last, origin: .header, position: position)
        }
        switch existing.slot {
        case .table(let id):
            switch tables[id].origin {
            case .implicit:
                tables[id].origin = .header
                tables[id].position = position
                return id
            case .header:
                throw error(.redefinition, path, at: last.position,
                            "table [\(KeyPath.display(path))] is defined twice (first at line \(tables[id].position.line))")
            case .dotted, .inline:
                throw error(.redefinition, path, at: last.position,
                            "table [\(KeyPath.display(path))] was already defined by dotted keys at line \(tables[id].position.line)")
            }
        case .tableArray:
            throw error(.redefinition, path, at: last.position,
                        "[\(KeyPath.display(path))] is an array of tables (line \(existing.keyPosition.line)); use [[\(KeyPath.display(path))]]")
        case .value(let node):
            throw notATable(node, path, at: last.position, existingAt: existing.keyPosition)
        }
    }

    /// `[[a.b.c]]`: appends a new table to the array and returns it.
    mutating func appendTableArrayElement(_ key: [KeyPart], at position: TOMLPosition) throws(ConfigError) -> Int {
        guard let last = key.last else { throw error(.syntax, [], at: position, "empty table header") }
        let parent = try walkHeader(key.dropLast(), at: position)
        let path = tables[parent].path + [last.name]
        guard let existing = entry(parent, last.name) else {
            let arrayID = tableArrays.count
            tableArrays.append(TableArray(elements: [], position: position))
            addEntry(parent, last, .tableArray(arrayID))
            let element = try newTable(depth: tables[parent].depth + 1, origin: .header, position: position, path: path, at: last.position)
            tableArrays[arrayID].elements.append(element)
            return element
        }
        switch existing.slot {
        case .tableArray(let arrayID):
            let element = try newTable(depth: tables[parent].depth + 1, origin: .header, position: position, path: path, at: last.position)
            tableArrays[arrayID].elements.append(element)
            return element
        case .table:
            throw error(.redefinition, path, at: last.position,
                        "cannot use [[\(KeyPath.display(path))]]: already a table (line \(existing.keyPosition.line))")
        case .value(let node):
            if case .array = node.kind {
                throw error(.redefinition, path, at: last.position,
                            "cannot append to static array (defined at line \(existing.keyPosition.line)) with [[\(KeyPath.display(path))]]")
            }
            throw notATable(node, path, at: last.position, existingAt: existing.keyPosition)
        }
    }

    /// The table named by all but the last component of a header, creating implicit
    /// tables as needed; an array of tables stands for its last element.
    private mutating func walkHeader(_ parts: ArraySlice<KeyPart>, at position: TOMLPosition) throws(ConfigError) -> Int {
        var current = Self.rootID
        for part in parts {
            guard let existing = entry(current, part.name) else {
                current = try addTable(parent: current, part: part, origin: .implicit, position: position)
                continue
            }
            switch existing.slot {
            case .table(let id):
                current = id
            case .tableArray(let arrayID):
                guard let last = tableArrays[arrayID].elements.last else {
                    throw error(.syntax, tables[current].path + [part.name], at: part.position, "empty array of tables")
                }
                current = last
            case .value(let node):
                throw notATable(node, tables[current].path + [part.name], at: part.position, existingAt: existing.keyPosition)
            }
        }
        return current
    }

    // MARK: Key/value pairs

    /// Assigns `value` to the (possibly dotted) `key` inside `table`.
    mutating func insert(_ value: TOMLNode, at key: [KeyPart], in table: Int) throws(ConfigError) {
        guard let last = key.last else { throw error(.syntax, [], at: value.position, "empty key") }
        var current = table
        for part in key.dropLast() {
            let path = tables[current].path + [part.name]
            guard let existing = entry(current, part.name) else {
                current = try addTable(parent: current, part: part, origin: .dotted, position: part.position)
                continue
            }
            switch existing.slot {
            case .table(let id):
                switch tables[id].origin {
                case .implicit:
                    tables[id].origin = .dotted
                    tables[id].position = part.position
                case .dotted:
                    break
                case .header, .inline:
                    throw error(.redefinition, path, at: part.position,
                                "cannot add to table [\(KeyPath.display(path))] (defined at line \(tables[id].position.line)) with dotted keys")
                }
                current = id
            case .tableArray:
                throw error(.redefinition, path, at: part.position,
                            "cannot add to array of tables [[\(KeyPath.display(path))]] (line \(existing.keyPosition.line)) with dotted keys")
            case .value(let node):
                throw notATable(node, path, at: part.position, existingAt: existing.keyPosition)
            }
        }
        if let existing = entry(current, last.name) {
            let path = tables[current].path + [last.name]
            let what: String = switch existing.slot {
            case .value: "duplicate key"
            case .table: "duplicate key: already a table"
            case .tableArray: "duplicate key: already an array of tables"
            }
            throw error(.redefinition, path, at: last.position, "\(what) (first defined at line \(existing.keyPosition.line))")
        }
        addEntry(current, last, .value(value))
    }

    // MARK: Inline tables

    /// A fresh table for an inline `{...}`; it is not attached anywhere until
    /// `finalize` turns it into a value.
    mutating func newInlineTable(at position: TOMLPosition, depth: Int, path: [String]) throws(ConfigError) -> Int {
        try newTable(depth: depth, origin: .inline, position: position, path: path, at: position)
    }

    // MARK: Building

    private func entry(_ table: Int, _ name: String) -> Entry? {
        tables[table].index[name].map { tables[table].entries[$0] }
    }

    private mutating func addEntry(_ table: Int, _ part: KeyPart, _ slot: Slot) {
        tables[table].index[part.name] = tables[table].entries.count
        tables[table].entries.append(Entry(key: part.name, keyPosition: part.position, slot: slot))
    }

    private mutating func addTable(parent: Int, part: KeyPart, origin: Origin, position: TOMLPosition) throws(ConfigError) -> Int {
        let id = try newTable(depth: tables[parent].depth + 1, origin: origin, position: position,
                              path: tables[parent].path + [part.name], at: part.position)
        addEntry(parent, part, .table(id))
        return id
    }

    private mutating func newTable(depth: Int, origin: Origin, position: TOMLPosition, path: [String], at keyPosition: TOMLPosition) throws(ConfigError) -> Int {
        guard depth <= maxDepth else {
            throw error(.syntax, [], at: keyPosition, "nesting is deeper than \(maxDepth) levels")
        }
        tables.append(Table(origin: origin, position: position, depth: depth, path: path))
        return tables.count - 1
    }

    /// Builds the immutable table `id` and everything below it. Recursion depth is
    /// bounded by `maxDepth` because `newTable` refuses deeper tables.
    func finalize(_ id: Int = rootID) -> TOMLTable {
        let table = tables[id]
        var entries: [TOMLTable.Entry] = []
        entries.reserveCapacity(table.entries.count)
        for entry in table.entries {
            let node: TOMLNode
            switch entry.slot {
            case .value(let value):
                node = value
            case .table(let child):
                let built = finalize(child)
                node = TOMLNode(kind: .table(built), position: built.position)
            case .tableArray(let arrayID):
                let array = tableArrays[arrayID]
                var elements: [TOMLNode] = []
                elements.reserveCapacity(array.elements.count)
                for element in array.elements {
                    let built = finalize(element)
                    elements.append(TOMLNode(kind: .table(built), position: built.position))
                }
                node = TOMLNode(kind: .array(elements), position: array.position)
            }
            entries.append(TOMLTable.Entry(key: entry.key, keyPosition: entry.keyPosition, value: node))
        }
        return TOMLTable(entries: entries, position: table.position, path: table.path, file: file, index: table.index)
    }

    // MARK: Errors

    private func error(_ kind: ConfigError.Kind, _ path: [String], at position: TOMLPosition, _ message: String) -> ConfigError {
        ConfigError(kind: kind, file: file, line: position.line, column: position.column,
                    key: path.isEmpty ? nil : KeyPath.display(path), message: message)
    }

    private func notATable(_ node: TOMLNode, _ path: [String], at position: TOMLPosition, existingAt: TOMLPosition) -> ConfigError {
        switch node.kind {
        case .table:
            error(.redefinition, path, at: position, "cannot extend inline table (defined at line \(existingAt.line))")
        case .array:
            error(.redefinition, path, at: position, "cannot extend static array (defined at line \(existingAt.line)); it is not a table")
        default:
            error(.redefinition, path, at: position, "already defined as \(node.typeName) at line \(existingAt.line), not a table")
        }
    }
}
