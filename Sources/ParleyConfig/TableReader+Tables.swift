/// Nested tables and arrays of tables, each read by its own strict reader.
///
/// The nested closure's unknown keys are reported when it returns, so errors surface
/// in the order the config is read, each with the nested key path (`bot.limits.x`).
extension TableReader {
    /// A required subtable.
    public func table<T>(_ key: String, _ body: (TableReader) throws -> T) throws -> T {
        guard let result = try optionalTable(key, body) else {
            throw error(key, "missing required table", kind: .missingKey)
        }
        return result
    }

    /// A subtable that may be absent: nil without calling `body` when it is.
    public func optionalTable<T>(_ key: String, _ body: (TableReader) throws -> T) throws -> T? {
        guard let (table, _) = try get(key, expected: "a table", { $0.tableValue }) else { return nil }
        return try table.read(body)
    }

    /// `[[key]]` (or an array of inline tables): calls `body` with each element's index
    /// and reader, in file order. An absent key yields an empty array.
    @discardableResult
    public func tableArray<T>(_ key: String, _ body: (Int, TableReader) throws -> T) throws -> [T] {
        guard let (items, _) = try get(key, expected: "an array of tables", { $0.arrayValue }) else { return [] }
        var results: [T] = []
        results.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            guard let table = item.tableValue else {
                throw fail(key, at: item.position, .typeMismatch,
                           "expected an array of tables, element \(i + 1) is \(item.summary)")
            }
            results.append(try table.read { try body(i, $0) })
        }
        return results
    }
}
