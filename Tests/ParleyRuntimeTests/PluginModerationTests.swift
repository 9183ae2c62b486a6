import Foundation
import ParleyCore
import ParleyRuntime
import ParleySocketIO
import ParleyStreamChat
import ParleyTestSupport
import Testing

/// `bot.kick`, `bot.mute` and `bot.delete` from a plugin, through the
/// runtime and the transport, to Parley's embedded servers, which obey the
/// bot as a moderator.
@Suite(.serialized) struct PluginModerationTests {
    /// "spam" mutes the sender for 5 s (long enough to be seen on a loaded machine), "SPAM" kicks them, "ad" deletes the
    /// message; each reports what the call returned.
    static let plugin = """
    local function said(msg, what, ok, err) msg:reply(what .. ": " .. tostring(ok) .. " " .. tostring(err)) end
    bot.hear("^spam$", function(msg) said(msg, "mute", bot.mute(msg.room, msg.user, 5, "spam")) end)
    bot.hear("^SPAM$", function(msg) said(msg, "kick", bot.kick(msg.room, msg.user, "SPAM")) end)
    bot.hear("^ad ", function(msg) said(msg, "delete", bot.delete(msg.room, msg.id)) end)
    bot.command("kickme", function(msg) bot.kick(msg.room, msg.user, "asked"); error("and fails") end)
    """

    @Test func aStreamChatTrollIsMutedThenKicked() async throws {
        let server = try await StreamChatServer.start(.init(moderators: ["mod"]))
        defer { Task { await server.shutdown() } }
        let rec = Recorder()
        let runner = BotRunner(spec: try botSpec(name: "mod", port: server.port, plugins: [("rules", Self.plugin)]), observer: rec.observer)
        let run = Task { await runner.run() }
        #expect(await eventually { await runner.state == .online })
        let alice = try await Person("alice", port: server.port)
        let troll = try await Person("troll", port: server.port)

        try await troll.say("spam")
        #expect(await eventually { alice.texts(from: "mod") == ["mute: true nil"] })
        #expect(await eventually { !rec.logs(containing: "mute: troll in lobby for 5 s (spam)").isEmpty })
        // Muted: the server drops what the troll says; nobody hears it.
        try await troll.say("can anyone hear me")
        try await Task.sleep(for: .milliseconds(500))
        #expect(!alice.texts(from: "troll").contains("can anyone hear me"))
        // StreamChat messages have no ids: delete is not there, and says so
        // (once the mute is over, or the server would drop the line).
        try await Task.sleep(for: .seconds(5))
        try await troll.say("ad buy now")
        #expect(await eventually { alice.texts(from: "mod").last == "delete: nil not supported by streamchat" })
        // A failed handler's kick is never made.
        try await troll.say("!kickme")
        #expect(await eventually { !rec.logs(containing: "and fails").isEmpty })
        #expect(troll.isLinked)

        try await troll.say("SPAM")
        #expect(await eventually { alice.texts(from: "mod").last == "kick: true nil" })
        #expect(await eventually { alice.leaves(of: "troll") == 1 })
        #expect(await eventually { !troll.isLinked })
        // Logged once the server has answered the kick, which may come after the troll is gone.
        #expect(await eventually { !rec.logs(containing: "kick: troll from lobby (SPAM)").isEmpty })
        // The failed handler's kick would have been answered before the later one.
        #expect(rec.logs(containing: "kick: troll from lobby (asked)").isEmpty)
        await alice.leave()
        await runner.stop()
        _ = await run.value
    }

    /// A bot `mod` hearing "SPAM" with `rules`, online on an embedded
    /// StreamChat server that obeys it as a moderator.
    struct Moderated {
        let server: StreamChatServer
        let runner: BotRunner
        let run: Task<BotOutcome, Never>
        let rec: Recorder
    }

    static func moderated(_ rules: String, journal: Bool = false, moderators: [String] = ["mod"],
                          _ change: (inout BotSpec) -> Void = { _ in }) async throws -> Moderated {
        let server = try await StreamChatServer.start(.init(moderators: moderators))
        var spec = try botSpec(name: "mod", port: server.port, plugins: [("rules", rules)], journal: journal ? try temporaryDirectory().path : nil)
        change(&spec)
        let rec = Recorder()
        let runner = BotRunner(spec: spec, observer: rec.observer)
        let m = Moderated(server: server, runner: runner, run: Task { await runner.run() }, rec: rec)
        guard await eventually(20, { await runner.state == .online }) else { throw PeerError("the bot did not come online") }
        return m
    }

    /// With a journal a reply waits for its commit while a kick need not:
    /// the kick still goes out behind the reply its handler sent first, so
    /// the one kicked reads why.
    @Test func theReasonReachesTheRoomBeforeTheKick() async throws {
        let m = try await Self.moderated("""
        bot.hear("^SPAM$", function(msg)
          msg:reply("bye " .. msg.user .. ", no spam here")
          bot.kick(msg.room, msg.user, "spam")
        end)
        """, journal: true)
        defer { Task { await m.server.shutdown() } }
        for i in 1...4 {
            let troll = try await Person("troll\(i)", port: m.server.port)
            try await troll.say("SPAM")
            #expect(await eventually { !troll.isLinked }, "troll\(i) kicked")
            #expect(troll.texts(from: "mod") == ["bye troll\(i), no spam here"], "troll\(i) read the reason first")
        }
        await m.runner.stop()
        _ = await m.run.value
    }

    /// A kick waits for its reason's send; when that send is dropped (here
    /// held by the rate cap past `outbox_expiry`), the kick goes with it,
    /// logged, rather than coming late and without its reason.
    @Test func aKickWhoseReasonIsDroppedIsDroppedToo() async throws {
        let m = try await Self.moderated("""
        bot.hear("^SPAM$", function(msg)
          bot.send(msg.room, "one")
          bot.send(msg.room, "two")
          msg:reply("bye " .. msg.user)
          bot.kick(msg.room, msg.user, "spam", function(ok, err) bot.log.warn("told: " .. tostring(ok) .. " " .. err) end)
        end)
        """) { spec in
            spec.flow.sendRate = 0.5
            spec.flow.sendBurst = 1
            spec.presence.outboxExpiry = 1
        }
        defer { Task { await m.server.shutdown() } }
        let troll = try await Person("troll", port: m.server.port)
        try await troll.say("SPAM")
        #expect(await eventually(10) { !m.rec.logs(containing: "kick troll from lobby (spam) dropped with the send it waited for").isEmpty },
                "\(m.rec.logs.map(\.text))")
        try await Task.sleep(for: .milliseconds(500))
        #expect(troll.isLinked, "not kicked without the reason")
        #expect(troll.texts(from: "mod") == ["one"])
        #expect(m.rec.logs.contains { $0.text.hasPrefix("send to lobby dropped: made ") && $0.text.hasSuffix(" s ago, over outbox_expiry (1 s)") },
                "\(m.rec.logs.map(\.text))")
        // The plugin's function hears why, as an event of its own.
        #expect(await eventually { !m.rec.logs(containing: "told: nil dropped with the send it waited for (").isEmpty })
        await troll.leave()
        await m.runner.stop()
        _ = await m.run.value
    }

    /// A function passed to `bot.kick` or `bot.mute` hears how the step went,
    /// once the server answered: done, or refused in the server's words.
    @Test(arguments: [true, false]) func theModeratorHearsHowEachStepWent(obeyed: Bool) async throws {
        let m = try await Self.moderated("""
        local function told(msg, what)
          return function(ok, err) bot.send(msg.room, what .. ": " .. tostring(ok) .. " " .. tostring(err)) end
        end
        bot.hear("^spam$", function(msg) bot.mute(msg.room, msg.user, 60, "spam", told(msg, "mute")) end)
        bot.hear("^SPAM$", function(msg) bot.kick(msg.room, msg.user, "spam", told(msg, "kick")) end)
        bot.hear("^kick nobody$", function(msg) bot.kick(msg.room, "nobody", "asked", told(msg, "kick nobody")) end)
        bot.hear("^fail$", function(msg) bot.kick(msg.room, msg.user, "x", told(msg, "never")); error("and fails") end)
        bot.hear("^bad$", function(msg)
          local ok, err = pcall(bot.kick, msg.room, msg.user, "x", "not a function")
          msg:reply(tostring(ok) .. " " .. tostring(err))
        end)
        """, moderators: obeyed ? ["mod"] : [])
        defer { Task { await m.server.shutdown() } }
        let alice = try await Person("alice", port: m.server.port)
        let troll = try await Person("troll", port: m.server.port)
        try await troll.say("bad")
        #expect(await eventually { alice.texts(from: "mod").first?.hasPrefix("false ") == true })
        #expect(alice.texts(from: "mod").first?.contains("bot.kick: expected a function, got string") == true, "\(alice.texts(from: "mod"))")
        try await troll.say("fail")
        #expect(await eventually { !m.rec.logs(containing: "and fails").isEmpty })
        try await troll.say("kick nobody")
        #expect(await eventually { alice.texts(from: "mod").contains { $0.hasPrefix("kick nobody: nil ") } }, "\(alice.texts(from: "mod"))")
        // Eve is muted (a muted troll could not say the next line), the troll kicked.
        let eve = try await Person("eve", port: m.server.port)
        try await eve.say("spam")
        #expect(await eventually { alice.texts(from: "mod").contains { $0.hasPrefix("mute: ") } })
        try await troll.say("SPAM")
        if obeyed {
            #expect(await eventually { alice.texts(from: "mod").suffix(2) == ["mute: true nil", "kick: true nil"] }, "\(alice.texts(from: "mod"))")
            #expect(await eventually { !troll.isLinked })
        } else {
            #expect(await eventually { alice.texts(from: "mod").filter { $0.hasPrefix("mute: nil ") || $0.hasPrefix("kick: nil ") }.count == 2 },
                    "\(alice.texts(from: "mod"))")
            #expect(troll.isLinked)
        }
        // The failed handler's step was never taken, and its function never called.
        #expect(!alice.texts(from: "mod").contains { $0.hasPrefix("never") })
        await troll.leave()
        await eve.leave()
        await alice.leave()
        await m.runner.stop()
        _ = await m.run.value
    }

    /// A stop while a kick waits for its reason, with no journal: the kick
    /// would not outlive the run, so it is taken before the bot leaves, and
    /// logged as such. (With a journal both wait for the restart:
    /// `ModerationJournalTests`.)
    @Test func aKickStillWaitingIsTakenAtTheStop() async throws {
        let m = try await Self.moderated("""
        bot.hear("^SPAM$", function(msg)
          bot.send(msg.room, "one")
          msg:reply("bye " .. msg.user)
          bot.kick(msg.room, msg.user, "spam")
        end)
        """) { spec in
            spec.flow.sendRate = 0.2
            spec.flow.sendBurst = 1
        }
        defer { Task { await m.server.shutdown() } }
        let troll = try await Person("troll", port: m.server.port)
        try await troll.say("SPAM")
        #expect(await eventually { troll.texts(from: "mod") == ["one"] })
        await m.runner.stop(drainTimeout: 0.2)
        #expect(await m.run.value == .stopped)
        #expect(await eventually { !troll.isLinked }, "kicked at the stop")
        #expect(!m.rec.logs(containing: "kick: troll from lobby (spam) (at the stop, before the send it waited for)").isEmpty, "\(m.rec.logs.map(\.text))")
    }

    /// Kicks still waiting at a stop go together under one deadline: a
    /// server gone silent costs the stop that deadline once, not its
    /// 10 s answer timeout per kick.
    @Test func kicksTakenAtTheStopShareOneDeadline() async throws {
        let server = try await StreamChatServer.start(.init(moderators: ["mod"]))
        defer { Task { await server.shutdown() } }
        let proxy = try await LinkProxy.start(upstreamPort: server.port)
        defer { Task { await proxy.stop() } }
        var spec = try botSpec(name: "mod", port: proxy.port, plugins: [("rules", """
        bot.hear("^SPAM$", function(msg)
          msg:reply("bye " .. msg.user)
          bot.kick(msg.room, msg.user, "spam")
        end)
        """)])
        spec.flow.sendRate = 0.1
        spec.flow.sendBurst = 1
        let rec = Recorder()
        let runner = BotRunner(spec: spec, observer: rec.observer)
        let run = Task { await runner.run() }
        #expect(await eventually { await runner.state == .online })
        var trolls: [Person] = []
        for i in 1...4 {
            let troll = try await Person("troll\(i)", port: server.port)
            trolls.append(troll)
            try await troll.say("SPAM")
        }
        // The first reply goes at once, and its kick behind it; the rate cap holds the other three.
        #expect(await eventually { trolls.filter { !$0.isLinked }.count == 1 })
        try await Task.sleep(for: .milliseconds(200))
        proxy.blackhole()
        let start = ContinuousClock.now
        await runner.stop(drainTimeout: 1)
        let took = ContinuousClock.now - start
        #expect(took < .seconds(5), "stop took \(took)")
        #expect(!rec.logs(containing: "leaving with 3 moderation steps unanswered after 1 s").isEmpty, "\(rec.logs.map(\.text))")
        run.cancel()
        for t in trolls { await t.leave() }
    }

    @Test func aServerThatDoesNotObeyTheBotRefusesAndTheBotLogsIt() async throws {
        let server = try await StreamChatServer.start(.init(moderators: []))
        defer { Task { await server.shutdown() } }
        let rec = Recorder()
        let runner = BotRunner(spec: try botSpec(name: "mod", port: server.port, plugins: [("rules", Self.plugin)]), observer: rec.observer)
        let run = Task { await runner.run() }
        #expect(await eventually { await runner.state == .online })
        let troll = try await Person("troll", port: server.port)
        try await troll.say("SPAM")
        // The call is staged (the chat can kick), the server says no: logged, the bot goes on.
        #expect(await eventually { !rec.logs(containing: "kick refused: troll from lobby (SPAM)").isEmpty }, "\(rec.logs.map(\.text))")
        #expect(troll.isLinked)
        #expect(await runner.state == .online)
        await troll.leave()
        await runner.stop()
        _ = await run.value
    }

    @Test func onSocketIOAMessageIsDeleted() async throws {
        let server = try await SocketChatServer.start(.init(moderators: ["mod"]))
        defer { Task { await server.shutdown() } }
        let rec = Recorder()
        let transport = SocketIOTransport(endpoint: SocketIOEndpoint(host: "127.0.0.1", port: server.port), name: "mod", connectTimeout: 5)
        let runner = BotRunner(spec: try botSpec(name: "mod", port: server.port, plugins: [("rules", Self.plugin)], transport: transport),
                               observer: rec.observer)
        let run = Task { await runner.run() }
        #expect(await eventually { await runner.state == .online })
        let ann = try await Person("ann", transport: SocketIOTransport(endpoint: SocketIOEndpoint(host: "127.0.0.1", port: server.port),
                                                                      name: "ann", connectTimeout: 5))
        try await ann.say("ad cheap watches")
        #expect(await eventually { ann.texts(from: "mod") == ["delete: true nil"] })
        #expect(await eventually { rec.logs.contains { $0.text.hasPrefix("delete: message ") && $0.text.hasSuffix(" in lobby") } })
        await ann.leave()
        await runner.stop()
        _ = await run.value
    }
}
