import Foundation
import ParleyCore
import ParleyStore
import ParleyRuntime
import Testing
import ParleyTestSupport

/// What the bot does with a transport's catch-up: replayed messages reach
/// plugins flagged `msg.replayed`, those whose server id the journal holds
/// are dropped, and a backfill fills history and the cursor without reaching
/// plugins. All of it survives a restart, since the cursors are the journal's.
@Suite struct CatchUpTests {
    static let t0: Double = 1_800_000_000
    static let tracer = #"bot.on("message", function(m) bot.send(m.room, m.text .. (m.replayed and " [replayed]" or "") .. " " .. m.id) end)"#

    @Test func replayedMessagesAreFlaggedAndDeduplicatedAgainstTheJournal() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let j = dir.appendingPathComponent("j").path
        let t0 = Self.t0
        let first = try await onLuaThread {
            try withJournalBot(j, now: t0, plugins: [("t", Self.tracer)]) { (bot, out) throws in
                out += try bot.handle(.message(ChatMessage(room: "acme/general", user: "amy", text: "a", id: "1", time: t0 - 3)))
                out += try bot.handle(.message(ChatMessage(room: "acme/general", user: "bob", text: "b", id: "2", time: t0 - 3)))
            }.1
        }
        #expect(sent(first) == ["a 1", "b 2"])
        // After a restart a catch-up from the millisecond of "2" hands back both ids of that millisecond, then a new one.
        let (cursors, second) = try await onLuaThread {
            try withJournalBot(j, now: t0, plugins: [("t", Self.tracer)]) { (bot, out) throws in
                let cursors = bot.store.lastSeenCursors()
                for (id, text) in [("1", "a"), ("2", "b"), ("3", "c")] {
                    out += try bot.handle(.message(ChatMessage(room: "acme/general", user: "amy", text: text, id: id,
                                                               time: t0 - (id == "3" ? 1 : 3), replayed: true)))
                }
                // A live message is never checked: it is delivered as it comes.
                out += try bot.handle(.message(ChatMessage(room: "acme/general", user: "amy", text: "d", id: "4", time: t0)))
                return cursors
            }
        }
        #expect(cursors == ["acme/general": RoomCursor(cursor: "2", time: t0 - 3)])
        #expect(sent(second) == ["c [replayed] 3", "d 4"])
    }

    @Test func aBackfillFillsHistoryAndTheCursorButNoPlugin() async throws {
        let t0 = Self.t0
        let bot = Bot(options: BotOptions(name: "parley"), now: t0)
        _ = try bot.loadPlugin(name: "t", source: Array(Self.tracer.utf8))
        let old = (1...5).map { ChatMessage(room: "r", user: "old", text: "old \($0)", id: "o\($0)", time: t0 - 100 + Double($0)) }
        try bot.backfill(room: "r", messages: old, through: RoomCursor(cursor: "o5", time: t0 - 95))
        #expect(bot.store.lastSeen(room: "r") == RoomCursor(cursor: "o5", time: t0 - 95))
        let page = try bot.store.page(room: "r", before: nil, after: nil, limit: 100)
        #expect(page.messages.map(\.text) == (1...5).map { "old \($0)" })
        // The same history again (a second backfill) adds nothing.
        try bot.backfill(room: "r", messages: old, through: RoomCursor(cursor: "o5", time: t0 - 95))
        #expect(try bot.store.page(room: "r", before: nil, after: nil, limit: 100).messages.count == 5)
        // An empty room still gets a cursor, at the start of time: the next connect catches up from there.
        try bot.backfill(room: "empty", messages: [], through: RoomCursor(cursor: "", time: 0))
        #expect(bot.store.lastSeen(room: "empty") == RoomCursor(cursor: "", time: 0))
        // A replayed copy of a backfilled message is not delivered.
        #expect(sent(try bot.handle(.message(ChatMessage(room: "r", user: "old", text: "old 5", id: "o5", time: t0 - 95, replayed: true)))) == [])
    }

    @Test func aJournalBackfillIsDurable() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let j = dir.appendingPathComponent("j").path
        let t0 = Self.t0
        try await onLuaThread {
            _ = try withJournalBot(j, now: t0, plugins: []) { (bot, _) throws in
                let old = (1...2500).map { ChatMessage(room: "r", user: "old", text: "old \($0)", id: "o\($0)", time: t0 - 10_000 + Double($0)) }
                try bot.backfill(room: "r", messages: old, through: RoomCursor(cursor: "o2500", time: t0 - 7500))
            }
            let store = try JournalStore.open(directory: j)
            defer { store.close() }
            #expect(store.messageCount(room: "r") == 2500)
            #expect(store.lastSeenCursors() == ["r": RoomCursor(cursor: "o2500", time: t0 - 7500)])
        }
    }
}
