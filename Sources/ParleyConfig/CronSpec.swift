/// A five-field cron schedule, parsed: `minute hour day-of-month month
/// day-of-week`, each field `*`, a number, a range `a-b`, a step `*/n` or
/// `a-b/n` or `a/n`, or a comma list of those; months `jan`–`dec` and days
/// `sun`–`sat` by name (any case), Sunday as 0 or 7. `@hourly`, `@daily`,
/// `@weekly`, `@monthly` and `@yearly` stand for their usual fields.
///
/// Matching follows Vixie cron: when both day fields are restricted, a day
/// matches if either does. When in time that is depends on a time zone, which
/// is the caller's (`CronSchedule` in the runtime); this type is only the
/// fields, so the fuzzer can reach the parser without Foundation.
public struct CronSpec: Sendable, Equatable {
    public let text: String
    /// Bit n set: value n matches.
    public let minutes: UInt64
    public let hours: UInt32
    public let days: UInt32
    public let months: UInt16
    /// Bit 0 is Sunday.
    public let weekdays: UInt8
    let daysRestricted: Bool
    let weekdaysRestricted: Bool

    public init(_ text: String) throws(CronError) {
        self.text = text
        var fields = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        if fields.count == 1, let alias = Self.aliases[fields[0].lowercased()] {
            fields = alias.split(separator: " ").map(String.init)
        }
        guard fields.count == 5 else {
            throw CronError("'\(text)' has \(fields.count) field\(fields.count == 1 ? "" : "s"); a schedule has 5: minute hour day-of-month month day-of-week")
        }
        minutes = try Self.field(fields[0], "minute", 0...59, names: [:])
        hours = UInt32(try Self.field(fields[1], "hour", 0...23, names: [:]))
        days = UInt32(try Self.field(fields[2], "day-of-month", 1...31, names: [:]))
        months = UInt16(try Self.field(fields[3], "month", 1...12, names: Self.monthNames))
        let dow = try Self.field(fields[4], "day-of-week", 0...7, names: Self.dayNames)
        // 7 is Sunday too.
        weekdays = UInt8((dow | (dow >> 7)) & 0x7F)
        daysRestricted = fields[2] != "*"
        weekdaysRestricted = fields[4] != "*"
        guard daysRestricted && weekdaysRestricted || possibleDay else {
            throw CronError("'\(text)' never fires: no month it allows has the day it names")
        }
    }

    public func monthMatches(_ month: Int) -> Bool { months & (1 << UInt16(month)) != 0 }
    public func hourMatches(_ hour: Int) -> Bool { hours & (1 << UInt32(hour)) != 0 }
    public func minuteMatches(_ minute: Int) -> Bool { minutes & (1 << UInt64(minute)) != 0 }

    /// `weekday` 0 is Sunday.
    public func dayMatches(day: Int, weekday: Int) -> Bool {
        let d = days & (1 << UInt32(day)) != 0
        let w = weekdays & (1 << UInt8(weekday)) != 0
        switch (daysRestricted, weekdaysRestricted) {
        case (true, true): return d || w
        case (true, false): return d
        case (false, true): return w
        case (false, false): return true
        }
    }

    /// Some allowed month has an allowed day of the month (29 February counts).
    private var possibleDay: Bool {
        let longest = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        return (1...12).contains { m in monthMatches(m) && (1...longest[m]).contains { days & (1 << UInt32($0)) != 0 } }
    }

    static let aliases = [
        "@hourly": "0 * * * *", "@daily": "0 0 * * *", "@midnight": "0 0 * * *",
        "@weekly": "0 0 * * 0", "@monthly": "0 0 1 * *", "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *",
    ]
    static let monthNames = Dictionary(uniqueKeysWithValues:
        ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"].enumerated().map { ($1, $0 + 1) })
    static let dayNames = Dictionary(uniqueKeysWithValues:
        ["sun", "mon", "tue", "wed", "thu", "fri", "sat"].enumerated().map { ($1, $0) })

    /// One field as a bit set of the values it allows.
    static func field(_ text: String, _ what: String, _ range: ClosedRange<Int>, names: [String: Int]) throws(CronError) -> UInt64 {
        func value(_ s: Substring) throws(CronError) -> Int {
            if let n = Int(s), range.contains(n) { return n }
            if let n = names[s.lowercased()] { return n }
            if Int(s) != nil { throw CronError("\(what) field '\(text)': \(s) is out of range \(range.lowerBound)-\(range.upperBound)") }
            throw CronError("\(what) field '\(text)': '\(s)' is not a number\(names.isEmpty ? "" : " or a name")")
        }
        var bits: UInt64 = 0
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard !item.isEmpty else { throw CronError("\(what) field '\(text)': an empty item") }
            let parts = item.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            var step = 1
            if parts.count == 2 {
                guard let s = Int(parts[1]), s >= 1, s <= range.upperBound else {
                    throw CronError("\(what) field '\(text)': the step '\(parts[1])' must be a number from 1 to \(range.upperBound)")
                }
                step = s
            }
            let base = parts[0]
            var low = range.lowerBound, high = range.upperBound
            if base != "*" {
                let bounds = base.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
                low = try value(bounds[0])
                // `a/n` runs from a to the end of the range.
                high = bounds.count == 2 ? try value(bounds[1]) : (parts.count == 2 ? range.upperBound : low)
                guard low <= high else { throw CronError("\(what) field '\(text)': the range \(base) runs backwards") }
            }
            for v in stride(from: low, through: high, by: step) { bits |= 1 << UInt64(v) }
        }
        return bits
    }
}

/// Why a cron schedule cannot be read; the message names the field.
public struct CronError: Error, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
