import Foundation
import ParleyCore
import ParleyLua
import ParleyRuntime
import ParleyStreamChat
import Testing
import ParleyTestSupport

/// `[bot.flow]` end to end over the embedded StreamChat server: a flood the
/// plugins cannot keep up with is shed per room (drop-oldest, counted,
/// logged) and a canary after it is still answered promptly; the outgoing
/// rate cap holds; a plugin that tries to send without end is refused and
/// reported, not obeyed.
@Suite(.timeLimit(.minutes(3)), .serialized)
struct FloodTests {
    @Test func aFloodIsShedOldestFirstAndTheCanaryAfterItIsAnswered() async throws {
        let server = try await StreamChatServer.start(.init())
        defer { Task { await server.shutdown() } }
        let slow = """
        -- 5 ms of work per message: at most 200 messages a second. The
        -- canary's answer says how many flood messages the plugin got.
        local handled = 0
        bot.on("message", function(msg)
          if msg.text == "canary" then msg:reply("tweet " .. handled) return end
          handled = handled + 1
          local t = os.clock() + 0.005
          while os.clock() < t do end
        end)
        """
        let rec = Recorder()
        var spec = try botSpec(name: "moderator", port: server.port, plugins: [("slow", slow)])
        spec.flow.roomQueue = 100
        // The person first: StreamChat has no roster, so only someone already
        // in the room hears the bot arrive.
        let flooder = try await Person("flooder", port: server.port)
        let runner = BotRunner(spec: spec, observer: rec.observer)
        let run = Task { await runner.run() }
        #expect(await eventually { flooder.joins(of: "moderator") == 1 })

        // 3,000 messages as fast as the socket takes them: 15 s of plugin work.
        for i in 1...3_000 { try await flooder.say("flood \(i)") }
        let sent = ContinuousClock.now
        try await flooder.say("canary")
        #expect(await eventually { flooder.texts(from: "moderator").contains { $0.hasPrefix("tweet") } }, "the canary was answered")
        let answeredIn = ContinuousClock.now - sent
        // With 100 waiting at most, the canary waits ~0.5 s of work; a debug
        // build on a loaded CI machine gets some slack (the 1 s figure is `make bench`'s).
        #expect(answeredIn < .seconds(5), "canary answered in \(answeredIn)")
        // How much is shed depends on how fast the flood arrives (a loaded
        // machine sends it slower); that every flood message was either
        // handled or shed, and that the flood was shed at all, does not.
        let handled = flooder.texts(from: "moderator").first { $0.hasPrefix("tweet ") }.flatMap { Int($0.dropFirst(6)) }
        // The runner reports shedding once a second and when the session ends:
        // the count is complete only once it has stopped.
        await runner.stop()
        _ = await run.value
        let shed = await runner.stats.eventsShed
        #expect(shed > 0, "shed \(shed) of 3,000")
        #expect(handled.map { $0 + shed } == 3_000, "handled \(handled.map(String.init) ?? "?"), shed \(shed)")
        // One bot's lines are never held back: together they count all it shed.
        let logged = rec.logs(containing: "room lobby: shed ").compactMap { Self.shedCount($0.text) }.reduce(0, +)
        #expect(logged == shed, "the log counts \(logged) of \(shed) shed")
        await flooder.leave()
    }

    /// "room lobby: shed 12 incoming events (…)" → 12.
    static func shedCount(_ text: String) -> Int? {
        let words = text.split(separator: " ")
        return words.count > 3 && words[2] == "shed" ? Int(words[3]) : nil
    }

    /// Thirty bots in a room a person floods all shed at once: the process
    /// says so in at most ten lines a second (and how many it held back),
    /// and no bot's lines count more than it shed.
    @Test func aFleetSheddingInOneRoomIsToldInFewLines() async throws {
        let server = try await StreamChatServer.start(.init())
        defer { Task { await server.shutdown() } }
        let slow = """
        -- 2 ms of work per message: every bot falls behind a flood at once.
        bot.on("message", function()
          local t = os.clock() + 0.002
          while os.clock() < t do end
        end)
        """
        let rec = Recorder()
        // One observer for all: its held-back lines are the process's.
        let observer = rec.observer
        let flooder = try await Person("flooder", port: server.port)
        var runners: [BotRunner] = []
        var runs: [Task<BotOutcome, Never>] = []
        for i in 0..<30 {
            var spec = try botSpec(name: "b\(i)", port: server.port, plugins: [("slow", slow)])
            spec.flow.roomQueue = 5
            let runner = BotRunner(spec: spec, observer: observer)
            runners.append(runner)
            runs.append(Task { await runner.run() })
        }
        #expect(await eventually { (0..<30).allSatisfy { flooder.joins(of: "b\($0)") == 1 } })
        // Four floods a second apart: the bots shed for seconds, each saying so about once a second.
        for round in 1...4 {
            for i in 1...200 { try await flooder.say("flood \(round) \(i)") }
            try await Task.sleep(for: .seconds(1))
        }
        for runner in runners { await runner.stop() }
        for run in runs { _ = await run.value }

        let lines = rec.logs(containing: ": shed ").filter { $0.bot != "parley" }
        let span = (lines.last?.time ?? 0) - (lines.first?.time ?? 0)
        // A bucket of ten lines that refills at ten a second.
        #expect(Double(lines.count) <= 10 * (1 + span) + 1, "\(lines.count) shed lines in \(span) s")
        #expect(!rec.logs(containing: "shed reports of this process held back").isEmpty)
        for runner in runners {
            let shed = await runner.stats.eventsShed
            let logged = lines.filter { $0.bot == runner.name }.compactMap { Self.shedCount($0.text) }.reduce(0, +)
            #expect(shed > 0 && logged <= shed, "\(runner.name): shed \(shed), the log counts \(logged)")
        }
        await flooder.leave()
    }

    /// On StreamChat each line of a text is a message of its own, so the rate
    /// cap charges a text a token a line (a burst's worth at most): two
    /// four-line texts at two a second, burst four, hold the send after them
    /// for about 2.5 s, where a token a text would let it go at once.
    @Test func aMultiLineTextOnStreamChatCostsTheRateCapALineEach() async throws {
        let server = try await StreamChatServer.start(.init())
        defer { Task { await server.shutdown() } }
        let talker = """
        bot.command("poem", function(msg)
          bot.send(msg.room, "a1\\na2\\na3\\na4")
          bot.send(msg.room, "b1\\nb2\\nb3\\nb4")
          bot.send(msg.room, "after")
        end)
        """
        var spec = try botSpec(name: "poet", port: server.port, plugins: [("talker", talker)])
        spec.flow.sendRate = 2
        spec.flow.sendBurst = 4
        let alice = try await Person("alice", port: server.port)
        let runner = BotRunner(spec: spec, observer: Recorder().observer)
        let run = Task { await runner.run() }
        #expect(await eventually { alice.joins(of: "poet") == 1 })
        // Timed from before the ask, so a late look at the room cannot shorten it.
        let asked = ContinuousClock.now
        try await alice.say("!poem")
        #expect(await eventually(10) { alice.texts(from: "poet").contains("after") })
        let waited = (ContinuousClock.now - asked) / .seconds(1)
        // 4 tokens, then 0.5 s for the second text's first token (it takes 4: -3), then 2 s for "after".
        #expect(waited > 2.4, "the send after two four-line texts came \(waited) s after the ask")
        #expect(alice.texts(from: "poet") == ["a1", "a2", "a3", "a4", "b1", "b2", "b3", "b4", "after"])
        await runner.stop()
        _ = await run.value
        await alice.leave()
    }

    @Test func theRateCapHoldsAndARunawayPluginIsRefusedAndReported() async throws {
        let server = try await StreamChatServer.start(.init())
        defer { Task { await server.shutdown() } }
        let runaway = """
        -- Tries to send a million messages at once on "!spam", and from then
        -- on 20 more every tenth of a second, never looking at what bot.send says.
        local on = false
        bot.every(0.1, function()
          if not on then return end
          for i = 1, 20 do bot.send("lobby", "tick") end
        end)
        bot.command("spam", function(msg)
          on = true
          for i = 1, 1000000 do bot.send(msg.room, "spam " .. i) end
        end)
        """
        let rec = Recorder()
        var spec = try botSpec(name: "spammer", port: server.port, plugins: [("runaway", runaway)])
        spec.flow.sendRate = 20
        spec.flow.sendBurst = 5
        spec.options.limits.outboxSends = 50
        spec.options.limits.instructions = 100_000_000
        spec.options.limits.timeMilliseconds = 5_000
        let alice = try await Person("alice", port: server.port)
        let runner = BotRunner(spec: spec, observer: rec.observer)
        let run = Task { await runner.run() }
        #expect(await eventually { alice.joins(of: "spammer") == 1 })

        try await alice.say("!spam")
        let started = ContinuousClock.now
        // The million: refused after the per-event quota, and reported.
        #expect(await eventually { !rec.logs(containing: "send quota exceeded: at most 20 sends per event").isEmpty })
        // The timer keeps trying: refused at the outbox bound, and reported.
        #expect(await eventually { !rec.logs(containing: "outbox full: 50 sends of this plugin are waiting").isEmpty })
        try await Task.sleep(for: .seconds(3))
        let elapsed = (ContinuousClock.now - started) / .seconds(1)
        let heard = alice.texts(from: "spammer").filter { $0 == "tick" || $0.hasPrefix("spam ") }.count
        // Burst + rate × time (+1 for the token in flight), never the thousands asked for.
        #expect(heard <= 5 + Int(20 * elapsed) + 1, "\(heard) sends in \(elapsed) s")
        #expect(heard >= 20, "the cap slows the plugin down, it does not silence it (\(heard))")
        #expect(alice.texts(from: "spammer").filter { $0.hasPrefix("spam ") }.count == 20)

        // Refusals are errors of kind quota, attributed to the plugin.
        let reports = rec.logs.filter { $0.plugin == "runaway" && $0.text.hasPrefix("quota:") }
        #expect(reports.isEmpty == false)
        await runner.stop(drainTimeout: 0)
        _ = await run.value
        // Without a journal the stop cannot keep what it leaves, and says so.
        #expect(rec.logs(containing: "stopping with ").contains { $0.text.hasSuffix("(the drain's 0 s ran out): they are lost, as the bot has no journal") },
                "\(rec.logs(containing: "stopping with ").map(\.text))")
        await alice.leave()
    }
}
