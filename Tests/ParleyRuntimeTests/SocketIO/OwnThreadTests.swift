import Foundation
import ParleyCore
import ParleyRuntime
import Synchronization
import Testing
import ParleyTestSupport

/// `own_thread = true` over Socket.IO, against the real python-socketio
/// server and the embedded one: the bot's link is read on the thread its
/// runner and plugins run on, and a busy plugin does not cost the link.
@Suite(.timeLimit(.minutes(2)))
struct OwnThreadTests {
    /// The threads a bot's link delivered events on, and the threads its
    /// runner reported connection states from.
    final class Threads: Sendable {
        private let seen = Mutex<(events: Set<UInt>, runner: Set<UInt>)>(([], []))

        func observer(_ base: RuntimeObserver) -> RuntimeObserver {
            var o = base
            let event = base.event, connection = base.connection
            o.event = { [self] bot, e in
                seen.withLock { _ = $0.events.insert(UInt(pthread_self())) }
                event(bot, e)
            }
            o.connection = { [self] bot, state in
                seen.withLock { _ = $0.runner.insert(UInt(pthread_self())) }
                connection(bot, state)
            }
            return o
        }

        var events: Set<UInt> { seen.withLock { $0.events } }
        var runner: Set<UInt> { seen.withLock { $0.runner } }
    }

    let scenarios = SocketIOScenarioTests()

    /// The own-thread bot's events arrive on the one thread its runner runs
    /// on; a default bot beside it reads on the shared loops, not on its Lua
    /// thread. Both answer.
    @Test(arguments: SocketServerKind.allCases)
    func anOwnThreadBotReadsAndAnswersOnOneThread(_ kind: SocketServerKind) async throws {
        let server = try await SocketServer.start(kind)
        let rec = Recorder()
        let own = Threads(), shared = Threads()
        let (ownBot, ownRun) = try scenarios.startBot(server, name: "owner", shipped: ["echo"], ownThread: true,
                                                      recorder: rec, observer: own.observer(rec.observer))
        let (sharedBot, sharedRun) = try scenarios.startBot(server, name: "sharer", shipped: ["echo"],
                                                            recorder: rec, observer: shared.observer(rec.observer))
        #expect(await eventually { await ownBot.state == .online })
        #expect(await eventually { await sharedBot.state == .online })
        let alice = try await Person("alice", transport: server.transport("alice"))
        try await alice.say("!echo hello")
        #expect(await eventually { alice.texts(from: "owner").contains("hello") }, "\(alice.messages)")
        #expect(await eventually { alice.texts(from: "sharer").contains("hello") }, "\(alice.messages)")

        #expect(own.events.count == 1 && own.events == own.runner,
                "one thread for the link and the runner: events \(own.events), runner \(own.runner)")
        #expect(!shared.events.subtracting(shared.runner).isEmpty,
                "a default bot's link is on the shared loops: events \(shared.events), runner \(shared.runner)")

        await alice.leave()
        await ownBot.stop()
        await sharedBot.stop()
        #expect(await ownRun.value == .stopped)
        #expect(await sharedRun.value == .stopped)
        await server.stop()
    }

    /// A plugin that holds the thread 50 ms per message, for 240 messages: 12 s
    /// of plugin work in all, mostly queued at once, against a server that
    /// pings every 2 s and drops a link whose pong is 3 s late (the bot drops
    /// a link with no ping for 5 s). The runner lets the link in every few
    /// events, so the pings are answered, the link survives, and every
    /// message is answered in order. Without the turns the link is lost
    /// (checked by hand). The allowances are seconds, not less: this test
    /// takes a core, and the people's links share the rest with every other
    /// test of the run.
    @Test(arguments: SocketServerKind.allCases)
    func aBusyPluginDoesNotCostItsBotTheLink(_ kind: SocketServerKind) async throws {
        let server = try await SocketServer.start(kind, .init(pingInterval: 2, pingTimeout: 3))
        let rec = Recorder()
        let slow = """
        bot.command("slow", function(msg, args)
          -- hold the thread for 50 ms of CPU (the budget's deadline is 250 ms)
          local stop = os.clock() + 0.05
          while os.clock() < stop do end
          bot.send(msg.room, "done " .. args[1])
        end)
        """
        let (bot, run) = try scenarios.startBot(server, plugins: [("slow", slow)], shipped: [], ownThread: true,
                                                noSendCap: true, recorder: rec)
        #expect(await eventually { await bot.state == .online })
        let alice = try await Person("alice", transport: server.transport("alice"))
        let n = 240
        for i in 1...n { try await alice.say("!slow \(i)") }
        #expect(await eventually(30) { alice.texts(from: "parley").count >= n }, "\(alice.texts(from: "parley").count) answers")
        #expect(alice.texts(from: "parley") == (1...n).map { "done \($0)" })
        #expect(await bot.stats.reconnects == 0, "the link held: \(rec.logs.map(\.text))")
        #expect(await bot.state == .online)
        await alice.leave()
        await bot.stop()
        #expect(await run.value == .stopped)
        await server.stop()
    }
}
