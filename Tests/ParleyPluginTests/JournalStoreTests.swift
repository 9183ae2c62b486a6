import Foundation
import ParleyCore
import ParleyStore
import ParleyJournal
import ParleyRuntime
import Testing
import ParleyTestSupport

/// `parley plugin test --journal DIR`: state and history survive between runs.
struct JournalStoreTests {
    let counter = """
    bot.command("count", function(m)
      local n = (bot.state.get("n") or 0) + 1
      bot.state.set("n", n)
      bot.state.set("seen", { last = m.user, list = { n, "x" } })
      m:reply("ack " .. n)
    end)
    bot.command("last", function(m)
      local page = bot.history(m.room, { limit = 100 })
      local texts = {}
      for _, msg in ipairs(page.messages) do texts[#texts + 1] = msg.user .. ":" .. msg.text end
      m:reply(table.concat(texts, "|"))
    end)
    """

    /// `parley journal compact` opens the store with compaction off; a
    /// snapshot that cannot be written (a full disk) is its error, not a trap.
    /// On a thread of its own, as the CLI's is not one of the few the tests'
    /// tasks share: the store's calls block their thread.
    @Test func aCompactionThatFailsIsAnErrorWithCompactionOff() async throws {
        let outcome: Result<Void, any Error> = await withCheckedContinuation { done in
            Thread {
                let disk = SimulatedDisk(seed: 3)
                do {
                    let store = try JournalStore.open(directory: "/j", fsync: .never, compaction: .off, fileLayer: disk)
                    defer { store.close() }
                    for i in 0..<50 { _ = try store.append(room: "lobby", id: "m\(i)", user: "u", text: "line \(i)", time: Double(i)) }
                    disk.setFaults(DiskFaults(writeErrno: ENOSPC))
                    try store.compact()
                    done.resume(returning: .success(()))
                } catch {
                    done.resume(returning: .failure(error))
                }
            }.start()
        }
        guard case .failure(let error) = outcome else {
            Issue.record("the compaction on a full disk succeeded")
            return
        }
        #expect("\(error)".contains("ENOSPC"), "\(error)")
    }

    @Test func stateAndHistoryPersistAcrossRuns() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let journal = dir.appendingPathComponent("j").path
        let first = try await run(plugins: [("counter", counter)], script: [message("!count"), message("!count")].joined(separator: "\n"), journal: journal)
        #expect(first.compactMap(\.sentText) == ["ack 1", "ack 2"])
        let second = try await run(plugins: [("counter", counter)], script: [message("!count"), message("!last")].joined(separator: "\n"), journal: journal)
        #expect(second.compactMap(\.sentText).first == "ack 3")
        #expect(second.compactMap(\.sentText).last ==
                "alice:!count|parley:ack 1|alice:!count|parley:ack 2|alice:!count|parley:ack 3|alice:!last")
    }

    /// A torn tail (or a damaged last record, which reads the same) is cut
    /// on open, and said: the bot's log gets the store's note.
    @Test func aCutTornTailIsSaid() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let journal = dir.appendingPathComponent("j").path
        _ = try await run(plugins: [("counter", counter)], script: message("!count"), journal: journal)
        let segment = try #require(try FileManager.default.contentsOfDirectory(atPath: journal).filter { $0.hasSuffix(".seg") }.max())
        let clean = try JournalStore.open(directory: journal)
        #expect(clean.recoveryNotes.isEmpty)
        clean.close()
        // Half a record's header and some bytes after the last commit: what a crash mid-write leaves.
        let file = try #require(FileHandle(forWritingAtPath: journal + "/" + segment))
        try file.seekToEnd()
        try file.write(contentsOf: Data([0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77]))
        try file.close()
        let torn = try JournalStore.open(directory: journal)
        #expect(torn.recoveryNotes.contains { $0.hasPrefix("cut a torn tail of ") }, "\(torn.recoveryNotes)")
        torn.close()
    }

    @Test func failedHandlersLeaveNothingInTheJournal() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let journal = dir.appendingPathComponent("j").path
        let p = #"bot.command("boom", function() bot.state.set("n", 1); error("no") end) bot.command("n", function(m) m:reply(tostring(bot.state.get("n"))) end)"#
        _ = try await run(plugins: [("p", p)], script: message("!boom"), journal: journal)
        let again = try await run(plugins: [("p", p)], script: message("!n"), journal: journal)
        #expect(again.compactMap(\.sentText) == ["nil"])
    }

    /// The crash window between "transaction durable" and "delivery recorded":
    /// the send goes out again after a restart, once, with its original id.
    @Test func committedButUndeliveredSendsAreSentAgainOnce() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let journal = dir.appendingPathComponent("j").path
        do {
            let store = try JournalStore.open(directory: journal)
            try store.commit(HandlerEffects(plugin: "counter", sender: "parley", writes: [("n", .int(7))],
                                            sends: [OutgoingMessage(id: "x-1", room: "lobby", text: "ack 7", plugin: "counter", time: 0)]))
            store.close()   // "crashed" before markDelivered
        }
        let first = try await run(plugins: [("counter", counter)], script: "", journal: journal)
        #expect(first.compactMap(\.sentText) == ["ack 7"])
        #expect(first.first?.message?.id == "x-1")
        let second = try await run(plugins: [("counter", counter)], script: message("!count"), journal: journal)
        #expect(second.compactMap(\.sentText) == ["ack 8"], "re-sent exactly once, and the state came with it")
    }

    /// The store's outbox ledger is the one count of a plugin's pending sends
    /// (its `outbox_sends` quota): rebuilt from the journal in commit order,
    /// deliveries taken off, per plugin.
    @Test func theOutboxLedgerCountsPendingSendsPerPluginAcrossARestart() async throws {
        // On the big-stack test thread, as every store user runs: a journal's
        // blocking append must not hold a cooperative-pool thread.
        try await withTaskExecutorPreference(testExecutor) { try Self.ledgerAcrossARestart() }
    }

    private static func ledgerAcrossARestart() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let journal = dir.appendingPathComponent("j").path
        func send(_ id: String, _ plugin: String) -> OutgoingMessage {
            OutgoingMessage(id: id, room: "lobby", text: id, plugin: plugin, time: 0)
        }
        do {
            let store = try JournalStore.open(directory: journal)
            try store.commit(HandlerEffects(plugin: "a", sender: "parley", writes: [], sends: [send("a-1", "a"), send("a-2", "a")]))
            try store.commit(HandlerEffects(plugin: "b", sender: "parley", writes: [], sends: [send("b-1", "b")]))
            try store.markDelivered(["a-1"])
            #expect(store.undeliveredCount(plugin: "a") == 1 && store.undeliveredCount(plugin: "b") == 1)
            store.close()
        }
        let reopened = try JournalStore.open(directory: journal)
        defer { reopened.close() }
        #expect(reopened.undelivered().map(\.id) == ["a-2", "b-1"])
        #expect(reopened.undeliveredCount(plugin: "a") == 1 && reopened.undeliveredCount(plugin: "b") == 1)
        #expect(reopened.undeliveredCount(plugin: "c") == 0)
    }

    /// Moderation steps are kept like sends: committed with their handler,
    /// done by id, and found again after a restart, from the records and
    /// from a snapshot, each field as it was.
    @Test func moderationStepsSurviveARestartAndACompaction() async throws {
        try await withTaskExecutorPreference(testExecutor) { try Self.stepsAcrossARestart() }
    }

    private static func stepsAcrossARestart() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let journal = dir.appendingPathComponent("j").path
        let reason = OutgoingMessage(id: "m-1", room: "lobby", text: "bye troll", plugin: "rules", time: 10)
        let steps = [
            ModerationStep(id: "m-2", plugin: "rules", action: .kick(room: "lobby", user: "troll", reason: "spam"), after: "m-1", time: 10),
            ModerationStep(id: "m-3", plugin: "rules", action: .mute(room: "lobby", user: "eve", seconds: 600, reason: "language"), time: 11.5),
            ModerationStep(id: "m-4", plugin: "rules", action: .delete(room: "ads", messageId: "x-9"), time: 12),
        ]
        do {
            let store = try JournalStore.open(directory: journal)
            try store.commit(HandlerEffects(plugin: "rules", sender: "mod", writes: [], sends: [reason], steps: [steps[0]]))
            try store.commit(HandlerEffects(plugin: "rules", sender: "mod", writes: [], sends: [], steps: Array(steps[1...])))
            // A step does not count against the plugin's `outbox_sends`.
            #expect(store.undeliveredCount(plugin: "rules") == 1)
            try store.markDelivered(["m-3"])
            store.close()
        }
        do {
            let reopened = try JournalStore.open(directory: journal)
            #expect(reopened.pendingSteps() == [steps[0], steps[2]])
            #expect(reopened.undelivered().map(\.id) == ["m-1"])
            try reopened.compact()
            reopened.close()
        }
        // The snapshot keeps the pending send's sender, as `journal dump` shows it.
        let snapshot = try #require(try Journal.read(directory: journal).snapshot)
        let sends = try JournalStore.decode(snapshot: snapshot.bytes).compactMap { e -> String? in
            if case .outbox(let m, let sender) = e { return "\(m.id) \(sender)" } else { return nil }
        }
        #expect(sends == ["m-1 mod"])
        let fromSnapshot = try JournalStore.open(directory: journal)
        #expect(fromSnapshot.pendingSteps() == [steps[0], steps[2]])
        // The send and the first step done together, the last alone.
        try fromSnapshot.markDelivered(["m-1", "m-2"])
        #expect(fromSnapshot.pendingSteps() == [steps[2]] && fromSnapshot.undelivered().isEmpty)
        try fromSnapshot.markDelivered(["m-4"])
        fromSnapshot.close()
        let last = try JournalStore.open(directory: journal)
        defer { last.close() }
        #expect(last.pendingSteps().isEmpty && last.undelivered().isEmpty)
    }

    /// An event is one journal transaction, so one sync at `always`: the
    /// message, and what every handler made of it (one plugin's reply,
    /// another's state write), durable together or not at all. A message no
    /// handler answers is a transaction of its own record.
    @Test func anEventIsOneTransactionAndOneSync() async throws {
        try await withTaskExecutorPreference(testExecutor) { try await Self.eventTransactions() }
    }

    private static func eventTransactions() async throws {
        let echo = #"bot.command("echo", function(m, args) m:reply(args.raw) end)"#
        let tally = #"bot.on("message", function() bot.state.set("n", (bot.state.get("n") or 0) + 1) end)"#
        let (disk, store, run) = try journaledRun(plugins: [("echo", echo), ("tally", tally)])
        var syncs: [Int] = []
        var sent: [String] = []
        for text in ["!echo one", "hello", "!echo two"] {
            let before = disk.syncCount
            try run.run(.event(.message(ChatMessage(room: "lobby", user: "alice", text: text, id: "m-\(text.count)"))),
                        emit: { if case .send(_, let t) = $0.kind { sent.append(t) } })
            syncs.append(disk.syncCount - before)
        }
        store.close()
        #expect(sent == ["one", "two"])
        // Each event: its transaction's sync, then the harness's delivery record's.
        #expect(syncs == [2, 1, 2])

        let types = try await transactions(on: disk)
        // `JournalStore.RecordType`'s values.
        let (state, message, intent, delivered): (UInt8, UInt8, UInt8, UInt8) = (1, 2, 3, 4)
        #expect(types == [[message, intent, state], [delivered], [message, state], [message, intent, state], [delivered]])
    }

    /// Timers of two plugins that come due together are one transaction:
    /// both firings and both handlers' state writes, one sync.
    @Test func timersDueTogetherAreOneTransaction() async throws {
        try await withTaskExecutorPreference(testExecutor) { try await Self.timerTransactions() }
    }

    private static func timerTransactions() async throws {
        let ticker = #"bot.every(60, function() bot.state.set("ticks", (bot.state.get("ticks") or 0) + 1) end)"#
        let (disk, store, run) = try journaledRun(plugins: [("a", ticker), ("b", ticker)])
        let before = disk.syncCount
        try run.run(.advance(seconds: 60), emit: { _ in })
        #expect(disk.syncCount - before == 1)
        store.close()

        let fired = try await transactions(on: disk).last
        // `JournalStore.RecordType`'s values: a state write, then the timer moved on, for each plugin.
        let (state, timer): (UInt8, UInt8) = (1, 5)
        #expect(fired == [state, timer, state, timer])
    }

    /// A plugin-test bot with these plugins loaded, over a journal at `/j`
    /// (`always`) on a simulated disk that counts its syncs.
    private static func journaledRun(plugins: [(String, String)]) throws -> (SimulatedDisk, JournalStore, PluginTestRun) {
        let disk = SimulatedDisk(seed: 7)
        let store = try JournalStore.open(directory: "/j", fsync: .always, fileLayer: disk)
        let run = PluginTestRun(options: BotOptions(name: "parley"), store: store)
        try run.load(plugins: plugins.map { ($0.0, Array($0.1.utf8)) }) { _ in }
        return (disk, store, run)
    }

    /// The record types of each transaction in the journal at `/j`.
    private static func transactions(on disk: SimulatedDisk) async throws -> [[UInt8]] {
        let (journal, recovery) = try Journal.open(directory: "/j", options: JournalOptions(fsync: .always, fileLayer: disk))
        let types = try recovery.allTransactions().map { $0.records.map(\.type) }
        try await journal.close()
        return types
    }

    /// Sends mostly leave the ledger oldest first; one refused for good, or
    /// delivered out of turn, can leave from the middle. Both keep the counts.
    @Test func theOutboxLedgerRemovesInOrderAndOutOfOrder() {
        func send(_ id: String, _ plugin: String) -> OutgoingMessage {
            OutgoingMessage(id: id, room: "lobby", text: id, plugin: plugin, time: 0)
        }
        var ledger = OutboxLedger()
        ledger.add([send("a-1", "a"), send("a-2", "a"), send("b-1", "b"), send("a-3", "a")])
        ledger.remove(["a-1", "a-2"])
        #expect(ledger.all.map(\.id) == ["b-1", "a-3"])
        #expect(ledger.count(plugin: "a") == 1 && ledger.count(plugin: "b") == 1)
        ledger.remove(["a-3"])
        #expect(ledger.all.map(\.id) == ["b-1"])
        #expect(ledger.count(plugin: "a") == 0 && ledger.count(plugin: "b") == 1)
        ledger.remove(["nobody", "b-1"])
        #expect(ledger.all.isEmpty && ledger.count(plugin: "b") == 0)
        ledger.remove([])
        #expect(ledger.all.isEmpty)
    }

    @Test func anUnusableJournalStopsTheRunNamingTheCause() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // A regular file where the journal directory should be.
        let path = dir.appendingPathComponent("file").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data("x".utf8)))
        await #expect(throws: StoreError.self) {
            _ = try await run(plugins: [("counter", counter)], script: message("!count"), journal: path)
        }
    }
}
