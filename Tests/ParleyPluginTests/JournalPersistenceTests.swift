import Foundation
import ParleyCore
import ParleyStore
import ParleyRuntime
import ParleyJournal
import ParleyLua
import Synchronization
import Testing
import ParleyTestSupport

/// Runs `body` on the tests' big-stack Lua thread: bots and journal stores
/// block their thread, so they never run on the cooperative pool.
actor OnLuaThread {
    nonisolated var unownedExecutor: UnownedSerialExecutor { testExecutor.asUnownedSerialExecutor() }
    func run<T: Sendable>(_ body: @Sendable () throws -> T) throws -> T { try body() }
}

func onLuaThread<T: Sendable>(_ body: @Sendable () throws -> T) async throws -> T {
    try await OnLuaThread().run(body)
}

/// One run of a bot on a journal: open, load, act, close (like a process lifetime).
func withJournalBot<T>(_ dir: String, now: Double, plugins: [(String, String)], fsync: FsyncPolicy = .always,
                       options: BotOptions = BotOptions(name: "parley"),
                       _ body: (Bot, inout [BotAction]) throws -> T) throws -> (T, [BotAction]) {
    let store = try JournalStore.open(directory: dir, fsync: fsync)
    defer { store.close() }
    let bot = Bot(options: options, now: now, store: store)
    var out: [BotAction] = []
    for (name, source) in plugins { out += try bot.loadPlugin(name: name, source: Array(source.utf8)) }
    let result = try body(bot, &out)
    return (result, out)
}

func sent(_ a: [BotAction]) -> [String] { a.compactMap(\.sentText) }
func errors(_ a: [BotAction]) -> [String] { a.compactMap { if case .error(_, let m) = $0.kind { m } else { nil } } }

func directorySize(_ path: String) -> Int {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
    return names.reduce(0) { total, n in
        let size = (try? FileManager.default.attributesOfItem(atPath: path + "/" + n))?[.size] as? Int
        return total + (size ?? 0)
    }
}

/// Timers, last-seen cursors, retention and automatic compaction on a journal.
@Suite(.serialized) struct JournalPersistenceTests {
    static let t0: Double = 1_800_000_000

    /// A load-time `bot.every`, named reminders made by a handler (delivered
    /// as `timer` events), and cancelling by name.
    static let reminders = """
    bot.every(60, function(ev) bot.send("lobby", "tick") end)
    bot.command("remind", function(m, args)
      assert(bot.after(tonumber(args[1]), { name = "remind:" .. args[2], data = { room = m.room, text = args[2] } }))
    end)
    bot.command("cancel", function(m, args) m:reply(tostring(bot.cancel("remind:" .. args[1]))) end)
    bot.on("timer", function(ev) bot.send(ev.data.room, "reminder " .. ev.data.text .. " " .. ev.name) end)
    """

    @Test func timersSurviveARestartAndOverdueOnesFireOnce() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let j = dir.appendingPathComponent("j").path
        let t0 = Self.t0
        try await onLuaThread {
            let (_, first) = try withJournalBot(j, now: t0, plugins: [("r", Self.reminders)]) { (bot, out) throws in
                for text in ["!remind 100 a", "!remind 200 b", "!remind 300 c", "!cancel c", "!cancel zz"] {
                    out += try bot.handle(.message(ChatMessage(room: "lobby", user: "amy", text: text)))
                }
                out += try bot.advance(to: t0 + 30)
                #expect(bot.store.savedTimers(plugin: "r").map(\.name) == ["#1", "remind:a", "remind:b"])
            }
            #expect(sent(first) == ["true", "false"])

            // Down for 1000 s: the every timer missed 16 periods, both reminders are overdue.
            let (_, second) = try withJournalBot(j, now: t0 + 1000, plugins: [("r", Self.reminders)]) { (bot, out) throws in
                out += try bot.advance(to: t0 + 1000)
                #expect(sent(out) == ["tick", "reminder a remind:a", "reminder b remind:b"], "each overdue timer fires once")
                // The every timer keeps its phase, t0 + 60 + k·60, but not the slot
                // at 1020: under half a period after the late firing, it would read as a double.
                #expect(sent(try bot.advance(to: t0 + 1079)).isEmpty)
                #expect(sent(try bot.advance(to: t0 + 1080)) == ["tick"])
                #expect(bot.store.savedTimers(plugin: "r").map(\.name) == ["#1"])
                #expect(bot.store.savedTimers(plugin: "r").first?.due == t0 + 1140)
            }
            #expect(errors(second).isEmpty)

            // A clean restart in time: nothing is overdue, nothing fires twice.
            _ = try withJournalBot(j, now: t0 + 1090, plugins: [("r", Self.reminders)]) { (bot, out) throws in
                #expect(sent(try bot.advance(to: t0 + 1139)).isEmpty)
                #expect(sent(try bot.advance(to: t0 + 1140)) == ["tick"])
            }
        }
    }

    @Test func aFailedHandlersTimersAreNotSavedAndCancelsStayCancelled() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let j = dir.appendingPathComponent("j").path
        let t0 = Self.t0
        let plugin = """
        bot.command("boom", function(m) bot.after(10, { name = "lost" }); bot.state.set("x", 1); error("no") end)
        bot.command("keep", function(m) bot.after(10, { name = "kept", data = 7 }) end)
        bot.command("drop", function(m)
          local id = bot.every(5, function() bot.send("lobby", "dropped fired") end, { name = "dropped" })
          bot.after(1, function() bot.cancel(id) end)
        end)
        bot.command("self", function(m)
          bot.after(3, function() bot.send("lobby", "once"); error("handler fails after the firing") end, { name = "once" })
        end)
        bot.on("timer", function(ev) bot.send("lobby", "event " .. ev.name .. " " .. tostring(ev.data)) end)
        """
        try await onLuaThread {
            _ = try withJournalBot(j, now: t0, plugins: [("p", plugin)]) { (bot, out) throws in
                for text in ["!boom", "!keep", "!drop", "!self"] {
                    out += try bot.handle(.message(ChatMessage(room: "lobby", user: "amy", text: text)))
                }
                #expect(Set(bot.store.savedTimers(plugin: "p").map(\.name)) == ["kept", "dropped", "once"])
                out += try bot.advance(to: t0 + 4)   // the cancel at +1, the failing once timer at +3
                #expect(sent(out).isEmpty)
                #expect(bot.store.savedTimers(plugin: "p").map(\.name) == ["kept"])
                #expect(bot.store.value(plugin: "p", key: "x") == nil)
            }
            let (_, later) = try withJournalBot(j, now: t0 + 100, plugins: [("p", plugin)]) { (bot, out) throws in
                out += try bot.advance(to: t0 + 200)
            }
            // Only the saved one comes back, as an event with its data.
            #expect(sent(later) == ["event kept 7"])
        }
    }

    /// Load-time timers re-attach by their order; one the code no longer
    /// makes is dropped, one whose interval changed starts afresh.
    @Test func loadTimeTimersReattachByOrder() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let j = dir.appendingPathComponent("j").path
        let t0 = Self.t0
        let v1 = """
        bot.every(100, function() bot.send("lobby", "a") end)
        bot.on("load", function() bot.after(50, function() bot.send("lobby", "b") end) end)
        """
        let v2 = """
        bot.every(30, function() bot.send("lobby", "a2") end)
        """
        try await onLuaThread {
            _ = try withJournalBot(j, now: t0, plugins: [("p", v1)]) { (bot, out) throws in
                #expect(bot.store.savedTimers(plugin: "p").map(\.name) == ["#2", "#1"])
                out += try bot.advance(to: t0 + 10)
            }
            // Same code, restarted at +20: both keep their due times (+50, +100).
            _ = try withJournalBot(j, now: t0 + 20, plugins: [("p", v1)]) { (bot, out) throws in
                #expect(sent(try bot.advance(to: t0 + 49)).isEmpty)
                #expect(sent(try bot.advance(to: t0 + 50)) == ["b"])
                #expect(sent(try bot.advance(to: t0 + 100)) == ["a"])
            }
            // The once timer fired, so the next start creates it again (from now).
            _ = try withJournalBot(j, now: t0 + 110, plugins: [("p", v1)]) { (bot, out) throws in
                #expect(sent(try bot.advance(to: t0 + 160)) == ["b"])
            }
            // New code: #1 changed interval (fresh schedule), #2 is gone.
            _ = try withJournalBot(j, now: t0 + 170, plugins: [("p", v2)]) { (bot, out) throws in
                #expect(bot.store.savedTimers(plugin: "p").map(\.name) == ["#1"])
                #expect(sent(try bot.advance(to: t0 + 230)) == ["a2", "a2"])
            }
        }
    }

    /// A timer made while loading is the code's, named or not: a version
    /// that no longer makes it drops it, where a handler's named timer (a
    /// reminder) is kept and fires as an event.
    @Test func aNamedLoadTimeTimerTheCodeNoLongerMakesIsDropped() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let j = dir.appendingPathComponent("j").path
        let t0 = Self.t0
        let v1 = """
        bot.every(30, function() bot.send("lobby", "beat") end, { name = "beat" })
        bot.command("remind", function(m) bot.after(100, { name = "remind", data = 1 }) end)
        """
        let v2 = """
        bot.on("timer", function(ev) bot.send("lobby", "timer " .. ev.name) end)
        """
        try await onLuaThread {
            _ = try withJournalBot(j, now: t0, plugins: [("p", v1)]) { (bot, out) throws in
                out += try bot.handle(.message(ChatMessage(room: "lobby", user: "alice", text: "!remind", time: t0)))
                #expect(bot.store.savedTimers(plugin: "p").map(\.name).sorted() == ["beat", "remind"])
            }
            _ = try withJournalBot(j, now: t0 + 10, plugins: [("p", v2)]) { (bot, out) throws in
                #expect(bot.store.savedTimers(plugin: "p").map(\.name) == ["remind"])
                #expect(sent(try bot.advance(to: t0 + 100)) == ["timer remind"])
            }
        }
    }

    @Test func timerOptionsAreChecked() async throws {
        let p = """
        bot.command("x", function(m)
          local ok, err = pcall(bot.after, 1, function() end, { name = "#1" })
          bot.log.info(tostring(ok) .. " " .. tostring(err))
          ok, err = pcall(bot.after, 1, {})
          bot.log.info(tostring(ok) .. " " .. tostring(err))
          ok, err = pcall(bot.every, 1, function() end, 5)
          bot.log.info(tostring(ok) .. " " .. tostring(err))
          local a = bot.after(5, function() bot.send("lobby", "first") end, { name = "same" })
          local b = bot.after(1, function() bot.send("lobby", "second") end, { name = "same" })
          bot.log.info(tostring(a ~= b) .. " " .. tostring(bot.cancel(a)))
        end)
        bot.command("y", function(m) m:reply(tostring(bot.cancel("same")) .. " " .. tostring(bot.cancel("same"))) end)
        """
        let script = [message("!x"), #"{"type":"advance","seconds":10}"#, message("!x"), message("!y"),
                      #"{"type":"advance","seconds":10}"#].joined(separator: "\n")
        let a = try await run(plugins: [("p", p)], script: script)
        let logs = Array(a.compactMap(\.logText).prefix(4))
        #expect(logs.count == 4)
        #expect(logs[0].hasPrefix("false") && logs[0].contains("timer names starting with '#' are reserved"))
        #expect(logs[1].hasPrefix("false") && logs[1].contains("bot.after: a timer without a function needs a name"))
        #expect(logs[2].hasPrefix("false") && logs[2].contains("bot.every: the options must be a table"))
        #expect(logs.last == "true false")
        // A second timer with the same name replaces the first.
        #expect(a.compactMap(\.sentText) == ["second", "true false"])
        // The errors name the plugin's line, as every host function's do.
        let lines = """
        bot.command("z", function(m)
          local _, e1 = pcall(function() bot.after(1, {}) end)
          local _, e2 = pcall(function() bot.every(1, nil) end)
          local _, e3 = pcall(function() bot.after(1, function() end, 5) end)
          m:reply(e1 .. " | " .. e2 .. " | " .. e3)
        end)
        """
        #expect(try await run(plugins: [("p", lines)], script: message("!z")).compactMap(\.sentText) == [
            "p.lua:2: bot.after: a timer without a function needs a name | p.lua:3: bot.every: expected a function, got nil"
                + " | p.lua:4: bot.after: the options must be a table"])
    }

    /// `parley plugin test --journal`: a reminder set in one run fires in the next.
    @Test func harnessRunsShareTimersThroughTheJournal() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let j = dir.appendingPathComponent("j").path
        let first = try await run(plugins: [("r", Self.reminders)], script: [message("!remind 100 a"), #"{"type":"advance","seconds":50}"#].joined(separator: "\n"), journal: j)
        #expect(first.compactMap(\.sentText).isEmpty)
        // Every run's virtual clock starts at the same instant.
        let second = try await run(plugins: [("r", Self.reminders)], script: #"{"type":"advance","seconds":120}"#, journal: j)
        #expect(second.compactMap(\.sentText) == ["tick", "reminder a remind:a", "tick"])
        // The saved schedule is on that clock: the tick that was due at 180 s still is.
        let third = try await run(plugins: [("r", Self.reminders)], script: #"{"type":"advance","seconds":200}"#, journal: j)
        #expect(third.compactMap(\.sentText) == ["tick"])
    }

    /// A named timer whose function did not survive the restart, in a plugin
    /// with no "timer" handler: it fires into nothing, and the log says so.
    @Test func aRestoredTimerWithNoOneToFireItIsLogged() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let j = dir.appendingPathComponent("j").path
        let p = #"bot.command("t", function(m) bot.after(5, function() m:reply("fired") end, { name = "round" }) end)"#
        let first = try await run(plugins: [("p", p)], script: message("!t"), journal: j)
        #expect(first.compactMap(\.logText).isEmpty)
        let second = try await run(plugins: [("p", p)], script: #"{"type":"advance","seconds":10}"#, journal: j)
        #expect(second.compactMap(\.sentText).isEmpty)
        #expect(second.compactMap(\.logText) == [#"timer 'round' fired with no function and no bot.on("timer") handler"#
            + " (functions do not survive a restart): re-create it by name while loading, or handle timer events"])
    }

    @Test func lastSeenCursorFollowsServerIdsAndSurvivesRestartAndCompaction() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let j = dir.appendingPathComponent("j").path
        let t0 = Self.t0
        try await onLuaThread {
            _ = try withJournalBot(j, now: t0, plugins: [("p", #"bot.on("message", function(m) end)"#)]) { (bot, out) throws in
                #expect(bot.store.lastSeen(room: "lobby") == nil)
                _ = try bot.handle(.message(ChatMessage(room: "lobby", user: "amy", text: "a", id: "srv-1", time: t0 - 5)))
                _ = try bot.handle(.message(ChatMessage(room: "lobby", user: "amy", text: "b")))      // no server id
                _ = try bot.handle(.message(ChatMessage(room: "lobby", user: "amy", text: "c", id: "srv-0", time: t0 - 9)))  // older
                _ = try bot.handle(.message(ChatMessage(room: "side", user: "amy", text: "d", id: "s-7", time: t0 - 1)))
                #expect(bot.store.lastSeen(room: "lobby") == RoomCursor(cursor: "srv-1", time: t0 - 5))
            }
            try {
                let store = try JournalStore.open(directory: j)
                defer { store.close() }
                #expect(store.lastSeen(room: "lobby") == RoomCursor(cursor: "srv-1", time: t0 - 5))
                #expect(store.lastSeen(room: "side") == RoomCursor(cursor: "s-7", time: t0 - 1))
                try store.setLastSeen(room: "side", cursor: "s-3", time: t0 - 100)   // explicit: wins even if older
                try store.compact()
            }()
            let store = try JournalStore.open(directory: j)
            defer { store.close() }
            #expect(store.lastSeen(room: "lobby") == RoomCursor(cursor: "srv-1", time: t0 - 5))
            #expect(store.lastSeen(room: "side") == RoomCursor(cursor: "s-3", time: t0 - 100))
            #expect(store.lastSeen(room: "nowhere") == nil)
        }
        // The memory store keeps the same cursor.
        let memory = MemoryBotStore()
        try memory.appendReceived(room: "r", id: "x", user: "u", text: "t", time: 5, lastSeen: true)
        try memory.appendReceived(room: "r", id: "y", user: "u", text: "t", time: 4, lastSeen: true)
        #expect(memory.lastSeen(room: "r") == RoomCursor(cursor: "x", time: 5))
    }

    @Test func retentionByAgeAndCountAppliesOnCompactionAndOpen() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let j = dir.appendingPathComponent("j").path
        let retention = HistoryRetention(maxMessagesPerRoom: 5, maxAge: 100)
        try await onLuaThread {
            try {
                let store = try JournalStore.open(directory: j, history: retention)
                defer { store.close() }
                for i in 0..<3 { try store.append(room: "quiet", id: "q\(i)", user: "u", text: "q\(i)", time: Double(i)) }
                for i in 1...30 { try store.append(room: "busy", id: "b\(i)", user: "u", text: "b\(i)", time: Double(i * 10)) }
                // Appends trim their own room: by count, and by age against the newest time (300).
                #expect(store.messageCount(room: "busy") == 5)
                #expect(store.messageCount(room: "quiet") == 3, "nobody wrote there since")
                try store.compact()
                #expect(store.messageCount(room: "quiet") == 0, "compaction applies the age bound everywhere")
            }()
            let store = try JournalStore.open(directory: j, history: retention)
            defer { store.close() }
            #expect(store.messageCount(room: "quiet") == 0)
            let page = try store.page(room: "busy", before: nil, after: nil, limit: 100)
            #expect(page.messages.map(\.text) == ["b26", "b27", "b28", "b29", "b30"])
            #expect(page.before == nil)
            // Cursors keep counting across the trim.
            #expect(try store.append(room: "busy", id: "b31", user: "u", text: "b31", time: 310) == "m" + String(30, radix: 36))
        }
        // Age alone, in memory: 30 days by default, measured against the newest message.
        let history = MemoryHistoryStore()
        let day = 86_400.0
        for d in 0..<40 { try history.append(room: "r", id: "\(d)", user: "u", text: "day \(d)", time: Double(d) * day) }
        #expect(history.count(room: "r") == 31)
        #expect(try history.page(room: "r", before: nil, after: nil, limit: 1).before != nil)
    }

    /// History that retention dropped leaves the disk at the running bot's
    /// trim check, without waiting for megabytes of appends to compact.
    @Test func droppedHistoryLeavesTheDiskAtTheTrimCheck() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let j = dir.appendingPathComponent("j").path
        @Sendable func onDisk(_ text: String) -> Bool {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: j)) ?? []
            return files.contains { f in
                (FileManager.default.contents(atPath: j + "/" + f) ?? Data()).range(of: Data(text.utf8)) != nil
            }
        }
        try await onLuaThread {
            try {
                let store = try JournalStore.open(directory: j, history: HistoryRetention(maxMessagesPerRoom: 3))
                defer { store.close() }
                for i in 1...10 { try store.append(room: "r", id: "m\(i)", user: "u", text: "said \(i);", time: Double(i)) }
                #expect(store.messageCount(room: "r") == 3)
                #expect(onDisk("said 1;"), "dropped, but still in the segment")
                store.compactIfTrimmed()
                #expect(store.isCompacting)
            }()
            #expect(!onDisk("said 1;") && !onDisk("said 7;"), "the snapshot left the dropped messages behind")
            #expect(onDisk("said 8;") && onDisk("said 10;"))
            // Reopened: nothing was dropped since the snapshot, so no compaction starts.
            let store = try JournalStore.open(directory: j, history: HistoryRetention(maxMessagesPerRoom: 3))
            defer { store.close() }
            store.compactIfTrimmed()
            #expect(!store.isCompacting)
            #expect(try store.page(room: "r", before: nil, after: nil, limit: 10).messages.map(\.text) == ["said 8;", "said 9;", "said 10;"])
        }
    }

    /// A bot stopped before its trim check does not leave dropped history in
    /// the segments: its close compacts them away, so a wider retention at
    /// the next start does not bring them back.
    @Test func droppedHistoryStaysGoneAfterACloseAndAWiderRetention() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let j = dir.appendingPathComponent("j").path
        try await onLuaThread {
            try {
                let store = try JournalStore.open(directory: j, history: HistoryRetention(maxMessagesPerRoom: 3))
                defer { store.close() }
                for i in 1...10 { try store.append(room: "r", id: "m\(i)", user: "u", text: "said \(i);", time: Double(i)) }
            }()
            let wider = try JournalStore.open(directory: j, history: HistoryRetention(maxMessagesPerRoom: 1000))
            defer { wider.close() }
            #expect(try wider.page(room: "r", before: nil, after: nil, limit: 100).messages.map(\.text) == ["said 8;", "said 9;", "said 10;"])
        }
    }

    /// 200,000 writes to one key: the journal compacts by itself and the
    /// directory stays a small multiple of the threshold.
    @Test func automaticCompactionBoundsDiskUse() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let j = dir.appendingPathComponent("j").path
        let threshold = 256 << 10
        let stats = try await onLuaThread { () -> (maxSize: Int, endSize: Int, compactions: Int, appended: Int) in
            let store = try JournalStore.open(directory: j, fsync: .never,
                                              compaction: AutoCompaction(minBytes: threshold, liveFactor: 4))
            var maxSize = 0
            var appended = 0
            for i in 1...200_000 {
                try store.commit(HandlerEffects(plugin: "counter", sender: "parley", writes: [("n", .int(Int64(i)))], sends: []))
                appended += 1
                if i % 5_000 == 0 { maxSize = max(maxSize, directorySize(j)) }
            }
            let compactions = store.compactions
            store.close()
            return (maxSize, directorySize(j), compactions, appended)
        }
        print("auto compaction: \(stats.compactions) compactions, largest directory \(stats.maxSize) bytes, \(stats.endSize) at the end")
        #expect(stats.compactions >= 10)
        #expect(stats.maxSize < 4 * threshold)
        try await onLuaThread {
            let store = try JournalStore.open(directory: j)
            defer { store.close() }
            #expect(store.value(plugin: "counter", key: "n") == .int(200_000))
        }
    }

    /// Automatic compaction never loses an acknowledged write: power loss at
    /// random moments (simulated disk), often while a compaction runs in the
    /// background (seal, snapshot temp file, rename, segment deletion).
    /// Pipelined, compactions start while writes still wait to be written,
    /// and the snapshot covers exactly what its seal reports.
    @Test(arguments: [false, true])
    func automaticCompactionSurvivesPowerLoss(pipelined: Bool) async throws {
        let midCompaction = try await onLuaThread { () -> Int in
            var random = SeededRandom(seed: pipelined ? 78 : 77)
            var midCompaction = 0
            for iteration in 0..<60 {
                let disk = SimulatedDisk(seed: random.next())
                // Slow syncs keep compactions in flight across several commits.
                disk.setFaults(DiskFaults(syncLatencyMicroseconds: Int.random(in: 0...300, using: &random)))
                let mode = CrashMode.allCases[iteration % CrashMode.allCases.count]
                let store = try JournalStore.open(directory: "/j", fsync: .always,
                                                  compaction: AutoCompaction(minBytes: 1_500, liveFactor: 2), fileLayer: disk,
                                                  pipelined: pipelined)
                let total = Int.random(in: 20...300, using: &random)
                var crashed: SimulatedDisk?
                let acknowledged = Mutex(0)
                for i in 1...total {
                    try store.commit(HandlerEffects(plugin: "p", sender: "parley", writes: [("n", .int(Int64(i))), ("k\(i % 7)", .string("v\(i)"))],
                                                    sends: [], timers: [.set(SavedTimer(name: "t", due: Double(i), seconds: 1, repeats: true))]))
                    store.whenDurable { e in if e == nil { acknowledged.withLock { $0 = max($0, i) } } }
                    if i == total {
                        if store.isCompacting { midCompaction += 1 }
                        crashed = disk.crash(mode: mode)   // this disk is dead from here on
                    }
                }
                store.close()
                let label = "iteration \(iteration) mode \(mode) total \(total)"
                let reopened = try JournalStore.open(directory: "/j", compaction: .off, fileLayer: crashed!)
                // Blocking, every write was acknowledged; pipelined, those after
                // the last sync may be lost, but only as a suffix.
                let kept: Int
                if case .int(let n)? = reopened.value(plugin: "p", key: "n") { kept = Int(n) } else { kept = 0 }
                let floor = pipelined ? acknowledged.withLock { $0 } : total
                #expect(kept >= floor && kept <= total, "\(label): kept \(kept), acknowledged \(floor)")
                for k in 0..<7 {
                    let last = stride(from: kept, through: 1, by: -1).first { $0 % 7 == k }
                    #expect(reopened.value(plugin: "p", key: "k\(k)") == last.map { .string("v\($0)") }, "\(label)")
                }
                #expect(reopened.savedTimers(plugin: "p").map(\.due) == (kept > 0 ? [Double(kept)] : []), "\(label)")
                reopened.close()
            }
            return midCompaction
        }
        print("power loss during automatic compaction (pipelined: \(pipelined)): \(midCompaction) of 60 crashes hit a compaction in flight")
        #expect(midCompaction > 0)
    }
}
