import Foundation
import NIOCore
import NIOPosix
import ParleyCore
import ParleyRuntime
import ParleyStore
import ParleyStreamChat
import Synchronization
import Testing
import ParleyTestSupport

/// End to end over loopback: the embedded StreamChat server, real clients
/// (`Person`) and bots run by the runtime exactly as `parley run` runs them.
@Suite(.timeLimit(.minutes(2)))
struct RuntimeTests {
    static let greeter = """
    bot.on("join", function(ev)
      if ev.user ~= bot.name then bot.send(ev.room, "hi " .. ev.user) end
    end)
    """

    @Test func greetsAPersonWhoJoins() async throws {
        let server = try await StreamChatServer.start(.init())
        defer { Task { await server.shutdown() } }
        let rec = Recorder()
        let runner = BotRunner(spec: try botSpec(name: "greeter", port: server.port, plugins: [("greeter", Self.greeter)]),
                               observer: rec.observer)
        let run = Task { await runner.run() }
        #expect(await eventually { await runner.state == .online })
        let alice = try await Person("alice", port: server.port)
        #expect(await eventually { alice.texts(from: "greeter") == ["hi alice"] })
        await runner.stop()
        #expect(await run.value == .stopped)
        // The bot left cleanly: the person heard it go.
        #expect(await eventually { alice.messages.isEmpty == false })
        await alice.leave()
    }

    @Test func sendsAreCheckedAgainstStreamChatRules() async throws {
        let server = try await StreamChatServer.start(.init())
        defer { Task { await server.shutdown() } }
        let plugin = """
        -- Reports what bot.send said about each text it was asked to send.
        local function try(msg, text)
          local ok, err = bot.send(msg.room, text)
          -- The reason may quote the forbidden token, so it goes to the log, not the room.
          if not ok then bot.log.info("refused: " .. err); bot.send(msg.room, "refused") end
        end
        bot.command("emoji", function(msg, args)
          try(msg, string.rep("\u{1F44D}\u{1F3FD}", tonumber(args[1])))
        end)
        local tokens = { "USR_NAME::", "MSG::", "LEAVE::", "::END" }
        bot.command("token", function(msg, args) try(msg, "a " .. tokens[tonumber(args[1])] .. " b") end)
        bot.command("lines", function(msg) try(msg, "one\\ntwo\\n\\nthree") end)
        """
        let rec = Recorder()
        let runner = BotRunner(spec: try botSpec(name: "checker", port: server.port, plugins: [("checker", plugin)]),
                               observer: rec.observer)
        let run = Task { await runner.run() }
        #expect(await eventually { await runner.state == .online })
        let alice = try await Person("alice", port: server.port)
        try await alice.say("!emoji 300")
        try await alice.say("!emoji 301")
        for i in 1...4 { try await alice.say("!token \(i)") }
        try await alice.say("!lines")
        #expect(await eventually { alice.texts(from: "checker").count == 9 })
        let heard = alice.texts(from: "checker")
        // 300 thumbs-up with a skin tone: 300 Characters but 2,400 bytes, allowed.
        #expect(heard.first == String(repeating: "\u{1F44D}\u{1F3FD}", count: 300))
        #expect(heard.dropFirst().first == "refused")
        #expect(heard.filter { $0 == "refused" }.count == 5)
        #expect(rec.logs(containing: "refused: message too long: 301 characters, streamchat allows 300").count == 1)
        #expect(rec.logs(containing: "refused: message contains").count == 4)
        #expect(heard.suffix(3) == ["one", "two", "three"])
        await runner.stop()
        _ = await run.value
        await alice.leave()
    }

    /// Refusals held back by the one-line-a-second rule are said about a
    /// second later, with their count, without waiting for another event.
    @Test func heldBackRefusalsAreSaidWithinASecond() async throws {
        let server = try await StreamChatServer.start(.init())
        defer { Task { await server.shutdown() } }
        let plugin = #"bot.command("burst", function(msg) for i = 1, 4 do bot.send(msg.room, string.rep("x", 301)) end end)"#
        let rec = Recorder()
        let runner = BotRunner(spec: try botSpec(name: "burster", port: server.port, plugins: [("burster", plugin)]),
                               observer: rec.observer)
        let run = Task { await runner.run() }
        #expect(await eventually { await runner.state == .online })
        let alice = try await Person("alice", port: server.port)
        for _ in 0..<3 { try await alice.say("!burst") }
        // Each event's refusal is said, alone or counted in a later line, and
        // no count is left unsaid once the events stop (however far apart a
        // loaded machine spread them): the lines and their counts add up to 3.
        func said() -> Int {
            rec.logs(containing: "quota: message too long: 301 characters").reduce(0) { sum, line in
                let more = line.text.range(of: #"\(and (\d+) more like it"#, options: .regularExpression)
                    .flatMap { Int(line.text[$0].dropFirst(5).prefix { $0.isNumber }) } ?? 0
                return sum + 1 + more
            }
        }
        #expect(await eventually(5) { said() == 3 }, "\(rec.logs.map(\.text))")
        await runner.stop()
        _ = await run.value
        await alice.leave()
    }

    /// Someone joining under the bot's name takes it over; the bot says so,
    /// comes back after its backoff and takes its name back, so it never
    /// shares its name (it would take the other's lines for its echoes).
    @Test func aBotWhoseNameIsTakenComesBackForIt() async throws {
        let server = try await StreamChatServer.start(.init())
        defer { Task { await server.shutdown() } }
        let rec = Recorder()
        let runner = BotRunner(spec: try botSpec(name: "echo", port: server.port, plugins: [("p", #"bot.command("ping", function(m) m:reply("pong") end)"#)]),
                               observer: rec.observer)
        let run = Task { await runner.run() }
        #expect(await eventually { await runner.state == .online })
        // Alice is there before the impostor, so she hears both joins as
        // "echo": the impostor's and the bot's when it comes back. A bot is
        // online once its join is written; she speaks once the server has
        // announced it.
        let alice = try await Person("alice", port: server.port)
        let impostor = try await Person("echo", port: server.port)
        #expect(await eventually { !rec.logs(containing: "link lost: another connection took the bot's name: another connection joined as \"echo\"").isEmpty },
                "\(rec.logs.map(\.text))")
        #expect(await eventually { await runner.stats.reconnects >= 1 })
        #expect(await eventually { await runner.state == .online })
        #expect(await eventually { alice.joins(of: "echo") >= 2 })
        try await alice.say("!ping")
        #expect(await eventually { alice.texts(from: "echo") == ["pong"] }, "\(alice.texts(from: "echo"))")
        await runner.stop()
        _ = await run.value
        await impostor.leave()
        await alice.leave()
    }

    @Test func ownJoinIsNeverAnArrivalAndOwnEchoNeverAMessage() async throws {
        let server = try await StreamChatServer.start(.init())
        defer { Task { await server.shutdown() } }
        let plugin = """
        local seen = 0
        bot.on("join", function(ev) bot.log.info("join " .. ev.user) end)
        bot.on("message", function(msg)
          seen = seen + 1
          if msg.text == "!count" then bot.send(msg.room, "seen " .. seen) end
        end)
        """
        let rec = Recorder()
        let runner = BotRunner(spec: try botSpec(name: "counter", port: server.port, plugins: [("counter", plugin)]),
                               observer: rec.observer)
        let run = Task { await runner.run() }
        #expect(await eventually { await runner.state == .online })
        // The bot is online once its name is written; it hears who arrives
        // only once the server has registered it.
        #expect(await eventually { server.stats.registeredClients == 1 })
        let bob = try await Person("bob", port: server.port)
        try await bob.say("!count")
        try await bob.say("!count")
        #expect(await eventually { bob.texts(from: "counter") == ["seen 1", "seen 2"] })
        #expect(rec.logs(containing: "join counter").isEmpty)
        #expect(rec.logs(containing: "join bob").count == 1)
        await runner.stop()
        _ = await run.value
        await bob.leave()
    }

    /// A listener that closes every connection `after` it was accepted, as a
    /// balancer with no healthy backend does.
    static func dropping(after: TimeAmount) async throws -> any Channel {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { ch in
                ch.eventLoop.scheduleTask(in: after) { ch.close(promise: nil) }
                return ch.eventLoop.makeSucceededVoidFuture()
            }
            .bind(host: "127.0.0.1", port: 0).get()
    }

    /// Links dropped at once are failed attempts: the backoff grows and
    /// `max_attempts` ends it, instead of a reconnect a few times a second forever.
    @Test func aServerThatDropsEveryLinkAtOnceExhaustsMaxAttempts() async throws {
        let server = try await Self.dropping(after: .milliseconds(0))
        defer { server.close(promise: nil) }
        var presence = PresenceOptions()
        presence.backoffInitial = 0.01
        presence.backoffMax = 0.5
        presence.maxAttempts = 3
        let runner = BotRunner(spec: try botSpec(name: "dropped", port: server.localAddress!.port!, plugins: [], presence: presence),
                               observer: Recorder().observer)
        let outcome = await runner.run()
        guard case .gaveUp = outcome else {
            Issue.record("expected gaveUp, got \(outcome)")
            return
        }
    }

    /// A link that held (longer than the longest backoff, here) starts afresh
    /// when lost: losing it is no failed attempt, even with `max_attempts = 1`.
    /// Dropped after 3 s, so a loaded machine's slow login still leaves it held.
    @Test func aLinkThatHeldIsNoFailedAttempt() async throws {
        let server = try await Self.dropping(after: .seconds(3))
        defer { server.close(promise: nil) }
        var presence = PresenceOptions()
        presence.backoffInitial = 0.01
        presence.backoffMax = 0.1
        presence.maxAttempts = 1
        let runner = BotRunner(spec: try botSpec(name: "held", port: server.localAddress!.port!, plugins: [], presence: presence),
                               observer: Recorder().observer)
        let run = Task { await runner.run() }
        #expect(await eventually(20) { await runner.stats.reconnects >= 2 })
        await runner.stop()
        #expect(await run.value == .stopped)
    }

    @Test func givesUpAfterMaxAttemptsAndSaysSo() async throws {
        // A port nobody listens on: bind a server, note its port, close it.
        let probe = try await StreamChatServer.start(.init())
        let port = probe.port
        await probe.shutdown()
        var presence = PresenceOptions()
        presence.backoffInitial = 0.01
        presence.backoffMax = 0.02
        presence.maxAttempts = 3
        let rec = Recorder()
        let plugin = #"bot.on("connection", function(ev) bot.log.info("state " .. ev.state) end)"#
        let runner = BotRunner(spec: try botSpec(name: "quitter", port: port, plugins: [("quitter", plugin)], presence: presence),
                               observer: rec.observer)
        let outcome = await runner.run()
        guard case .gaveUp = outcome else {
            Issue.record("expected gaveUp, got \(outcome)")
            return
        }
        #expect(rec.connectionStates.filter { $0 == .connecting }.count == 3)
        #expect(rec.connectionStates.last == .gaveUp)
        #expect(rec.logs(containing: "state gave_up").count == 1)
        #expect(await runner.stats.connectFailures == 3)
    }

    @Test func backoffBoundsGrowExponentiallyToTheCap() {
        var p = PresenceOptions()
        p.backoffInitial = 0.5
        p.backoffFactor = 2
        p.backoffMax = 30
        #expect((1...8).map { p.backoffBound(attempt: $0) } == [0.5, 1, 2, 4, 8, 16, 30, 30])
    }
}

/// A running bot with a journal takes the history retention dropped off the
/// disk at its trim check.
@Suite(.timeLimit(.minutes(2)))
struct TrimCheckTests {
    @Test func aRunningBotTakesDroppedHistoryOffTheDisk() async throws {
        let server = try await StreamChatServer.start(.init())
        defer { Task { await server.shutdown() } }
        let journal = try temporaryDirectory().path
        var spec = try botSpec(name: "keeper", port: server.port, plugins: [("quiet", "-- hears everything, says nothing")], journal: journal)
        spec.options.history = HistoryRetention(maxMessagesPerRoom: 3)
        spec.trimCheckSeconds = 0.5
        @Sendable func onDisk(_ text: String) -> Bool {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: journal)) ?? []
            return files.contains { f in (FileManager.default.contents(atPath: journal + "/" + f) ?? Data()).range(of: Data(text.utf8)) != nil }
        }
        let runner = BotRunner(spec: spec, observer: Recorder().observer)
        let run = Task { await runner.run() }
        let alice = try await Person("alice", port: server.port)
        #expect(await eventually { await runner.state == .online })
        for i in 1...10 { try await alice.say("said \(i);") }
        #expect(await eventually { onDisk("said 10;") })
        #expect(await eventually(10) { !onDisk("said 1;") && !onDisk("said 7;") }, "dropped history still on disk")
        #expect(onDisk("said 8;") && onDisk("said 10;"), "kept history stays")
        await runner.stop()
        #expect(await run.value == .stopped)
        await alice.leave()
    }
}

/// Presence across server restarts and bot crashes.
@Suite(.timeLimit(.minutes(3)))
struct RecoveryTests {
    @Test func comesBackAfterFiveServerRestartsWithoutGreetingTwice() async throws {
        var server = try await StreamChatServer.start(.init())
        let port = server.port
        // Every time the bot goes offline it queues a notice; each must reach
        // the room exactly once after the reconnect (the server echoes it back).
        let notifier = """
        bot.on("connection", function(ev)
          if ev.state == "offline" then
            local n = (bot.state.get("offline") or 0) + 1
            bot.state.set("offline", n)
            bot.send("lobby", "offline notice " .. n)
          end
        end)
        """
        let echoes = Mutex<[String]>([])
        let rec = Recorder()
        var observer = rec.observer
        observer.event = { bot, event in
            if case .message(let m) = event, m.user == "greeter" { echoes.withLock { $0.append(m.text) } }
        }
        let journal = try temporaryDirectory().path
        let spec = try botSpec(name: "greeter", port: port, plugins: [("notifier", notifier)], journal: journal,
                               shippedPlugins: ["greeter"])
        let runner = BotRunner(spec: spec, observer: observer)
        let run = Task { await runner.run() }
        #expect(await eventually { await runner.state == .online })
        // Online means the bot's name is on its way; StreamChat has no roster,
        // so alice must register after the server has read it or the bot never
        // hears her join (seen once under load).
        let first = server
        #expect(await eventually { first.stats.registeredClients == 1 })
        var alice = try await Person("alice", port: port)
        #expect(await eventually { echoes.withLock { $0.contains { $0.contains("alice") } } })

        for k in 1...5 {
            await server.shutdown()
            try await Task.sleep(for: .milliseconds(150))
            server = try await StreamChatServer.start(.init(port: port))
            #expect(await eventually { let s = await runner.stats; let st = await runner.state; return s.reconnects == k && st == .online }, "restart \(k)")
            // alice's client reconnects too, and joins again.
            alice = try await Person("alice", port: port)
            #expect(await eventually { echoes.withLock { $0.contains("offline notice \(k)") } }, "notice \(k)")
        }
        try await Task.sleep(for: .milliseconds(300))
        let heard = echoes.withLock { $0 }
        #expect(heard.filter { $0.contains("alice") }.count == 1, "alice was greeted once: \(heard)")
        for k in 1...5 { #expect(heard.filter { $0 == "offline notice \(k)" }.count == 1, "\(heard)") }
        // Each outage's end is logged once, with how long it lasted.
        let back = rec.logs(containing: "back online after ").map(\.text)
        #expect(back.count == 5 && (1...5).allSatisfy { k in back[k - 1].hasSuffix(" s offline (reconnect \(k))") }, "\(back)")
        await runner.stop()
        #expect(await run.value == .stopped)
        await alice.leave()
        await server.shutdown()
    }
}

@Suite(.timeLimit(.minutes(2)))
struct HotReloadTests {
    static func version(_ v: String) -> String {
        """
        bot.command("ver", function(msg)
          local n = (bot.state.get("n") or 0) + 1
          bot.state.set("n", n)
          msg:reply("\(v) " .. n)
        end)
        """
    }

    /// A plugin mounted as a Kubernetes ConfigMap is a link to `..data/NAME`,
    /// and an update swaps `..data`: the watch follows the links.
    @Test func aPluginBehindSwappedSymlinksReloads() async throws {
        let server = try await StreamChatServer.start(.init())
        defer { Task { await server.shutdown() } }
        let dir = try temporaryDirectory()
        let fm = FileManager.default
        for (version, folder) in [("v1", "..2026_1"), ("v2", "..2026_2")] {
            try fm.createDirectory(atPath: dir.appendingPathComponent(folder).path, withIntermediateDirectories: true)
            try Self.version(version).write(toFile: dir.appendingPathComponent("\(folder)/ver.lua").path, atomically: true, encoding: .utf8)
        }
        try fm.createSymbolicLink(atPath: dir.appendingPathComponent("..data").path, withDestinationPath: "..2026_1")
        try fm.createSymbolicLink(atPath: dir.appendingPathComponent("ver.lua").path, withDestinationPath: "..data/ver.lua")
        var spec = try botSpec(name: "bot", port: server.port, plugins: [])
        spec.plugins = [.init(name: "ver", path: dir.appendingPathComponent("ver.lua").path)]
        let rec = Recorder()
        let fleet = Fleet(specs: [spec], observer: rec.observer)
        let run = Task { await fleet.run(watchPlugins: true) }
        #expect(await eventually { await fleet.runners[0].state == .online })
        // The swap, as the kubelet makes it: a new link renamed over the old one.
        try fm.createSymbolicLink(atPath: dir.appendingPathComponent("..data_tmp").path, withDestinationPath: "..2026_2")
        #expect(rename(dir.appendingPathComponent("..data_tmp").path, dir.appendingPathComponent("..data").path) == 0)
        #expect(await eventually { !rec.logs(containing: "plugin ver reloaded").isEmpty })
        let alice = try await Person("alice", port: server.port)
        try await alice.say("!ver")
        #expect(await eventually { alice.texts(from: "bot") == ["v2 1"] })
        await alice.leave()
        await fleet.stop()
        _ = await run.value
    }

    @Test func aChangedPluginReloadsWithItsStateAndABrokenOneKeepsTheOld() async throws {
        let server = try await StreamChatServer.start(.init())
        defer { Task { await server.shutdown() } }
        let spec = try botSpec(name: "bot", port: server.port, plugins: [("ver", Self.version("v1"))])
        let file = spec.plugins[0].path
        let rec = Recorder()
        let fleet = Fleet(specs: [spec], observer: rec.observer)
        let runner = fleet.runners[0]
        let run = Task { await fleet.run(watchPlugins: true) }
        #expect(await eventually { await runner.state == .online })
        let alice = try await Person("alice", port: server.port)
        try await alice.say("!ver")
        #expect(await eventually { alice.texts(from: "bot") == ["v1 1"] })

        try Self.version("v2").write(toFile: file, atomically: true, encoding: .utf8)
        #expect(await eventually { !rec.logs(containing: "plugin ver reloaded").isEmpty })
        try await alice.say("!ver")
        #expect(await eventually { alice.texts(from: "bot") == ["v1 1", "v2 2"] })

        try "bot.command(\"ver\", function(msg) msg:reply(\"v3\") end".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(await eventually { !rec.logs(containing: "not reloaded; the old version keeps running").isEmpty })
        try await alice.say("!ver")
        #expect(await eventually { alice.texts(from: "bot") == ["v1 1", "v2 2", "v2 3"] })
        #expect(rec.logs.contains { $0.level == .error && $0.text.hasPrefix("syntax:") })
        #expect(rec.logs(containing: "failed to load and does not run").isEmpty, "a failed reload says only that the old version runs on")

        // The file goes: said once, and the loaded version answers on; back, it loads.
        try FileManager.default.removeItem(atPath: file)
        #expect(await eventually { !rec.logs(containing: "its file \(file) is gone or cannot be read").isEmpty })
        try await alice.say("!ver")
        #expect(await eventually { alice.texts(from: "bot") == ["v1 1", "v2 2", "v2 3", "v2 4"] })
        try await Task.sleep(for: .seconds(1.5))
        #expect(rec.logs(containing: "is gone or cannot be read").count == 1)
        try Self.version("v4").write(toFile: file, atomically: true, encoding: .utf8)
        #expect(await eventually { rec.logs(containing: "plugin ver reloaded").count == 2 })
        try await alice.say("!ver")
        #expect(await eventually { alice.texts(from: "bot") == ["v1 1", "v2 2", "v2 3", "v2 4", "v4 5"] })
        await fleet.stop()
        _ = await run.value
        await alice.leave()
    }

    /// A fleet that shares a plugin file logs a reload, a failed one, an
    /// unreadable file at SIGHUP and the stop once each, plus one line for
    /// the other bots, not once per bot.
    @Test func aFleetSumsUpItsReloadsAndItsStop() async throws {
        let server = try await StreamChatServer.start(.init())
        defer { Task { await server.shutdown() } }
        let first = try botSpec(name: "bot1", port: server.port, plugins: [("ver", Self.version("v1"))])
        let file = first.plugins[0].path
        var specs = [first]
        for n in 2...3 {
            var spec = try botSpec(name: "bot\(n)", port: server.port, plugins: [])
            spec.plugins = first.plugins
            specs.append(spec)
        }
        let rec = Recorder()
        let fleet = Fleet(specs: specs, observer: rec.observer)
        let run = Task { await fleet.run(watchPlugins: true) }
        for r in fleet.runners { #expect(await eventually { await r.state == .online }) }
        // Each bot's first time online is a line, and the last one's is the whole fleet's.
        #expect(await eventually { rec.logs(containing: "all 3 bots online, ").count == 1 }, "\(rec.logs.map(\.text))")
        #expect(rec.logs.filter { $0.text == "online (streamchat)" }.map(\.bot).sorted() == ["bot1", "bot2", "bot3"], "\(rec.logs.map(\.text))")

        try Self.version("v2").write(toFile: file, atomically: true, encoding: .utf8)
        #expect(await eventually { !rec.logs(containing: "plugin ver reloaded in 2 more bots that load it").isEmpty }, "\(rec.logs.map(\.text))")
        #expect(rec.logs(containing: "plugin ver reloaded").count == 2)
        // An edit and then a SIGHUP are one reload: the watcher knows the file is loaded.
        try Self.version("v3").write(toFile: file, atomically: true, encoding: .utf8)
        await fleet.reloadPlugins()
        try await Task.sleep(for: .milliseconds(2500))
        #expect(rec.logs(containing: "plugin ver reloaded").count == 4, "\(rec.logs.map(\.text))")
        // A bot whose load fails alone is said, with its error.
        try ("if bot.name == \"bot2\" then error(\"only bot2 cannot load\") end\n" + Self.version("v4"))
            .write(toFile: file, atomically: true, encoding: .utf8)
        #expect(await eventually { !rec.logs(containing: "plugin ver not reloaded in 1 more bot that loads it; the old version keeps running; the first error, in bot2: runtime: ").isEmpty },
                "\(rec.logs.map(\.text))")
        #expect(rec.logs(containing: "only bot2 cannot load").count == 1, "\(rec.logs.map(\.text))")
        #expect(!rec.logs(containing: "plugin ver reloaded in 1 more bot that loads it").isEmpty, "\(rec.logs.map(\.text))")
        try "bot.command(\"ver\", function(msg) end".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(await eventually { !rec.logs(containing: "plugin ver not reloaded in 2 more bots that load it; the old version keeps running; the first error, in bot2: syntax: ").isEmpty })
        #expect(rec.logs.filter { $0.text.hasPrefix("syntax:") }.count == 1, "the first bot shows the error: \(rec.logs.map(\.text))")
        // SIGHUP with the file gone: the file is at fault, not the plugin.
        try FileManager.default.removeItem(atPath: file)
        await fleet.reloadPlugins()
        #expect(rec.logs.filter { $0.level == .warn && $0.text.hasPrefix("plugin ver not reloaded: cannot read \(file)") && $0.text.hasSuffix("the loaded version runs on") }.count == 1,
                "\(rec.logs.map(\.text))")
        #expect(!rec.logs(containing: "plugin ver not reloaded in 2 more bots that load it: cannot read").isEmpty)
        #expect(rec.logs.filter { $0.text.hasPrefix("runtime:") }.isEmpty, "\(rec.logs.map(\.text))")
        await fleet.stop()
        // A SIGHUP once the bots are stopping reloads nothing.
        await fleet.reloadPlugins()
        #expect(rec.logs(containing: "SIGHUP ignored: the bots are stopping").count == 1)
        _ = await run.value
        #expect(rec.logs(containing: "all 3 bots stopped").count == 1)
        #expect(rec.logs.filter { $0.text == "stopped" }.isEmpty, "\(rec.logs.map(\.text))")
    }

    /// A fleet's stop says the sends its bots left in one line, not a line
    /// a bot: how many bots and sends, the first names, and their fate.
    @Test func aFleetsStopSaysTheSendsItsBotsLeftInOneLine() async throws {
        let server = try await StreamChatServer.start(.init())
        defer { Task { await server.shutdown() } }
        let talk = """
        -- Ten lines once online, at one send a second: a quick stop leaves most.
        bot.on("connection", function(ev)
          if ev.state == "online" then
            for i = 1, 10 do bot.send("lobby", "line " .. i) end
          end
        end)
        """
        var specs: [BotSpec] = []
        for n in 1...5 {
            // Four keep their sends in a journal; the fifth has none.
            let journal = n < 5 ? try temporaryDirectory().path : nil
            var spec = try botSpec(name: "t\(n)", port: server.port, plugins: [("talk", talk)], journal: journal)
            spec.flow.sendRate = 1
            spec.flow.sendBurst = 1
            specs.append(spec)
        }
        let rec = Recorder()
        let fleet = Fleet(specs: specs, observer: rec.observer)
        let run = Task { await fleet.run() }
        #expect(await eventually { rec.logs(containing: "all 5 bots online").count == 1 })
        await withTaskGroup(of: Void.self) { group in
            for r in fleet.runners { group.addTask { await r.stop(drainTimeout: 0.3) } }
        }
        #expect(await run.value == Array(repeating: .stopped, count: 5))
        #expect(rec.logs(containing: "stopping with ").isEmpty, "\(rec.logs(containing: "stopping with ").map(\.text))")
        let line = rec.logs(containing: "bots stopped with ").map(\.text)
        #expect(line.count == 1, "\(rec.logs.map(\.text))")
        // "5 bots stopped with 43 sends not delivered (t1, t2, t3 and 2 more): their journals send 35 after the restart (…); 8 are lost, …"
        let words = line.first?.split(separator: " ") ?? []
        let total = words.count > 4 ? Int(words[4]) ?? 0 : 0
        // At most all 50: on a loaded machine a bot may stop before even its first send's echo.
        #expect(line.first?.hasPrefix("5 bots stopped with ") == true && (5...50).contains(total), "\(line)")
        #expect(line.first?.contains(" and 2 more): their journals send ") == true, "\(line)")
        #expect(line.first?.hasSuffix(" are lost, as their bots have no journal") == true, "\(line)")
    }

    /// Past 100 bots the dashboard shows the ones that are not online first:
    /// two broken bots at the end of a fleet of 102 are on it.
    @Test func aLargeFleetsDashboardShowsItsOfflineBotsFirst() async throws {
        let server = try await StreamChatServer.start(.init())
        defer { Task { await server.shutdown() } }
        let closed = try freePort()
        var specs = try (1...100).map { try botSpec(name: "b\($0)", port: server.port, plugins: []) }
        specs += try (1...2).map { try botSpec(name: "z\($0)", port: closed, plugins: []) }
        let fleet = Fleet(specs: specs, observer: Recorder().observer)
        let run = Task { await fleet.run() }
        for r in fleet.runners.prefix(100) { #expect(await eventually { await r.state == .online }) }
        let report = await FleetWatch().report(fleet.runners)
        #expect(report.botCount == 102 && report.bots.count == 100)
        #expect(report.bots.prefix(2).map(\.name) == ["z1", "z2"], "\(report.bots.prefix(3).map(\.name))")
        await fleet.stop()
        _ = await run.value
    }

    /// A server restart under a fleet loses every link at once: the log
    /// says ten a second and then how many more, rather than a line a bot,
    /// and the same for the returns.
    @Test func aFleetsLostLinksAndReturnsAreSaidTenASecond() async throws {
        var server = try await StreamChatServer.start(.init())
        let port = server.port
        let specs = try (1...30).map { try botSpec(name: "b\($0)", port: port, plugins: []) }
        let rec = Recorder()
        let fleet = Fleet(specs: specs, observer: rec.observer)
        let run = Task { await fleet.run() }
        #expect(await eventually { rec.logs(containing: "all 30 bots online").count == 1 })
        await server.shutdown()
        #expect(await eventually { !rec.logs(containing: "more lost links of this process held back").isEmpty }, "\(rec.logs.map(\.text))")
        server = try await StreamChatServer.start(.init(port: port))
        defer { Task { [server] in await server.shutdown() } }
        var back = 0
        for r in fleet.runners where await eventually(20, { await r.state == .online }) { back += 1 }
        #expect(back == 30)
        #expect(await eventually { !rec.logs(containing: "more returns online of this process held back").isEmpty }, "\(rec.logs.map(\.text))")
        let lost = rec.logs(containing: "link lost: ").count, returned = rec.logs(containing: "back online after").count
        #expect(lost < 30 && returned < 30, "\(lost) link lost and \(returned) back online lines")
        await fleet.stop()
        _ = await run.value
    }

    /// A plugin that failed to load at start has no old version: once its
    /// file is fixed it loads, in its place in the load order.
    @Test func aPluginThatFailedAtStartLoadsOnceFixed() async throws {
        let server = try await StreamChatServer.start(.init())
        defer { Task { await server.shutdown() } }
        let spec = try botSpec(name: "bot", port: server.port, plugins: [("first", #"error("boom at load")"#), ("second", Self.version("two"))])
        let file = spec.plugins[0].path
        let rec = Recorder()
        let fleet = Fleet(specs: [spec], observer: rec.observer)
        let run = Task { await fleet.run(watchPlugins: true) }
        #expect(await eventually { await fleet.runners[0].state == .online })
        // The dashboard shows a configured plugin that is not running, with why.
        func card(_ name: String) async -> PluginReport? {
            await FleetWatch().report(fleet.runners).bots.first?.plugins.first { $0.name == name }
        }
        let missing = await card("first")
        #expect(missing?.running == false && missing?.loadProblem?.hasPrefix("runtime: first.lua:1: boom at load") == true, "\(String(describing: missing))")
        let alice = try await Person("alice", port: server.port)
        // Still broken, edited: said plainly, with no old version to speak of.
        try #"error("still broken")"#.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(await eventually { !rec.logs(containing: "plugin first still does not load, and does not run").isEmpty })
        #expect(rec.logs(containing: "failed to load and does not run").count == 1, "said at start only: \(rec.logs.map(\.text))")
        try #"bot.command("first", function(msg) msg:reply("first is here") end)"#.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(await eventually { !rec.logs(containing: "plugin first loaded (it did not load at start)").isEmpty })
        try await alice.say("!first")
        #expect(await eventually { alice.texts(from: "bot") == ["first is here"] })
        try await alice.say("!ver")
        #expect(await eventually { alice.texts(from: "bot") == ["first is here", "two 1"] })
        #expect(rec.logs(containing: "not reloaded; the old version keeps running").isEmpty)
        let fixed = await card("first")
        let handled = fixed?.events ?? 0
        #expect(fixed?.running == true && fixed?.loadProblem == nil && handled > 0, "\(String(describing: fixed))")
        // A failed reload: the card keeps its figures, counts the error and says the earlier version runs.
        try "bot.command(\"first\", function(msg) end".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(await eventually { !rec.logs(containing: "plugin first not reloaded; the old version keeps running").isEmpty })
        let stale = await card("first")
        #expect(stale?.running == true && stale?.events == handled && stale?.errors["syntax"] == 1
                && stale?.loadProblem?.hasPrefix("syntax: ") == true, "\(String(describing: stale))")
        // A good reload clears the problem and keeps the count.
        try #"bot.command("first", function(msg) msg:reply("first again") end)"#.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(await eventually { await card("first")?.loadProblem == nil })
        #expect(await card("first")?.events ?? 0 >= handled)
        await fleet.stop()
        _ = await run.value
        await alice.leave()
    }
}

@Suite(.timeLimit(.minutes(2)))
struct ModerationTests {
    /// The shipped moderator over loopback: strikes are kept in its journal,
    /// so a restarted moderator escalates where the first one stopped.
    @Test func strikesSurviveARestart() async throws {
        let server = try await StreamChatServer.start(.init())
        defer { Task { await server.shutdown() } }
        let journal = try temporaryDirectory().path
        let rec = Recorder()
        func moderator() throws -> BotRunner {
            BotRunner(spec: try botSpec(name: "moderator", port: server.port, plugins: [], journal: journal,
                                        shippedPlugins: ["moderator"]), observer: rec.observer)
        }
        let bob = try await Person("bob", port: server.port)
        let first = try moderator()
        let firstRun = Task { await first.run() }
        #expect(await eventually { await first.state == .online })
        // Online means the bot sent USR_NAME; bob speaks once the server has
        // announced it, or the server could relay his line before it is a member.
        #expect(await eventually { bob.joins(of: "moderator") == 1 })
        try await bob.say("oh heck")
        #expect(await eventually { rec.logs(containing: "audit user=bob strike=1").count == 1 })
        try await bob.say("darn it")
        #expect(await eventually { rec.logs(containing: "audit user=bob strike=2").count == 1 })
        await first.stop()
        #expect(await firstRun.value == .stopped)

        let second = try moderator()
        let secondRun = Task { await second.run() }
        #expect(await eventually { await second.state == .online })
        #expect(await eventually { bob.joins(of: "moderator") == 2 })
        try await bob.say("frak")
        #expect(await eventually { rec.logs(containing: "audit user=bob strike=3").count == 1 }, "\(rec.logs.map(\.text))")
        // The moderator said so in the room, each time; this server has no
        // moderators, so the mute of strike 3 is refused and put right in the room.
        #expect(await eventually { bob.texts(from: "moderator").count == 4 }, "\(bob.texts(from: "moderator")) \(rec.logs.map(\.text))")
        #expect(bob.texts(from: "moderator").last == #"(I could not mute bob after all: "moderator" is not a moderator)"#)
        await second.stop()
        _ = await secondRun.value
        await bob.leave()
    }
}
