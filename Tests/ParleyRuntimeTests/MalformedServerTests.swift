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

    init(chunks: [([UInt8], Int)]) { self.chunks = chunks }

    /// The pauses run on the event loop's own timers, not the test's
    /// cooperative pool, which a busy test process can hold up for longer than
    /// the bot's quiet period.
    func channelActive(context: ChannelHandlerContext) {
        Self.write(chunks[...], on: context.channel)
    }

    private static func write(_ chunks: ArraySlice<([UInt8], Int)>, on channel: any Channel) {
        guard let (bytes, pause) = chunks.first else { return }
        channel.writeAndFlush(ByteBuffer(bytes: bytes), promise: nil)
        channel.eventLoop.scheduleTask(in: .milliseconds(Int64(pause))) { write(chunks.dropFirst(), on: channel) }
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
            (Array("ond\nbob::third".utf8), 5000), // no line end: read after the quiet period (1 s here)
            (Array("bob::caf".utf8) + [0xC3], 30),     // UTF-8 split across reads
            ([0xA9] + Array("\n".utf8), 30),
        ]
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { ch in
                ch.eventLoop.makeCompletedFuture { try ch.pipeline.syncOperations.addHandler(ScriptedServer(chunks: chunks)) }
            }
            .bind(host: "127.0.0.1", port: 0).get()
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
}
