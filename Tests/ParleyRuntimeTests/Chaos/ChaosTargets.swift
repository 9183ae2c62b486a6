import AsyncHTTPClient
import Foundation
import NIOCore
import ParleyCore
@testable import ParleySTOMP
@testable import ParleyStreamChat
import ParleyWire
import Synchronization
import ParleyTestSupport

// The four transports the chaos runner drives, one adapter each: how the
// server starts and restarts, how a person talks there, and where the
// server's own record of the room comes from.

/// Reads a fixture's `--record` file: one JSON object per line.
private func recordedLines(_ path: String) -> [JSONValue] {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
    // The last line may be half written while the fixture appends: parsing drops it until it is whole.
    return text.split(separator: "\n").compactMap { try? JSONValue.parse(String($0)) }
}

/// Starts a server on `port` again, retrying while the old one's port is still being released.
private func onSamePort<T>(_ start: () async throws -> T) async throws -> T {
    for attempt in 0..<100 {
        do {
            return try await start()
        } catch where attempt < 99 {
            try await Task.sleep(for: .milliseconds(50))
        }
    }
    throw PeerError("unreachable")
}

// MARK: StreamChat

/// Parley's embedded StreamChat server, in this process: the room's record
/// is the server's `observe` tap (every broadcast line, once, in order), kept
/// across restarts on the same port.
final class StreamChatChaos: ChaosTarget {
    let name = "streamchat"
    let upstreamPort: Int
    private let server: Mutex<StreamChatServer?>
    private let record: ServerRecord
    /// The bot's idle read timeout: the protocol has no heartbeat, so a silent link is noticed by silence.
    let idleTimeout = 1.0

    /// What the servers broadcast, across restarts.
    final class ServerRecord: Sendable {
        let lines = Mutex<[(time: Date, line: StreamChat.ServerLine)]>([])
        func observe(_ line: StreamChat.ServerLine) { lines.withLock { $0.append((Date(), line)) } }
    }

    private init(server: StreamChatServer, record: ServerRecord) {
        upstreamPort = server.port
        self.server = Mutex(server)
        self.record = record
    }

    static func start() async throws -> StreamChatChaos {
        let record = ServerRecord()
        let server = try await StreamChatServer.start(config(port: 0, record: record))
        return StreamChatChaos(server: server, record: record)
    }

    private static func config(port: Int, record: ServerRecord) -> StreamChatServer.Configuration {
        var c = StreamChatServer.Configuration(port: port)
        c.observe = { record.observe($0) }
        return c
    }

    func botConfig(proxyPort: Int) -> (keys: String, tables: String) {
        ("transport = \"streamchat\"\nserver = \"127.0.0.1:\(proxyPort)\"",
         "[bot.streamchat]\nidle_timeout = \(idleTimeout)")
    }

    var detectionBound: Double { idleTimeout }
    var detectionRule: String { "idle_timeout" }

    func person(_ name: String) -> any ChaosPerson {
        let port = upstreamPort
        return SessionPerson(name, room: StreamChat.room) {
            StreamChatTransport(host: "127.0.0.1", port: port, name: name, connectTimeout: 2)
        }
    }

    func restartServer() async throws {
        await server.withLock { $0 }?.shutdown()
        let port = upstreamPort
        let record = self.record
        let fresh = try await onSamePort { try await StreamChatServer.start(Self.config(port: port, record: record)) }
        server.withLock { $0 = fresh }
    }

    func roomLines() async -> [RoomLine] {
        record.lines.withLock { r in r.compactMap { if case .message(let u, let t) = $0.line { RoomLine(user: u, text: t) } else { nil } } }
    }

    func botArrivals() async -> [Date] {
        record.lines.withLock { r in r.compactMap { if case .joined("parley") = $0.line { $0.time } else { nil } } }
    }

    func stop() async { await server.withLock { $0 }?.shutdown() }
}

// MARK: Socket.IO

/// The python-socketio SocketChat fixture as a child process; a restart
/// kills it and starts it again on the same port. The room's record is its
/// `--record` file: every connectUser and chatMessage it accepted, written
/// before it acks, so any send the bot counted (the bot uses `ack_sends`)
/// is there.
final class SocketIOChaos: ChaosTarget {
    let name = "socketio"
    let upstreamPort: Int
    private let server: Mutex<SocketServer>
    private let recordFile: String
    /// The fixture's Engine.IO heartbeat: a silent link is noticed after pingInterval + pingTimeout.
    static let ping = (interval: 0.5, timeout: 0.5)

    private init(server: SocketServer, recordFile: String) {
        upstreamPort = server.port
        self.server = Mutex(server)
        self.recordFile = recordFile
    }

    static func start() async throws -> SocketIOChaos {
        let record = try temporaryDirectory().appendingPathComponent("room.jsonl").path
        let settings = SocketServerSettings(pingInterval: ping.interval, pingTimeout: ping.timeout, record: record)
        return SocketIOChaos(server: try await SocketServer.start(.python, settings), recordFile: record)
    }

    /// `ack_sends`: a send counts only when the server acked it. Without it a
    /// send counts once written to the socket (the README says so), and a
    /// write into a link that has silently died would be lost by design.
    func botConfig(proxyPort: Int) -> (keys: String, tables: String) {
        ("transport = \"socketio\"\nserver = \"127.0.0.1:\(proxyPort)\"",
         "[bot.socketio]\ntransports = [\"websocket\"]\nack_sends = true\nack_timeout = 2")
    }

    var detectionBound: Double { Self.ping.interval + Self.ping.timeout }
    var detectionRule: String { "server pingInterval + pingTimeout" }

    func person(_ name: String) -> any ChaosPerson {
        let s = server.withLock { $0 }
        return SessionPerson(name, room: "lobby") { s.transport(name) }
    }

    func restartServer() async throws {
        let fresh = try await server.withLock { $0 }.restarted()
        server.withLock { $0 = fresh }
    }

    func roomLines() async -> [RoomLine] {
        recordedLines(recordFile).compactMap { r in
            guard r["event"]?.string == "chatMessage", r["ns"]?.string == "/", let u = r["nick"]?.string, let t = r["msg"]?.string else { return nil }
            return RoomLine(user: u, text: t)
        }
    }

    func botArrivals() async -> [Date] {
        recordedLines(recordFile).compactMap { r in
            guard r["event"]?.string == "connectUser", r["nick"]?.string == "parley", let t = r["t"]?.number else { return nil }
            return Date(timeIntervalSince1970: t)
        }
    }

    func stop() async { await server.withLock { $0 }.stop() }
}

// MARK: REST

/// The python REST fixture with `--state` (chats, channel ids and the bot's
/// tokens survive its restarts, as a real server's database would, so
/// catch-up works after one) and `--record` (every stored chat and every
/// channel socket connect). People post through its test endpoint.
final class RESTChaos: ChaosTarget {
    let name = "rest"
    let upstreamPort: Int
    private let server: Mutex<RESTServer>
    private let arguments: [String]
    private let recordFile: String
    /// Whole seconds for the interval: python-engineio announces int(interval) × 1000 ms, and
    /// only the SocketChat fixture patches that (0.5 would be announced as 0, which the bot refuses).
    static let ping = (interval: 1.0, timeout: 0.5)

    private init(server: RESTServer, arguments: [String], recordFile: String) {
        upstreamPort = server.port
        self.server = Mutex(server)
        self.arguments = arguments
        self.recordFile = recordFile
    }

    static func start() async throws -> RESTChaos {
        let dir = try temporaryDirectory()
        let record = dir.appendingPathComponent("room.jsonl").path
        let args = ["--state", dir.appendingPathComponent("state.jsonl").path, "--record", record,
                    "--ping-interval", "\(ping.interval)", "--ping-timeout", "\(ping.timeout)"]
        return RESTChaos(server: try await RESTServer.start(arguments: args), arguments: args, recordFile: record)
    }

    /// Short request timeouts and retries: a POST on a pooled connection the
    /// proxy silenced must give up quickly and go out again on a fresh one.
    func botConfig(proxyPort: Int) -> (keys: String, tables: String) {
        ("transport = \"rest\"\nserver = \"http://127.0.0.1:\(proxyPort)\"\nrooms = [\"acme/general\"]",
         """
         [bot.rest]
         email = "\(RESTServer.botEmail)"
         password = "\(RESTServer.botPassword)"
         service_key = "\(RESTServer.serviceKey)"
         backfill = 0
         request_timeout = 2
         retry_initial = 0.05
         retry_max = 0.5
         """)
    }

    var detectionBound: Double { Self.ping.interval + Self.ping.timeout }
    var detectionRule: String { "server pingInterval + pingTimeout" }

    func person(_ name: String) -> any ChaosPerson { RESTPerson(name: name, target: self) }

    func post(_ user: String, _ text: String) async -> Bool {
        (try? await server.withLock { $0 }.post(user, text)) != nil
    }

    func restartServer() async throws {
        let old = server.withLock { $0 }
        await old.stop()
        let port = upstreamPort, args = arguments
        let fresh = try await onSamePort { try await RESTServer.start(port: port, arguments: args) }
        server.withLock { $0 = fresh }
    }

    func roomLines() async -> [RoomLine] {
        recordedLines(recordFile).compactMap { r in
            guard r["event"]?.string == "chat", let u = r["user"]?.string, let t = r["text"]?.string else { return nil }
            return RoomLine(user: u, text: t)
        }
    }

    /// The bot is the only socket client (people post over HTTP): a channel connect is the bot arriving.
    func botArrivals() async -> [Date] {
        recordedLines(recordFile).compactMap { r in
            guard r["event"]?.string == "connect", let t = r["t"]?.number else { return nil }
            return Date(timeIntervalSince1970: t)
        }
    }

    func stop() async { await server.withLock { $0 }.stop() }
}

/// A REST person posts through the fixture's test endpoint (the bot's only
/// view of people is the channel's chats; the transport makes a `join` of
/// someone's first message).
final class RESTPerson: ChaosPerson {
    let name: String
    let target: RESTChaos
    init(name: String, target: RESTChaos) {
        self.name = name
        self.target = target
    }
    func say(_ text: String) async -> Bool { await target.post(name, text) }
    func leave() async {}
}

// MARK: STOMP

/// RabbitMQ over Web-STOMP. A restart is `rabbitmqctl stop_app` / `start_app`
/// (a full node restart takes far longer). The room's record is a durable
/// quorum queue bound to the room's topic (`STOMPRoomRecorder`): it keeps
/// what the broker routed while the recorder itself was reconnecting, and
/// (quorum queues keep every message on disk) across the restarts.
final class STOMPChaos: ChaosTarget {
    let name = "stomp"
    let upstreamPort = RabbitMQ.webSTOMP.port
    let room: String
    private let recorder: STOMPRoomRecorder
    /// Heart-beats asked of RabbitMQ (it counts whole seconds), and the margin.
    static let heartBeat = (ms: 1000, margin: 0.5)

    static func start() async throws -> STOMPChaos {
        try await RabbitMQ.require()
        let room = RabbitMQ.freshRoom()
        let recorder = STOMPRoomRecorder(destination: "/topic/chat.room.\(room)")
        try await recorder.start()
        return STOMPChaos(recorder: recorder, room: room)
    }

    private init(recorder: STOMPRoomRecorder, room: String) {
        self.recorder = recorder
        self.room = room
    }

    func botConfig(proxyPort: Int) -> (keys: String, tables: String) {
        ("transport = \"stomp\"\nserver = \"ws://127.0.0.1:\(proxyPort)/ws\"\nrooms = [\"\(room)\"]",
         """
         [bot.stomp]
         login = "guest"
         passcode = "guest"
         heart_beat = [\(Self.heartBeat.ms), \(Self.heartBeat.ms)]
         heart_beat_margin = \(Self.heartBeat.margin)
         receipt_timeout = 2
         """)
    }

    var detectionBound: Double { 2 * Double(Self.heartBeat.ms) / 1000 + Self.heartBeat.margin }
    var detectionRule: String { "2 × heart-beat + margin" }

    func person(_ name: String) -> any ChaosPerson {
        let room = self.room
        return SessionPerson(name, room: room) {
            RabbitMQ.transport(name, room: room, options: RabbitMQ.options { $0.receiptTimeout = 2 })
        }
    }

    func restartServer() async throws {
        try await RabbitMQ.ctl("stop_app")
        do {
            try await RabbitMQ.ctl("start_app")
        } catch {
            try? await RabbitMQ.ctl("start_app")
            throw error
        }
        try await RabbitMQ.ctl("await_startup")
    }

    func roomLines() async -> [RoomLine] {
        recorder.messages.compactMap { m in m.type == "TALK" ? RoomLine(user: m.sender, text: m.message) : nil }
    }

    func botArrivals() async -> [Date] {
        recorder.messages.compactMap { m in m.type == "ENTER" && m.sender == "parley" ? m.time : nil }
    }

    func stop() async { await recorder.stop() }
}

/// A STOMP consumer of a durable quorum queue bound to a topic, over TCP,
/// reconnecting at once whenever its link ends (a broker restart). Each
/// MESSAGE is recorded, then acked (`client-individual`), so nothing the
/// queue held is lost to a connection that died mid-delivery; a message the
/// broker delivers again after such a death comes with `redelivered:true`
/// and is recorded only if its body was not seen yet (a real repeat by the
/// bot is a new message, never redelivered).
final class STOMPRoomRecorder: Sendable {
    struct Message: Sendable {
        var time: Date
        var type: String
        var sender: String
        var message: String
    }

    let destination: String
    let id = "chaos-recorder-\(UUID().uuidString.prefix(8))"
    private let state = Mutex<(messages: [Message], bodies: Set<String>, task: Task<Void, Never>?, client: STOMPClient?, stopped: Bool)>(([], [], nil, nil, false))

    init(destination: String) {
        self.destination = destination
    }

    var messages: [Message] { state.withLock { $0.messages } }

    /// Subscribes (creating the queue) and returns once the subscription is confirmed.
    func start() async throws {
        let first = try await firstSession()
        let task = Task {
            await first.ended.value
            while !self.state.withLock({ $0.stopped }) {
                if let s = try? await self.session() {
                    await s.ended.value
                } else {
                    try? await Task.sleep(for: .milliseconds(50))
                }
            }
        }
        state.withLock { $0.task = task }
    }

    /// Declaring a quorum queue waits for its Raft group to elect a leader,
    /// which on a loaded machine (or soon after the broker restarted) can
    /// outlast one SUBSCRIBE's timeout: try again, the declaration is idempotent.
    private func firstSession() async throws -> (client: STOMPClient, ended: Task<Void, Never>) {
        for _ in 1..<4 {
            if let s = try? await session() { return s }
            try await Task.sleep(for: .milliseconds(500))
        }
        return try await session()
    }

    /// One subscribed session; `ended` completes when its link does.
    private func session() async throws -> (client: STOMPClient, ended: Task<Void, Never>) {
        let (ends, end) = AsyncStream<Void>.makeStream()
        let settings = STOMPClient.Settings(host: "/", login: "guest", passcode: "guest", heartBeat: (0, 0), heartBeatMargin: 1,
                                            connectTimeout: 2)
        let client = try await STOMPClient.open(settings, link: { sink in
            try await STOMPTCPLink.connect(host: RabbitMQ.tcpSTOMP.host, port: RabbitMQ.tcpSTOMP.port, tls: false, maxFrameSize: 1 << 20,
                                          timeout: 2, on: nil, sink: sink)
        }, deliver: { [self] frame in
            self.take(frame)
            if let ack = frame[header: "ack"] { self.state.withLock { $0.client }?.enqueue(STOMPFrame("ACK", [("id", ack)])) }
        }, ended: { _ in end.finish() }, log: { _ in })
        // Before SUBSCRIBE: the first MESSAGE may come right behind its RECEIPT and must be acked on this client.
        state.withLock { $0.client = client }
        do {
            try await client.request(STOMPFrame("SUBSCRIBE", [
                ("id", id), ("destination", destination), ("ack", "client-individual"),
                ("durable", "true"), ("auto-delete", "false"), ("x-queue-type", "quorum"), ("prefetch-count", "100"),
            ]), timeout: 10)
        } catch {
            client.abort()
            throw error
        }
        return (client, Task { for await _ in ends {} })
    }

    private func take(_ frame: STOMPFrame) {
        let body = frame.bodyText
        guard let json = try? JSONValue.parse(body) else { return }
        let m = Message(time: Date(), type: json["type"]?.string ?? "", sender: json["sender"]?.string ?? "", message: json["message"]?.string ?? "")
        let redelivered = frame[header: "redelivered"] == "true"
        state.withLock { s in
            if redelivered, s.bodies.contains(body) { return }
            s.bodies.insert(body)
            s.messages.append(m)
        }
    }

    /// Stops reconnecting and deletes the durable queue (UNSUBSCRIBE with `durable:true`).
    func stop() async {
        let (task, client) = state.withLock { s in
            s.stopped = true
            return (s.task, s.client)
        }
        if let client {
            try? await client.request(STOMPFrame("UNSUBSCRIBE", [("id", id), ("durable", "true")]), timeout: 2)
            await client.disconnect(timeout: 2)
        }
        task?.cancel()
    }
}
