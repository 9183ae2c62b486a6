import Foundation
import ParleyCore
import ParleyRuntime
@testable import ParleySTOMP
import ParleyWire
import Testing
import ParleyTestSupport

/// The STOMP client against a hostile broker: a `RawSTOMPPeer` sends garbage
/// and the bot must log it, drop the link, reconnect and go on answering,
/// never crash; noise that is well-formed STOMP (a body that is not JSON, an
/// unknown subscription) is only logged and the session goes on.
@Suite(.timeLimit(.minutes(2)))
struct STOMPMalformedTests {
    func startBot(_ peer: RawSTOMPPeer, recorder: Recorder, log: TransportLog) throws -> (BotRunner, Task<BotOutcome, Never>) {
        var options = STOMPOptions()
        options.heartBeat = (0, 0)
        options.maxFrameBytes = 4096
        // Seconds to spare: a reconnect whose SUBSCRIBE's receipt came late on a
        // loaded machine was given up, and the test waits for that connection.
        options.receiptTimeout = 5
        let transport = STOMPTransport(endpoint: STOMPEndpoint(link: .websocket, host: "127.0.0.1", port: peer.port, requestTarget: "/ws"),
                                       name: "parley", rooms: ["lobby"], options: options, connectTimeout: 10, log: log.add)
        let spec = try botSpec(name: "parley", port: 0, plugins: [], shippedPlugins: ["echo"], transport: transport)
        let runner = BotRunner(spec: spec, observer: recorder.observer)
        return (runner, Task { await runner.run() })
    }

    static let pong = #"{"type":"TALK","roomId":"lobby","sender":"parley","message":"pong"}"#

    /// Each of these ends the link (nothing after it can be framed); the bot reconnects and still answers.
    @Test(arguments: [
        [UInt8]("HELLO\n\n\0".utf8),
        [UInt8]("MESSAGE\nsubscription sub-0\n\n\0".utf8),
        [UInt8]("MESSAGE\nsubscription:sub-0\ncontent-length:zz\n\n{}\0".utf8),
        [UInt8]("MESSAGE\nx:\\q\n\n\0".utf8),
        [UInt8]("MESSAGE\ncontent-length:2\n\nabc\0".utf8),
        [UInt8]("MESSAGE\n".utf8) + [0xFF, 0xFE] + [UInt8](":x\n\n\0".utf8),
        [UInt8]("MESSAGE\n\n".utf8) + [UInt8](repeating: 0x61, count: 5000),
        [UInt8]("\r\r\r".utf8),
    ])
    func garbageDropsTheLinkAndTheBotComesBack(_ garbage: [UInt8]) async throws {
        let peer = try await RawSTOMPPeer.start()
        let rec = Recorder()
        let log = TransportLog()
        let (bot, run) = try startBot(peer, recorder: rec, log: log)
        let first = try await peer.connection(0)
        #expect(await eventually { await bot.state == .online })
        // Text messages are UTF-8 by definition (the client would read
        // replacement characters), so bytes that are not go out as binary.
        try await first.send(bytes: garbage, binary: String(validating: garbage, as: UTF8.self) == nil)
        #expect(await eventually(5) { first.isClosed }, "the bot kept a link that sent garbage")
        let second = try await peer.connection(1)
        #expect(rec.logs(containing: "link lost").count >= 1, "\(rec.logs.map(\.text)) \(log.lines)")
        try await second.send(RawSTOMPConnection.chat("alice", "!ping"))
        #expect(await eventually { second.sentBodies.contains(Self.pong) }, "\(second.sentBodies)")
        await bot.stop()
        #expect(await run.value == .stopped)
        await peer.stop()
    }

    /// A frame over `max_frame_bytes` is refused by the WebSocket decoder
    /// before STOMP sees it: the log names the limit, not a server that
    /// closed, and the broker hears why (close code 1009, message too big).
    @Test func aFrameOverTheLimitIsNamedAsSuch() async throws {
        let peer = try await RawSTOMPPeer.start()
        let rec = Recorder()
        let log = TransportLog()
        let (bot, run) = try startBot(peer, recorder: rec, log: log)
        let first = try await peer.connection(0)
        #expect(await eventually { await bot.state == .online })
        try await first.send(RawSTOMPConnection.chat("alice", String(repeating: "x", count: 5000)))
        #expect(await eventually(5) { first.isClosed }, "the bot kept a link that sent an oversized frame")
        #expect(await eventually(5) { !rec.logs(containing: "link lost").isEmpty })
        let lost = rec.logs(containing: "link lost").map(\.text)
        #expect(lost.count == 1 && lost[0].contains("the server sent a WebSocket message over the limit of 4096 bytes"), "\(lost)")
        #expect(first.closeFrames == [1009], "\(first.closeFrames)")
        let second = try await peer.connection(1)
        try await second.send(RawSTOMPConnection.chat("alice", "!ping"))
        #expect(await eventually { second.sentBodies.contains(Self.pong) }, "\(second.sentBodies)")
        await bot.stop()
        #expect(await run.value == .stopped)
        await peer.stop()
    }

    @Test func wellFormedNoiseIsLoggedAndTheSessionGoesOn() async throws {
        let peer = try await RawSTOMPPeer.start()
        let rec = Recorder()
        let log = TransportLog()
        let (bot, run) = try startBot(peer, recorder: rec, log: log)
        let conn = try await peer.connection(0)
        let noise = [
            "MESSAGE\nsubscription:sub-0\n\nnot json\0\n",
            "MESSAGE\nsubscription:sub-0\n\n{\"type\":\"TALK\",\"message\":\"no sender\"}\0\n",
            "MESSAGE\nsubscription:sub-9\n\n{}\0\n",
            "RECEIPT\nreceipt-id:nobody-asked\n\n\0\n",
            "MESSAGE\nsubscription:sub-0\n\n{\"type\":\"SOMETHING_NEW\",\"sender\":\"x\",\"message\":\"y\"}\0\n",
            "\n\n\r\n",
        ]
        // Several frames in one WebSocket message, and one per message.
        try await conn.send(noise.joined())
        for n in noise { try await conn.send(n) }
        try await conn.send(RawSTOMPConnection.chat("alice", "!ping"))
        #expect(await eventually { conn.sentBodies.contains(Self.pong) }, "\(conn.sentBodies) \(log.lines)")
        #expect(!conn.isClosed)
        #expect(peer.connections.count == 1)
        #expect(log.lines.contains { $0.contains("is not JSON") })
        #expect(log.lines.contains { $0.contains("has no sender") })
        #expect(log.lines.contains { $0.contains("subscription sub-9") })
        await bot.stop()
        _ = await run.value
        await peer.stop()
    }

    /// Random damage to valid frames, from a fixed seed: whatever each does,
    /// the bot ends up connected and answering.
    @Test func mutatedFramesNeverCrashTheBot() async throws {
        let peer = try await RawSTOMPPeer.start()
        let rec = Recorder()
        let log = TransportLog()
        let (bot, run) = try startBot(peer, recorder: rec, log: log)
        var seed: UInt64 = 0x5EED_0007
        func random(_ n: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int((seed >> 33) % UInt64(n))
        }
        let valid = Array(RawSTOMPConnection.chat("alice", "hello").utf8)
        for _ in 0..<40 {
            var bytes = valid
            for _ in 0...random(3) {
                switch random(3) {
                case 0: bytes[random(bytes.count)] = UInt8(random(256))
                case 1: bytes.remove(at: random(bytes.count))
                default: bytes.insert([0, 10, 13, 58, 92][random(5)], at: random(bytes.count))
                }
            }
            guard let conn = peer.connections.last(where: { !$0.isClosed && $0.subscribed }) else {
                _ = await eventually(5) { peer.connections.contains { !$0.isClosed && $0.subscribed } }
                continue
            }
            try? await conn.send(bytes: bytes)
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(await eventually { await bot.state == .online })
        // A damaged frame of the last few may still make the bot drop its link
        // and connect again, and a ping sent on the dropped link is lost with
        // it: ask on the newest subscribed link until one is answered. (The
        // bot is online once its SUBSCRIBE is written; the peer may read it a
        // moment later.)
        var answered = false
        for _ in 0..<5 where !answered {
            _ = await eventually { peer.connections.contains { !$0.isClosed && $0.subscribed } }
            guard let conn = peer.connections.last(where: { !$0.isClosed && $0.subscribed }) else { continue }
            try? await conn.send(RawSTOMPConnection.chat("alice", "!ping"))
            answered = await eventually(5) { peer.connections.contains { $0.sentBodies.contains(Self.pong) } }
        }
        #expect(answered, "\(log.lines.suffix(5))")
        await bot.stop()
        _ = await run.value
        await peer.stop()
    }
}
