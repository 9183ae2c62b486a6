import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import ParleyCore
@testable import ParleyNet
@testable import ParleySocketIO
import Synchronization
import Testing
import ParleyTestSupport

/// A raw TCP client on NIO: writes what it is given and counts what it reads,
/// or, with `reading: false`, never reads at all (a small receive buffer, so
/// the server's queue for it fills fast).
final class RawTCPClient: Sendable {
    let channel: Channel
    private let seen: Counter

    final class Counter: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        /// Lines read, but those starting with `skip` are only counted.
        let skip: String
        let lines = Mutex<(kept: [String], skipped: Int, partial: String)>(([], 0, ""))
        init(skip: String) { self.skip = skip }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let text = String(buffer: unwrapInboundIn(data))
            lines.withLock { l in
                var parts = (l.partial + text).split(separator: "\n", omittingEmptySubsequences: false)
                l.partial = String(parts.removeLast())
                for p in parts { if p.hasPrefix(skip) { l.skipped += 1 } else { l.kept.append(String(p)) } }
            }
        }
    }

    private init(channel: Channel, seen: Counter) {
        self.channel = channel
        self.seen = seen
    }

    static func connect(port: Int, reading: Bool = true, skip: String = "\u{0}") async throws -> RawTCPClient {
        let counter = Counter(skip: skip)
        var bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.autoRead, value: reading)
        if !reading { bootstrap = bootstrap.channelOption(.socketOption(.so_rcvbuf), value: 4096) }
        let channel = try await bootstrap
            .channelInitializer { ch in ch.eventLoop.makeCompletedFuture { try ch.pipeline.syncOperations.addHandler(counter) } }
            .connect(host: "127.0.0.1", port: port).get()
        return RawTCPClient(channel: channel, seen: counter)
    }

    func write(_ text: String) async throws { try await channel.writeAndFlush(ByteBuffer(string: text)) }
    /// Lines read that did not start with `skip`.
    var lines: [String] { seen.lines.withLock { $0.kept } }
    /// Lines read that started with `skip`.
    var skipped: Int { seen.lines.withLock { $0.skipped } }
    func close() { channel.close(promise: nil) }
}

/// `parley serve` keeps one client from exhausting the process: a client in
/// a busy room that never reads (or, on Socket.IO, never polls) is dropped
/// once `--max-queued-kb` is waiting for it, with a log line; the server's
/// peak memory stays far below what the flood would have queued for it; and
/// the other clients keep chatting.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct ServeLimitsTests {
    /// VmRSS and VmHWM (peak) of a process, in KiB.
    static func memory(_ pid: Int32) -> (rss: Int, peak: Int) {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        func field(_ name: String) -> Int {
            let line = status.split(separator: "\n").first { $0.hasPrefix(name + ":") } ?? ""
            return Int(line.split(separator: " ").dropFirst().first { !$0.isEmpty } ?? "") ?? 0
        }
        return (field("VmRSS"), field("VmHWM"))
    }

    /// Starts `parley serve ARGS` and reads the port it announces for `server`.
    static func serve(_ args: [String], server: String) async throws -> (Process, Int, () -> String) {
        let out = Pipe(), err = Pipe()
        let said = Mutex(Data()), errors = Mutex(Data())
        out.fileHandleForReading.readabilityHandler = { h in let d = h.availableData; said.withLock { $0.append(d) } }
        err.fileHandleForReading.readabilityHandler = { h in let d = h.availableData; errors.withLock { $0.append(d) } }
        let p = try launchParley(["serve"] + args, stdout: out, stderr: err)
        var port: Int?
        _ = await eventually(10) {
            let text = String(decoding: said.withLock { $0 }, as: UTF8.self)
            port = text.split(separator: "\n").first { $0.hasPrefix("\(server) server listening on ") }
                .flatMap { Int($0.split(separator: ":").last ?? "") }
            return port != nil
        }
        guard let port else { throw PeerError("parley serve did not announce \(server)") }
        return (p, port, { String(decoding: errors.withLock { $0 }, as: UTF8.self) })
    }

    @Test func streamChatDropsAClientThatNeverReadsAndStaysSmall() async throws {
        let (serve, port, stderr) = try await Self.serve(["--streamchat", "127.0.0.1:0", "--max-queued-kb", "256"], server: "streamchat")
        let slow = try await RawTCPClient.connect(port: port, reading: false)
        try await slow.write("USR_NAME::slow::END")
        let ann = try await RawTCPClient.connect(port: port, skip: "ann::")
        try await ann.write("USR_NAME::ann::END")
        // A member hears its own join: only then does it hear bob's.
        #expect(await eventually { ann.lines.contains("ann has joined") })
        let bob = try await Person("bob", port: port)
        #expect(await eventually { ann.lines.contains("bob has joined") })
        let before = Self.memory(serve.processIdentifier)

        // 32 MB through the room, 500 messages at a time, each batch echoed to ann before the next.
        let batch = String(repeating: "MSG::" + String(repeating: "z", count: 290) + "::END", count: 500)
        var sent = 0
        while sent < 110_000 {
            try await ann.write(batch)
            sent += 500
            guard await eventually(20, { ann.skipped >= sent }) else { break }
        }
        #expect(ann.skipped == sent, "ann heard every echo")
        let after = Self.memory(serve.processIdentifier)
        #expect(await eventually { ann.lines.contains("slow has left") }, "\(ann.lines)")
        // The child's stderr reaches the test through a pipe reader on another thread.
        #expect(await eventually { stderr().contains("(slow): more than 262144 bytes queued: the client does not read") }, "\(stderr())")
        // 32 MB went through the room; the server's peak grew by far less.
        #expect(after.peak - before.rss < 16 * 1024, "peak \(after.peak) KiB against \(before.rss) KiB before the flood")
        try await bob.say("still here")
        #expect(await eventually { ann.lines.contains("bob::still here") })
        await bob.leave()
        ann.close()
        slow.close()
        kill(serve.processIdentifier, SIGTERM)
        #expect(await finish(serve).status == 0)
    }

    /// Socket.IO: one client on WebSocket that never reads and one on
    /// polling that never polls again; both dropped, the room goes on.
    @Test func socketIODropsClientsThatNeverReadOrPollAndStaysSmall() async throws {
        let (serve, port, stderr) = try await Self.serve(["--socketio", "127.0.0.1:0", "--max-queued-kb", "256"], server: "socketio")
        // The poller: handshake, CONNECT and connectUser, then never a GET again.
        let base = "http://127.0.0.1:\(port)/socket.io/?EIO=4&transport=polling"
        let open = try await HTTPClients.request(client: HTTPClient.shared, url: base, method: .GET, headers: [:],
                                                 body: nil, timeout: .seconds(5), limit: 4096)
        let sid = try #require(open.split(separator: "\"").drop { $0 != "sid" }.dropFirst(2).first.map(String.init), "\(open)")
        _ = try await HTTPClients.request(client: HTTPClient.shared, url: base + "&sid=\(sid)", method: .POST,
                                          headers: [:], body: "40\u{1e}42[\"connectUser\",\"poller\"]", timeout: .seconds(5), limit: 4096)
        // The WebSocket reader that never reads: its upgrade is raw bytes.
        let slow = try await RawTCPClient.connect(port: port, reading: false)
        try await slow.write("GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                             + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        for text in ["40", #"42["connectUser","slow"]"#] {
            // A masked text frame (mask 0: the payload is sent as is).
            try await slow.channel.writeAndFlush(ByteBuffer(bytes: [0x81, 0x80 | UInt8(text.utf8.count), 0, 0, 0, 0] + Array(text.utf8)))
        }
        // ann asks for her own messages back (`echo=true`): each batch is paced by her hearing it.
        var hearsOwn = SocketIOOptions()
        hearsOwn.query = ["echo": "true"]
        let ann = try await Person("ann", transport: SocketIOTransport(endpoint: SocketIOEndpoint(host: "127.0.0.1", port: port), name: "ann",
                                                                       options: hearsOwn))
        let bob = try await Person("bob", transport: SocketIOTransport(endpoint: SocketIOEndpoint(host: "127.0.0.1", port: port), name: "bob"))
        #expect(await eventually { ann.joins(of: "bob") >= 1 })
        let before = Self.memory(serve.processIdentifier)

        let text = String(repeating: "z", count: 8000)
        var sent = 0
        // 24 MB through the room, 50 messages at a time, each batch echoed to ann before the next.
        while sent < 3000 {
            for _ in 0..<50 { try await ann.say(text) }
            sent += 50
            guard await eventually(20, { ann.texts(from: "ann").count >= sent }) else { break }
        }
        let after = Self.memory(serve.processIdentifier)
        #expect(await eventually { ann.leaves(of: "slow") >= 1 && ann.leaves(of: "poller") >= 1 }, "\(ann.events.suffix(5))")
        // The child's stderr reaches the test through a pipe reader on another thread.
        #expect(await eventually { stderr().contains("bytes queued: the client does not read") }, "\(stderr())")
        #expect(await eventually { stderr().contains("bytes queued: the client does not poll") }, "\(stderr())")
        #expect(after.peak - before.rss < 16 * 1024, "peak \(after.peak) KiB against \(before.rss) KiB before the flood")
        try await bob.say("still here")
        #expect(await eventually { ann.texts(from: "bob").contains("still here") })
        await bob.leave()
        await ann.leave()
        slow.close()
        kill(serve.processIdentifier, SIGTERM)
        #expect(await finish(serve).status == 0)
    }
}
