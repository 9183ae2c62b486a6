import NIOConcurrencyHelpers
import NIOCore
import ParleyCore
import ParleySocketIO
import ParleyWire

extension TransportCapabilities {
    /// REST channel chat: many rooms (channels), no typing, no presence (joins
    /// are derived from first messages, see `RESTFeed`), a server that keeps
    /// history (catch-up reads it), no kick.
    public static let rest = TransportCapabilities(name: "rest", rooms: true, typing: false, roster: false,
                                                   serverHistory: true, kick: false)
}

/// Seeds 002/004's workspace chat as a `Transport`: chats are sent with HTTP
/// POST and received over a Socket.IO namespace per channel.
///
/// A session is: log in (once per process; later sessions reuse the tokens),
/// resolve the rooms to channel ids, connect every channel's namespace with
/// live events held back, then catch up each room from the journal's
/// last-seen cursor (`GET …/chats?cursor_date=`), delivering what was missed
/// in order and flagged `replayed`, and only then release the live events,
/// minus those the catch-up already delivered. A room the journal has never
/// seen is backfilled instead: its last `backfill` messages go to the journal
/// only. Messages are therefore not missed across a disconnect or a restart;
/// a send whose answer was lost may go out twice (at-least-once).
public struct RESTTransport: Transport {
    public var endpoint: SocketIOEndpoint
    public var name: String
    public var rooms: [String]
    public var options: RESTOptions
    public var connectTimeout: Double
    /// Already masked by `redactor`.
    public var log: @Sendable (String) -> Void
    /// The password, the service key, and the tokens the server hands out.
    public let redactor: Redactor
    let client: RESTClient
    /// People seen per room, kept across sessions so a reconnect is not an arrival.
    private let known = NIOLockedValueBox<[String: Set<String>]>([:])

    public init(endpoint: SocketIOEndpoint, name: String, rooms: [String], options: RESTOptions,
                connectTimeout: Double = 10, log: @escaping @Sendable (String) -> Void = { _ in }) {
        var endpoint = endpoint
        endpoint.path = options.socketPath
        self.endpoint = endpoint
        self.name = name
        self.rooms = rooms
        self.options = options
        self.connectTimeout = connectTimeout
        let redactor = Redactor(secrets: [options.password, options.serviceKey])
        self.redactor = redactor
        self.log = redactor.wrap(log)
        client = RESTClient(endpoint: endpoint, options: options, redactor: redactor, log: self.log)
    }

    public var capabilities: TransportCapabilities { .rest }

    /// Without cursors every room counts as first joined (backfilled, not replayed).
    public func connect(resumingAfter cursors: [String: RoomCursor], on loop: (any EventLoop)?) async throws -> any TransportSession {
        let account = try await client.ensureLoggedIn()
        let channels = try await RESTChannels.resolve(rooms: rooms, client: client)
        let events = TransportEvents()
        let gate = RESTGate(feed: RESTFeed(ownUserId: account.userId, known: known.withLockedValue { $0 }),
                            known: known, events: events, log: log)
        let roomOf = Dictionary(channels.map { ($0.namespace(options), $0.room) }, uniquingKeysWith: { a, _ in a })
        let event = options.event
        let settings = EngineIOConnection.Settings(
            endpoint: endpoint, links: [.websocket, .polling], headers: [options.serviceKeyHeader: options.serviceKey],
            caFile: options.caFile, connectTimeout: connectTimeout, loop: loop, http: client.http)
        let socket = try await SocketIOClient.open(settings, notify: { notice in
            switch notice {
            case .event(let e):
                guard let room = roomOf[e.namespace], e.name == event else { return }
                gate.live(e.arguments.first, room: room)
            case .disconnected(let namespace):
                guard roomOf[namespace] != nil else { return }
                events.finish(throwing: TransportError(.closed, "the server disconnected namespace \(namespace)"))
            case .refused(let namespace, let message):
                guard roomOf[namespace] != nil else { return }
                events.finish(throwing: TransportError(.closed, "the server refused namespace \(namespace): \(message)"))
            }
        }, ended: { error in
            // A silent link has already renewed `client.http`: the API's requests go out on new connections.
            events.finish(throwing: error)
        }, log: log)
        events.onTermination = { socket.abort() }
        do {
            for c in channels {
                do {
                    _ = try await socket.connect(namespace: c.namespace(options), auth: nil, timeout: connectTimeout)
                } catch let e as TransportError where e.kind == .refused {
                    // A refused namespace is the server's state (a channel just
                    // made, a restart), not the bot's config: try again later.
                    throw TransportError(.connect, e.message)
                }
            }
            for c in channels { try await catchUp(c, from: cursors[c.room], gate: gate) }
        } catch {
            socket.abort()
            throw error
        }
        gate.goLive()
        return RESTSession(client: client, socket: socket, events: events,
                           channels: Dictionary(channels.map { ($0.room, $0) }, uniquingKeysWith: { a, _ in a }))
    }

    /// What the room missed since `cursor`, or its backfill when the journal never saw it.
    private func catchUp(_ channel: RESTChannel, from cursor: RoomCursor?, gate: RESTGate) async throws {
        var path = channel.chatsPath(options)
        if let cursor {
            // From a millisecond before the cursor: the server answers chats
            // strictly after the date, and one posted in the cursor's own
            // millisecond after it must not be skipped. What comes back twice
            // is dropped by id (the cursor's own here, others by the bot's
            // journal check of replayed messages).
            let since = max(0, cursor.time - 0.001)
            path += "?cursor_date=" + RESTDate.format(since).percentEncoded
        }
        let answer = try await client.call(.GET, path)
        guard let list = answer.array else {
            throw TransportError(.protocolViolation, "GET \(path): not a list of chats")
        }
        var chats: [RESTChat] = []
        for item in list {
            do { chats.append(try RESTChat(json: item)) } catch {
                log("rest: dropped a malformed chat in the history of \(channel.room): \(error)")
            }
        }
        // Oldest first (stable: chats of one millisecond keep the server's order).
        chats = chats.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
        if let cursor {
            let missed = chats.filter { $0.id != cursor.cursor }
            gate.caughtUp(missed, room: channel.room)
        } else {
            let kept = Array(chats.suffix(options.backfill))
            gate.backfill(kept, all: chats, room: channel.room,
                          through: chats.last?.cursor ?? RoomCursor(cursor: "", time: 0))
        }
    }
}

/// Holds live events back while a session catches up, then lets them through
/// the same `RESTFeed` as the catch-up, so nothing is delivered twice and
/// everything arrives in server order. Called from the socket's thread and
/// from `connect`; yields happen under the lock, so the stream's order is
/// the order decided here.
final class RESTGate: Sendable {
    private struct State {
        var feed: RESTFeed
        /// Live chats that arrived during catch-up; nil once live.
        var held: [(JSONValue?, String)]? = []
    }

    private let state: NIOLockedValueBox<State>
    private let known: NIOLockedValueBox<[String: Set<String>]>
    private let events: TransportEvents
    private let log: @Sendable (String) -> Void

    init(feed: RESTFeed, known: NIOLockedValueBox<[String: Set<String>]>,
         events: TransportEvents, log: @escaping @Sendable (String) -> Void) {
        state = NIOLockedValueBox(State(feed: feed))
        self.known = known
        self.events = events
        self.log = log
    }

    /// A `channel` event's payload.
    func live(_ payload: JSONValue?, room: String) {
        state.withLockedValue { s in
            if s.held != nil {
                s.held!.append((payload, room))
            } else {
                deliver(payload, room: room, feed: &s.feed)
            }
        }
    }

    func caughtUp(_ chats: [RESTChat], room: String) {
        state.withLockedValue { s in
            for c in chats {
                let events = s.feed.events(for: c, room: room, replayed: true)
                yield(events, feed: s.feed)
            }
        }
    }

    func backfill(_ kept: [RESTChat], all: [RESTChat], room: String, through: RoomCursor) {
        state.withLockedValue { s in
            s.feed.backfilled(all, room: room)
            known.withLockedValue { $0 = s.feed.known }
            events.yield(.backfill(room: room, messages: kept.map { $0.message(room: room) }, through: through))
        }
    }

    /// Catch-up is done: what was held goes out (minus what catch-up delivered), then live.
    func goLive() {
        state.withLockedValue { s in
            for (payload, room) in s.held ?? [] { deliver(payload, room: room, feed: &s.feed) }
            s.held = nil
        }
    }

    private func deliver(_ payload: JSONValue?, room: String, feed: inout RESTFeed) {
        do {
            let chat = try RESTChat(json: payload ?? .null)
            let events = feed.events(for: chat, room: room, replayed: false)
            yield(events, feed: feed)
        } catch {
            // One bad event is the server's problem, not a reason to drop the link.
            log("rest: dropped a malformed chat event in \(room): \(error)")
        }
    }

    private func yield(_ chats: [BotEvent], feed: RESTFeed) {
        for e in chats {
            if case .join = e { known.withLockedValue { $0 = feed.known } }
            events.yield(.chat(e))
        }
    }
}

/// One logged-in session with every channel's namespace connected.
final class RESTSession: TransportSession {
    let events: TransportEvents
    private let client: RESTClient
    let socket: SocketIOClient
    private let channels: [String: RESTChannel]

    init(client: RESTClient, socket: SocketIOClient, events: TransportEvents, channels: [String: RESTChannel]) {
        self.client = client
        self.socket = socket
        self.events = events
        self.channels = channels
    }

    /// Returns once the server answered the POST with the chat. A send the
    /// server refuses (4xx) throws `.refused` and the outbox drops it; one
    /// that still fails after the retries ends the session, so presence
    /// reconnects (catching up) and the outbox sends it again.
    nonisolated(nonsending) func send(_ message: OutgoingMessage) async throws {
        guard let channel = channels[message.room] else {
            throw TransportError(.refused, "this bot is not in room '\(message.room)' (rooms: \(channels.keys.sorted().joined(separator: ", ")))")
        }
        let options = client.options
        let body: RESTClient.Body = options.multipart
            ? .form([("content", message.text)]) : .json(.object([("content", .string(message.text))]))
        do {
            // A 2xx is a delivered send, whatever its body says (or does not).
            try await client.perform(.POST, channel.chatsPath(options), body: body)
        } catch let e as TransportError where e.kind == .refused {
            throw e
        } catch let e as TransportError where e.kind == .kicked {
            events.yield(.kicked(e.message))
            throw e
        } catch {
            events.finish(throwing: error)
            throw error
        }
    }

    /// REST channels have no typing indicator.
    func typing(room: String, on: Bool) throws {}

    func leave() async {
        socket.close()
        events.finish()
    }

    func close() async {
        socket.abort()
        events.finish()
    }
}
