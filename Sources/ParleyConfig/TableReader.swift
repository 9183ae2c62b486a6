/// Strict, typed access to one table.
///
/// Why: configs should fail loudly. Every accessor marks its key as read, and when the
/// closure given to `read` returns, any key nobody asked for is reported as
/// `FILE:LINE: unknown key 'a.b'`, usually a typo that would otherwise be silently
/// ignored. Wrong types, missing keys and out-of-range numbers name the file, line and
/// full key path.
///
///     try doc.root.read { t in
///         let name = try t.string("name")
///         let limit = try t.int("instructions", default: 10_000_000, range: 1...)
///     }
///
/// Keys are single components: reach nested tables with `table`/`optionalTable`.
public struct TableReader: Sendable {
    /// The table being read.
    public let table: TOMLTable
    let log: ReadLog

    init(table: TOMLTable) {
        self.table = table
        self.log = ReadLog()
    }

    /// Runs `body` on a fresh reader, then reports any error held back and the first
    /// key that was not read.
    static func run<T>(_ table: TOMLTable, _ body: (TableReader) throws -> T) throws -> T {
        let reader = TableReader(table: table)
        let result = try body(reader)
        try reader.finish()
        return result
    }

    public var file: String { table.file }
    /// Key components from the document root, as used in messages.
    public var path: [String] { table.path }
    /// All keys of the table, in file order (reading this marks nothing).
    public var keys: [String] { table.keys }

    // MARK: Inspection (does not mark keys as read)

    public func contains(_ key: String) -> Bool { table.entry(key) != nil }

    /// Line of the key, for messages produced by the caller's own validation.
    public func line(of key: String) -> Int? { table.entry(key)?.keyPosition.line }

    public func position(of key: String) -> TOMLPosition? { table.entry(key)?.keyPosition }

    /// An error located at `key` (or at the table when the key is absent or nil), for
    /// validation the accessors cannot express: `throw t.error("port", "port 80 needs root")`.
    public func error(_ key: String?, _ message: String, kind: ConfigError.Kind = .invalidValue) -> ConfigError {
        let position = key.flatMap { table.entry($0)?.keyPosition } ?? table.position
        let keyPath = key.map { KeyPath.display(path + [$0]) } ?? (path.isEmpty ? nil : KeyPath.display(path))
        return ConfigError(kind: kind, file: file, line: position.line, column: position.column, key: keyPath, message: message)
    }

    /// An error at `key` of the sub-table `table` (`[bot.socketio] ca_file`),
    /// or at the sub-table when the key is not written there.
    public func error(in table: String, key: String, _ message: String) -> ConfigError {
        guard case .table(let sub)? = self.table.entry(table)?.value.kind, let entry = sub.entry(key) else {
            return error(table, message)
        }
        return ConfigError(kind: .invalidValue, file: file, line: entry.keyPosition.line, column: entry.keyPosition.column,
                           key: KeyPath.display(path + [table, key]), message: message)
    }

    // MARK: Marking

    /// Something the table lacks, reported when the read finishes and only
    /// if no key is unknown: a key written in the wrong place (`email` in
    /// `[[bot]]` for `[bot.rest] email`) is then named at its own line,
    /// instead of being hidden behind "needs rest.email".
    public func missing(_ error: ConfigError) {
        log.deferMissing(error)
    }

    /// Accepts keys without reading them, so they are not reported as unknown.
    public func ignore(_ keys: String...) {
        for key in keys { log.markRead(key) }
    }

    /// Accepts every key of the table (for tables read some other way).
    public func ignoreAll() {
        for key in table.keys { log.markRead(key) }
    }

    /// The value as is, marking it read; nil when absent.
    public func raw(_ key: String) -> TOMLNode? {
        log.markRead(key)
        return table[key]
    }

    /// A subtree kept as is (for example a plugin's config, passed on to Lua).
    ///
    /// Does not throw, so it can be used in expressions; if the key holds something
    /// other than a table, it returns nil and the type error is thrown when the
    /// enclosing `read` finishes.
    /// `hint` follows a type error: a likely slip, such as `plugin = [...]` for `plugins`.
    public func rawTable(_ key: String, hint: String? = nil) -> TOMLTable? {
        log.markRead(key)
        guard let entry = table.entry(key) else { return nil }
        guard let value = entry.value.tableValue else {
            var e = mismatch(key, entry, expected: "a table")
            if let hint { e.message += " (\(hint))" }
            log.deferError(e)
            return nil
        }
        return value
    }

    // MARK: Internals shared by the typed accessors

    /// Looks up and marks `key`, then converts; throws a type error naming `expected`.
    func get<T>(_ key: String, expected: String, _ convert: (TOMLNode) -> T?) throws(ConfigError) -> (T, TOMLTable.Entry)? {
        log.markRead(key)
        guard let entry = table.entry(key) else { return nil }
        guard let value = convert(entry.value) else { throw mismatch(key, entry, expected: expected) }
        return (value, entry)
    }

    func required<T>(_ key: String, _ value: T?) throws(ConfigError) -> T {
        guard let value else {
            throw error(key, "missing required key", kind: .missingKey)
        }
        return value
    }

    func mismatch(_ key: String, _ entry: TOMLTable.Entry, expected: String) -> ConfigError {
        fail(key, at: entry.value.position, .typeMismatch, "expected \(expected), got \(entry.value.summary)")
    }

    func fail(_ key: String, at position: TOMLPosition, _ kind: ConfigError.Kind, _ message: String) -> ConfigError {
        ConfigError(kind: kind, file: file, line: position.line, column: position.column,
                    key: KeyPath.display(path + [key]), message: message)
    }

    /// Reports the first unread key in file order, suggesting a requested key with a
    /// similar name (`limts` → `limits`).
    func finish() throws(ConfigError) {
        if let deferred = log.deferredError { throw deferred }
        let read = log.readKeys
        for entry in table.entries where !read.contains(entry.key) {
            var message = "unknown key '\(KeyPath.display(path + [entry.key]))'"
            let candidates = read.filter { !table.contains($0) }.sorted()
            if let guess = closestKey(to: entry.key, among: candidates) {
                message += " (did you mean '\(guess)'?)"
            }
            throw ConfigError(kind: .unknownKey, file: file, line: entry.keyPosition.line, column: entry.keyPosition.column,
                              key: KeyPath.display(path + [entry.key]), message: message)
        }
        if let missing = log.missingError { throw missing }
    }
}

extension TOMLTable {
    fileprivate func contains(_ key: String) -> Bool { entry(key) != nil }

    /// Reads this table strictly: runs `body`, then reports keys it did not read.
    public func read<T>(_ body: (TableReader) throws -> T) throws -> T {
        try TableReader.run(self, body)
    }
}

/// The candidate within edit distance 2 (and closer than the key's length), if any.
/// Long names are skipped so that a hostile key cannot make this expensive.
private func closestKey(to key: String, among candidates: [String]) -> String? {
    let a = Array(key.unicodeScalars)
    guard a.count <= 64 else { return nil }
    var best: (key: String, distance: Int)?
    for candidate in candidates {
        let b = Array(candidate.unicodeScalars)
        guard b.count <= 64, abs(a.count - b.count) <= 2 else { continue }
        let distance = editDistance(a, b)
        if distance <= 2, distance < a.count, distance < best?.distance ?? .max {
            best = (candidate, distance)
        }
    }
    return best?.key
}

/// Levenshtein distance, one row at a time.
private func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
    var previous = Array(0...b.count)
    for i in a.indices {
        var current = [i + 1]
        current.reserveCapacity(b.count + 1)
        for j in b.indices {
            current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (a[i] == b[j] ? 0 : 1)))
        }
        previous = current
    }
    return previous[b.count]
}
