import ParleyConfig

extension FuzzTarget {
    /// `bot.cron` schedules: untrusted plugin code hands them to the host.
    static let cron = FuzzTarget(name: "cron", summary: "the bot.cron schedule parser") { data in
        guard let spec = try? CronSpec(String(decoding: data, as: UTF8.self)) else { return }
        // What parses has a value in every field, and none outside its range.
        FuzzCheck.require(spec.minutes != 0 && spec.minutes >> 60 == 0, "cron", "minutes out of range")
        FuzzCheck.require(spec.hours != 0 && spec.hours >> 24 == 0, "cron", "hours out of range")
        FuzzCheck.require(spec.days & 1 == 0 && spec.days != 0, "cron", "days out of range")
        FuzzCheck.require(spec.months & 1 == 0 && spec.months != 0 && spec.months >> 13 == 0, "cron", "months out of range")
        FuzzCheck.require(spec.weekdays != 0 && spec.weekdays >> 7 == 0, "cron", "weekdays out of range")
    }
}
