import ParleyCore
import ParleyNet
import ParleyREST
import ParleyRuntime
import ParleySTOMP
import ParleySocketIO
import ParleyStreamChat
import Testing
import ParleyTestSupport

/// `[bot.flow]` and `[bot.limits] outbox_sends`: defaults, every key read, mistakes named.
@Suite struct FlowConfigTests {
    func parse(_ body: String) throws -> BotConfig {
        try BotConfigFile.parse(text: "[[bot]]\nname = \"b\"\n" + body, path: "/tmp/flow-bot.toml").bots[0]
    }

    func error(_ body: String) -> String { errorText { _ = try parse(body) } }

    @Test func defaultsBoundTheQueueAndCapTheRate() throws {
        let b = try parse("")
        #expect(b.flow == FlowOptions())
        #expect(b.flow.roomQueue == 1000 && b.flow.sendRate == 10 && b.flow.sendBurst == 20)
        #expect(b.limits.outboxSends == 1000)
    }

    @Test func everyKeyIsRead() throws {
        let b = try parse("[bot.flow]\nroom_queue = 50\nsend_rate = 2.5\nsend_burst = 3\n[bot.limits]\noutbox_sends = 7\n")
        #expect(b.flow.roomQueue == 50 && b.flow.sendRate == 2.5 && b.flow.sendBurst == 3)
        #expect(b.limits.outboxSends == 7)
        #expect(try parse("[bot.flow]\nsend_rate = 0\n").flow.sendRate == 0, "0 turns the cap off")
    }

    @Test func mistakesNameTheKey() {
        #expect(error("[bot.flow]\nroom_queue = 0\n").contains("room_queue"))
        #expect(error("[bot.flow]\nsend_rate = -1\n").contains("send_rate"))
        #expect(error("[bot.flow]\nsend_burst = 0\n").contains("send_burst"))
        #expect(error("[bot.flow]\nsend_rat = 5\n").contains("send_rat"))
        #expect(error("[bot.limits]\noutbox_sends = 0\n").contains("outbox_sends"))
    }

    /// A first backoff above the cap would never apply: said at the cap's line.
    @Test func aBackoffThatStartsAboveItsCapIsRefused() throws {
        let e = error("[bot.presence]\nbackoff_initial = 60\nbackoff_max = 1\n")
        #expect(e.contains("flow-bot.toml:5") && e.contains("backoff_initial (60 s) is more than backoff_max (1 s)"), "\(e)")
        #expect(error("[bot.presence]\nbackoff_initial = 60\n").contains("backoff_max (30 s)"))
        #expect(try parse("[bot.presence]\nbackoff_initial = 5\nbackoff_max = 5\n").presence.backoffMax == 5)
    }
}
