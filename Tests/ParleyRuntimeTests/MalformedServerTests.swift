import Foundation
import NIOCore
import NIOPosix
import ParleyCore
import ParleyRuntime
import ParleyStreamChat
import Synchronization
import Testing
import ParleyTestSupport

/// A "server" that writes scripted bytes to whoever connects: garbage,
/// lines split across writes, several lines per write, a line with no end.
private final class ScriptedServer: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let chunks: [([UInt8], Int)]  // bytes, then a pause in ms
    let closeAtEnd: Bool

    init(chunks: [([UInt8], Int)], closeAtEnd: Bool) {
        self.chunks = chunks
        self.closeAtEnd = closeAtEnd
    }

    /// The pauses run on the event loop's own timers, not the test's
    /// cooperative pool, which a busy test process can hold up for longer than
    /// the bot's quiet period.
    func channelActive(context: ChannelHandlerContext) {
        Self.write(chunks[...], on: context.channel, closeAtEnd: closeAtEnd)
    }

    private static func write(_ chunks: ArraySlice<([UInt8], Int)>, on channel: any Channel, closeAtEnd: Bool) {
        guard let (bytes, pause) = chunks.first else {
            if closeAtEnd { channel.close(promise: nil) }
            return
        }
        channel.writeAndFlush(ByteBuffer(bytes: bytes), promise: nil)
        channel.eventLoop.scheduleTask(in: .milliseconds(Int64(pause))) { write(chunks.dropFirst(), on: channel, closeAtEnd: closeAtEnd) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
}

struct MalformedServerTests {
    @Test func malformedServerBytesAreDroppedAndGoodLinesStillArrive() async throws {
        let chunks: [([UInt8], Int)] = [
            ([0x00, 0xFF, 0xFE] + Array("not a streamchat line\n".utf8), 0),
            (Array(" has joined\n::\n\n\r\n".utf8), 0),
            (Array("bob has joined\nbob::hel".utf8), 30),
            (Array("lo\nbob::sec".utf8), 30),
            // This server ends its lines, so a tail waits for its end however
            // long past the quiet period (1 s here) the rest takes.
            (Array("ond\nbob::thi".utf8), 2500),
            (Array("rd\nbob::caf".utf8) + [0xC3], 30), // UTF-8 split across reads
            ([0xA9] + Array("\n".utf8), 30),
        ]
        let server = try await Self.serve(chunks)
        defer { server.close(promise: nil) }
        let plugin = #"bot.on("message", function(m) bot.log.info("heard " .. m.user .. ": " .. m.text) end)"#
        let rec = Recorder()
        let ignored = Mutex<[String]>([])
        var options = StreamChatOptions()
        options.unterminatedFlush = 1
        let port = server.localAddress!.port!
        let transport = StreamChatTransport(host: "127.0.0.1", port: port, name: "listener", options: options, connectTimeout: 2,
                                            log: { line in ignored.withLock { $0.append(line) } })
        let runner = BotRunner(spec: try botSpec(name: "listener", port: port, plugins: [("listener", plugin)], transport: transport),
                               observer: rec.observer)
        let run = Task { await runner.run() }
        #expect(await eventually {
            rec.logs(containing: "heard bob:").map(\.text) == ["heard bob: hello", "heard bob: second", "heard bob: third", "heard bob: café"]
        }, "\(rec.logs.map(\.text))")
        #expect(ignored.withLock { $0.filter { $0.contains("not StreamChat") }.count } >= 2)
        #expect(await runner.state == .online)
        await runner.stop()
        _ = await run.value
    }

    /// A server that never ends its lines: each quiet spell ends one, and
    /// closing ends the last.
    @Test func aServerThatNeverEndsItsLinesIsReadByItsPauses() async throws {
        let chunks: [([UInt8], Int)] = [
            // Pauses six times the quiet period: a loaded machine may keep the
            // bot's loop thread off a core for a second, and then it reads
            // both lines in one go.
            (Array("bob has joined".utf8), 3000),
            (Array("bob::one".utf8), 3000),
            (Array("bob::two".utf8), 300),
        ]
        let server = try await Self.serve(chunks, closeAtEnd: true)
        defer { server.close(promise: nil) }
        let plugin = #"""
            bot.on("join", function(e) bot.log.info("joined " .. e.user) end)
            bot.on("message", function(m) bot.log.info("heard " .. m.user .. ": " .. m.text) end)
            """#
        let rec = Recorder()
        var options = StreamChatOptions()
        options.unterminatedFlush = 0.5
        let port = server.localAddress!.port!
        let transport = StreamChatTransport(host: "127.0.0.1", port: port, name: "listener", options: options, connectTimeout: 2)
        let runner = BotRunner(spec: try botSpec(name: "listener", port: port, plugins: [("listener", plugin)], transport: transport),
                               observer: rec.observer)
        let run = Task { await runner.run() }
        // The bot reconnects after the close and hears it all again: the first three tell.
        let first = { Array(rec.logs.map(\.text).filter { $0.hasPrefix("joined") || $0.hasPrefix("heard") }.prefix(3)) }
        #expect(await eventually { first() == ["joined bob", "heard bob: one", "heard bob: two"] }, "\(rec.logs.map(\.text))")
        await runner.stop()
        _ = await run.value
    }

    private static func serve(_ chunks: [([UInt8], Int)], closeAtEnd: Bool = false) async throws -> any Channel {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { ch in
                ch.eventLoop.makeCompletedFuture {
                    try ch.pipeline.syncOperations.addHandler(ScriptedServer(chunks: chunks, closeAtEnd: closeAtEnd))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
    }
}
