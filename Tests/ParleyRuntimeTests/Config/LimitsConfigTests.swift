import Foundation
import ParleyRuntime
import Testing
import ParleyTestSupport

/// `[bot.limits]` and `[bot.plugin_limits.NAME]`: one plugin's limits start
/// from the bot's, and a table for a plugin the bot does not load is an error.
@Suite struct LimitsConfigTests {
    func parse(_ body: String) throws -> BotConfig {
        let dir = try temporaryDirectory()
        for name in ["greeter", "dice"] { try "".write(to: dir.appendingPathComponent("\(name).lua"), atomically: true, encoding: .utf8) }
        let plugins = "plugins = [\"\(dir.path)/greeter.lua\", \"\(dir.path)/dice.lua\"]\n"
        return try BotConfigFile.parse(text: "[[bot]]\nname = \"b\"\n" + plugins + body, path: "/tmp/limits-bot.toml").bots[0]
    }

    @Test func aPluginsLimitsStartFromTheBots() throws {
        let b = try parse("[bot.limits]\ntime_ms = 100\nmemory_kb = 1024\n[bot.plugin_limits.dice]\ntime_ms = 5\n")
        #expect(b.limits.timeMilliseconds == 100)
        #expect(b.pluginLimits["dice"]?.timeMilliseconds == 5)
        #expect(b.pluginLimits["dice"]?.memoryBytes == 1024 << 10)
        #expect(b.pluginLimits["greeter"] == nil)
    }

    @Test func limitsForAPluginTheBotDoesNotLoadAreAnError() {
        let typo = errorText { _ = try parse("[bot.plugin_limits.dise]\ntime_ms = 5\n") }
        #expect(typo.contains("limits-bot.toml:4") && typo.contains("dise") && typo.contains("not a plugin this bot loads (plugins: dice, greeter)"),
                "\(typo)")
    }
}
