import Foundation
import ParleyCore
import ParleyRuntime
import Testing
import ParleyTestSupport

/// `bot.history` in a REST room pages through the journal, which the
/// backfill and catch-up keep complete: a channel with 10,000 messages is
/// paged back to its first message, none missing, none twice, in order.
@Suite(.timeLimit(.minutes(4)))
struct RESTHistoryTests {
    /// `!pageall` walks the history back page by page (100 per page, the
    /// most `bot.history` gives) and reports what it found.
    static let pager = """
    bot.command("pageall", function(msg)
      local pages, n, expect, ok = 0, 0, 10000, true
      local page = bot.history(msg.room, {limit = 100})
      while page do
        pages = pages + 1
        for i = #page.messages, 1, -1 do
          local m = page.messages[i]
          local k = tonumber(m.text:match("^old (%d+)$"))
          if k then
            n = n + 1
            if k ~= expect then ok = false end
            expect = expect - 1
          end
        end
        page = page.before and bot.history(msg.room, {limit = 100, before = page.before})
      end
      msg:reply("paged " .. n .. " in " .. pages .. " pages, in order: " .. tostring(ok and expect == 0))
    end)
    """

    @Test func tenThousandMessagesArePagedBackCompletely() async throws {
        let server = try await RESTServer.start(channels: ["acme/archive"])
        try await server.control("seed", ["room": "acme/archive", "count": 10_000, "user": "archivist", "prefix": "old"])
        let rec = Recorder()
        let transport = server.transport(rooms: ["acme/archive"]) { $0.backfill = 10_000 }
        var spec = try botSpec(name: "parley", port: 0, plugins: [("pager", Self.pager)], journal: try temporaryDirectory().path,
                               transport: transport)
        // One handler reads 10,000 messages: more than the default per-event budget allows.
        spec.options.limits.timeMilliseconds = 20_000
        spec.options.limits.instructions = 500_000_000
        // A loop of its own: this handler runs for seconds, and the shared
        // loops serve every other test's bots meanwhile.
        let bot = BotRunner(spec: spec, observer: rec.observer, loops: BotLoops(count: 1, name: "parley-history"))
        let run = Task { await bot.run() }
        #expect(await eventually(60) { await bot.state == .online })
        // Online comes first; the backfill is the session's first event.
        #expect(await eventually(60) { rec.logs(containing: "backfilled 10000 messages of acme/archive").count == 1 },
                "\(rec.logs.map(\.text))")

        try await server.post("alice", "!pageall", room: "acme/archive")
        // 10,000 old messages plus `!pageall` itself: 101 pages of at most 100.
        #expect(await eventually(60) {
            (try? await server.texts(from: "parley", room: "acme/archive")) == ["paged 10000 in 101 pages, in order: true"]
        }, "\(rec.logs.suffix(5).map(\.text))")
        await bot.stop()
        _ = await run.value
        await server.stop()
    }
}
