import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import ParleyCore
import ParleyNet
import ParleyWire

/// The pipeline stage that cuts the server's bytes into lines, in front of
/// `StreamChatClientHandler`. Lines end in `\n`; bytes that arrive without
/// one are passed on as a line after a quiet period (the original server's
/// delimiting is undocumented), and a line may never exceed 64 KiB. The
/// cutting rules are ParleyWire's `ServerLineSplitter`, fuzzed without NIO.
///
/// Once the server has ended a line with `\n`, it is known to end its lines,
/// so bytes without an end are the start of a line whose rest is still on
/// its way (a busy server, a full socket buffer) and wait for it: no timer,
/// however busy either side is, cuts `f1 has joi` from `ned`.
///
/// Until then the link shares its loop with plugins, so a quiet peer and a
/// busy loop must not look alike: a flush timer that fires late (a plugin
/// held the loop) may find the rest of the line unread in the socket, so it
/// waits for the loop to poll once more before it counts the peer as quiet.
///
/// A class: the quiet-period timer passes on what is pending from outside a
/// `decode` call.
final class StreamChatLineDecoder: ByteToMessageDecoder {
    typealias InboundOut = String

    static let maxLineBytes = 65_536
    /// A timer later than this fired after the loop was busy, not on time.
    static let lateBy = TimeAmount.milliseconds(10)

    private var lines = StreamChat.ServerLineSplitter()
    private var flushTask: Scheduled<Void>?
    private let quietPeriod: TimeAmount
    /// Whether the server ended a line with `\n` yet: then it ends them all.
    private var serverEndsLines = false

    init(quietPeriod seconds: Double) {
        quietPeriod = .milliseconds(Int64(seconds * 1000))
    }

    /// Every complete line of the bytes so far, in one call: the bytes are
    /// all taken in, so there is nothing left for a second call to find.
    func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        lines.append(buffer.readableBytesView)
        buffer.moveReaderIndex(to: buffer.writerIndex)
        while let line = lines.next() {
            serverEndsLines = true
            context.fireChannelRead(wrapInboundOut(line))
        }
        flushTask?.cancel()
        flushTask = nil
        if lines.pendingCount > Self.maxLineBytes {
            throw TransportError(.protocolViolation, "the server sent \(lines.pendingCount) bytes without a line end")
        }
        if lines.pendingCount > 0 && !serverEndsLines { armFlush(context, in: quietPeriod) }
        return .needMoreData
    }

    /// Passes on what is pending as a line once `delay` passed with no more
    /// bytes; a late timer first lets the loop poll its sockets (once: after
    /// that poll, what has not come is not there).
    private func armFlush(_ context: ChannelHandlerContext, in delay: TimeAmount, polled: Bool = false) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let due = NIODeadline.now() + delay
        flushTask = context.eventLoop.scheduleTask(deadline: due) {
            let (decoder, context) = loopBound.value
            decoder.flushTask = nil
            if !polled, NIODeadline.now() - due > Self.lateBy {
                // A task due in the future waits for the loop's next round,
                // which starts with the poll: bytes already here are read first.
                decoder.armFlush(context, in: .milliseconds(1), polled: true)
            } else if let line = decoder.lines.takeUnterminated() {
                context.fireChannelRead(decoder.wrapInboundOut(line))
            }
        }
    }

    func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        _ = try decode(context: context, buffer: &buffer)
        flushTask?.cancel()
        flushTask = nil
        // A server that never ends its lines ended its last one by closing;
        // a line-ending server's unended tail is a line cut short.
        if seenEOF, !serverEndsLines, let line = lines.takeUnterminated() { context.fireChannelRead(wrapInboundOut(line)) }
        return .needMoreData
    }

    func decoderRemoved(context: ChannelHandlerContext) {
        flushTask?.cancel()
    }
}

/// Turns the server's lines into events.
final class StreamChatClientHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = String

    private let events: TransportEvents
    private let leaving: NIOLockedValueBox<Bool>
    private let echoes: EchoWaiters
    /// The bot's KICK and MUTE frames, waiting for `::OK` or `::REFUSED::`.
    private let replies: EchoWaiters
    /// The bot's own name: its messages coming back are the echoes its sends wait for.
    private let name: String
    private let options: StreamChatOptions
    private let log: @Sendable (String) -> Void
    private var finished = false
    /// Whether a line came yet: only the first may be an HTTP server's answer.
    private var heardFromServer = false
    /// Why a moderator removed the bot, said in the session's end (the server closes the link next).
    private var kickedBecause: String?
    /// Whether the server said the bot joined: a refusal before that is of its name.
    private var joined = false
    /// Why the server took the bot's name for a newer connection (`::TAKEN::`).
    private var nameTaken: String?
    /// Why the server refused the bot's name (a moderator's, without the token).
    private var nameRefused: String?

    init(events: TransportEvents, leaving: NIOLockedValueBox<Bool>, echoes: EchoWaiters, replies: EchoWaiters,
         name: String, options: StreamChatOptions, log: @escaping @Sendable (String) -> Void) {
        self.events = events
        self.leaving = leaving
        self.echoes = echoes
        self.replies = replies
        self.name = name
        self.options = options
        self.log = log
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let line = unwrapInboundIn(data)
        echoes.heard()
        // An HTTP server at the address answers the login with a status line:
        // that is a wrong address, not a line to skip.
        if !heardFromServer, line.hasPrefix("HTTP/") {
            fail(context, TransportError(.protocolViolation, """
                the server answered in HTTP (\(String(line.prefix(40)).debugDescription)): \
                is the address a StreamChat server's?
                """))
            return
        }
        heardFromServer = true
        deliver(line)
    }

    private func deliver(_ line: String) {
        if line.isEmpty { return }
        guard let parsed = StreamChat.ServerLine(line: line) else {
            log("streamchat: ignored a line that is not StreamChat: \(String(line.prefix(80)).debugDescription)")
            return
        }
        let room = StreamChat.room
        switch parsed {
        case .joined(let user):
            if user == name { joined = true }
            events.yield(.chat(.join(room: room, user: user, time: nil)))
        case .left(let user): events.yield(.chat(.leave(room: room, user: user, time: nil)))
        case .message(let user, let text):
            if user == name { echoes.answered() }
            events.yield(.chat(.message(ChatMessage(room: room, user: user, text: text))))
        // Someone else's kick and mute need no event: the kick's `has left` follows.
        case .kicked(let user, let reason):
            if user == name { kickedBecause = reason }
        case .muted: break
        case .dropped(let seconds, let reason):
            // The line is answered (not sent again: the server would drop it again).
            echoes.answered()
            log("streamchat: the server dropped a message: the bot is muted for \(StreamChat.format(seconds: seconds)) s more (\(reason))")
        case .ok: replies.answered()
        case .refused(let reason) where !joined: nameRefused = reason
        case .refused(let reason): replies.answered(.failure(TransportError(.refused, reason)))
        case .taken(let reason): nameTaken = reason
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read {
            fail(context, TransportError(.idle, "nothing received for \(options.idleTimeout) s"))
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // The line decoder's own errors say what the server did wrong.
        fail(context, error as? TransportError ?? TransportError(.closed, "connection error: \(NetworkErrors.describe(error, established: true))"))
    }

    func channelInactive(context: ChannelHandlerContext) {
        if leaving.withLockedValue({ $0 }) {
            finish(nil)
        } else if let reason = kickedBecause {
            finish(TransportError(.closed, "a moderator removed the bot from the room: \(reason)"))
        } else if let reason = nameTaken {
            finish(TransportError(.closed, "another connection took the bot's name: \(reason)"))
        } else if let reason = nameRefused {
            finish(TransportError(.closed, "the server refused the bot's name: \(reason) (set moderator_token in [bot.streamchat])"))
        } else {
            finish(TransportError(.closed, "the server closed the connection"))
        }
        context.fireChannelInactive()
    }

    private func fail(_ context: ChannelHandlerContext, _ error: TransportError) {
        finish(error)
        context.close(promise: nil)
    }

    private func finish(_ error: TransportError?) {
        guard !finished else { return }
        finished = true
        echoes.end(error ?? TransportError(.closed, "the link closed before the echo came back"))
        replies.end(error ?? TransportError(.closed, "the link closed before the server answered"))
        events.finish(throwing: error)
    }
}
