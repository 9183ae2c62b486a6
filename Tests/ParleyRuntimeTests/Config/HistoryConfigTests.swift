import ParleyCore
import ParleyStore
import ParleyJournal
import ParleyRuntime
import Testing

/// `history_days` and `history_max`: how much each room's history keeps.
struct HistoryConfigTests {
    @Test func historyRetentionIsConfigurable() throws {
        let config = try BotConfigFile.parse(text: """
        [[bot]]
        name = "b"
        history_days = 7
        history_max = 500
        [[bot]]
        name = "c"
        """, path: "/tmp/bot.toml")
        #expect(config.bots[0].history == HistoryRetention(maxMessagesPerRoom: 500, maxAge: 7 * 86_400))
        #expect(config.bots[0].botOptions.history == config.bots[0].history)
        #expect(config.bots[1].history == HistoryRetention())
        do {
            _ = try BotConfigFile.parse(text: "[[bot]]\nname = \"b\"\nhistory_max = 0\n", path: "/tmp/bot.toml")
            Issue.record("history_max = 0 must be an error")
        } catch {
            #expect("\(error)".contains("history_max"))
        }
        do {
            _ = try BotConfigFile.parse(text: "[[bot]]\nname = \"b\"\nhistory_dayz = 3\n", path: "/tmp/bot.toml")
            Issue.record("an unknown key must be an error")
        } catch {
            #expect("\(error)".contains("history_dayz"))
        }
    }
}
