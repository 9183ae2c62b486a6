import ParleyConfig
import Testing

/// The five-field cron syntax `bot.cron` takes.
@Suite struct CronSpecTests {
    func bits(_ values: [Int]) -> UInt64 { values.reduce(0) { $0 | 1 << UInt64($1) } }

    @Test func fieldsListsRangesStepsAndNames() throws {
        let s = try CronSpec("0,30 9-17/2 */10 jan,JUL-sep mon-fri")
        #expect(s.minutes == bits([0, 30]))
        #expect(UInt64(s.hours) == bits([9, 11, 13, 15, 17]))
        #expect(UInt64(s.days) == bits([1, 11, 21, 31]))
        #expect(UInt64(s.months) == bits([1, 7, 8, 9]))
        #expect(UInt64(s.weekdays) == bits([1, 2, 3, 4, 5]))
        #expect(try CronSpec("5/20 * * * *").minutes == bits([5, 25, 45]))
        #expect(try CronSpec("* * * * 7").weekdays == 1, "7 is Sunday")
        #expect(try CronSpec("* * * * 0-7").weekdays == 0x7F)
        #expect(try CronSpec("  1\t2 3 4 5 ").minutes == bits([1]))
    }

    @Test func aliases() throws {
        let daily = try CronSpec("@daily"), fields = try CronSpec("0 0 * * *")
        #expect(daily.minutes == fields.minutes && daily.hours == fields.hours && daily.days == fields.days
                && daily.months == fields.months && daily.weekdays == fields.weekdays)
        #expect(try CronSpec("@HOURLY").minutes == 1)
    }

    /// Vixie cron: with both day fields restricted, either one matching is enough.
    @Test func dayOfMonthOrDayOfWeek() throws {
        let both = try CronSpec("0 0 13 * fri")
        #expect(both.dayMatches(day: 13, weekday: 2) && both.dayMatches(day: 6, weekday: 5))
        #expect(!both.dayMatches(day: 6, weekday: 4))
        let onlyDay = try CronSpec("0 0 13 * *")
        #expect(onlyDay.dayMatches(day: 13, weekday: 3) && !onlyDay.dayMatches(day: 12, weekday: 5))
        let onlyWeek = try CronSpec("0 0 * * fri")
        #expect(onlyWeek.dayMatches(day: 1, weekday: 5) && !onlyWeek.dayMatches(day: 13, weekday: 4))
    }

    @Test func mistakesNameTheField() {
        for (spec, says) in [("* * * *", "has 4 fields"), ("60 * * * *", "minute field '60': 60 is out of range 0-59"),
                             ("* 24 * * *", "hour field"), ("* * 0 * *", "day-of-month field"),
                             ("* * * 13 *", "month field"), ("* * * * 8", "day-of-week field"),
                             ("* * * foo *", "'foo' is not a number or a name"), ("*/0 * * * *", "the step '0'"),
                             ("5-1 * * * *", "runs backwards"), ("1,,2 * * * *", "an empty item"),
                             ("0 0 30 feb *", "never fires"), ("0 0 31 apr,jun *", "never fires"), ("", "has 0 fields")] {
            #expect(throws: CronError.self) { try CronSpec(spec) }
            do { _ = try CronSpec(spec) } catch { #expect(error.message.contains(says), "\(spec): \(error.message)") }
        }
        // 29 February exists in some years; 30 February with a weekday may still fire on that weekday.
        #expect((try? CronSpec("0 0 29 2 *")) != nil)
        #expect((try? CronSpec("0 0 30 2 mon")) != nil)
    }
}
