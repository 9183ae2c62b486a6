import Foundation
import ParleyCore
import ParleyJournal
import ParleyStore
@testable import ParleyRuntime
import ParleyStreamChat
import ParleyTestSupport
import Testing

/// A stop whose drain runs out says how many sends it leaves and what
/// becomes of them, and with a journal they do go out after the restart.
@Suite(.timeLimit(.minutes(2)))
struct StopTests {
    /// A journal that ran out of space stops the bot, and the line says what
    /// to do: the journal takes no more writes from this run.
    @Test func aFullDiskSaysToFreeSpaceAndStartAgain() async throws {
        let server = try await StreamChatServer.start(.init())
        defer { Task { await server.shutdown() } }
        let rec = Recorder()
        let runner = BotRunner(spec: try botSpec(name: "full", port: server.port, plugins: [], journal: try temporaryDirectory().path),
                               observer: rec.observer)
        let run = Task { await runner.run() }
        #expect(await eventually { await runner.state == .online })
        await runner.journalFailed(StoreError("journal /j", journal: JournalError.noSpace(path: "/j/1.seg", errno: ENOSPC)))
        guard case .failed(let why) = await run.value else {
            Issue.record("the bot did not stop as failed")
            return
        }
        #expect(why.hasSuffix("(ENOSPC); cut back to the last good transaction; free space, then start the bot again (nothing acknowledged is lost)"), "\(why)")
    }

    /// A stop while a commit of state writes alone is on its way leaves no
    /// send behind, so it warns of none; one send committing is counted.
    @Test func aStopWarnsOnlyOfSendsItLeaves() async throws {
        let server = try await StreamChatServer.start(.init())
        defer { Task { await server.shutdown() } }
        let rec = Recorder()
        let runner = BotRunner(spec: try botSpec(name: "quiet", port: server.port, plugins: [], journal: try temporaryDirectory().path),
                               observer: rec.observer)
        let run = Task { await runner.run() }
        #expect(await eventually { await runner.state == .online })
        await runner.warnWhileCommitting([])
        #expect(rec.logs(containing: "stopping with ").isEmpty, "\(rec.logs(containing: "stopping with ").map(\.text))")
        await runner.warnWhileCommitting([OutgoingMessage(id: "x", room: "lobby", text: "hi")])
        #expect(rec.logs(containing: "stopping with ").map(\.text) == [
            "stopping with 1 send not delivered (a test): the journal sends them after the restart (within outbox_expiry)"])
        await runner.stop()
        _ = await run.value
    }

    @Test func aStopThatLeavesSendsSaysSoAndTheJournalSendsThemAfterTheRestart() async throws {
        let server = try await StreamChatServer.start(.init())
        defer { Task { await server.shutdown() } }
        let many = """
        bot.command("many", function(msg)
          for i = 1, 10 do bot.send(msg.room, "line " .. i) end
        end)
        """
        let journal = try temporaryDirectory().path
        let rec = Recorder()
        var spec = try botSpec(name: "talker", port: server.port, plugins: [("many", many)], journal: journal)
        // One send a second: the drain cannot finish ten in 0.3 s.
        spec.flow.sendRate = 1
        spec.flow.sendBurst = 1
        let alice = try await Person("alice", port: server.port)
        let runner = BotRunner(spec: spec, observer: rec.observer)
        let run = Task { await runner.run() }
        #expect(await eventually { alice.joins(of: "talker") == 1 })
        try await alice.say("!many")
        #expect(await eventually { alice.texts(from: "talker").count >= 1 })
        await runner.stop(drainTimeout: 0.3)
        #expect(await run.value == .stopped)
        let left = rec.logs(containing: "stopping with ").map(\.text)
        #expect(left.count == 1 && left[0].hasSuffix(" not delivered (the drain's 0.3 s ran out): the journal sends them after the restart (within outbox_expiry)"), "\(left)")
        // Ten sends at one a second: most are left (how many went depends on the machine's load).
        let said = Int(left.first?.split(separator: " ")[2] ?? "") ?? 0
        #expect((1...9).contains(said), "\(left)")

        // Restarted from its journal, with no cap: every line reaches the room once.
        spec.flow.sendRate = 0
        let again = BotRunner(spec: spec, observer: Recorder().observer)
        let rerun = Task { await again.run() }
        let lines = (1...10).map { "line \($0)" }
        #expect(await eventually(10) { Set(alice.texts(from: "talker")).isSuperset(of: lines) }, "\(alice.texts(from: "talker"))")
        await again.stop()
        _ = await rerun.value
        await alice.leave()
    }
}

extension BotRunner {
    /// A handler batch still committing when the stop counts what it leaves.
    func warnWhileCommitting(_ sends: [OutgoingMessage]) {
        let request = outbox.commit(sends, events: 1)
        warnUndelivered(because: "a test", plainStop: true)
        outbox.release(through: request, now: 0)
    }
}
