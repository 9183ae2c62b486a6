import Foundation
import ParleyCore
import ParleyRuntime
@testable import ParleySTOMP
import Testing
import ParleyTestSupport

extension RabbitMQTests {
    /// Bots on RabbitMQ over STOMP, end to end over loopback; people are a
    /// second STOMP client (the same transport, under their own names).
    @Suite struct STOMPScenarioTests {
        func startBot(name: String = "parley", room: String, endpoint: STOMPEndpoint = RabbitMQ.webSTOMP,
                      options: STOMPOptions = RabbitMQ.options(), shipped: [String] = ["greeter", "echo"],
                      plugins: [(String, String)] = [], journal: String? = nil,
                      recorder: Recorder, log: TransportLog = TransportLog()) throws -> (BotRunner, Task<BotOutcome, Never>) {
            let transport = RabbitMQ.transport(name, room: room, endpoint: endpoint, options: options, log: log.add)
            let spec = try botSpec(name: name, port: 0, plugins: plugins, journal: journal, shippedPlugins: shipped, transport: transport)
            let runner = BotRunner(spec: spec, observer: recorder.observer)
            return (runner, Task { await runner.run() })
        }

        /// Over WebSocket and TCP.
        @Test(arguments: [RabbitMQ.webSTOMP, RabbitMQ.tcpSTOMP])
        func greeterAndEchoInARoom(_ endpoint: STOMPEndpoint) async throws {
            try await RabbitMQ.require()
            let room = RabbitMQ.freshRoom()
            let rec = Recorder()
            let (bot, run) = try startBot(room: room, endpoint: endpoint, recorder: rec)
            #expect(await eventually { await bot.state == .online })
            let alice = try await Person("alice", transport: RabbitMQ.transport("alice", room: room, endpoint: endpoint), room: room)
            #expect(await eventually { alice.texts(from: "parley").contains("Welcome, alice!") }, "\(alice.events)")
            try await alice.say("!echo hello there")
            #expect(await eventually { alice.texts(from: "parley").contains("hello there") })
            // Receipts drive the outbox: each reply counts as sent once the broker confirmed it.
            #expect(await eventually { rec.sent.map(\.text).contains("hello there") })
            // The bot's own ENTER and its own messages came back from the topic and never reached plugins.
            #expect(!alice.texts(from: "parley").contains("Welcome, parley!"))
            #expect(rec.sent.map(\.text) == ["Welcome, alice!", "hello there"])
            await alice.leave()
            #expect(await eventually { rec.logs(containing: "link lost").isEmpty })
            await bot.stop()
            #expect(await run.value == .stopped)
        }

        @Test func typingBothWays() async throws {
            try await RabbitMQ.require()
            let room = RabbitMQ.freshRoom()
            let rec = Recorder()
            let reporter = """
            bot.on("typing", function(ev) bot.send(ev.room, ev.user .. (ev.on and " started typing" or " stopped typing")) end)
            bot.command("type", function(msg) bot.typing(msg.room, true) end)
            """
            var options = RabbitMQ.options()
            options.types.typingStop = "STOP_TYPING"
            let (bot, run) = try startBot(room: room, options: options, shipped: [], plugins: [("reporter", reporter)], recorder: rec)
            #expect(await eventually { await bot.state == .online })
            let alice = try await Person("alice", transport: RabbitMQ.transport("alice", room: room, options: options), room: room)
            try alice.typing(true)
            #expect(await eventually { alice.texts(from: "parley").contains("alice started typing") })
            try alice.typing(false)
            #expect(await eventually { alice.texts(from: "parley").contains("alice stopped typing") })
            try await alice.say("!type")
            #expect(await eventually { alice.events.contains { if case .typing(_, "parley", true) = $0 { true } else { false } } })
            await alice.leave()
            await bot.stop()
            _ = await run.value
        }

        /// The shipped moderator: strikes, audit lines, warnings in the room.
        @Test func moderatorWarnsAndEscalates() async throws {
            try await RabbitMQ.require()
            let room = RabbitMQ.freshRoom()
            let rec = Recorder()
            let (bot, run) = try startBot(name: "moderator", room: room, shipped: ["moderator"], recorder: rec)
            #expect(await eventually { await bot.state == .online })
            let bob = try await Person("bob", transport: RabbitMQ.transport("bob", room: room), room: room)
            try await bob.say("oh heck")
            #expect(await eventually { rec.logs(containing: "audit user=bob strike=1").count == 1 }, "\(rec.logs.map(\.text))")
            try await bob.say("darn it")
            #expect(await eventually { rec.logs(containing: "audit user=bob strike=2").count == 1 })
            #expect(await eventually { bob.texts(from: "moderator").count == 2 }, "\(bob.messages)")
            await bob.leave()
            await bot.stop()
            _ = await run.value
        }

        /// `rabbitmqctl stop_app` / `start_app` mid-conversation: the bot loses
        /// its link, reconnects when the broker is back, and answers again.
        @Test func brokerRestartedMidConversation() async throws {
            try await RabbitMQ.require()
            let room = RabbitMQ.freshRoom()
            let rec = Recorder()
            let journal = try temporaryDirectory().path
            let (bot, run) = try startBot(room: room, journal: journal, recorder: rec)
            #expect(await eventually { await bot.state == .online })
            let alice = try await Person("alice", transport: RabbitMQ.transport("alice", room: room), room: room)
            #expect(await eventually { alice.texts(from: "parley").contains("Welcome, alice!") })
            try await RabbitMQ.ctl("stop_app")
            do {
                #expect(await eventually { await bot.state != .online })
                try await RabbitMQ.ctl("start_app")
            } catch {
                try? await RabbitMQ.ctl("start_app")
                throw error
            }
            try await RabbitMQ.ctl("await_startup")
            #expect(await eventually(30) { let s = await bot.stats; let st = await bot.state; return s.reconnects >= 1 && st == .online },
                    "\(rec.logs.map(\.text))")
            let again = try await Person("alice", transport: RabbitMQ.transport("alice", room: room), room: room)
            try await again.say("!ping")
            #expect(await eventually { again.texts(from: "parley").contains("pong") })
            // alice came back moments later: greeted once, not again.
            #expect(rec.sent.filter { $0.text.contains("alice") }.count == 1, "\(rec.sent)")
            #expect(rec.logs(containing: "link lost").count >= 1)
            await again.leave()
            await alice.close()
            await bot.stop()
            #expect(await run.value == .stopped)
        }
    }
}

extension Person {
    func close() async { await session.close() }
}
