import Foundation
import NIOCore
import NIOPosix
import ParleyCore
import ParleyRuntime
import Synchronization
import Testing

/// A "server" that writes scripted bytes to whoever connects: garbage,
/// lines split across writes, several lines per write, a line with no end.
private final class ScriptedServer: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let chunks: [([UInt8], Int)]  // bytes, then a pause in ms

    init(chunks: [([UInt8], Int)]) { self.chunks = chunks }

    func channelActive(context: ChannelHandlerContext) {
        let channel = context.channel
        let chunks = self.chunks
        Task {
            for (bytes, pause) in chunks {
                try? await channel.writeAndFlush(ByteBuffer(bytes: bytes))
                if pause > 0 { try? await Task.sleep(for: .milliseconds(pause)) }
            }
        }
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
            (Array("ond\nbob::third".utf8), 600),  // no line end: read after the quiet period
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
        let runner = BotRunner(spec: try botSpec(name: "listener", port: server.localAddress!.port!, plugins: [("listener", plugin)],
                                                 transportLog: { line in ignored.withLock { $0.append(line) } }),
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
