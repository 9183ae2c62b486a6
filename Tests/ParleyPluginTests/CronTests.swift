import Foundation
import ParleyCore
import Testing
import ParleyTestSupport
@testable import ParleyRuntime

/// `bot.cron`: when a schedule fires in a time zone, and the timers it makes.
@Suite struct CronTests {
    func next(_ spec: String, after t: Double, zone: String = "UTC") throws -> Double? {
        try CronSchedule(spec, timeZone: TimeZone(identifier: zone)!).next(after: t)
    }

    @Test func weekdaysLeapDaysAndHalfHourZones() throws {
        // Friday 2026-11-27 10:00 UTC: the next weekday 09:00 is Monday's.
        #expect(try next("0 9 * * mon-fri", after: 1_795_773_600) == 1_796_029_200)
        #expect(try next("0 0 29 2 *", after: 1_772_323_200) == 1_835_395_200, "29 February 2028")
        // India is UTC+5:30: 09:00 local is 03:30 UTC.
        #expect(try next("0 9 * * *", after: 1_795_746_600, zone: "Asia/Kolkata") == 1_795_750_200)
        // Every minute: the next whole minute, never the same one.
        #expect(try next("* * * * *", after: 1_795_773_600) == 1_795_773_660)
        #expect(try next("* * * * *", after: 1_795_773_601.5) == 1_795_773_660)
    }

    @Test func daylightSavingTime() throws {
        // Berlin skips 02:00–03:00 on 29 March 2026: a 02:30 schedule skips that day.
        #expect(try next("30 2 * * *", after: 1_774_663_200, zone: "Europe/Berlin") == 1_774_830_600)
        // On 25 October 2026 02:30 happens twice: it fires the first time only.
        let first = try next("30 2 * * *", after: 1_792_879_200, zone: "Europe/Berlin")
        #expect(first == 1_792_888_200)
        #expect(try next("30 2 * * *", after: first!, zone: "Europe/Berlin") == 1_792_978_200)
    }

    /// The harness's clock starts at 2026-01-01 00:00 UTC, a Thursday.
    @Test func cronTimersInThePluginHarness() async throws {
        let p = """
        bot.cron("0 9 * * mon-fri", function(ev) bot.send("lobby", "stand-up " .. tostring(ev.once)) end)
        bot.cron("*/30 * * * *", { name = "half-hourly", data = { n = 1 } })
        bot.on("timer", function(ev) bot.send("lobby", ev.name .. " " .. ev.data.n) end)
        """
        let script = [#"{"type":"advance","seconds":3600}"#,         // 00:30 and 01:00
                      #"{"type":"advance","seconds":28800}"#,        // to 09:00 Thursday
                      #"{"type":"advance","seconds":172800}"#]       // to Saturday 09:00: Friday's only
            .joined(separator: "\n")
        let actions = try await run(plugins: [("p", p)], script: script)
        let texts = actions.compactMap(\.sentText)
        #expect(texts.filter { $0.hasPrefix("stand-up") } == ["stand-up false", "stand-up false"])
        #expect(texts.filter { $0.hasPrefix("half-hourly") }.count == 2 + 16 + 96)
    }

    @Test func badSchedulesAreErrorsInThePlugin() async throws {
        for (code, says) in [(#"bot.cron("61 * * * *", function() end)"#, "minute field"),
                             (#"bot.cron(5, function() end)"#, "the schedule must be a string"),
                             (#"bot.cron("* * * * *")"#, "needs a name"),
                             (#"bot.cron("0 0 31 feb *", function() end)"#, "never fires")] {
            let actions = try await run(plugins: [("p", code)], script: "")
            #expect(errors(actions).contains { $0.contains(says) }, "\(code): \(errors(actions))")
        }
    }

    /// A schedule missed while the bot was down fires once, then keeps to its slots.
    @Test func aMissedScheduleFiresOnceAfterARestart() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let j = dir.appendingPathComponent("j").path
        let p = #"bot.cron("0 * * * *", function() bot.send("lobby", "hourly") end)"#
        let t0: Double = 1_795_773_600 - 600   // 09:50 UTC
        try await onLuaThread {
            let (_, first) = try withJournalBot(j, now: t0, plugins: [("p", p)]) { (bot, out) throws in
                out += try bot.advance(to: t0 + 600)
                #expect(bot.store.savedTimers(plugin: "p").first?.cron == "0 * * * *")
            }
            #expect(sent(first) == ["hourly"])
            // Down from 10:00 to 15:20: five slots missed, one firing.
            let (_, second) = try withJournalBot(j, now: t0 + 600 + 5 * 3600 + 1200, plugins: [("p", p)]) { (bot, out) throws in
                out += try bot.advance(to: bot.now)
                #expect(sent(out) == ["hourly"])
                #expect(sent(try bot.advance(to: t0 + 600 + 6 * 3600 - 1)).isEmpty)
                #expect(sent(try bot.advance(to: t0 + 600 + 6 * 3600)) == ["hourly"])
            }
            #expect(errors(second).isEmpty)
        }
    }

    /// `[bot] timezone` reaches the schedules.
    @Test func theBotsTimeZone() async throws {
        var o = BotOptions(name: "parley")
        o.timeZone = TimeZone(identifier: "Asia/Tokyo")!
        let p = #"bot.cron("0 9 * * *", function() bot.send("lobby", "ohayo") end)"#
        // 2026-01-01 00:00 UTC is 09:00 in Tokyo: the next 09:00 there is a day later.
        let script = [#"{"type":"advance","seconds":86399}"#, #"{"type":"advance","seconds":1}"#].joined(separator: "\n")
        let actions = try await run(plugins: [("p", p)], script: script, options: o)
        #expect(actions.compactMap(\.sentText) == ["ohayo"])
    }
}
