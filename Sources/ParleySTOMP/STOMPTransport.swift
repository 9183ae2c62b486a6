import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import ParleyCore
import ParleyNet
import ParleyWire

extension TransportCapabilities {
    /// STOMP chat: several rooms (one subscription each), typing when the
    /// type table has it, no roster, no history, no kick.
    public static func stomp(typing: Bool) -> TransportCapabilities {
        TransportCapabilities(name: "stomp", rooms: true, typing: typing, roster: false, serverHistory: false, kick: false)
    }
}

/// STOMP 1.2 as a `Transport`, over WebSocket (RabbitMQ Web-STOMP, Spring)
/// or plain TCP.
///
/// A session is one STOMP connection: CONNECT, one SUBSCRIBE per room (and
/// one for the kick destination), each confirmed by its RECEIPT, then the
/// join type announced in each room. Sends ask for receipts, so a send counts
/// as delivered only once the broker has it.
public struct STOMPTransport: Transport {
    /// The server; nil when `options.discovery` names it before each connect.
    public var endpoint: STOMPEndpoint?
    public var name: String
    public var rooms: [String]
    public var options: STOMPOptions
    public var connectTimeout: Double
    /// Already masked by `redactor`.
    public var log: @Sendable (String) -> Void
    /// The passcode, the credential CONNECT and upgrade headers, and the query
    /// values of the server and discovery URLs.
    public let redactor: Redactor
    /// Shared by the sessions: a send the broker refuses is told from a lost link.
    let erroredSend = ErroredSend()
    /// Discovery's HTTP client, renewed when a link goes silent: the path to
    /// the discovery server likely died with it (`RenewableHTTPClient`).
    let discoveryHTTP = RenewableHTTPClient(caFile: nil)

    public init(endpoint: STOMPEndpoint?, name: String, rooms: [String] = ["lobby"], options: STOMPOptions = STOMPOptions(),
                connectTimeout: Double = 10, log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.endpoint = endpoint
        self.name = name
        self.rooms = rooms.isEmpty ? ["lobby"] : rooms
        self.options = options
        self.connectTimeout = connectTimeout
        let redactor = Redactor(secrets: [options.passcode].compactMap { $0 })
        redactor.add(options.connectHeaders)
        redactor.add(options.headers)
        redactor.add(credentialsIn: endpoint?.requestTarget ?? "")
        redactor.add(credentialsIn: options.discovery ?? "")
        self.redactor = redactor
        self.log = redactor.wrap(log)
    }

    public var capabilities: TransportCapabilities { .stomp(typing: !options.types.typing.isEmpty) }

    public var kickPolicy: KickPolicy { options.kickPolicy }

    public func connect(resumingAfter cursors: [String: RoomCursor], on loop: (any EventLoop)?) async throws -> any TransportSession {
        let target = try await resolve()
        let events = TransportEvents()
        let mapper = STOMPChatMapper(options: options, botName: name)
        // Subscription id → room; the kick subscription has no room.
        var subscriptions: [(id: String, destination: String, room: String?)] = rooms.enumerated().map {
            ("sub-\($0.offset)", STOMPChatMapper.destination(options.subscribe, room: $0.element, user: name), $0.element)
        }
        if let kick = options.kickDestination {
            subscriptions.append(("sub-kick", STOMPChatMapper.destination(kick, user: name), nil))
        }
        let roomOf = Dictionary(subscriptions.map { ($0.id, $0.room) }, uniquingKeysWith: { a, _ in a })
        let log = self.log
        let settings = STOMPClient.Settings(
            host: options.host, login: options.login, passcode: options.passcode, connectHeaders: options.connectHeaders,
            heartBeat: options.heartBeat, heartBeatMargin: options.heartBeatMargin, connectTimeout: connectTimeout)
        let client = try await STOMPClient.open(settings, link: { sink in try await self.openLink(target, sink, on: loop) }, deliver: { frame in
            guard let sub = frame[header: "subscription"], let entry = roomOf[sub] else {
                log("stomp: ignored a MESSAGE for subscription \(frame[header: "subscription"] ?? "(none)")")
                return
            }
            guard let room = entry else {
                events.yield(.kicked(mapper.kickReason(frame)))
                return
            }
            switch mapper.map(frame, room: room) {
            case .success(let event?): events.yield(event)
            case .success(nil): break
            case .failure(let e): log("stomp: dropped a message: \(e.message)")
            }
        }, ended: { [discoveryHTTP] error in
            if error?.kind == .idle { discoveryHTTP.renew() }
            events.finish(throwing: error)
        }, log: log)
        events.onTermination = { client.abort() }
        do {
            // Each failure names its room and destination: with many rooms, the one the broker refuses.
            for s in subscriptions {
                do {
                    try await client.request(STOMPFrame("SUBSCRIBE", [("id", s.id), ("destination", s.destination), ("ack", "auto")]),
                                             timeout: connectTimeout)
                } catch let e as TransportError {
                    throw TransportError(e.kind, "\(s.room.map { "room \($0): " } ?? "")the SUBSCRIBE to \(s.destination) failed: \(e.message)")
                }
            }
            // With a receipt: a send destination the broker refuses fails the
            // connect with its reason (and presence backs off) rather than
            // ending every session a moment after it began. A SEND's receipt
            // is waited for as long as any send's (`receipt_timeout`).
            if options.announce, !options.types.join.isEmpty {
                for room in rooms {
                    let announce = mapper.send(type: options.types.join, room: room, text: "")
                    do {
                        try await client.request(announce, timeout: min(connectTimeout, options.receiptTimeout))
                    } catch let e as TransportError {
                        throw TransportError(e.kind, "room \(room): the join announce to \(announce[header: "destination"] ?? "?") failed: \(e.message)")
                    }
                }
            }
        } catch {
            client.abort()
            throw error
        }
        let p = client.periods.withLockedValue { $0 }
        log("stomp: connected to \(target) as \(name) (heart-beats: send \(p.send) ms, expect \(p.receive) ms)")
        return STOMPSession(client: client, events: events, mapper: mapper, rooms: rooms, options: options,
                            erroredSend: erroredSend)
    }

    /// The configured server, or the one discovery names now.
    private func resolve() async throws -> STOMPEndpoint {
        if let discovery = options.discovery {
            let e = try await STOMPDiscovery.resolve(discovery, client: discoveryHTTP.current().client, timeout: connectTimeout)
            log("stomp: discovery \(Redactor.url(discovery)) names \(e)")
            return e
        }
        guard let endpoint else { throw TransportError(.refused, "no STOMP server and no discovery URL configured") }
        return endpoint
    }

    private func openLink(_ e: STOMPEndpoint, _ sink: STOMPLinkSink, on loop: (any EventLoop)?) async throws -> any STOMPLink {
        switch e.link {
        case .tcp:
            return try await STOMPTCPLink.connect(host: e.host, port: e.port, tls: e.tls, maxFrameSize: options.maxFrameBytes,
                                                  timeout: connectTimeout, on: loop, sink: sink)
        case .websocket:
            return try await STOMPWebSocketLink.connect(e, headers: options.headers, maxFrameSize: options.maxFrameBytes,
                                                        timeout: connectTimeout, on: loop, sink: sink)
        }
    }
}

/// One STOMP connection with the bot's rooms subscribed.
final class STOMPSession: TransportSession {
    let client: STOMPClient
    let events: TransportEvents
    private let mapper: STOMPChatMapper
    private let rooms: [String]
    private let options: STOMPOptions
    private let erroredSend: ErroredSend

    init(client: STOMPClient, events: TransportEvents, mapper: STOMPChatMapper, rooms: [String],
         options: STOMPOptions, erroredSend: ErroredSend) {
        self.client = client
        self.erroredSend = erroredSend
        self.events = events
        self.mapper = mapper
        self.rooms = rooms
        self.options = options
    }

    private func check(_ room: String) throws {
        guard rooms.contains(room) else {
            throw TransportError(.refused, "this bot is not in room '\(room)' (rooms: \(rooms.joined(separator: ", ")))")
        }
    }

    /// Returns once the broker's RECEIPT is in. Without it in time the link
    /// is dropped (a broker that stops answering is as good as gone) and the
    /// send stays in the outbox: delivery is at-least-once.
    nonisolated(nonsending) func send(_ message: OutgoingMessage) async throws {
        try await sendByWriting(message)
    }

    /// One message at a time, each written once the RECEIPT of the one
    /// before it is in (what the broker has, in order), from the RECEIPT's
    /// callback on the link's loop; a missing RECEIPT drops the link.
    func write(_ batch: [OutgoingMessage], then done: @escaping @Sendable ([SendOutcome]) -> Void) -> Bool {
        writeInTurn(batch, start: { [self] m, confirmed in
            try check(m.room)
            let written = !client.isOver
            client.request(mapper.send(type: options.types.message, room: m.room, text: m.text),
                           timeout: options.receiptTimeout) { [client, erroredSend] result in
                switch result {
                case .success:
                    erroredSend.delivered(m.id)
                    confirmed(result)
                case .failure(let e as TransportError) where e.kind == .timeout:
                    client.fail(TransportError(.timeout, "\(e.message); dropping the link"))
                    confirmed(result)
                case .failure(let e):
                    // Sends go one at a time, so an ERROR that ended the session
                    // while this one waited for its RECEIPT is likely about it.
                    let refusal = written ? client.serverError.flatMap { erroredSend.refusal(of: m.id, $0) } : nil
                    confirmed(.failure(refusal ?? e))
                }
            }
        }, then: done)
        return true
    }

    func typing(room: String, on: Bool) throws {
        try check(room)
        let type = on ? options.types.typing : options.types.typingStop
        if type.isEmpty { return }
        client.enqueue(mapper.send(type: type, room: room, text: ""))
    }

    func leave() async {
        if options.announce, !options.types.leave.isEmpty {
            for room in rooms { client.enqueue(mapper.send(type: options.types.leave, room: room, text: "")) }
        }
        await client.disconnect(timeout: min(options.receiptTimeout, 5))
    }

    func close() async {
        client.abort()
    }
}

/// A send the broker answers with ERROR. RabbitMQ's ERROR names no receipt
/// and ends the session, so once it looks like a lost link and the send goes
/// out again on the next session; an ERROR for the same send again is the
/// broker's answer to it, and the send is refused (dropped with the broker's
/// words) rather than sent, and the link dropped, for ever.
final class ErroredSend: Sendable {
    /// The send an ERROR ended a session on, until it is delivered or refused.
    private let last = NIOLockedValueBox<String?>(nil)

    /// The refusal of `id` when an ERROR ended a session on it before too; nil the first time.
    func refusal(of id: String, _ serverError: String) -> TransportError? {
        let again = last.withLockedValue { last -> Bool in
            let again = last == id
            last = again ? nil : id
            return again
        }
        return again ? TransportError(.refused, "the STOMP server answered it with ERROR twice: \(serverError)") : nil
    }

    func delivered(_ id: String) {
        last.withLockedValue { if $0 == id { $0 = nil } }
    }
}
