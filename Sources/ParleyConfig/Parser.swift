/// TOML's grammar: lines of key/value pairs and table headers, keys, and values.
///
/// Recursive descent over the scanner. Only arrays and inline tables recurse, and
/// both check the nesting depth before descending, so hostile input cannot exhaust
/// the stack. Redefinition rules live in `TableTree`.
struct Parser {
    private var scanner: Scanner
    private var tree: TableTree
    private let maxDepth: Int

    init(bytes: [UInt8], file: String, maxDepth: Int) throws(ConfigError) {
        scanner = try Scanner(bytes: bytes, file: file)
        tree = TableTree(file: file, maxDepth: maxDepth)
        self.maxDepth = maxDepth
    }

    mutating func parseDocument() throws(ConfigError) -> TOMLTable {
        var section = TableTree.rootID
        while !scanner.atEnd {
            scanner.skipWhitespace()
            let what: String
            switch scanner.peek() {
            case UInt8(ascii: "#"), 0x0A, 0x0D, nil:
                what = "comment"
            case UInt8(ascii: "["):
                section = try parseHeader()
                what = "table header"
            default:
                try parseKeyValue(in: section)
                what = "value"
            }
            scanner.skipWhitespace()
            try scanner.skipComment()
            if scanner.atEnd { break }
            guard try scanner.consumeNewline() else {
                throw scanner.error("expected end of line after \(what), got \(scanner.describeNext())")
            }
        }
        return tree.finalize()
    }

    // MARK: Lines

    /// `[a.b]` or `[[a.b]]`; returns the table that the section's keys go into.
    private mutating func parseHeader() throws(ConfigError) -> Int {
        let start = scanner.position
        scanner.advance()
        let isArray = scanner.peek() == UInt8(ascii: "[")
        if isArray { scanner.advance() }
        let key = try parseKey()
        guard scanner.peek() == UInt8(ascii: "]") else {
            throw scanner.error("expected '\(isArray ? "]]" : "]")' to close the table header, got \(scanner.describeNext())")
        }
        scanner.advance()
        if isArray {
            guard scanner.peek() == UInt8(ascii: "]") else {
                throw scanner.error("expected ']]' to close the array-of-tables header, got \(scanner.describeNext())")
            }
            scanner.advance()
            return try tree.appendTableArrayElement(key, at: start)
        }
        return try tree.defineTable(key, at: start)
    }

    /// `key = value`, in a section or inside an inline table.
    private mutating func parseKeyValue(in table: Int) throws(ConfigError) {
        let key = try parseKey()
        let names = key.map(\.name)
        guard scanner.peek() == UInt8(ascii: "=") else {
            throw scanner.error("expected '=' after key '\(KeyPath.display(names))', got \(scanner.describeNext())")
        }
        scanner.advance()
        scanner.skipWhitespace()
        let value = try parseValue(depth: tree.depth(of: table) + key.count, path: tree.path(of: table) + names)
        try tree.insert(value, at: key, in: table)
    }

    /// A bare, quoted or dotted key, with the whitespace around it.
    private mutating func parseKey() throws(ConfigError) -> [KeyPart] {
        var parts: [KeyPart] = []
        while true {
            scanner.skipWhitespace()
            let position = scanner.position
            guard let b = scanner.peek() else { throw scanner.error("expected a key, got end of file") }
            let name: String
            if b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") {
                name = try scanner.scanString(allowMultiline: false)
            } else if isBareKeyByte(b) {
                var bytes: [UInt8] = []
                while let c = scanner.peek(), isBareKeyByte(c) {
                    bytes.append(c)
                    scanner.advance()
                }
                name = String(decoding: bytes, as: UTF8.self)
            } else {
                throw scanner.error("expected a key, got \(scanner.describeNext())")
            }
            parts.append(KeyPart(name: name, position: position))
            scanner.skipWhitespace()
            guard scanner.peek() == UInt8(ascii: ".") else { return parts }
            scanner.advance()
        }
    }

    // MARK: Values

    /// `depth` is the nesting level of the value (1 for `a = ...` at the root);
    /// `path` is its key path, recorded in inline tables for error messages.
    private mutating func parseValue(depth: Int, path: [String]) throws(ConfigError) -> TOMLNode {
        let start = scanner.position
        switch scanner.peek() {
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            return TOMLNode(kind: .string(try scanner.scanString(allowMultiline: true)), position: start)
        case UInt8(ascii: "["):
            try checkDepth(depth)
            return try parseArray(depth: depth, path: path)
        case UInt8(ascii: "{"):
            try checkDepth(depth)
            return try parseInlineTable(depth: depth, path: path)
        default:
            return TOMLNode(kind: try scanner.scanBareValue(), position: start)
        }
    }

    private func checkDepth(_ depth: Int) throws(ConfigError) {
        guard depth <= maxDepth else { throw scanner.error("nesting is deeper than \(maxDepth) levels") }
    }

    /// `[ v, v, ]`: newlines, comments and one trailing comma are allowed.
    private mutating func parseArray(depth: Int, path: [String]) throws(ConfigError) -> TOMLNode {
        let start = scanner.position
        scanner.advance()
        var items: [TOMLNode] = []
        while true {
            try scanner.skipBlank()
            if scanner.peek() == UInt8(ascii: "]") {
                scanner.advance()
                break
            }
            if scanner.atEnd { throw scanner.error("unterminated array (opened at line \(start.line))", at: start) }
            items.append(try parseValue(depth: depth + 1, path: path))
            try scanner.skipBlank()
            switch scanner.peek() {
            case UInt8(ascii: ","):
                scanner.advance()
            case UInt8(ascii: "]"):
                scanner.advance()
                return TOMLNode(kind: .array(items), position: start)
            case nil:
                throw scanner.error("unterminated array (opened at line \(start.line))", at: start)
            default:
                throw scanner.error("expected ',' or ']' in array, got \(scanner.describeNext())")
            }
        }
        return TOMLNode(kind: .array(items), position: start)
    }

    /// `{ k = v, k.k = v }`: one line, no trailing comma (TOML 1.0).
    private mutating func parseInlineTable(depth: Int, path: [String]) throws(ConfigError) -> TOMLNode {
        let start = scanner.position
        scanner.advance()
        let table = try tree.newInlineTable(at: start, depth: depth, path: path)
        scanner.skipWhitespace()
        if scanner.peek() == UInt8(ascii: "}") {
            scanner.advance()
            return TOMLNode(kind: .table(tree.finalize(table)), position: start)
        }
        while true {
            scanner.skipWhitespace()
            switch scanner.peek() {
            case UInt8(ascii: "}"):
                throw scanner.error("trailing comma is not allowed in an inline table")
            case 0x0A, 0x0D, UInt8(ascii: "#"):
                throw scanner.error("an inline table must be on one line (opened at line \(start.line))")
            case nil:
                throw scanner.error("unterminated inline table (opened at line \(start.line))", at: start)
            default:
                break
            }
            try parseKeyValue(in: table)
            scanner.skipWhitespace()
            switch scanner.peek() {
            case UInt8(ascii: ","):
                scanner.advance()
            case UInt8(ascii: "}"):
                scanner.advance()
                return TOMLNode(kind: .table(tree.finalize(table)), position: start)
            case 0x0A, 0x0D, UInt8(ascii: "#"):
                throw scanner.error("an inline table must be on one line (opened at line \(start.line))")
            case nil:
                throw scanner.error("unterminated inline table (opened at line \(start.line))", at: start)
            default:
                throw scanner.error("expected ',' or '}' in inline table, got \(scanner.describeNext())")
            }
        }
    }
}
