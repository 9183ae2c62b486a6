import ParleyCore
import ParleyStore
import ParleyRuntime
import ParleyLua
import Testing

/// `[bot.limits] outbox_sends`: what a plugin may have waiting for the
/// transport across events, so a plugin that sends forever is refused and
/// reported instead of growing the outbox without bound.
struct OutboxQuotaTests {
    private func bot(outbox: Int) throws -> Bot {
        var o = BotOptions(name: "parley")
        o.limits.outboxSends = outbox
        let bot = Bot(options: o, now: 1_000)
        _ = try bot.loadPlugin(name: "chatty", source: Array("""
        -- Ten sends per message, whatever happens.
        bot.on("message", function(msg)
          for i = 1, 10 do bot.send(msg.room, "reply " .. i) end
        end)
        """.utf8))
        _ = try bot.loadPlugin(name: "quiet", source: Array("""
        bot.command("ping", function(msg) msg:reply("pong") end)
        """.utf8))
        return bot
    }

    private func message(_ text: String) -> BotEvent {
        .message(ChatMessage(room: "lobby", user: "alice", text: text))
    }

    @Test func aPluginThatOutrunsTheTransportIsRefusedAndReportedAtItsOutboxBound() throws {
        let bot = try bot(outbox: 25)
        var sends: [BotAction] = []
        var reports: [String] = []
        for _ in 1...4 {
            for a in try bot.handle(message("hello")) {
                switch a.kind {
                case .send: if a.plugin == "chatty" { sends.append(a) }
                case .error(.quota, let why): reports.append(why)
                default: break
                }
            }
        }
        // 10 + 10 + 5, then nothing: the transport took none of them.
        #expect(sends.count == 25)
        #expect(reports.count == 2, "reported once per event that hit the bound")
        #expect(reports.allSatisfy { $0.contains("outbox full: 25 sends of this plugin are waiting") })

        // Another plugin's share is its own.
        let pong = try bot.handle(message("!ping")).filter { if case .send = $0.kind { $0.plugin == "quiet" } else { false } }
        #expect(pong.count == 1)

        // Once the transport takes them, the plugin may send again.
        try bot.markDelivered(Array(sends.prefix(12)))
        let again = try bot.handle(message("hello")).filter { if case .send = $0.kind { $0.plugin == "chatty" } else { false } }
        #expect(again.count == 10)
    }

    @Test func sendsStillWaitingFromTheLastRunCountAgainstTheBound() throws {
        let store = MemoryBotStore()
        var o = BotOptions(name: "parley")
        o.limits.outboxSends = 10
        let first = Bot(options: o, now: 1_000, store: store)
        _ = try first.loadPlugin(name: "chatty", source: Array("""
        bot.on("message", function(msg) for i = 1, 8 do bot.send(msg.room, "x" .. i) end end)
        """.utf8))
        _ = try first.handle(message("hello"))
        // A restart on the same store: the eight undelivered sends come back and still count.
        let second = Bot(options: o, now: 1_001, store: store)
        _ = try second.loadPlugin(name: "chatty", source: Array("""
        bot.on("message", function(msg) for i = 1, 8 do bot.send(msg.room, "y" .. i) end end)
        """.utf8))
        #expect(second.undeliveredSends().count == 8)
        let more = try second.handle(message("hello")).filter { if case .send = $0.kind { true } else { false } }
        #expect(more.count == 2)
    }
}
