import Foundation
import ParleyCore
import ParleyRuntime
import ParleySocketIO
import ParleyWire
import Synchronization
import Testing
import ParleyTestSupport

/// The Socket.IO client transport against a hostile or broken server: a
/// `RawSocketIOPeer` sends malformed, truncated and out-of-place packets, and
/// the tests check what survives (the session, the valid messages, the bot's
/// answers) and what ends a session (and that it ends the right way).
@Suite(.timeLimit(.minutes(1)))
struct SocketIOMalformedTests {
    /// Logs every message the bot hears, so tests can see exactly what arrived.
    static let listener = #"bot.on("message", function(m) bot.log.info("heard " .. m.user .. ": " .. m.text) end)"#
    /// What the echo plugin's `!ping` answer looks like on the wire.
    static let pong = #"42["chatMessage","parley","pong"]"#

    /// A SocketChat `newChatMessage` from the server.
    static func chat(_ user: String, _ text: String) -> String {
        #"42["newChatMessage",\#(JSONValue.string(user).text),\#(JSONValue.string(text).text),"11/21/2026, 3:04:05 PM"]"#
    }

    /// What a test sends the client, one WebSocket frame each.
    enum Frame: Sendable {
        case text(String)
        /// A text frame with exactly these bytes (invalid UTF-8 allowed).
        case bytes([UInt8])
        case binary([UInt8])
    }

    /// WebSocket only: the raw peer refuses polling anyway, this keeps failures quick.
    /// 10 s unless a test is about the timeout: on a loaded run the raw peer's
    /// open packet once came after a 2 s connect timeout had given up.
    static func transport(_ peer: RawSocketIOPeer, connectTimeout: Double = 10, log: TransportLog = TransportLog()) -> SocketIOTransport {
        var options = SocketIOOptions()
        options.transports = [.websocket]
        return SocketIOTransport(endpoint: SocketIOEndpoint(host: "127.0.0.1", port: peer.port), name: "parley",
                                 options: options, connectTimeout: connectTimeout, log: log.add)
    }

    /// A bot named `parley` with the shipped echo plugin and the listener, on the raw peer.
    func startBot(_ peer: RawSocketIOPeer, recorder: Recorder, log: TransportLog = TransportLog()) throws -> (BotRunner, Task<BotOutcome, Never>) {
        let spec = try botSpec(name: "parley", port: 0, plugins: [("listener", Self.listener)], shippedPlugins: ["echo"],
                               transport: Self.transport(peer, log: log))
        let runner = BotRunner(spec: spec, observer: recorder.observer)
        return (runner, Task { await runner.run() })
    }

    static func send(_ frame: Frame, on conn: RawSocketIOConnection) async throws {
        switch frame {
        case .text(let s): try await conn.send(s)
        case .bytes(let b): try await conn.send(textBytes: b)
        case .binary(let b): try await conn.send(binary: b)
        }
    }

    static func heard(_ rec: Recorder) -> [String] {
        rec.logs(containing: "heard ").map { String($0.text.dropFirst("heard ".count)) }
    }

    /// Sends `!ping <tag>` from alice and waits until the bot heard it and its
    /// `pong` reached the peer (`pongs` in all, counting earlier ones).
    static func pingRoundTrip(_ conn: RawSocketIOConnection, _ rec: Recorder, tag: String, pongs: Int) async throws -> Bool {
        try await conn.send(chat("alice", "!ping \(tag)"))
        return await eventually(10) { heard(rec).contains("alice: !ping \(tag)") && conn.count(of: pong) == pongs }
    }

    // MARK: what the session survives

    /// Every malformed, truncated or misplaced packet is dropped on its own:
    /// after each one a valid `newChatMessage` still arrives, the bot still
    /// answers `!ping` with `pong`, and the link is never closed or reopened.
    @Test func malformedPacketsAreDroppedAndTheSessionStaysUp() async throws {
        let peer = try await RawSocketIOPeer.start()
        let rec = Recorder()
        let log = TransportLog()
        let (bot, run) = try startBot(peer, recorder: rec, log: log)
        let conn = try await peer.connection(0)
        try await conn.open(name: "parley")
        #expect(await eventually { await bot.state == .online })

        let junkUTF8: [UInt8] = Array("42".utf8) + [0xFF, 0xFE, 0x5B, 0x22, 0xC0, 0x80]
        let badStringUTF8: [UInt8] = Array(#"42["newChatMessage","mallory","bad "#.utf8) + [0xC3, 0x28] + Array(#"","d"]"#.utf8)
        let hostile: [(String, [Frame])] = [
            ("4abc (unknown Socket.IO type)", [.text("4abc")]),
            ("42{} (event data not an array)", [.text("42{}")]),
            ("truncated JSON", [.text(#"42["newChatMessage""#), .text(#"42["newChatMessage","alice","cut"#)]),
            ("4 (empty message)", [.text("4")]),
            ("9 (unknown Engine.IO type)", [.text("9")]),
            ("42[1,2] (event name not a string)", [.text("42[1,2]")]),
            ("42[] (no event name)", [.text("42[]")]),
            ("43 (ack without data)", [.text("43")]),
            // The valid message below is the text packet that comes instead of the attachment.
            ("a binary event whose attachment never comes", [.text(#"451-["x",{"_placeholder":true,"num":0}]"#)]),
            ("a stray binary frame", [.binary([0xDE, 0xAD, 0xBE, 0xEF])]),
            ("invalid UTF-8 in a text frame", [.bytes(junkUTF8)]),
            ("invalid UTF-8 inside a JSON string", [.bytes(badStringUTF8)]),
            ("newChatMessage with non-string arguments",
             [.text(#"42["newChatMessage",1,{},null]"#), .text(#"42["newChatMessage","alice"]"#), .text(#"42["newChatMessage"]"#)]),
            ("userList with garbage entries",
             [.text(#"42["userList",[1,"bob",null,[],{"nickname":5},{"id":"x"},{"nickname":"carol","isConnected":"yes"}]]"#),
              .text(#"42["userList","everyone"]"#), .text(#"42["userList"]"#), .text(#"42["userList",{"nickname":"bob"}]"#)]),
            ("userTypingUpdate with a non-object",
             [.text(#"42["userTypingUpdate","alice"]"#), .text(#"42["userTypingUpdate",[1,2]]"#),
              .text(#"42["userTypingUpdate",null]"#), .text(#"42["userTypingUpdate"]"#)]),
            ("userConnectUpdate and userExitUpdate with garbage",
             [.text(#"42["userConnectUpdate",7]"#), .text(#"42["userConnectUpdate",{"nickname":[]}]"#),
              .text(#"42["userExitUpdate",{}]"#), .text(#"42["userExitUpdate",null]"#)]),
            ("Engine.IO noise: noop, upgrade, pong, a second open, a broken open",
             [.text("6"), .text("5"), .text("3"), .text(RawSocketIOConnection.openPacket(sid: "again")), .text("0{")]),
            ("unasked CONNECT answers and acks",
             [.text(#"40{"sid":"again"}"#), .text(#"40/elsewhere,{"sid":"x"}"#), .text(#"431["late"]"#), .text("43[]")]),
            ("an event for a namespace the bot never joined", [.text(#"42/elsewhere,["newChatMessage","alice","!ping hidden","d"]"#)]),
            ("an ack id over 15 digits", [.text(#"421234567890123456["newChatMessage","alice","!ping long id","d"]"#)]),
            ("an attachment count over the limit", [.text(#"45999999-["x"]"#)]),
            ("a complete binary event that is no chat",
             [.text(#"451-["newChatMessage","alice",{"_placeholder":true,"num":0}]"#), .binary([1, 2, 3])]),
            ("an unknown event", [.text(#"42["somethingElse",1,{"a":[]}]"#)]),
        ]
        var expectedHeard: [String] = []
        for (i, (label, frames)) in hostile.enumerated() {
            for f in frames { try await Self.send(f, on: conn) }
            if label == "invalid UTF-8 inside a JSON string" {
                // The frame is decoded with U+FFFD for the bad bytes (not dropped, not fatal).
                expectedHeard.append("mallory: bad \u{FFFD}(")
            }
            expectedHeard.append("alice: !ping \(i)")
            let ok = try await Self.pingRoundTrip(conn, rec, tag: "\(i)", pongs: i + 1)
            #expect(ok, "after \(label): heard \(Self.heard(rec)), pongs \(conn.count(of: Self.pong))")
            if !ok { break }
        }
        #expect(Self.heard(rec) == expectedHeard)

        // An event with an ack id gets an (empty) ack and is handled like any other.
        try await conn.send(#"427["newChatMessage","alice","!ping acked","d"]"#)
        #expect(await eventually(10) { conn.count(of: "437[]") == 1 && conn.count(of: Self.pong) == hostile.count + 1 })
        // The heartbeat still works.
        try await conn.send("2")
        #expect(await eventually(10) { conn.count(of: "3") == 1 })

        #expect(!Self.heard(rec).contains { $0.contains("hidden") || $0.contains("long id") })
        #expect(log.lines.filter { $0.contains("dropped a malformed packet") }.count >= 10, "\(log.lines)")
        #expect(log.lines.contains { $0.contains("not Engine.IO") }, "\(log.lines)")
        #expect(peer.connections.count == 1)
        #expect(!conn.isClosed)
        #expect(await bot.state == .online)
        #expect(await bot.stats.reconnects == 0)

        // A clean stop says goodbye on the same link.
        await bot.stop()
        #expect(await run.value == .stopped)
        try await conn.waitForText("exitUser", timeout: 10) { $0 == #"42["exitUser","parley"]"# }
        try await conn.waitForText("a DISCONNECT of /", timeout: 10) { $0 == "41" }
        #expect(await conn.waitUntilClosed(timeout: 10))
        await peer.stop()
    }

    /// A CONNECT_ERROR or DISCONNECT for a namespace the bot never asked for
    /// (python-socketio's bare-string form included) concerns nobody here: the
    /// session stays up and messages keep arriving. The JavaScript client
    /// ignores packets for namespaces it has no socket for.
    @Test
    func packetsForANamespaceTheBotNeverJoinedAreIgnored() async throws {
        let peer = try await RawSocketIOPeer.start()
        let rec = Recorder()
        let (bot, run) = try startBot(peer, recorder: rec)
        let conn = try await peer.connection(0)
        try await conn.open(name: "parley")
        #expect(await eventually { await bot.state == .online })
        let packets = [#"44/nope,"Unable to connect""#, #"44/nope,{"message":"nope"}"#, "41/nope,"]
        for (i, packet) in packets.enumerated() {
            try await conn.send(packet)
            let ok = try await Self.pingRoundTrip(conn, rec, tag: "\(i)", pongs: i + 1)
            #expect(ok, "after \(packet)")
            if !ok { break }
        }
        #expect(peer.connections.count == 1)
        #expect(await bot.stats.reconnects == 0)
        await bot.stop()
        #expect(await run.value == .stopped)
        await peer.stop()
    }

    // MARK: what ends a session

    /// `41` (the server disconnects the bot from `/`) is a kick: the session
    /// reports `kicked`, the runner stops with outcome `.kicked` instead of
    /// reconnecting, and the client drops the link.
    @Test func aServerDisconnectOfTheNamespaceKicksTheBot() async throws {
        let peer = try await RawSocketIOPeer.start()
        let rec = Recorder()
        let (bot, run) = try startBot(peer, recorder: rec)
        let conn = try await peer.connection(0)
        try await conn.open(name: "parley")
        #expect(try await Self.pingRoundTrip(conn, rec, tag: "before", pongs: 1))
        try await conn.send("41")
        let outcome = await run.value
        guard case .kicked(let reason) = outcome else {
            Issue.record("outcome \(outcome), expected .kicked")
            return
        }
        #expect(reason.contains("namespace /"), "\(reason)")
        #expect(await bot.state == .kicked)
        #expect(await conn.waitUntilClosed(timeout: 10))
        try await Task.sleep(for: .milliseconds(300))
        #expect(peer.connections.count == 1, "a kicked bot does not come back")
        await peer.stop()
    }

    /// A frame over the client's WebSocket frame limit (16 MiB before and,
    /// for now, after the handshake) closes the link; presence reconnects and
    /// the new session works. The oversized message is never delivered.
    @Test func aFrameOverTheFrameLimitClosesTheLinkAndPresenceReconnects() async throws {
        let peer = try await RawSocketIOPeer.start()
        let rec = Recorder()
        let (bot, run) = try startBot(peer, recorder: rec)
        let first = try await peer.connection(0)
        try await first.open(name: "parley")
        #expect(await eventually { await bot.state == .online })
        // The client drops the connection while the frame is still being written.
        try? await first.send(#"42["newChatMessage","alice",""# + String(repeating: "x", count: 17 << 20) + #"","d"]"#)
        #expect(await first.waitUntilClosed(timeout: 5))
        let second = try await peer.connection(1)
        try await second.open(name: "parley")
        #expect(await eventually { let s = await bot.stats; let st = await bot.state; return s.reconnects == 1 && st == .online })
        #expect(try await Self.pingRoundTrip(second, rec, tag: "after", pongs: 1))
        #expect(Self.heard(rec) == ["alice: !ping after"])
        #expect(rec.logs(containing: "link lost").count == 1, "\(rec.logs.map(\.text))")
        await bot.stop()
        #expect(await run.value == .stopped)
        await peer.stop()
    }

    /// A 2 MB text frame, over the 1 MB `maxPayload` the server announced:
    /// the link closes (it does not crash, and the message is not delivered)
    /// and presence reconnects.
    @Test
    func aFrameOverMaxPayloadClosesTheLinkAndPresenceReconnects() async throws {
        let peer = try await RawSocketIOPeer.start()
        let rec = Recorder()
        let (bot, run) = try startBot(peer, recorder: rec)
        let first = try await peer.connection(0)
        try await first.open(name: "parley", maxPayload: 1_000_000)
        #expect(await eventually { await bot.state == .online })
        try? await first.send(#"42["newChatMessage","alice","!echo "# + String(repeating: "x", count: 2_000_000) + #"","d"]"#)
        let closed = await first.waitUntilClosed(timeout: 10)
        #expect(closed, "the link is still open; heard \(Self.heard(rec).map { $0.prefix(20) }), client sent \(first.texts.map { $0.prefix(40) })")
        #expect(!Self.heard(rec).contains { $0.hasPrefix("alice: !echo") })
        guard closed else { return }
        let second = try await peer.connection(1)
        try await second.open(name: "parley")
        #expect(await eventually { let s = await bot.stats; let st = await bot.state; return s.reconnects == 1 && st == .online })
        #expect(try await Self.pingRoundTrip(second, rec, tag: "after", pongs: 1))
        await bot.stop()
        #expect(await run.value == .stopped)
        await peer.stop()
    }

    /// `44{"message":"nope"}` for `/` after it was connected ends the session
    /// (the JavaScript client destroys the socket too); presence reconnects
    /// and the new session works.
    @Test func aConnectErrorForTheJoinedNamespaceEndsTheSessionAndPresenceReconnects() async throws {
        let peer = try await RawSocketIOPeer.start()
        let rec = Recorder()
        let (bot, run) = try startBot(peer, recorder: rec)
        let first = try await peer.connection(0)
        try await first.open(name: "parley")
        #expect(try await Self.pingRoundTrip(first, rec, tag: "before", pongs: 1))
        try await first.send(#"44{"message":"nope"}"#)
        let second = try await peer.connection(1)
        try await second.open(name: "parley")
        #expect(await eventually { let s = await bot.stats; let st = await bot.state; return s.reconnects == 1 && st == .online })
        #expect(rec.logs(containing: "nope").count >= 1, "\(rec.logs.map(\.text))")
        #expect(try await Self.pingRoundTrip(second, rec, tag: "after", pongs: 1))
        await bot.stop()
        #expect(await run.value == .stopped)
        await peer.stop()
    }

    /// When a CONNECT_ERROR ends the session, the client also drops the
    /// abandoned link: it must not linger half-alive next to the new one.
    @Test
    func aConnectErrorForTheJoinedNamespaceClosesTheOldLink() async throws {
        let peer = try await RawSocketIOPeer.start()
        let rec = Recorder()
        let (bot, run) = try startBot(peer, recorder: rec)
        let first = try await peer.connection(0)
        try await first.open(name: "parley")
        #expect(await eventually { await bot.state == .online })
        try await first.send(#"44{"message":"nope"}"#)
        #expect(await first.waitUntilClosed(timeout: 10), "the refused link is still open")
        await bot.stop()
        _ = await run.value
        await peer.stop()
    }

    // MARK: failures while connecting

    /// Runs `transport.connect()` while `serve` plays the server's part on the
    /// first connection; returns the connect's error (nil if it succeeded) and
    /// how long it took.
    func connectFailure(_ t: SocketIOTransport, _ peer: RawSocketIOPeer,
                        serve: @escaping @Sendable (RawSocketIOConnection) async throws -> Void) async throws -> (Error?, Duration, RawSocketIOConnection) {
        let started = ContinuousClock.now
        let attempt = Task { try await t.connect() }
        let conn = try await peer.connection(0)
        try await serve(conn)
        let result = await attempt.result
        let took = ContinuousClock.now - started
        switch result {
        case .success(let session):
            await session.close()
            return (nil, took, conn)
        case .failure(let error):
            return (error, took, conn)
        }
    }

    /// A server that upgrades but never sends the open packet: connect fails
    /// with a TransportError once connectTimeout passes, and the link is dropped.
    @Test func noOpenPacketTimesOut() async throws {
        let peer = try await RawSocketIOPeer.start()
        // 5 s: the raw peer's upgrade answer must come within it on a loaded
        // machine, or the upgrade's own timeout is what fails the connect.
        let (error, took, conn) = try await connectFailure(Self.transport(peer, connectTimeout: 5), peer) { _ in }
        let e = try #require(error as? TransportError, "\(String(describing: error))")
        #expect(e.message.contains("no Engine.IO open packet within 5.0 s"), "\(e)")
        // The connect ends on its own rather than waiting for ever; the bound
        // is loose because this pass shares two cores with 200 other tests.
        #expect(took < .seconds(15))
        #expect(await conn.waitUntilClosed(timeout: 10))
        await peer.stop()
    }

    /// An open packet without `sid` is not a handshake: connect fails with a
    /// TransportError and the link is dropped.
    @Test func anOpenPacketWithoutSidFailsTheConnect() async throws {
        let peer = try await RawSocketIOPeer.start()
        let (error, _, conn) = try await connectFailure(Self.transport(peer), peer) { conn in
            try await conn.send(#"0{"upgrades":[],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000}"#)
        }
        #expect(error is TransportError, "\(String(describing: error))")
        #expect(await conn.waitUntilClosed(timeout: 10))
        await peer.stop()
    }

    /// An open packet without `sid` fails the connect at once, as a protocol
    /// error that names the missing sid (not as a timeout after connectTimeout).
    @Test
    func anOpenPacketWithoutSidIsAProtocolError() async throws {
        let peer = try await RawSocketIOPeer.start()
        let (error, took, _) = try await connectFailure(Self.transport(peer, connectTimeout: 20), peer) { conn in
            try await conn.send(#"0{"upgrades":[],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000}"#)
        }
        let e = try #require(error as? TransportError, "\(String(describing: error))")
        #expect(e.kind == .protocolViolation, "\(e.kind): \(e)")
        #expect(e.message.contains("sid"), "\(e)")
        #expect(took < .seconds(10), "failed at once, not at the 20 s connect timeout")
        await peer.stop()
    }

    /// CONNECT answered with CONNECT_ERROR, in the JavaScript server's object
    /// form and python-socketio's bare-string form: `.refused`, carrying the
    /// server's own words; the link is dropped.
    @Test(arguments: [#"44{"message":"go away, bot"}"#, #"44"go away, bot""#])
    func aConnectErrorRefusesTheConnect(_ answer: String) async throws {
        let peer = try await RawSocketIOPeer.start()
        let (error, _, conn) = try await connectFailure(Self.transport(peer), peer) { conn in
            try await conn.send(RawSocketIOConnection.openPacket())
            try await conn.waitForText("a CONNECT") { $0.hasPrefix("40") }
            try await conn.send(answer)
        }
        let e = try #require(error as? TransportError, "\(String(describing: error))")
        #expect(e.kind == .refused, "\(e.kind): \(e)")
        #expect(e.message.contains("go away, bot"), "\(e)")
        #expect(await conn.waitUntilClosed(timeout: 10))
        #expect(!conn.texts.contains { $0.contains("connectUser") })
        await peer.stop()
    }

    /// A CONNECT that is never answered fails with `.timeout` after connectTimeout.
    /// 5 s: the same timeout bounds the wait for the open packet, which this
    /// test's peer sends from the cooperative pool, busy in a parallel run.
    @Test func anUnansweredConnectTimesOut() async throws {
        let peer = try await RawSocketIOPeer.start()
        let (error, took, conn) = try await connectFailure(Self.transport(peer, connectTimeout: 5), peer) { conn in
            try await conn.send(RawSocketIOConnection.openPacket())
        }
        let e = try #require(error as? TransportError, "\(String(describing: error))")
        #expect(e.kind == .timeout, "\(e.kind): \(e)")
        #expect(e.message.contains("no answer to CONNECT /"), "\(e)")
        #expect(took < .seconds(15))
        #expect(await conn.waitUntilClosed(timeout: 10))
        await peer.stop()
    }
}

/// Lines a transport logged.
final class TransportLog: Sendable {
    private let store = Mutex<[String]>([])
    var lines: [String] { store.withLock { $0 } }
    var add: @Sendable (String) -> Void { { [self] line in self.store.withLock { $0.append(line) } } }
}
