/// A TOML date, time or date-time, kept with its original text.
///
/// Why not `Date`: TOML has four distinct kinds (three of them without a time zone),
/// and Foundation's `Date` can represent only instants. Keeping the text lets callers
/// hand it on unchanged; the parsed fields are there for those who need them.
public struct TOMLDateTime: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// `1979-05-27T07:32:00Z`, `1979-05-27 00:32:00-07:00`
        case offsetDateTime
        /// `1979-05-27T07:32:00`
        case localDateTime
        /// `1979-05-27`
        case localDate
        /// `07:32:00.999`
        case localTime

        public var typeName: String {
            switch self {
            case .offsetDateTime: "offset date-time"
            case .localDateTime: "local date-time"
            case .localDate: "local date"
            case .localTime: "local time"
            }
        }
    }

    public let kind: Kind
    /// Exactly as written in the file.
    public let text: String
    public let year: Int?
    public let month: Int?
    public let day: Int?
    public let hour: Int?
    public let minute: Int?
    public let second: Int?
    /// Fractional seconds as nanoseconds; digits beyond nine are truncated.
    public let nanosecond: Int?
    /// Offset from UTC in minutes (`Z` is 0); nil unless `kind == .offsetDateTime`.
    public let offsetMinutes: Int?

    public var description: String { text }

    /// Parses and validates (month and day ranges, leap years, hour/minute/second ranges).
    /// Returns nil when `text` is not one of TOML's four date/time forms.
    public init?(parsing text: String) {
        var cursor = DigitCursor(bytes: Array(text.utf8))
        let bytes = cursor.bytes
        var date: (Int, Int, Int)?
        var time: (Int, Int, Int, Int?)?
        var offset: Int?

        if bytes.count >= 5, bytes[4] == UInt8(ascii: "-") {
            guard let y = cursor.digits(4), cursor.take("-"), let m = cursor.digits(2),
                  cursor.take("-"), let d = cursor.digits(2),
                  (1...12).contains(m), d >= 1, d <= Self.daysIn(month: m, year: y)
            else { return nil }
            date = (y, m, d)
            if !cursor.atEnd {
                guard cursor.take("T") || cursor.take("t") || cursor.take(" "),
                      let t = cursor.time() else { return nil }
                time = t
                if !cursor.atEnd {
                    if cursor.take("Z") || cursor.take("z") {
                        offset = 0
                    } else {
                        let negative = cursor.peek == UInt8(ascii: "-")
                        guard cursor.take("+") || cursor.take("-"), let oh = cursor.digits(2),
                              cursor.take(":"), let om = cursor.digits(2), oh < 24, om < 60
                        else { return nil }
                        offset = (oh * 60 + om) * (negative ? -1 : 1)
                    }
                }
            }
        } else {
            guard let t = cursor.time() else { return nil }
            time = t
        }
        guard cursor.atEnd else { return nil }

        self.text = text
        self.year = date?.0
        self.month = date?.1
        self.day = date?.2
        self.hour = time?.0
        self.minute = time?.1
        self.second = time?.2
        self.nanosecond = time.map { $0.3 ?? 0 }
        self.offsetMinutes = offset
        switch (date != nil, time != nil, offset != nil) {
        case (true, true, true): kind = .offsetDateTime
        case (true, true, false): kind = .localDateTime
        case (true, false, _): kind = .localDate
        default: kind = .localTime
        }
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2:
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
            return leap ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

/// A tiny cursor for the fixed-width fields of RFC 3339.
private struct DigitCursor {
    let bytes: [UInt8]
    var i = 0

    var atEnd: Bool { i >= bytes.count }
    var peek: UInt8? { i < bytes.count ? bytes[i] : nil }

    mutating func take(_ c: Unicode.Scalar) -> Bool {
        guard let b = peek, b == UInt8(ascii: c) else { return false }
        i += 1
        return true
    }

    /// Exactly `n` ASCII digits.
    mutating func digits(_ n: Int) -> Int? {
        guard i + n <= bytes.count else { return nil }
        var value = 0
        for k in 0..<n {
            let b = bytes[i + k]
            guard b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(b - UInt8(ascii: "0"))
        }
        i += n
        return value
    }

    /// `HH:MM:SS[.fraction]`; second 60 is accepted because RFC 3339 allows leap seconds.
    mutating func time() -> (Int, Int, Int, Int?)? {
        guard let h = digits(2), take(":"), let m = digits(2), take(":"), let s = digits(2),
              h < 24, m < 60, s <= 60 else { return nil }
        var nanos: Int?
        if take(".") {
            var value = 0
            var count = 0
            while let b = peek, b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") {
                if count < 9 { value = value * 10 + Int(b - UInt8(ascii: "0")) }
                count += 1
                i += 1
            }
            guard count > 0 else { return nil }
            for _ in min(count, 9)..<9 { value *= 10 }
            nanos = value
        }
        return (h, m, s, nanos)
    }
}
