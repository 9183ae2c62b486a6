import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import ParleyCore
import ParleyNet
import ParleyWire

extension TransportCapabilities {
    /// Socket.IO with SocketChat's event set: typing and roster; several rooms
    /// only with a namespace per room; no server history; kick, mute and
    /// delete (Parley's server obeys its moderators); no length limit beyond
    /// the server's maxPayload.
    public static func socketio(roomsPerNamespace: Bool, typing: Bool) -> TransportCapabilities {
        TransportCapabilities(name: "socketio", rooms: roomsPerNamespace, typing: typing, roster: true,
                              serverHistory: false, kick: true, mute: true, delete: true)
    }
}

/// Socket.IO (Engine.IO v4, Socket.IO v5) as a `Transport`, speaking the
/// SocketChat event set unless the config renames the events.
///
/// A session is one Engine.IO connection with the bot's namespaces
/// connected and `connectUser` sent in each. Liveness is Engine.IO's own
/// heartbeat: no ping within pingInterval + pingTimeout ends the session and
/// presence reconnects.
public struct SocketIOTransport: Transport {
    public var endpoint: SocketIOEndpoint
    public var name: String
    public var rooms: [String]
    public var options: SocketIOOptions
    public var connectTimeout: Double
    /// Already masked by `redactor`.
    public var log: @Sendable (String) -> Void
    /// The auth payload's and the query's values, and the credential headers.
    public let redactor: Redactor
    /// Long-polling's HTTP client, kept across sessions and renewed when a link goes silent.
    let http: RenewableHTTPClient

    public init(endpoint: SocketIOEndpoint, name: String, rooms: [String] = ["lobby"], options: SocketIOOptions = SocketIOOptions(),
                connectTimeout: Double = 10, log: @escaping @Sendable (String) -> Void = { _ in }) {
        var endpoint = endpoint
        endpoint.path = options.path
        endpoint.query = options.query.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        self.endpoint = endpoint
        self.name = name
        self.rooms = rooms.isEmpty ? ["lobby"] : rooms
        self.options = options
        self.connectTimeout = connectTimeout
        let redactor = Redactor()
        redactor.add(options.headers)
        redactor.add(options.query, all: true)
        redactor.add(options.auth ?? [:], all: true)
        self.redactor = redactor
        self.log = redactor.wrap(log)
        http = RenewableHTTPClient(caFile: endpoint.tls ? options.caFile : nil)
    }

    public var capabilities: TransportCapabilities {
        .socketio(roomsPerNamespace: options.namespacePerRoom, typing: !options.events.startType.isEmpty)
    }

    /// Namespace → room, in the config's room order.
    var namespaces: [(namespace: String, room: String)] {
        if options.namespacePerRoom {
            return rooms.map { (options.namespaceTemplate.replacingOccurrences(of: "{room}", with: $0), $0) }
        }
        return [(options.namespace, rooms[0])]
    }

    public func connect(resumingAfter cursors: [String: RoomCursor], on loop: (any EventLoop)?) async throws -> any TransportSession {
        let events = TransportEvents()
        let rooms = Dictionary(namespaces.map { ($0.namespace, $0.room) }, uniquingKeysWith: { a, _ in a })
        let mapper = NIOLockedValueBox(SocketChatMapper(events: options.events, botName: name))
        /// Namespace → why a moderator kicked the bot there, for the DISCONNECT that follows.
        let kickedBecause = NIOLockedValueBox<[String: String]>([:])
        /// Namespaces where another connection took the bot's name, for the DISCONNECT that follows.
        let nameTaken = NIOLockedValueBox<Set<String>>([])
        let name = self.name
        let log = self.log
        let unconfirmed = UnconfirmedSends()
        let acked = options.ackSends
        // `echo=false` asks not to be sent the bot's own messages and typing
        // back: the runner drops them anyway, and behind a server that echoes
        // each one is a second wake per reply. Parley's server honours it;
        // others ignore an unknown parameter and echo as before.
        var endpoint = self.endpoint
        if !endpoint.query.contains(where: { $0.0 == "echo" }) { endpoint.query.append(("echo", "false")) }
        let settings = EngineIOConnection.Settings(
            endpoint: endpoint, links: options.transports, headers: options.headers, caFile: options.caFile,
            connectTimeout: connectTimeout, loop: loop, http: http)
        // The typing set comes with every message; the mapper only reports who started or stopped.
        let wholeState: Set<String> = options.events.typingUpdate.isEmpty ? [] : [options.events.typingUpdate]
        let client = try await SocketIOClient.open(settings, wholeState: wholeState, notify: { notice in
            switch notice {
            case .event(let e):
                guard let room = rooms[e.namespace] else { return }
                if e.name == SocketChatModeration.kicked, e.arguments.first?["nickname"]?.string == name {
                    kickedBecause.withLockedValue { $0[e.namespace] = e.arguments.first?["reason"]?.string ?? "" }
                }
                if e.name == SocketChatModeration.nameTaken, e.arguments.first?["nickname"]?.string == name {
                    nameTaken.withLockedValue { _ = $0.insert(e.namespace) }
                }
                for chat in mapper.withLockedValue({ $0.map(e.name, e.arguments, room: room) }) { events.yield(.chat(chat)) }
            // Packets for a namespace the bot never joined are not about it (the JS client ignores them too).
            case .disconnected(let namespace):
                guard let room = rooms[namespace] else { return }
                // A moderator's kick is not a ban: the session ends and presence comes back.
                if let reason = kickedBecause.withLockedValue({ $0[namespace] }) {
                    events.finish(throwing: TransportError(.closed, "a moderator removed the bot from \(room): \(reason)"))
                    return
                }
                // Nobody decided the bot should go: someone connected under its
                // name. It comes back (and takes the name back) after presence's backoff.
                if nameTaken.withLockedValue({ $0.contains(namespace) }) {
                    events.finish(throwing: TransportError(.closed, """
                        another connection took the name \(JSONValue.string(name).text) in \(room): the server does not \
                        authenticate names (on Parley's server, a moderator token reserves the moderators' names)
                        """))
                    return
                }
                events.yield(.kicked("the server disconnected the bot from namespace \(namespace)"))
            case .refused(let namespace, let message):
                guard rooms[namespace] != nil else { return }
                events.finish(throwing: TransportError(.closed, "the server refused namespace \(namespace): \(message)"))
            }
        }, ended: { error in
            // Without acks a send counts once written: say how many of those the lost link may have taken.
            if error != nil, !acked, let n = unconfirmed.recent(), n > 0 {
                log("socketio: \(n) send\(n == 1 ? "" : "s") written in the last \(Int(UnconfirmedSends.window)) s before the link was lost "
                    + "had no acknowledgement (ack_sends is off): the server may not have \(n == 1 ? "it" : "them"); "
                    + "ack_sends = true makes each wait for the server's ack")
            }
            events.finish(throwing: error)
        }, log: log)
        // However the session ends (a refusal, a lost link, the consumer gone), the link goes with it.
        events.onTermination = { client.abort() }
        do {
            let auth: JSONValue? = options.auth.map { a in .object(a.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }) }
            for (namespace, _) in namespaces {
                _ = try await client.connect(namespace: namespace, auth: auth, timeout: connectTimeout)
                if !options.events.connectUser.isEmpty {
                    try await client.emit(options.events.connectUser, [.string(name)], namespace: namespace)
                }
            }
        } catch {
            client.abort()
            throw error
        }
        return SocketIOSession(client: client, events: events, name: name, options: options,
                               unconfirmed: unconfirmed, mapper: mapper,
                               namespaceOf: Dictionary(namespaces.map { ($0.room, $0.namespace) }, uniquingKeysWith: { a, _ in a }))
    }
}

/// One Socket.IO connection with the bot's namespaces joined.
final class SocketIOSession: TransportSession {
    let client: SocketIOClient
    let events: TransportEvents
    private let name: String
    private let options: SocketIOOptions
    private let namespaceOf: [String: String]
    /// Sends written without an ack, for the line a lost link logs.
    private let unconfirmed: UnconfirmedSends
    private let mapper: NIOLockedValueBox<SocketChatMapper>

    init(client: SocketIOClient, events: TransportEvents, name: String, options: SocketIOOptions,
         unconfirmed: UnconfirmedSends, mapper: NIOLockedValueBox<SocketChatMapper>, namespaceOf: [String: String]) {
        self.client = client
        self.unconfirmed = unconfirmed
        self.mapper = mapper
        self.events = events
        self.name = name
        self.options = options
        self.namespaceOf = namespaceOf
    }

    private func namespace(_ room: String) throws -> String {
        guard let ns = namespaceOf[room] else {
            throw TransportError(.refused, "this bot is not in room '\(room)' (rooms: \(namespaceOf.keys.sorted().joined(separator: ", ")))")
        }
        return ns
    }

    /// With `ack_sends` the send counts only once the server acks it; an ack
    /// that does not come in time leaves the message in the outbox, so it may
    /// go out twice (at-least-once).
    nonisolated(nonsending) func send(_ message: OutgoingMessage) async throws {
        try await sendByWriting(message)
    }

    /// Without `ack_sends`, every message of the batch goes out in one write
    /// (one frame each, one flush); with it, one at a time, each from the
    /// callback of the ack before it.
    func write(_ batch: [OutgoingMessage], then done: @escaping @Sendable ([SendOutcome]) -> Void) -> Bool {
        guard !options.ackSends else {
            writeInTurn(batch, start: { [self] m, confirmed in
                let event = try client.ackedPackets(options.events.chatMessage, [.string(name), .string(m.text)],
                                                    namespace: try namespace(m.room))
                client.emit(acked: event, timeout: options.ackTimeout) { confirmed($0.map { _ in }) }
            }, then: done)
            return true
        }
        var messages: [ByteBuffer] = []
        unconfirmed.wrote(batch.count)
        // Building a message fails only on what this message is (its room, its size).
        writeAsOne(batch, encode: { m in
            messages.append(try client.message(options.events.chatMessage, [.string(name), .string(m.text)],
                                               namespace: try namespace(m.room)))
        }, write: { client.write(messages: &messages) }, then: done)
        return true
    }

    func typing(room: String, on: Bool) throws {
        let event = on ? options.events.startType : options.events.stopType
        if event.isEmpty { return }
        client.enqueue(try client.packets(event, [.string(name)], namespace: try namespace(room), attachments: []))
    }

    /// `typingUpdates(on)` in each namespace: Parley's server then stops (or
    /// starts again) sending this link the rooms' typing sets; other servers
    /// ignore it. Either way the typing sets are counted afresh, as the ones
    /// in between may never have come.
    func receiveTyping(_ on: Bool) {
        if options.events.typingUpdate.isEmpty { return }
        mapper.withLockedValue { $0.forgetTyping() }
        client.forgetStates()
        for ns in Set(namespaceOf.values).sorted() {
            if let packets = try? client.packets(SocketChatModeration.typingUpdates, [.bool(on)], namespace: ns, attachments: []) {
                client.enqueue(packets)
            }
        }
    }

    /// `kickUser`, `muteUser` or `deleteMessage` in the room's namespace, done
    /// when the server acks `[true]`; `[false, reason]` throws `.refused` with
    /// the server's words, and no ack within `ack_timeout` throws `.timeout`.
    nonisolated(nonsending) func moderate(_ action: ModerationAction) async throws {
        let ns = try namespace(action.room)
        if case .mute(_, _, let seconds, _) = action, !(seconds > 0 && seconds <= SocketChatModeration.maxSeconds) {
            throw TransportError(.refused, "mute for \(seconds) s: the time must be more than 0 and at most 10^12 s")
        }
        let (event, payload) = SocketChatModeration.request(action)
        let ack = try await client.emitWithAck(event, [payload], namespace: ns, timeout: options.ackTimeout)
        if let refusal = SocketChatModeration.refusal(in: ack) { throw TransportError(.refused, refusal) }
    }

    func leave() async {
        if !options.events.exitUser.isEmpty {
            for ns in Set(namespaceOf.values).sorted() {
                try? await client.emit(options.events.exitUser, [.string(name)], namespace: ns)
            }
        }
        client.close()
    }

    func close() async {
        client.abort()
    }
}

/// Sends written without an ack in the last `window` seconds: what a lost
/// link may have taken with it, for its log line. Counted per second.
final class UnconfirmedSends: Sendable {
    static let window = 60.0
    private let seconds = NIOLockedValueBox<[(second: Int, count: Int)]>([])

    func wrote(_ n: Int) {
        let now = Int(NIODeadline.now().uptimeNanoseconds / 1_000_000_000)
        seconds.withLockedValue { s in
            if s.last?.second == now { s[s.count - 1].count += n } else { s.append((now, n)) }
            s.removeAll { $0.second <= now - Int(Self.window) }
        }
    }

    /// How many were written within the window; nil when none ever were.
    func recent() -> Int? {
        let now = Int(NIODeadline.now().uptimeNanoseconds / 1_000_000_000)
        return seconds.withLockedValue { s in
            s.isEmpty ? nil : s.filter { $0.second > now - Int(Self.window) }.reduce(0) { $0 + $1.count }
        }
    }
}

