import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import ParleyCore
import ParleyNet
import ParleyWire

extension TransportCapabilities {
    /// StreamChat: one room, no typing, no roster, no history, 300 characters, no protocol tokens in text,
    /// a message per line.
    /// Kick and mute (Parley's server obeys its moderators); no delete: messages have no ids.
    public static let streamchat = TransportCapabilities(
        name: "streamchat", rooms: false, typing: false, roster: false, serverHistory: false, kick: true, mute: true,
        maxCharacters: StreamChat.maxCharacters, forbiddenSubstrings: StreamChat.forbiddenTokens, linesAreMessages: true,
        controls: false)
}

/// The StreamChat raw TCP protocol as a `Transport`.
///
/// The protocol has no heartbeat, so liveness is TCP keepalive (the kernel's
/// probes notice a vanished peer on an idle link, within `keepalive.bound`)
/// and the echo timeout (a send whose echo does not come back). Neither
/// fires in a quiet room, so a quiet bot never leaves and rejoins. An idle
/// read timeout is there for links that swallow probes, off by default.
///
/// Nor has it receipts, but the server echoes every message to its sender,
/// in order: a send counts as delivered when its echo is back (`echoTimeout`).
/// A write only says the bytes reached this machine's socket; a link that has
/// silently died, or a server that is shutting down, swallows them, and a send
/// counted then would never be sent again. Waiting for the echo makes delivery
/// at-least-once instead: a send whose echo was lost with the link goes out
/// again after the reconnect.
public struct StreamChatTransport: Transport {
    public var host: String
    public var port: Int
    public var name: String
    public var options: StreamChatOptions
    public var connectTimeout: Double
    /// Receives lines the server sent that are not StreamChat (logged, then dropped).
    public var log: @Sendable (String) -> Void

    public init(host: String, port: Int, name: String, options: StreamChatOptions = StreamChatOptions(),
                connectTimeout: Double = 10, log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.host = host
        self.port = port
        self.name = name
        self.options = options
        self.connectTimeout = connectTimeout
        self.log = log
    }

    public var capabilities: TransportCapabilities { .streamchat }

    public func connect(resumingAfter cursors: [String: RoomCursor], on loop: (any EventLoop)?) async throws -> any TransportSession {
        if let problem = StreamChat.checkName(name) {
            throw TransportError(.refused, "the name '\(name)' cannot be used on StreamChat: \(problem)")
        }
        let events = TransportEvents()
        let leaving = NIOLockedValueBox(false)
        let echoes = EchoWaiters()
        let replies = EchoWaiters()
        let name = self.name
        let options = self.options
        let log = self.log
        let bootstrap = ClientBootstrap.forChat(connectTimeout: connectTimeout, on: loop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.setKeepalive(options.keepalive)
                    let ops = channel.pipeline.syncOperations
                    if options.idleTimeout > 0 {
                        try ops.addHandler(IdleStateHandler(readTimeout: .milliseconds(Int64(options.idleTimeout * 1000))))
                    }
                    try ops.addHandler(ByteToMessageHandler(StreamChatLineDecoder(quietPeriod: options.unterminatedFlush)))
                    try ops.addHandler(StreamChatClientHandler(
                        events: events, leaving: leaving, echoes: echoes, replies: replies, name: name, options: options, log: log))
                }
            }
        let channel: Channel
        do {
            channel = try await bootstrap.connect(host: host, port: port).get()
        } catch {
            events.finish()
            throw TransportError(.connect, "cannot connect to StreamChat server \(host):\(port): \(NetworkErrors.describe(error))")
        }
        do {
            let token = options.moderatorToken.map { StreamChat.ClientFrame.token($0).encoded } ?? []
            try await channel.writeAndFlush(ByteBuffer(bytes: token + StreamChat.ClientFrame.userName(name).encoded)).get()
        } catch {
            channel.close(promise: nil)
            throw TransportError(.closed, "connection to \(host):\(port) lost while announcing: \(error)")
        }
        return StreamChatSession(channel: channel, events: events, leaving: leaving, echoes: echoes, replies: replies,
                                 echoTimeout: options.echoTimeout)
    }
}


/// One StreamChat connection: announced, in the lobby.
final class StreamChatSession: TransportSession {
    let channel: Channel
    let events: TransportEvents
    private let leaving: NIOLockedValueBox<Bool>
    private let echoes: EchoWaiters
    private let replies: EchoWaiters
    private let echoTimeout: Double

    init(channel: Channel, events: TransportEvents, leaving: NIOLockedValueBox<Bool>,
         echoes: EchoWaiters, replies: EchoWaiters, echoTimeout: Double) {
        self.channel = channel
        self.events = events
        self.leaving = leaving
        self.echoes = echoes
        self.replies = replies
        self.echoTimeout = echoTimeout
    }

    private static func check(room: String, _ doing: String) throws(TransportError) {
        guard room == StreamChat.room else {
            throw TransportError(.refused, "StreamChat has one room, '\(StreamChat.room)'; cannot \(doing) '\(room)'")
        }
    }

    /// The lines a text goes out as, each checked, or why it cannot go out at all.
    private static func lines(room: String, text: String) throws(TransportError) -> [String] {
        try check(room: room, "send to")
        let lines = StreamChat.lines(of: text)
        if lines.isEmpty { throw TransportError(.refused, "empty message") }
        for line in lines {
            if let problem = StreamChat.check(line) { throw TransportError(.refused, problem.description) }
        }
        return lines
    }

    /// Appends one `MSG` frame per line.
    private static func encode(_ lines: [String], into buffer: inout ByteBuffer) {
        for line in lines { buffer.writeBytes(StreamChat.ClientFrame.message(line).encoded) }
    }

    /// The whole batch is one write. With echo confirmation each message
    /// then counts as delivered when its own echoes are back, in order, so a
    /// busy server costs one round trip per batch, not per message.
    func write(_ batch: [OutgoingMessage], then done: @escaping @Sendable ([SendOutcome]) -> Void) -> Bool {
        guard echoTimeout > 0 else {
            var buffer = channel.allocator.buffer(capacity: batch.reduce(0) { $0 + $1.text.utf8.count + 12 })
            writeAsOne(batch, encode: { m in
                // Every line is checked before any is added, so a refused text adds nothing.
                Self.encode(try Self.lines(room: m.room, text: m.text), into: &buffer)
            }, write: { channel.writeAndFlush(buffer) }, then: done)
            return true
        }
        writeConfirmed(batch).whenSuccess(done)
        return true
    }

    /// Drops the link when the echo of waiter `id` is late: after `timeout`
    /// with nothing at all from the server, or after six of them while the
    /// server sends other lines but not this one. A server busy relaying a
    /// crowd is behind, not dead: dropping its link would send everything
    /// again, twice over.
    ///
    /// Nothing heard is looked at twice. The bot's own loop may have been
    /// held (journals opening on it, a crowd's backlog), and then this check
    /// runs before the reads that wait behind it: a held loop is not a quiet
    /// server. So the link goes only if nothing comes in a second look, as
    /// long after as this one ran late (at least a second).
    private static func awaitEcho(_ id: UInt64, since: NIODeadline, echoes: EchoWaiters, channel: any Channel, timeout: Double,
                                  timer: NIOLockedValueBox<Scheduled<Void>?>) {
        let span = TimeAmount.milliseconds(Int64(timeout * 1000))
        func check(from: NIODeadline, at deadline: NIODeadline, second: Bool) {
            let task = channel.eventLoop.scheduleTask(deadline: deadline) {
                let heard = echoes.lastHeard, now = NIODeadline.now()
                let late: TransportError
                if heard > from, now - since < span * 6 {
                    return check(from: heard, at: heard + span, second: false)
                } else if heard > from {
                    late = TransportError(.timeout, "no echo of a sent message within \(timeout * 6) s, while the server sent other lines")
                } else if !second {
                    return check(from: from, at: now + max(.seconds(1), now - deadline), second: true)
                } else {
                    late = TransportError(.timeout, "no echo of a sent message within \(timeout) s, nor any other line from the server")
                }
                if echoes.end(late, ifWaiting: id) { StreamChatSession.drop(channel, because: late) }
            }
            timer.withLockedValue { $0 = task }
        }
        check(from: since, at: since + span, second: false)
    }

    /// One write for the batch, a waiter per message registered before it:
    /// the outcomes are the refused ones, then, in order, delivered up to the
    /// first message whose echo did not come (failed; those after it are left
    /// for the outbox to send again after the reconnect). The future never fails.
    private func writeConfirmed(_ batch: [OutgoingMessage]) -> EventLoopFuture<[SendOutcome]> {
        let channel = self.channel, echoes = self.echoes, timeout = echoTimeout
        var refused: [Int: TransportError] = [:]
        var buffer = channel.allocator.buffer(capacity: batch.reduce(0) { $0 + $1.text.utf8.count + 12 })
        var waits: [EventLoopFuture<Void>] = []
        var lastID: UInt64?
        for (i, m) in batch.enumerated() {
            let lines: [String]
            do { lines = try Self.lines(room: m.room, text: m.text) } catch {
                refused[i] = error
                continue
            }
            Self.encode(lines, into: &buffer)
            let promise = channel.eventLoop.makePromise(of: Void.self)
            lastID = echoes.wait(lines: lines.count) { result in promise.completeWith(result.mapError { $0 as any Error }) } ?? lastID
            waits.append(promise.futureResult)
        }
        guard !waits.isEmpty else { return channel.eventLoop.makeSucceededFuture(batch.indices.map { .refused(refused[$0]!) }) }
        // The last message's echo comes last: if it is not back in time, the link is not doing its job.
        let timer = NIOLockedValueBox<Scheduled<Void>?>(nil)
        if let id = lastID { Self.awaitEcho(id, since: .now(), echoes: echoes, channel: channel, timeout: timeout, timer: timer) }
        channel.writeAndFlush(buffer).whenFailure { error in
            StreamChatSession.drop(channel, because: TransportError(.closed, "send failed: \(error)"))
        }
        // Every waiter ends: with its echo, or all of them at once when the
        // link fails or the last echo is late.
        return EventLoopFuture.whenAllComplete(waits, on: channel.eventLoop).map { [refused] results in
            timer.withLockedValue { $0?.cancel() }
            var outcomes: [SendOutcome] = []
            var next = 0
            for i in batch.indices {
                if let e = refused[i] {
                    outcomes.append(.refused(e))
                    continue
                }
                if case .failure(let error) = results[next] {
                    outcomes.append(.failed(error))
                    break
                }
                outcomes.append(.delivered)
                next += 1
            }
            return outcomes
        }
    }

    /// Multi-line text goes out as one message per line; every line is
    /// checked before the first is written, so a refused text sends nothing.
    /// Confirmed by its echoes like a batch of one.
    nonisolated(nonsending) func send(_ message: OutgoingMessage) async throws {
        try await sendByWriting(message)
    }

    /// KICK or MUTE, answered by the server in order: `::OK` returns,
    /// `::REFUSED::{why}` throws `.refused` with the server's words. No answer
    /// within the echo timeout (10 s when echoes are off) drops the link, as a
    /// missing echo does. Messages have no ids, so there is no delete.
    nonisolated(nonsending) func moderate(_ action: ModerationAction) async throws {
        let frame = try Self.frame(for: action)
        let promise = channel.eventLoop.makePromise(of: Void.self)
        guard let id = replies.wait(lines: 1, { promise.completeWith($0.mapError { $0 as any Error }) }) else {
            return try await promise.futureResult.valueOnCaller()
        }
        let channel = self.channel, replies = self.replies, timeout = echoTimeout > 0 ? echoTimeout : 10
        let timer = channel.eventLoop.scheduleTask(in: .milliseconds(Int64(timeout * 1000))) {
            let late = TransportError(.timeout, "no answer to a moderation frame within \(timeout) s")
            if replies.end(late, ifWaiting: id) { StreamChatSession.drop(channel, because: late) }
        }
        defer { timer.cancel() }
        channel.writeAndFlush(ByteBuffer(bytes: frame.encoded)).whenFailure { error in
            StreamChatSession.drop(channel, because: TransportError(.closed, "send failed: \(error)"))
        }
        try await promise.futureResult.valueOnCaller()
    }

    /// The frame for `action`, checked as the server would check it.
    private static func frame(for action: ModerationAction) throws(TransportError) -> StreamChat.ClientFrame {
        let user: String, reason: String
        let frame: StreamChat.ClientFrame
        switch action {
        case .kick(let room, let u, let r):
            try check(room: room, "kick in")
            (user, reason, frame) = (u, r, .kick(user: u, reason: r))
        case .mute(let room, let u, let seconds, let r):
            try check(room: room, "mute in")
            guard seconds > 0, seconds <= StreamChat.maxSeconds else {
                throw TransportError(.refused, "mute for \(seconds) s: the time must be more than 0 and at most 10^12 s")
            }
            (user, reason, frame) = (u, r, .mute(user: u, seconds: seconds, reason: r))
        case .delete:
            throw TransportError(.refused, "not supported: StreamChat messages have no ids")
        }
        if let problem = StreamChat.checkName(user) { throw TransportError(.refused, "user name: \(problem)") }
        if !reason.isEmpty, let problem = StreamChat.check(reason) { throw TransportError(.refused, "reason: \(problem)") }
        return frame
    }

    /// Ends the link for a cause of the bot's own through the pipeline's error
    /// path, so the link's end names it (a bare close reads as the server's).
    /// The waiters left are failed as by any closed link: sent again after the reconnect.
    static func drop(_ channel: Channel, because cause: TransportError) {
        channel.pipeline.fireErrorCaught(TransportError(.closed, cause.message))
    }

    /// StreamChat has no typing indicator.
    func typing(room: String, on: Bool) throws {}

    func leave() async {
        leaving.withLockedValue { $0 = true }
        try? await channel.writeAndFlush(ByteBuffer(bytes: StreamChat.ClientFrame.leave.encoded)).get()
        try? await channel.close().get()
    }

    func close() async {
        leaving.withLockedValue { $0 = true }
        try? await channel.close().get()
    }
}
