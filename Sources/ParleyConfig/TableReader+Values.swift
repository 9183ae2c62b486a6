#if canImport(Glibc)
import Glibc
#endif
/// Typed accessors for scalar values and arrays of scalars.
///
/// Each comes in three shapes: required (`string("k")` throws when absent), with a
/// default (`string("k", default: "x")`), and optional (`optionalString("k")`).
/// A present value of the wrong type is always an error, even when a default exists:
/// a default is for "not configured", not for "configured wrongly".
extension TableReader {
    // MARK: Strings

    public func optionalString(_ key: String) throws(ConfigError) -> String? {
        try get(key, expected: "a string") { $0.stringValue }?.0
    }

    /// A secret: `key`, or the environment variable `key_env` names (not
    /// both), so a config file can be shared without its passwords.
    public func secret(_ key: String) throws(ConfigError) -> String? {
        let env = key + "_env"
        if contains(key), contains(env) { throw error(env, "set \(key) or \(env), not both") }
        guard let name = try optionalString(env) else { return try optionalString(key) }
        guard let value = getenv(name).map({ String(cString: $0) }) else {
            throw error(env, "the environment variable \(name) is not set")
        }
        if value.isEmpty { throw error(env, "the environment variable \(name) is empty") }
        return value
    }

    public func string(_ key: String) throws(ConfigError) -> String {
        try required(key, optionalString(key))
    }

    public func string(_ key: String, default defaultValue: String) throws(ConfigError) -> String {
        try optionalString(key) ?? defaultValue
    }

    // MARK: Integers

    public func optionalInt(_ key: String) throws(ConfigError) -> Int? {
        try get(key, expected: "an integer") { $0.integerValue.flatMap { Int(exactly: $0) } }?.0
    }

    public func optionalInt(_ key: String, range: some RangeExpression<Int>) throws(ConfigError) -> Int? {
        guard let (value, entry) = try get(key, expected: "an integer", { $0.integerValue.flatMap { Int(exactly: $0) } }) else {
            return nil
        }
        try check(value, in: range, key, entry)
        return value
    }

    public func int(_ key: String) throws(ConfigError) -> Int {
        try required(key, optionalInt(key))
    }

    public func int(_ key: String, range: some RangeExpression<Int>) throws(ConfigError) -> Int {
        try required(key, optionalInt(key, range: range))
    }

    public func int(_ key: String, default defaultValue: Int) throws(ConfigError) -> Int {
        try optionalInt(key) ?? defaultValue
    }

    /// The range applies to configured values only; the default is trusted.
    public func int(_ key: String, default defaultValue: Int, range: some RangeExpression<Int>) throws(ConfigError) -> Int {
        try optionalInt(key, range: range) ?? defaultValue
    }

    // MARK: Floating point (integers accepted: `interval = 2` means 2.0)

    public func optionalDouble(_ key: String) throws(ConfigError) -> Double? {
        try get(key, expected: "a number", Self.number)?.0
    }

    public func optionalDouble(_ key: String, range: some RangeExpression<Double>) throws(ConfigError) -> Double? {
        guard let (value, entry) = try get(key, expected: "a number", Self.number) else { return nil }
        try check(value, in: range, key, entry)
        return value
    }

    public func double(_ key: String) throws(ConfigError) -> Double {
        try required(key, optionalDouble(key))
    }

    public func double(_ key: String, range: some RangeExpression<Double>) throws(ConfigError) -> Double {
        try required(key, optionalDouble(key, range: range))
    }

    public func double(_ key: String, default defaultValue: Double) throws(ConfigError) -> Double {
        try optionalDouble(key) ?? defaultValue
    }

    public func double(_ key: String, default defaultValue: Double, range: some RangeExpression<Double>) throws(ConfigError) -> Double {
        try optionalDouble(key, range: range) ?? defaultValue
    }

    private static func number(_ node: TOMLNode) -> Double? {
        switch node.kind {
        case .float(let v): v
        case .integer(let v): Double(v)
        default: nil
        }
    }

    // MARK: Booleans

    public func optionalBool(_ key: String) throws(ConfigError) -> Bool? {
        try get(key, expected: "a boolean") { $0.boolValue }?.0
    }

    public func bool(_ key: String) throws(ConfigError) -> Bool {
        try required(key, optionalBool(key))
    }

    public func bool(_ key: String, default defaultValue: Bool) throws(ConfigError) -> Bool {
        try optionalBool(key) ?? defaultValue
    }

    // MARK: Dates and times

    public func optionalDatetime(_ key: String) throws(ConfigError) -> TOMLDateTime? {
        try get(key, expected: "a date or time") { $0.datetimeValue }?.0
    }

    public func datetime(_ key: String) throws(ConfigError) -> TOMLDateTime {
        try required(key, optionalDatetime(key))
    }

    // MARK: Choices

    public func optionalOneOf(_ key: String, _ choices: [String]) throws(ConfigError) -> String? {
        let list = choices.joined(separator: ", ")
        guard let (value, entry) = try get(key, expected: "one of \(list)", { $0.stringValue }) else { return nil }
        guard choices.contains(value) else {
            throw fail(key, at: entry.value.position, .invalidValue,
                       "expected one of \(list), got \(entry.value.summary)")
        }
        return value
    }

    public func oneOf(_ key: String, _ choices: [String]) throws(ConfigError) -> String {
        try required(key, optionalOneOf(key, choices))
    }

    public func oneOf(_ key: String, _ choices: [String], default defaultValue: String) throws(ConfigError) -> String {
        try optionalOneOf(key, choices) ?? defaultValue
    }

    /// A string-backed enum, choices in declaration order: `try t.oneOf("fsync", as: Fsync.self)`.
    public func oneOf<E: CaseIterable & RawRepresentable>(_ key: String, as type: E.Type) throws(ConfigError) -> E
    where E.RawValue == String {
        let raw = try oneOf(key, E.allCases.map(\.rawValue))
        return try required(key, E(rawValue: raw))
    }

    public func oneOf<E: CaseIterable & RawRepresentable>(_ key: String, default defaultValue: E) throws(ConfigError) -> E
    where E.RawValue == String {
        guard let raw = try optionalOneOf(key, E.allCases.map(\.rawValue)) else { return defaultValue }
        return try required(key, E(rawValue: raw))
    }

    // MARK: Arrays of scalars

    public func optionalStringArray(_ key: String) throws(ConfigError) -> [String]? {
        try array(key, of: "strings") { $0.stringValue }
    }

    public func stringArray(_ key: String) throws(ConfigError) -> [String] {
        try required(key, optionalStringArray(key))
    }

    public func stringArray(_ key: String, default defaultValue: [String]) throws(ConfigError) -> [String] {
        try optionalStringArray(key) ?? defaultValue
    }

    public func optionalIntArray(_ key: String) throws(ConfigError) -> [Int]? {
        try array(key, of: "integers") { $0.integerValue.flatMap { Int(exactly: $0) } }
    }

    public func intArray(_ key: String) throws(ConfigError) -> [Int] {
        try required(key, optionalIntArray(key))
    }

    public func intArray(_ key: String, default defaultValue: [Int]) throws(ConfigError) -> [Int] {
        try optionalIntArray(key) ?? defaultValue
    }

    /// An array whose elements all convert; a bad element is reported at its own line.
    private func array<T>(_ key: String, of noun: String, _ convert: (TOMLNode) -> T?) throws(ConfigError) -> [T]? {
        guard let (items, _) = try get(key, expected: "an array of \(noun)", { $0.arrayValue }) else { return nil }
        var out: [T] = []
        out.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            guard let value = convert(item) else {
                throw fail(key, at: item.position, .typeMismatch,
                           "expected an array of \(noun), element \(i + 1) is \(item.summary)")
            }
            out.append(value)
        }
        return out
    }

    // MARK: Ranges

    private func check<B: Comparable>(_ value: B, in range: some RangeExpression<B>, _ key: String, _ entry: TOMLTable.Entry) throws(ConfigError) {
        guard range.contains(value) else {
            throw fail(key, at: entry.value.position, .outOfRange,
                       "\(value) is out of range (allowed: \(describe(range)))")
        }
    }
}

/// `1...10`, `>= 1`, `< 10`: how a range reads in a message.
func describe<B: Comparable>(_ range: some RangeExpression<B>) -> String {
    switch range {
    case let r as ClosedRange<B>: "\(r.lowerBound)...\(r.upperBound)"
    case let r as Range<B>: "\(r.lowerBound)..<\(r.upperBound)"
    case let r as PartialRangeFrom<B>: ">= \(r.lowerBound)"
    case let r as PartialRangeThrough<B>: "<= \(r.upperBound)"
    case let r as PartialRangeUpTo<B>: "< \(r.upperBound)"
    default: "\(range)"
    }
}
