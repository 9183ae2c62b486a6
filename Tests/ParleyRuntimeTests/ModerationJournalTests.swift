import Foundation
import ParleyCore
import ParleyRuntime
import ParleyStore
import ParleyStreamChat
import ParleyTestSupport
import Testing

/// A moderation step is journaled with its handler, like a send: a bot
/// killed before taking it takes it after the restart, behind the send it
/// followed; one whose handler ran too long ago is dropped.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct ModerationJournalTests {
    /// `!later` kicks the troll from a timer a second later, logging both moments.
    /// Kicks 4 s after `!later`: time for the test to silence the link
    /// first, on a loaded machine too.
    static let kickLater = """
    bot.command("later", function(msg)
      bot.after(4, function() bot.kick(msg.room, "troll", "later"); bot.log.info("kick made") end)
      bot.log.info("kick coming")
    end)
    """

    /// The real binary, killed with SIGKILL while a kick waits behind its
    /// reason, which the rate cap holds back: the restart says the reason,
    /// then kicks.
    @Test func aKickOutlivesKillNine() async throws {
        let server = try await StreamChatServer.start(.init(moderators: ["mod"]))
        defer { Task { await server.shutdown() } }
        let dir = try temporaryDirectory()
        try """
        bot.hear("^SPAM$", function(msg)
          msg:reply("bye " .. msg.user)
          bot.kick(msg.room, msg.user, "spam")
        end)
        """.write(to: dir.appendingPathComponent("rules.lua"), atomically: true, encoding: .utf8)
        let config = dir.appendingPathComponent("bot.toml").path
        func writeConfig(sendRate: String) throws {
            try """
            [[bot]]
            name = "mod"
            server = "127.0.0.1:\(server.port)"
            plugins = ["rules.lua"]
            journal = "state/mod"
            [bot.presence]
            backoff_initial = 0.05
            backoff_max = 0.2
            [bot.flow]
            send_rate = \(sendRate)
            send_burst = 1
            """.write(toFile: config, atomically: true, encoding: .utf8)
        }
        let journal = dir.appendingPathComponent("state/mod").path
        func dump() async throws -> String {
            let out = Pipe()
            return await finish(try launchParley(["journal", "dump", journal], stdout: out), stdout: out).stdout
        }

        // One send a hundred seconds: the first reply takes the burst.
        try writeConfig(sendRate: "0.01")
        let alice = try await Person("alice", port: server.port)
        var bot = try launchParley(["run", config])
        #expect(await eventually { alice.joins(of: "mod") == 1 })
        let first = try await Person("troll1", port: server.port)
        try await first.say("SPAM")
        #expect(await eventually { !first.isLinked }, "the first kick goes at once, behind its reply")
        let second = try await Person("troll2", port: server.port)
        try await second.say("SPAM")
        // Its reply waits for the rate cap, and its kick for the reply; both are in the journal.
        #expect(await eventually { (try? await dump())?.contains(#""verb":"kick","user":"troll2""#) ?? false })
        kill(bot.processIdentifier, SIGKILL)
        _ = await finish(bot)
        #expect(second.isLinked)
        #expect(!alice.texts(from: "mod").contains("bye troll2"))

        try writeConfig(sendRate: "10")
        bot = try launchParley(["run", config])
        #expect(await eventually { !second.isLinked }, "the restart takes the kick")
        #expect(second.texts(from: "mod") == ["bye troll2"], "the reason first: \(second.texts(from: "mod"))")
        // Once each: the first troll is not kicked again, the reason is said once.
        #expect(await eventually { alice.texts(from: "mod").count >= 2 })
        try await Task.sleep(for: .milliseconds(300))
        #expect(alice.texts(from: "mod") == ["bye troll1", "bye troll2"])
        kill(bot.processIdentifier, SIGTERM)
        #expect(await finish(bot).status == 0)
        // Done in the journal: a delivered record names the step.
        let records = try await dump()
        let step = try #require(records.split(separator: "\n").first { $0.contains(#""user":"troll2""#) && $0.contains(#""type":"moderation""#) })
        let id = try #require(step.firstMatch(of: /"id":"([^"]+)"/)?.1)
        #expect(records.split(separator: "\n").contains { $0.contains(#""type":"delivered""#) && $0.contains("\"\(id)\"") }, "\(records)")
        await alice.leave()
    }

    /// Steps a previous run committed and never took: one is taken once the
    /// bot is online, one older than `outbox_expiry` is dropped and logged;
    /// both are done in the journal afterwards.
    @Test func stepsFoundAtTheStartWaitForTheLinkAndExpire() async throws {
        let server = try await StreamChatServer.start(.init(moderators: ["mod"]))
        defer { Task { await server.shutdown() } }
        let journal = try temporaryDirectory().appendingPathComponent("j").path
        let now = Date().timeIntervalSince1970
        try await onOwnThread {
            let store = try JournalStore.open(directory: journal)
            defer { store.close() }
            try store.commit(HandlerEffects(plugin: "rules", sender: "mod", writes: [], sends: [], steps: [
                ModerationStep(id: "old-1", plugin: "rules", action: .kick(room: "lobby", user: "stale", reason: "long ago"), time: now - 3_600),
                ModerationStep(id: "old-2", plugin: "rules", action: .kick(room: "lobby", user: "troll", reason: "spam"), time: now - 5),
            ]))
        }
        let stale = try await Person("stale", port: server.port)
        let troll = try await Person("troll", port: server.port)
        let rec = Recorder()
        let spec = try botSpec(name: "mod", port: server.port, plugins: [("rules", "-- its steps come from the journal")], journal: journal)
        let runner = BotRunner(spec: spec, observer: rec.observer)
        let run = Task { await runner.run() }
        #expect(await eventually { !troll.isLinked }, "taken once online")
        #expect(await eventually {
            rec.logs.contains { $0.text.contains("kick dropped: stale from lobby (long ago): made 360") && $0.text.hasSuffix("s ago, over outbox_expiry (300 s)") }
        }, "\(rec.logs.map(\.text))")
        #expect(stale.isLinked)
        await runner.stop()
        _ = await run.value
        let pending = try await onOwnThread {
            let store = try JournalStore.open(directory: journal)
            defer { store.close() }
            return store.pendingSteps()
        }
        #expect(pending.isEmpty, "\(pending)")
        await stale.leave()
    }

    /// Bot `mod` with `plugin` on a fresh StreamChat server that obeys it, online.
    static func onlineModerator(_ plugin: String) async throws -> (StreamChatServer, BotRunner, Task<BotOutcome, Never>, Recorder) {
        let server = try await StreamChatServer.start(.init(moderators: ["mod"]))
        let rec = Recorder()
        let runner = BotRunner(spec: try botSpec(name: "mod", port: server.port, plugins: [("rules", plugin)]), observer: rec.observer)
        let run = Task { await runner.run() }
        #expect(await eventually { await runner.state == .online })
        return (server, runner, run, rec)
    }

    /// A kick made while the bot is offline (from a timer, while it is away)
    /// waits for the link, as a send does, and its function hears how it went.
    @Test func aKickMadeWhileOfflineWaitsForTheLink() async throws {
        let plugin = """
        bot.command("later", function(msg)
          -- Away for 6 s; the timer kicks while the bot is offline.
          bot.after(1, function()
            bot.kick(msg.room, "troll", "later", function(ok, err)
              bot.log.info("kick answered", tostring(ok), tostring(err))
            end)
          end)
          bot.away(6)
        end)
        """
        let (server, runner, run, rec) = try await Self.onlineModerator(plugin)
        defer { Task { await server.shutdown() } }
        let alice = try await Person("alice", port: server.port)
        let troll = try await Person("troll", port: server.port)
        try await alice.say("!later")
        #expect(await eventually { !rec.logs(containing: "kick waits for the link: troll from lobby (later)").isEmpty }, "\(rec.logs.map(\.text))")
        #expect(troll.isLinked)
        #expect(await eventually { !troll.isLinked }, "taken once the bot is back")
        #expect(await eventually { !rec.logs(containing: "kick answered true nil").isEmpty }, "\(rec.logs.map(\.text))")
        await runner.stop()
        _ = await run.value
        await alice.leave()
    }

    /// A mute that waited for the link lasts what is left of it: it ends when
    /// its handler meant it to. One whose time ran out meanwhile is not taken.
    @Test func aMuteTakenLateLastsWhatIsLeftOfIt() async throws {
        let plugin = """
        bot.command("later", function(msg)
          -- Away for 5 s; the timer mutes while the bot is offline.
          bot.after(1, function()
            bot.mute(msg.room, "troll", 30, "later")
            bot.mute(msg.room, "lurker", 2, "short", function(ok, err) bot.log.info("short mute", tostring(ok), err) end)
          end)
          bot.away(5)
        end)
        """
        let (server, runner, run, rec) = try await Self.onlineModerator(plugin)
        defer { Task { await server.shutdown() } }
        let alice = try await Person("alice", port: server.port)
        let troll = try await Person("troll", port: server.port)
        let lurker = try await Person("lurker", port: server.port)
        try await alice.say("!later")
        #expect(await eventually(20) { !rec.logs(containing: "mute: troll in lobby for").isEmpty }, "\(rec.logs.map(\.text))")
        let taken = rec.logs(containing: "mute: troll in lobby for").first?.text ?? ""
        let seconds = Int(taken.split(separator: " ").first { Int($0) != nil } ?? "") ?? 0
        #expect(seconds >= 20 && seconds <= 28, "30 s less the wait for the link: \(taken)")
        #expect(await eventually { !rec.logs(containing: "short mute nil its 2 s were over before it could be taken").isEmpty },
                "\(rec.logs.map(\.text))")
        await runner.stop()
        _ = await run.value
        for p in [alice, troll, lurker] { await p.leave() }
    }

    /// A kick whose link closes before the server answers may or may not
    /// have been made: it is taken again on the next link, as an unconfirmed
    /// send is sent again, not logged as refused and forgotten.
    @Test func aKickWhoseLinkClosesBeforeTheAnswerIsTakenAgainOnTheNextLink() async throws {
        let server = try await StreamChatServer.start(.init(moderators: ["mod"]))
        defer { Task { await server.shutdown() } }
        let proxy = try await LinkProxy.start(upstreamPort: server.port)
        defer { Task { await proxy.stop() } }
        let rec = Recorder()
        let runner = BotRunner(spec: try botSpec(name: "mod", port: proxy.port, plugins: [("rules", Self.kickLater)]), observer: rec.observer)
        let run = Task { await runner.run() }
        #expect(await eventually { await runner.state == .online })
        let alice = try await Person("alice", port: server.port)
        let troll = try await Person("troll", port: server.port)
        try await alice.say("!later")
        #expect(await eventually { !rec.logs(containing: "kick coming").isEmpty }, "\(rec.logs.map(\.text))")
        // The kick goes into a link gone silent, which then closes before any answer; a new link gets through.
        proxy.silenceExisting()
        #expect(await eventually { !rec.logs(containing: "kick made").isEmpty })
        try await Task.sleep(for: .milliseconds(100))
        #expect(troll.isLinked)
        proxy.closeClientSides()
        #expect(await eventually { !rec.logs(containing: "kick unanswered: troll from lobby (later)").isEmpty }, "\(rec.logs.map(\.text))")
        #expect(await eventually { !troll.isLinked }, "taken again on the next link: \(rec.logs.map(\.text))")
        #expect(rec.logs(containing: "kick refused").isEmpty)
        await runner.stop()
        _ = await run.value
        await alice.leave()
    }

    /// A graceful stop waits (up to its deadline) for every step taken and
    /// not answered, not only those held behind a send; with a journal one
    /// still unanswered is taken again after the restart.
    @Test func aStopWaitsForAnswersAndTheJournalKeepsTheUnanswered() async throws {
        let server = try await StreamChatServer.start(.init(moderators: ["mod"]))
        defer { Task { await server.shutdown() } }
        let proxy = try await LinkProxy.start(upstreamPort: server.port)
        defer { Task { await proxy.stop() } }
        let journal = try temporaryDirectory().appendingPathComponent("j").path
        let rec = Recorder()
        let spec = try botSpec(name: "mod", port: proxy.port, plugins: [("rules", Self.kickLater)], journal: journal)
        let runner = BotRunner(spec: spec, observer: rec.observer)
        let run = Task { await runner.run() }
        #expect(await eventually { await runner.state == .online })
        let troll = try await Person("troll", port: server.port)
        try await troll.say("!later")
        #expect(await eventually { !rec.logs(containing: "kick coming").isEmpty }, "\(rec.logs.map(\.text))")
        // The kick goes into a link gone silent (the answer timeout is 10 s), and the stop comes while it waits.
        proxy.blackhole()
        #expect(await eventually { !rec.logs(containing: "kick made").isEmpty })
        await runner.stop(drainTimeout: 1)
        _ = await run.value
        #expect(troll.isLinked)
        proxy.restore()
        #expect(!rec.logs(containing: "leaving with 1 moderation step unanswered after 1 s (the journal takes them again after the restart)").isEmpty,
                "\(rec.logs.map(\.text))")

        let restarted = BotRunner(spec: spec, observer: rec.observer)
        let rerun = Task { await restarted.run() }
        #expect(await eventually { !troll.isLinked }, "taken after the restart")
        await restarted.stop()
        _ = await rerun.value
    }

    /// With a journal, a kick still waiting for its reason at a graceful stop
    /// is not taken ahead of it: both wait for the restart, in order.
    @Test func aHeldKickWaitsForItsReasonAcrossAGracefulRestart() async throws {
        let server = try await StreamChatServer.start(.init(moderators: ["mod"]))
        defer { Task { await server.shutdown() } }
        let journal = try temporaryDirectory().appendingPathComponent("j").path
        let plugin = """
        bot.hear("^SPAM$", function(msg)
          msg:reply("bye " .. msg.user)
          bot.kick(msg.room, msg.user, "spam")
          bot.log.info("handled SPAM from", msg.user)
        end)
        """
        var spec = try botSpec(name: "mod", port: server.port, plugins: [("rules", plugin)], journal: journal)
        spec.flow.sendRate = 0.01
        spec.flow.sendBurst = 1
        let rec = Recorder()
        let runner = BotRunner(spec: spec, observer: rec.observer)
        let run = Task { await runner.run() }
        #expect(await eventually { await runner.state == .online })
        let alice = try await Person("alice", port: server.port)
        // The burst's one send goes to a first troll; the second's reply waits for the cap.
        let first = try await Person("troll1", port: server.port)
        try await first.say("SPAM")
        #expect(await eventually { !first.isLinked })
        let second = try await Person("troll2", port: server.port)
        try await second.say("SPAM")
        #expect(await eventually { !rec.logs(containing: "handled SPAM from troll2").isEmpty })
        await runner.stop(drainTimeout: 0.2)
        _ = await run.value
        #expect(second.isLinked, "not kicked ahead of its reason")
        #expect(!rec.logs(containing: "kick troll2 from lobby (spam) not taken: it waits for its send, which the journal sends after the restart").isEmpty,
                "\(rec.logs.map(\.text))")

        spec.flow.sendRate = 10
        let restarted = BotRunner(spec: spec, observer: rec.observer)
        let rerun = Task { await restarted.run() }
        #expect(await eventually { !second.isLinked })
        #expect(second.texts(from: "mod") == ["bye troll2"])
        await restarted.stop()
        _ = await rerun.value
        await alice.leave()
    }
}
