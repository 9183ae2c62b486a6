import Foundation
import ParleyConfig

/// A cron spec in a time zone (`[bot] timezone`): when `bot.cron` fires next.
///
/// The fields match local wall-clock time. On a day the clocks go forward, a
/// time that does not exist is skipped; on a day they go back, a time that
/// happens twice fires once (the first time).
struct CronSchedule: Sendable, Equatable {
    let spec: CronSpec
    let timeZone: TimeZone

    init(_ text: String, timeZone: TimeZone) throws(CronError) {
        spec = try CronSpec(text)
        self.timeZone = timeZone
    }

    /// The first matching minute after `time` (seconds since 1970), whose
    /// local time is also later than `time`'s; nil only if none comes within
    /// the search bound (a valid spec always fires within eight years).
    func next(after time: Double) -> Double? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let units: Set<Calendar.Component> = [.year, .month, .day, .hour, .minute, .weekday]
        let previous = calendar.dateComponents(units, from: Date(timeIntervalSince1970: time))
        let previousWall = Self.wall(previous)
        var t = (time / 60).rounded(.down) * 60 + 60
        // Each step skips a month, a day, an hour or a minute: a few thousand at most.
        for _ in 0..<20_000 {
            let date = Date(timeIntervalSince1970: t)
            let c = calendar.dateComponents(units, from: date)
            guard let month = c.month, let day = c.day, let hour = c.hour, let minute = c.minute, let weekday = c.weekday else { return nil }
            if !spec.monthMatches(month) {
                guard let start = calendar.date(from: DateComponents(year: c.year, month: month + 1, day: 1)) else { return nil }
                t = start.timeIntervalSince1970
            } else if !spec.dayMatches(day: day, weekday: weekday - 1) {
                guard let start = calendar.date(byAdding: .day, value: 1, to: calendar.startOfDay(for: date)) else { return nil }
                t = start.timeIntervalSince1970
            } else if !spec.hourMatches(hour) {
                // To the start of the next local hour (zones may be offset by half hours).
                t = t - Double(minute * 60) + 3600
            } else if !spec.minuteMatches(minute) || Self.wall(c) <= previousWall {
                t += 60
            } else {
                return t
            }
        }
        return nil
    }

    /// Local wall-clock time as one comparable number.
    private static func wall(_ c: DateComponents) -> Int {
        ((((c.year ?? 0) * 13 + (c.month ?? 0)) * 32 + (c.day ?? 0)) * 24 + (c.hour ?? 0)) * 60 + (c.minute ?? 0)
    }
}
