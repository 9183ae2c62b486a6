import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import ParleyCore
import ParleyWire

extension TransportCapabilities {
    /// StreamChat: one room, no typing, no roster, no history, 300 characters, no protocol tokens in text.
    public static let streamchat = TransportCapabilities(
        name: "streamchat", rooms: false, typing: false, roster: false, serverHistory: false, kick: false,
        maxCharacters: StreamChat.maxCharacters, forbiddenSubstrings: StreamChat.forbiddenTokens)
}

/// The StreamChat raw TCP protocol as a `Transport`.
///
/// The protocol has no heartbeat, so liveness is TCP keepalive (the kernel
/// notices a vanished peer) plus an idle read timeout (nothing at all
/// received for `idleTimeout`): either ends the session and presence
/// reconnects, which on a quiet but healthy link costs one quiet re-login.
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

    public func connect() async throws -> any TransportSession {
        if let problem = StreamChat.checkName(name) {
            throw TransportError(.refused, "the name '\(name)' cannot be used on StreamChat: \(problem)")
        }
        let (events, continuation) = AsyncThrowingStream<TransportEvent, Error>.makeStream()
        let leaving = NIOLockedValueBox(false)
        let options = self.options
        let log = self.log
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.milliseconds(Int64(connectTimeout * 1000)))
            .channelOption(ChannelOptions.socketOption(.so_keepalive), value: options.keepalive ? 1 : 0)
            .channelOption(ChannelOptions.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let ops = channel.pipeline.syncOperations
                    if options.idleTimeout > 0 {
                        try ops.addHandler(IdleStateHandler(readTimeout: .milliseconds(Int64(options.idleTimeout * 1000))))
                    }
                    try ops.addHandler(StreamChatClientHandler(
                        continuation: continuation, leaving: leaving, options: options, log: log))
                }
            }
        let channel: Channel
        do {
            channel = try await bootstrap.connect(host: host, port: port).get()
        } catch {
            continuation.finish()
            throw TransportError(.connect, "cannot connect to StreamChat server \(host):\(port): \(error)")
        }
        do {
            try await channel.writeAndFlush(ByteBuffer(bytes: StreamChat.ClientFrame.userName(name).encoded)).get()
        } catch {
            channel.close(promise: nil)
            throw TransportError(.closed, "connection to \(host):\(port) lost while announcing: \(error)")
        }
        return StreamChatSession(channel: channel, events: events, leaving: leaving)
    }
}

/// One StreamChat connection: announced, in the lobby.
final class StreamChatSession: TransportSession {
    let channel: Channel
    let events: AsyncThrowingStream<TransportEvent, Error>
    private let leaving: NIOLockedValueBox<Bool>

    init(channel: Channel, events: AsyncThrowingStream<TransportEvent, Error>, leaving: NIOLockedValueBox<Bool>) {
        self.channel = channel
        self.events = events
        self.leaving = leaving
    }

    /// Multi-line text goes out as one message per line; every line is
    /// checked before the first is written, so a refused text sends nothing.
    func send(room: String, text: String, id: String) async throws {
        guard room == StreamChat.room else {
            throw TransportError(.refused, "StreamChat has one room, '\(StreamChat.room)'; cannot send to '\(room)'")
        }
        let lines = StreamChat.lines(of: text)
        if lines.isEmpty { throw TransportError(.refused, "empty message") }
        for line in lines {
            if let problem = StreamChat.check(line) { throw TransportError(.refused, problem.description) }
        }
        var buffer = channel.allocator.buffer(capacity: text.utf8.count + lines.count * 10)
        for line in lines { buffer.writeBytes(StreamChat.ClientFrame.message(line).encoded) }
        do {
            try await channel.writeAndFlush(buffer).get()
        } catch {
            throw TransportError(.closed, "send failed: \(error)")
        }
    }

    /// StreamChat has no typing indicator.
    func typing(room: String, on: Bool) async throws {}

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

/// Turns server bytes into events. Lines end in `\n`; bytes that arrive
/// without one are read as a line after a quiet period (the original server's
/// delimiting is undocumented), and a line may never exceed 64 KiB.
final class StreamChatClientHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    static let maxLineBytes = 65_536

    private let continuation: AsyncThrowingStream<TransportEvent, Error>.Continuation
    private let leaving: NIOLockedValueBox<Bool>
    private let options: StreamChatOptions
    private let log: @Sendable (String) -> Void
    private var splitter = StreamChat.ServerLineSplitter()
    private var flushTask: Scheduled<Void>?
    private var finished = false

    init(continuation: AsyncThrowingStream<TransportEvent, Error>.Continuation, leaving: NIOLockedValueBox<Bool>,
         options: StreamChatOptions, log: @escaping @Sendable (String) -> Void) {
        self.continuation = continuation
        self.leaving = leaving
        self.options = options
        self.log = log
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        splitter.append(buffer.readableBytesView)
        while let line = splitter.next() { deliver(line) }
        flushTask?.cancel()
        flushTask = nil
        if splitter.pendingCount > Self.maxLineBytes {
            fail(context, TransportError(.protocolViolation, "the server sent \(splitter.pendingCount) bytes without a line end"))
        } else if splitter.pendingCount > 0 {
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            flushTask = context.eventLoop.scheduleTask(in: .milliseconds(Int64(options.unterminatedFlush * 1000))) {
                let (handler, _) = loopBound.value
                if let line = handler.splitter.takeUnterminated() { handler.deliver(line) }
            }
        }
    }

    private func deliver(_ line: String) {
        if line.isEmpty { return }
        guard let parsed = StreamChat.ServerLine(line: line) else {
            log("streamchat: ignored a line that is not StreamChat: \(String(line.prefix(80)).debugDescription)")
            return
        }
        let room = StreamChat.room
        switch parsed {
        case .joined(let user): continuation.yield(.chat(.join(room: room, user: user, time: nil)))
        case .left(let user): continuation.yield(.chat(.leave(room: room, user: user, time: nil)))
        case .message(let user, let text): continuation.yield(.chat(.message(ChatMessage(room: room, user: user, text: text))))
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
        fail(context, TransportError(.closed, "connection error: \(error)"))
    }

    func channelInactive(context: ChannelHandlerContext) {
        flushTask?.cancel()
        if leaving.withLockedValue({ $0 }) {
            finish(nil)
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
        if let error { continuation.finish(throwing: error) } else { continuation.finish() }
    }
}
