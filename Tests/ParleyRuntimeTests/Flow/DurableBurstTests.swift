import Foundation
import ParleyCore
import ParleyRuntime
import ParleySocketIO
import Testing
import ParleyTestSupport

/// A bot whose journal syncs every commit (`fsync = "always"`) under a burst,
/// through the embedded SocketChat server: it keeps answering while the burst
/// lasts, sheds what it cannot take at the room queue (never by refusing its
/// plugins' sends while the server is healthy), and every message it handled
/// gets exactly its replies.
@Suite(.timeLimit(.minutes(3)), .serialized)
struct DurableBurstTests {
    /// Two sends and a state write per message, like the echo and the moderator.
    static let plugins: [(String, String)] = [
        ("echo", """
        -- "!echo hello N" is answered "echo N".
        bot.command("echo", function(msg, args) msg:reply("echo " .. args[2]) end)
        """),
        ("tally", """
        -- Counts every message in bot.state and answers "seen N".
        bot.hear("^!echo hello (%d+)", function(msg, n)
          bot.state.set("seen", (bot.state.get("seen") or 0) + 1)
          bot.send(msg.room, "seen " .. n)
        end)
        """),
    ]

    /// Sends `count` messages at `rate` a second; returns when the last was sent.
    static func burst(_ person: Person, count: Int, rate: Double) async throws {
        let start = ContinuousClock.now
        for i in 1...count {
            let due = start + .milliseconds(Int(Double(i - 1) / rate * 1000))
            if ContinuousClock.now < due { try await Task.sleep(until: due) }
            try await person.say("!echo hello \(i)")
        }
    }

    struct Outcome {
        var sent: Int
        var firstReplyAfter: Duration?
        var burstLasted: Duration
        var echoed: [Int: Int]
        var seen: [Int: Int]
        var shed: Int
        var logs: Recorder
    }

    static func run(count: Int, rate: Double, roomQueue: Int = 1000, extraPlugin: (String, String)? = nil) async throws -> Outcome {
        let server = try await SocketChatServer.start(.init())
        defer { Task { await server.shutdown() } }
        let dir = try temporaryDirectory()
        let rec = Recorder()
        let transport = SocketIOTransport(endpoint: SocketIOEndpoint(host: "127.0.0.1", port: server.port), name: "bot", connectTimeout: 5)
        var spec = try botSpec(name: "bot", port: server.port, plugins: plugins + (extraPlugin.map { [$0] } ?? []),
                               journal: dir.appendingPathComponent("journal").path, transport: transport)
        spec.fsync = .always
        spec.flow.sendRate = 100_000
        spec.flow.sendBurst = 100_000
        spec.flow.roomQueue = roomQueue
        let runner = BotRunner(spec: spec, observer: rec.observer)
        let run = Task { await runner.run() }
        #expect(await eventually { await runner.state == .online })
        let flooder = try await Person("flooder", transport: SocketIOTransport(
            endpoint: SocketIOEndpoint(host: "127.0.0.1", port: server.port), name: "flooder", connectTimeout: 5))

        let started = ContinuousClock.now
        let firstReply = Task {
            while !Task.isCancelled {
                if flooder.texts(from: "bot").contains(where: { $0.hasPrefix("echo ") }) { return ContinuousClock.now - started }
                try? await Task.sleep(for: .milliseconds(5))
            }
            return Duration.seconds(3600)
        }
        try await burst(flooder, count: count, rate: rate)
        let lasted = ContinuousClock.now - started
        // Replies keep coming until the handled messages are all answered.
        var last = -1
        while true {
            try await Task.sleep(for: .seconds(2))
            let now = flooder.texts(from: "bot").count
            if now == last { break }
            last = now
        }
        firstReply.cancel()
        await runner.stop()
        _ = await run.value
        var echoed: [Int: Int] = [:], seen: [Int: Int] = [:]
        for t in flooder.texts(from: "bot") {
            let parts = t.split(separator: " ")
            guard parts.count == 2, let n = Int(parts[1]) else { continue }
            if parts[0] == "echo" { echoed[n, default: 0] += 1 }
            if parts[0] == "seen" { seen[n, default: 0] += 1 }
        }
        await flooder.leave()
        return Outcome(sent: count, firstReplyAfter: await firstReply.value, burstLasted: lasted,
                       echoed: echoed, seen: seen, shed: await runner.stats.eventsShed, logs: rec)
    }

    @Test func aDurableBotAnswersWhileTheBurstLastsAndEveryMessageExactlyOnce() async throws {
        let o = try await Self.run(count: 1600, rate: 800)
        let first = try #require(o.firstReplyAfter)
        #expect(first < .seconds(1), "first reply \(first) after the burst began")
        #expect(first < o.burstLasted, "the first reply came while the burst went on (\(o.burstLasted))")
        let refused = o.logs.logs(containing: "outbox full")
        #expect(refused.isEmpty, "\(refused.count) lines, first: \(refused.first?.text ?? "")")
        #expect(o.echoed.values.allSatisfy { $0 == 1 } && o.seen.values.allSatisfy { $0 == 1 }, "no reply twice")
        #expect(Set(o.echoed.keys) == Set(o.seen.keys), "every handled message has both its replies")
        #expect(o.seen.count + o.shed == o.sent, "handled \(o.seen.count) + shed \(o.shed) of \(o.sent)")
    }

    @Test func aBurstBeyondCapacityIsShedAtTheDoorNotAtTheOutbox() async throws {
        // 4 ms of work per message: about 250 a second, against 1,000 offered.
        let slow = ("slow", """
        bot.on("message", function(msg)
          local t = os.clock() + 0.004
          while os.clock() < t do end
        end)
        """)
        let o = try await Self.run(count: 2000, rate: 1000, roomQueue: 100, extraPlugin: slow)
        #expect(o.shed > 0, "shed \(o.shed)")
        #expect(!o.logs.logs(containing: "room lobby: shed").isEmpty)
        let refused = o.logs.logs(containing: "outbox full")
        #expect(refused.isEmpty, "\(refused.count) lines, first: \(refused.first?.text ?? "")")
        #expect(o.echoed.values.allSatisfy { $0 == 1 } && o.seen.values.allSatisfy { $0 == 1 }, "no reply twice")
        #expect(Set(o.echoed.keys) == Set(o.seen.keys), "every handled message has both its replies")
        #expect(o.seen.count + o.shed == o.sent, "handled \(o.seen.count) + shed \(o.shed) of \(o.sent)")
    }
}
