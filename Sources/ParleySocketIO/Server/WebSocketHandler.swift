import NIOCore
import NIOWebSocket
import ParleyWire

/// One WebSocket connection after the HTTP upgrade: frames in, Engine.IO
/// packets to the session. A WebSocket-only client gets a new session; one
/// that upgrades a polling session first goes through the probe (`2probe` →
/// `3probe`, then `5`) and only then carries the session's packets.
///
/// WebSocket ping frames are answered and close frames echoed here; Engine.IO's
/// own heartbeat is the session's business. Messages over `maxPayload` never get
/// here: the frame decoder and the aggregator refuse them, and this handler
/// drops the client with close code 1009 (it does its own WebSocket error
/// handling, so that a drop is a drop and not a client leaving).
final class EngineIOWebSocketHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    enum Role: Sendable {
        /// A WebSocket-only client: the session is made when the handler is added.
        case open(ownEcho: Bool)
        /// The upgrade of a polling session.
        case upgrade(EngineIOSession)
    }

    private enum State {
        case starting(Role)
        /// Probe and `5` still to come.
        case probing(EngineIOSession)
        case attached(EngineIOSession)
        case closed
    }

    private let server: ServerContext
    /// The `FrameBypass` handler's context.
    private let bypass: ChannelHandlerContext
    private var state: State
    /// Once set, nothing more is read. The state stays, so that the session
    /// still hears when the connection is gone.
    private var isClosing = false
    private var writabilityCheckScheduled = false

    init(server: ServerContext, role: Role, bypass: ChannelHandlerContext) {
        self.server = server
        self.state = .starting(role)
        self.bypass = bypass
    }

    private func link(_ context: ChannelHandlerContext) -> SessionWebSocket {
        SessionWebSocket(channel: context.channel, bypass: bypass)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        guard case .starting(let role) = state else { return }
        switch role {
        case .open(let ownEcho):
            let link = link(context)
            let session = EngineIOSession(server: server, loop: context.eventLoop, transport: .websocket(link), peer: server.peer(of: context.channel),
                                          ownEcho: ownEcho)
            switch server.registry.register(session) {
            case .admitted:
                state = .attached(session)
                session.start()
            case .full(let n):
                drop(context, "server full (\(n) sessions)")
            case .closing:
                state = .closed
                context.close(promise: nil)
            }
        case .upgrade(let session):
            state = .probing(session)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        switch state {
        case .probing(let session), .attached(let session):
            let link = link(context)
            session.onLoop { session.transportClosed(link) }
        case .starting, .closed:
            break
        }
        state = .closed
        isClosing = true
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !isClosing else { return }
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            guard let text = String(validating: frame.unmaskedData.readableBytesView, as: UTF8.self) else {
                drop(context, "text frame is not UTF-8", code: .dataInconsistentWithMessage)
                return
            }
            read(text, context: context)
        case .binary:
            guard case .attached(let session) = state else {
                if case .probing = state { drop(context, "binary frame before the upgrade finished") }
                return
            }
            let bytes = Array(frame.unmaskedData.readableBytesView)
            session.onLoop { session.receive(.binary(bytes)) }
        case .ping:
            let pong = WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .connectionClose:
            closeHandshake(frame, context: context)
        default:
            // Pongs need no answer; continuations were joined by the aggregator.
            break
        }
    }

    private func read(_ text: String, context: ChannelHandlerContext) {
        let packet: EngineIO.Packet
        do {
            packet = try EngineIO.decode(text: text)
        } catch {
            drop(context, "malformed packet: \(error.message)")
            return
        }
        switch state {
        case .attached(let session):
            session.onLoop { session.receive(packet) }
        case .probing(let session):
            let link = link(context)
            switch packet {
            case .ping("probe"):
                session.onLoop { session.probe(link) }
            case .upgrade:
                state = .attached(session)
                session.onLoop { session.completeUpgrade(link) }
            default:
                // As the JavaScript server: a failed upgrade closes the WebSocket, and polling goes on.
                isClosing = true
                link.close()
            }
        case .starting, .closed:
            break
        }
    }

    /// Echoes the client's close code, then closes.
    private func closeHandshake(_ frame: WebSocketFrame, context: ChannelHandlerContext) {
        isClosing = true
        var data = frame.unmaskedData
        let code = data.readSlice(length: 2) ?? ByteBuffer()
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: code)))
            .whenComplete { _ in channel.close(promise: nil) }
    }

    /// The channel turns unwritable while one broadcast batch is written, before
    /// its flush; the client is judged once the flush gave the kernel what it takes.
    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if !context.channel.isWritable, !writabilityCheckScheduled {
            writabilityCheckScheduled = true
            context.eventLoop.assumeIsolated().execute {
                self.writabilityCheckScheduled = false
                if !context.channel.isWritable {
                    self.drop(context, "more than \(self.server.config.maxOutboundBytes) bytes queued: the client does not read")
                }
            }
        }
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch error {
        case is IOError:
            // Resets and broken pipes are how clients often leave: not worth a log line.
            context.close(promise: nil)
        case NIOWebSocketError.invalidFrameLength, NIOWebSocketFrameAggregator.Error.accumulatedFrameSizeIsTooLarge:
            drop(context, "message larger than maxPayload (\(server.config.maxPayload) bytes)", code: .messageTooLarge)
        default:
            drop(context, "\(error)", code: .protocolError)
        }
    }

    /// The session, if it has one, drops itself and closes this connection;
    /// otherwise only the connection goes.
    private func drop(_ context: ChannelHandlerContext, _ reason: String, code: WebSocketErrorCode = .normalClosure) {
        guard !isClosing else { return }
        isClosing = true
        switch state {
        case .attached(let session):
            session.onLoop { session.drop(reason, closeCode: code) }
        case .probing, .starting, .closed:
            server.registry.countDropped()
            server.log("dropped \(server.peer(of: context.channel)): \(reason)")
            link(context).close(code)
        }
    }
}
