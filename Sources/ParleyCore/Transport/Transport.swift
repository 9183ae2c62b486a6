import NIOCore

/// A way to reach a chat server. Each transport (StreamChat, Socket.IO, REST,
/// STOMP) implements this once; the runtime's presence loop drives it and
/// never needs to know which one it has.
///
/// A transport makes sessions: one connected, announced link with its rooms
/// joined. When the link dies the session ends and presence asks for a new
/// one, so reconnect policy lives in one place (the runtime), not in every
/// transport.
public protocol Transport: Sendable {
    /// What this transport can do; the bot's plugins see it as `bot.transport`.
    var capabilities: TransportCapabilities { get }

    /// What the bot does when a session reports `.kicked` (another login):
    /// stop (the default) or log in again after a delay. Transports whose
    /// config offers the choice (STOMP's `kick_policy`) override it.
    var kickPolicy: KickPolicy { get }

    /// Connects, announces the bot and joins its rooms. Returns once the
    /// session can send; throws `TransportError` when it cannot.
    ///
    /// - Parameter cursors: where the bot's journal stands in each room (the
    ///   server id and time of the newest message it handled there; no
    ///   entry: it never saw one). A transport that can ask the server for
    ///   what it missed (REST's `cursor_date`) catches up from there before
    ///   any live event, also after a restart; the others ignore it.
    /// - Parameter loop: the event loop the link lives on: the bot's own loop,
    ///   so an event is read, handled and answered on one thread (nil: one
    ///   of the process's shared loops).
    func connect(resumingAfter cursors: [String: RoomCursor], on loop: (any EventLoop)?) async throws -> any TransportSession

    /// Masks this transport's secrets (passwords, tokens, credential headers):
    /// the transport passes its own log lines through it, and the runtime
    /// every line and outcome of the bot that uses it.
    var redactor: Redactor { get }
}

extension Transport {
    public var kickPolicy: KickPolicy { .stop }

    /// Transports without secrets (StreamChat) mask nothing.
    public var redactor: Redactor { Redactor() }

    /// A link on a shared loop, with nothing to catch up (people in tests, load generators).
    public func connect() async throws -> any TransportSession {
        try await connect(resumingAfter: [:], on: nil)
    }
}

/// One live connection.
public protocol TransportSession: Sendable {
    /// What the server says, in order, pushed to the runner (see
    /// `TransportEvents`). Ends cleanly after a clean `leave()`, and with the
    /// reason when the link is lost.
    var events: TransportEvents { get }

    /// Hands one message to the server. Returns when the transport counts it
    /// as delivered (written to the socket, or acknowledged where the protocol
    /// has receipts); throws when it was not, so the outbox keeps it.
    /// Runs on the caller's executor (`nonisolated(nonsending)`): a session
    /// that confirms messages one by one is sent to this way from the bot's
    /// loop, and a hop to the cooperative pool and back would cost two
    /// thread wakes each time.
    nonisolated(nonsending) func send(_ message: OutgoingMessage) async throws

    /// Writes several messages to the server, in order, as one write, and
    /// returns at once; `done` is called once, on the link's loop, with what
    /// became of each, for a prefix of `batch` that stops after the first
    /// `.failed` (the link is going down; the messages past its end were not
    /// delivered). False, and `done` is never called, when this session
    /// confirms messages one by one by awaiting (REST's HTTP requests):
    /// `send(_ batch:)` then.
    ///
    /// Why a callback: the runner's drain calls it on the bot's loop, and
    /// the write of a writable socket completes inside the call, so a reply
    /// is written and recorded in that call, with no task, resumption or
    /// future of its own.
    func write(_ batch: [OutgoingMessage], then done: @escaping @Sendable ([SendOutcome]) -> Void) -> Bool

    /// Sends several messages, in order, with the same outcomes as `write`:
    /// by default its one write when there is one, else one at a time, each
    /// confirmed before the next.
    nonisolated(nonsending) func send(_ batch: [OutgoingMessage]) async -> [SendOutcome]

    /// Shows or hides the typing indicator (ignored where the transport has
    /// none). Queued on the link at once, without waiting for the write: it
    /// goes out before any send made after it, and nothing waits for it.
    func typing(room: String, on: Bool) throws

    /// Whether the bot wants to be sent who is typing: the runner says so
    /// when a link comes up (a link starts with them on) and whenever its
    /// plugins start or stop listening to typing. A server that can leave
    /// them out (Parley's SocketChat server) then does, so a bot with no
    /// typing handler is not woken by them; elsewhere it changes nothing.
    func receiveTyping(_ on: Bool)

    /// Asks the server to take a moderation step. Throws `.refused` where the
    /// chat lacks it (the default) or the server says no, with its reason.
    nonisolated(nonsending) func moderate(_ action: ModerationAction) async throws

    /// Leaves cleanly (StreamChat: `LEAVE::::END`) and closes the link.
    func leave() async

    /// Drops the link without a goodbye (used on shutdown timeouts and errors).
    func close() async
}

/// A moderation step a bot asks the chat to take (`bot.kick`, `bot.mute`, `bot.delete`).
public enum ModerationAction: Sendable, Equatable {
    case kick(room: String, user: String, reason: String)
    case mute(room: String, user: String, seconds: Double, reason: String)
    case delete(room: String, messageId: String)

    /// The room it is about: transports with one connection per room pick it by this.
    public var room: String {
        switch self {
        case .kick(let room, _, _), .mute(let room, _, _, _), .delete(let room, _): room
        }
    }
}

/// A moderation step as its handler committed it: journaled in the same
/// transaction as the handler's sends, and marked done (as a send is marked
/// delivered) once the server answered or the step was dropped, so a bot
/// killed before taking it takes it after the restart.
public struct ModerationStep: Sendable, Equatable {
    /// From the bot's id sequence, as a send's: the done mark names it.
    public var id: String
    public var plugin: String
    public var action: ModerationAction
    /// The send of the same handler it follows (the room hears why first).
    public var after: String?
    /// When its handler ran, seconds since 1970: a restart drops it past `outbox_expiry`.
    public var time: Double

    public init(id: String, plugin: String, action: ModerationAction, after: String? = nil, time: Double) {
        self.id = id
        self.plugin = plugin
        self.action = action
        self.after = after
        self.time = time
    }
}

/// A message a plugin sent, one type from its handler's commit to the
/// transport's encoder: the journal records it, the outbox queues it, and
/// `TransportSession.send(_:)` writes it.
///
/// Its fields are in one `Shared` box: a send is copied some ten times on
/// that trip, and a copy then costs one reference count, not one a string.
public struct OutgoingMessage: Sendable, Equatable {
    private struct Fields: Sendable, Equatable {
        var id, room, text, plugin: String
        var time: Double
    }

    private var fields: Shared<Fields>

    /// Stable across restarts: a re-send after a crash carries the same id,
    /// and it marks the message delivered in the journal.
    public var id: String {
        get { fields.value.id }
        set { fields = fields.with { $0.id = newValue } }
    }
    public var room: String {
        get { fields.value.room }
        set { fields = fields.with { $0.room = newValue } }
    }
    public var text: String {
        get { fields.value.text }
        set { fields = fields.with { $0.text = newValue } }
    }
    /// The plugin that sent it ("" for a send made outside a bot).
    public var plugin: String {
        get { fields.value.plugin }
        set { fields = fields.with { $0.plugin = newValue } }
    }
    /// When its handler ran, seconds since 1970 (its time in the bot's history).
    public var time: Double {
        get { fields.value.time }
        set { fields = fields.with { $0.time = newValue } }
    }

    public init(id: String, room: String, text: String, plugin: String = "", time: Double = 0) {
        fields = Shared(Fields(id: id, room: room, text: text, plugin: plugin, time: time))
    }

    public static func == (a: Self, b: Self) -> Bool { Shared.same(a.fields, b.fields) }
}

/// What became of one message of a batch.
public enum SendOutcome: Sendable {
    /// Counted as delivered, as the one-message `send(_:)` counts it.
    case delivered
    /// This message will never go out (too long, an unknown room): drop it.
    case refused(TransportError)
    /// Not delivered because the link failed; nothing after it was either.
    case failed(any Error)
}

extension TransportSession {
    public nonisolated(nonsending) func moderate(_ action: ModerationAction) async throws {
        throw TransportError(.refused, "not supported")
    }

    /// Servers that send typing to everyone (the default).
    public func receiveTyping(_ on: Bool) {}

    /// Sessions that confirm every message have no one-write path.
    public func write(_ batch: [OutgoingMessage], then done: @escaping @Sendable ([SendOutcome]) -> Void) -> Bool { false }

    public nonisolated(nonsending) func send(_ batch: [OutgoingMessage]) async -> [SendOutcome] {
        guard let outcomes = await written(batch) else { return await sendOneByOne(batch) }
        return outcomes
    }

    /// `send(_:)` of a session whose `write` always writes: a batch of one.
    public nonisolated(nonsending) func sendByWriting(_ message: OutgoingMessage) async throws {
        switch await written([message])?.first {
        case .delivered?: return
        case .refused(let error)?: throw error
        case .failed(let error)?: throw error as? TransportError ?? TransportError(.closed, "send failed: \(error)")
        case nil: throw TransportError(.closed, "send failed: the session wrote nothing")
        }
    }

    /// One at a time, each confirmed before the next: `send(_ batch:)` of a
    /// session without a one-write path.
    public nonisolated(nonsending) func sendOneByOne(_ batch: [OutgoingMessage]) async -> [SendOutcome] {
        var outcomes: [SendOutcome] = []
        outcomes.reserveCapacity(batch.count)
        for m in batch {
            do {
                try await send(m)
                outcomes.append(.delivered)
            } catch let error as TransportError where error.kind == .refused {
                outcomes.append(.refused(error))
            } catch {
                outcomes.append(.failed(error))
                break
            }
        }
        return outcomes
    }
}

extension TransportSession {
    /// A one-write send's outcomes (`write(_:then:)`), resumed on the
    /// caller's executor; nil when the session has no one-write path.
    nonisolated(nonsending) func written(_ batch: [OutgoingMessage]) async -> [SendOutcome]? {
        await withCheckedContinuation { (c: CheckedContinuation<[SendOutcome]?, Never>) in
            if !write(batch, then: { c.resume(returning: $0) }) { c.resume(returning: nil) }
        }
    }
}

/// What a session reports besides chat events.
public enum TransportEvent: Sendable, Equatable {
    case chat(BotEvent)
    /// The server threw the bot out (another login, a ban); carries the reason.
    case kicked(String)
    /// History from before the bot first joined `room`, oldest first: it goes
    /// into the journal (so `bot.history` reaches back) but never to plugins.
    /// `through` is the newest message on the server when the bot joined;
    /// the room's last-seen cursor is set to it even when `messages` is empty
    /// (configured backfill 0, an empty room), so the next connect catches up
    /// from there rather than backfilling again.
    case backfill(room: String, messages: [ChatMessage], through: RoomCursor)
}

/// Why a transport failed, in words an operator can act on.
public struct TransportError: Error, Sendable, CustomStringConvertible, Equatable {
    public enum Kind: String, Sendable {
        case connect, timeout, closed, idle, protocolViolation = "protocol", refused
        /// The server will not have the bot back (its credentials were
        /// revoked): like `TransportEvent.kicked`, but found while connecting.
        case kicked
    }
    public var kind: Kind
    public var message: String
    /// How long the server asked the bot to stay away (an HTTP 429's
    /// `Retry-After` too long to wait out inside a request): presence
    /// reconnects after it, not at once.
    public var retryAfter: Double?

    public init(_ kind: Kind, _ message: String, retryAfter: Double? = nil) {
        self.kind = kind
        self.message = message
        self.retryAfter = retryAfter
    }

    public var description: String { message }
}
