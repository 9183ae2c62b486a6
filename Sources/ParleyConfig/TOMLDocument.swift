#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Parses TOML 1.0 into a `TOMLDocument`.
///
/// Why a configurable depth: the parser must never exhaust the stack on hostile
/// input (it is fuzzed), and 64 levels is far beyond any real config.
public struct TOMLParser: Sendable {
    public static let defaultMaxDepth = 64

    /// Name used in error messages; not opened.
    public var file: String
    /// Deepest allowed nesting of tables and arrays, clamped to 1...256.
    public var maxDepth: Int

    public init(file: String = "<input>", maxDepth: Int = TOMLParser.defaultMaxDepth) {
        self.file = file
        self.maxDepth = maxDepth
    }

    public func parse(_ text: String) throws(ConfigError) -> TOMLDocument {
        try parse(bytes: Array(text.utf8))
    }

    /// Bytes must be UTF-8; anything else is reported as an error with its line.
    public func parse(bytes: some Sequence<UInt8>) throws(ConfigError) -> TOMLDocument {
        var parser = try Parser(bytes: Array(bytes), file: file, maxDepth: min(max(maxDepth, 1), 256))
        return TOMLDocument(file: file, root: try parser.parseDocument())
    }
}

/// A parsed TOML file: its root table, with positions everywhere.
public struct TOMLDocument: Sendable {
    public let file: String
    public let root: TOMLTable

    init(file: String, root: TOMLTable) {
        self.file = file
        self.root = root
    }

    /// Parses `text`; `file` is only used in error messages.
    public init(parsing text: String, file: String = "<input>") throws(ConfigError) {
        self = try TOMLParser(file: file).parse(text)
    }

    public init(parsing bytes: some Sequence<UInt8>, file: String = "<input>") throws(ConfigError) {
        self = try TOMLParser(file: file).parse(bytes: bytes)
    }

    /// Reads and parses the file at `path`; messages name it as `file` (default: `path`).
    public init(contentsOfFile path: String, file: String? = nil) throws(ConfigError) {
        let name = file ?? path
        self = try TOMLParser(file: name).parse(bytes: try readFile(path, name: name))
    }

    /// The document as plain values, in file order.
    public var plain: TOMLValue.Table { root.plain }

    /// Strict reading of the root table; see `TableReader`.
    public func read<T>(_ body: (TableReader) throws -> T) throws -> T {
        try root.read(body)
    }
}

/// Whole-file read with the C library, so this module needs no Foundation.
private func readFile(_ path: String, name: String) throws(ConfigError) -> [UInt8] {
    guard let handle = fopen(path, "rb") else {
        let reason = String(cString: strerror(errno))
        throw ConfigError(kind: .io, file: name, line: 0, message: "cannot open file: \(reason)")
    }
    defer { fclose(handle) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
        let count = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, handle) }
        if count > 0 { bytes.append(contentsOf: buffer[0..<count]) }
        if count < buffer.count {
            if ferror(handle) != 0 {
                throw ConfigError(kind: .io, file: name, line: 0, message: "cannot read file")
            }
            return bytes
        }
    }
}
