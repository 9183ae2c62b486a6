import Foundation
import NIOCore
import NIOPosix
import ParleyConfig
import ParleyCore
import ParleyRuntime
import ParleyStreamChat
import ParleyWire
import Synchronization
import Testing
import ParleyTestSupport

/// A StreamChat send counts as delivered only when the server's echo of it
/// came back, not when it was written to the socket.
///
/// Found by the chaos runner's reasoning about its silent drops and server
/// restarts: a send written into a link that had silently died (or into a
/// server that was shutting down) was recorded as delivered, so neither the
/// outbox nor a restart ever sent it again, and the room never got it.
@Suite(.timeLimit(.minutes(2)))
struct StreamChatDeliveryTests {
    @Test func aSendIntoASilentlyDeadLinkIsSentAgainAfterTheReconnect() async throws {
        let relayed = Mutex<[String]>([])
        var config = StreamChatServer.Configuration()
        config.observe = { line in
            if case .message("bot", let text) = line { relayed.withLock { $0.append(text) } }
        }
        let server = try await StreamChatServer.start(config)
        defer { Task { await server.shutdown() } }
        let proxy = try await LinkProxy.start(upstreamPort: server.port)
        defer { Task { await proxy.stop() } }
        // Answers the first "!later" at once, then speaks again four seconds
        // later: by then the link is dead (and not yet noticed: idle timeout 6 s).
        let plugin = """
        local asked = false
        bot.command("later", function(msg)
          if asked then return end
          asked = true
          msg:reply("ok, later")
          bot.after(4, function() bot.send(msg.room, "said into a dead link") end)
        end)
        """
        var options = StreamChatOptions()
        options.idleTimeout = 6
        let transport = StreamChatTransport(host: "127.0.0.1", port: proxy.port, name: "bot", options: options, connectTimeout: 2)
        let rec = Recorder()
        let runner = BotRunner(spec: try botSpec(name: "bot", port: proxy.port, plugins: [("later", plugin)], transport: transport),
                               observer: rec.observer)
        let run = Task { await runner.run() }
        #expect(await eventually { await runner.state == .online })
        let alice = try await Person("alice", port: server.port)
        // Asked until heard: a quiet link idles out now and then, and StreamChat
        // has no catch-up for what is said while the bot reconnects.
        #expect(await eventually {
            if relayed.withLock({ $0 }).contains("ok, later") { return true }
            try? await alice.say("!later")
            try? await Task.sleep(for: .milliseconds(300))
            return relayed.withLock { $0 }.contains("ok, later")
        })
        // Silence the link only once the bot has its echo (the confirmation):
        // silenced between the server's relay and the echo, the reply would
        // rightly go out again and the premise below would not hold.
        #expect(await eventually { rec.sent.contains { $0.text == "ok, later" } })
        proxy.silenceExisting()
        #expect(relayed.withLock { $0 } == ["ok, later"], "the premise: the link died before the bot spoke again")
        // The idle timeout ends the dead session, the bot reconnects through a fresh
        // connection, and the send that never got its echo goes out again.
        #expect(await eventually(15) { relayed.withLock { $0 } == ["ok, later", "said into a dead link"] },
                "\(relayed.withLock { $0 }); logs: \(rec.logs.map(\.text))")
        #expect(await runner.stats.reconnects >= 1)
        await runner.stop()
        _ = await run.value
        await alice.leave()
    }

    /// A bot whose own loop is held past the echo timeout keeps its link:
    /// the echo came meanwhile and waits to be read behind the hold, and
    /// the late check looks again once the loop has read it. A held loop is
    /// not a quiet server.
    @Test func aHeldLoopIsNoQuietServer() async throws {
        let server = try await StreamChatServer.start(.init())
        defer { Task { await server.shutdown() } }
        var options = StreamChatOptions()
        options.echoTimeout = 1
        let transport = StreamChatTransport(host: "127.0.0.1", port: server.port, name: "busy", options: options, connectTimeout: 5)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let session = try await transport.connect(resumingAfter: [:], on: loop)
        // The write, then three seconds in which the loop reads nothing.
        let written = loop.makePromise(of: [SendOutcome].self)
        try await loop.submit {
            _ = session.write([OutgoingMessage(id: "m1", room: "lobby", text: "hello")]) { written.succeed($0) }
            Thread.sleep(forTimeInterval: 3)
        }.get()
        let outcomes = try await written.futureResult.get()
        guard case .delivered = outcomes.first else {
            Issue.record("\(outcomes)")
            return
        }
        await session.leave()
        try await group.shutdownGracefully()
    }

    /// A link the bot drops for a late answer names the cause in its
    /// `link lost` line, not "the server closed the connection". A kick
    /// nobody answered is final; a send whose echo did not come goes out
    /// again after the reconnect.
    @Test(arguments: ["kick", "send"])
    func aLinkDroppedForALateAnswerNamesTheCause(_ step: String) async throws {
        let server = try await StreamChatServer.start(.init(moderators: ["mod"]))
        defer { Task { await server.shutdown() } }
        let proxy = try await LinkProxy.start(upstreamPort: server.port)
        defer { Task { await proxy.stop() } }
        let made = step == "kick" ? #"bot.kick(msg.room, "troll", "later")"# : #"bot.send(msg.room, "said late")"#
        let plugin = """
        bot.command("later", function(msg)
          bot.after(4, function() \(made); bot.log.info("made") end)
          bot.log.info("step coming")
        end)
        """
        var options = StreamChatOptions()
        options.echoTimeout = 1
        options.idleTimeout = 60
        let transport = StreamChatTransport(host: "127.0.0.1", port: proxy.port, name: "mod", options: options, connectTimeout: 5)
        let rec = Recorder()
        // The people first: the bot's link goes through the proxy, so alice
        // could speak before the server has the bot in the room. She waits
        // until the server announces it.
        let alice = try await Person("alice", port: server.port)
        let troll = try await Person("troll", port: server.port)
        let runner = BotRunner(spec: try botSpec(name: "mod", port: proxy.port, plugins: [("later", plugin)], transport: transport),
                               observer: rec.observer)
        let run = Task { await runner.run() }
        #expect(await eventually { await runner.state == .online })
        #expect(await eventually { alice.joins(of: "mod") >= 1 })
        try await alice.say("!later")
        #expect(await eventually { !rec.logs(containing: "step coming").isEmpty })
        proxy.silenceExisting()
        let cause = step == "kick" ? "link lost: no answer to a moderation frame within 1.0 s" : "link lost: no echo of a sent message within 1.0 s, nor any other line from the server"
        #expect(await eventually(15) { !rec.logs(containing: cause).isEmpty }, "\(rec.logs.map(\.text))")
        #expect(rec.logs(containing: "the server closed the connection").isEmpty, "\(rec.logs.map(\.text))")
        #expect(await eventually { let r = await runner.stats.reconnects; let st = await runner.state; return r >= 1 && st == .online })
        if step == "kick" {
            #expect(await eventually { !rec.logs(containing: "kick not answered (not taken again): troll from lobby (later)").isEmpty })
            try await Task.sleep(for: .milliseconds(500))
            #expect(troll.isLinked, "a kick nobody answered is not taken again")
        } else {
            #expect(await eventually { alice.texts(from: "mod") == ["said late"] }, "\(alice.messages)")
        }
        await runner.stop()
        _ = await run.value
        await alice.leave()
        await troll.leave()
    }

    /// A server behind on its relaying (a crowd's joins ahead of the bot's
    /// echo) is alive: while its other lines come, the echo is waited for,
    /// up to six echo timeouts, and the send is not made twice.
    @Test func aServerThatIsBehindButTalkingKeepsTheLink() async throws {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { ch in ch.eventLoop.makeCompletedFuture { try ch.pipeline.syncOperations.addHandler(BehindServer()) } }
            .bind(host: "127.0.0.1", port: 0).get()
        defer { server.close(promise: nil) }
        let port = server.localAddress!.port!
        var options = StreamChatOptions()
        // Five times the server's 0.4 s between lines: a loaded machine may hold a line back a second.
        options.echoTimeout = 2
        let plugin = #"bot.on("connection", function(ev) if ev.state == "online" then bot.send("lobby", "hello, crowd") end end)"#
        let rec = Recorder()
        let transport = StreamChatTransport(host: "127.0.0.1", port: port, name: "bot", options: options, connectTimeout: 5)
        let runner = BotRunner(spec: try botSpec(name: "bot", port: port, plugins: [("hello", plugin)], transport: transport),
                               observer: rec.observer)
        let run = Task { await runner.run() }
        // The echo comes 6 s after the send, three echo timeouts, with a join every 0.4 s before it.
        #expect(await eventually(15) { rec.sent.contains { $0.text == "hello, crowd" } }, "\(rec.logs.map(\.text))")
        #expect(await runner.stats.reconnects == 0, "\(rec.logs.map(\.text))")
        await runner.stop()
        _ = await run.value
    }

    @Test func echoTimeoutIsAConfigKey() throws {
        let ok = try BotConfigFile.parse(text: "[[bot]]\nname = \"b\"\n[bot.streamchat]\necho_timeout = 0\n", path: "bot.toml")
        #expect(ok.bots[0].streamchat.echoTimeout == 0)
        #expect(StreamChatOptions().echoTimeout == 10)
        #expect(throws: ConfigError.self) {
            try BotConfigFile.parse(text: "[[bot]]\nname = \"b\"\n[bot.streamchat]\necho_timeout = -1\n", path: "bot.toml")
        }
    }
}

/// A StreamChat server that is behind: each MSG is echoed 6 s late, with a
/// line about someone else every 0.4 s until then.
private final class BehindServer: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let text = String(buffer: unwrapInboundIn(data))
        let channel = context.channel
        for part in text.components(separatedBy: "::END") where part.hasPrefix("MSG::") {
            let echo = "bot::" + part.dropFirst("MSG::".count) + "\n"
            for i in 1...14 {
                channel.eventLoop.scheduleTask(in: .milliseconds(Int64(i) * 400)) {
                    channel.writeAndFlush(ByteBuffer(string: "guest\(i) has joined\n"), promise: nil)
                }
            }
            channel.eventLoop.scheduleTask(in: .seconds(6)) { channel.writeAndFlush(ByteBuffer(string: echo), promise: nil) }
        }
    }
}
