import NIOCore
import NIOHTTP1
import ParleyWire

/// Engine.IO over plain HTTP: the polling handshake, long-poll GETs and POSTed
/// payloads, WebSocket upgrades (of any request on the connection, see
/// `EngineIOPipeline`), and the refusals for everything else: wrong path,
/// version, transport or sid, a WebSocket request without an upgrade.
///
/// Requests are acted on at their end. A long-poll is handed to its session,
/// which answers it from its own loop when packets are queued; this handler
/// only remembers which session holds it, to tell the session when the client
/// goes away. `HTTPServerPipelineHandler` in front holds back a pipelined next
/// request until the answer is out, so a connection has one request at a time.
final class EngineIOHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart

    private enum State {
        case idle
        /// A handshake (no session yet, and whether it wants its own messages back) or a long-poll.
        case get(HTTPReply, EngineIOSession?, ownEcho: Bool)
        /// A payload for a session, its body collected up to `maxPayload`.
        case post(HTTPReply, EngineIOSession, ByteBuffer)
        /// A WebSocket upgrade, for a new session or of a polling one.
        case upgrade(HTTPRequestHead, EngineIOWebSocketHandler.Role)
        /// Already answered; the rest of the request is ignored.
        case answered
    }

    private let server: ServerContext
    private var state = State.idle
    /// The session holding this connection's long-poll.
    private var heldPoll: EngineIOSession?

    init(server: ServerContext) {
        self.server = server
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            begin(head, context: context)
        case .body(var part):
            guard case .post(let reply, let session, var body) = state else { return }
            if body.readableBytes + part.readableBytes > server.config.maxPayload {
                state = .answered
                reply.refuse(.payloadTooLarge, thenClose: true)
                let limit = server.config.maxPayload
                session.onLoop { session.drop("POST body over maxPayload (\(limit) bytes)") }
                return
            }
            state = .answered  // releases the body buffer so the append does not copy it
            body.writeBuffer(&part)
            state = .post(reply, session, body)
        case .end:
            let finished = state
            state = .idle
            switch finished {
            case .get(let reply, nil, let ownEcho):
                handshake(reply, ownEcho: ownEcho, context: context)
            case .get(let reply, let session?, _):
                heldPoll = session
                session.onLoop { session.poll(reply) }
            case .post(let reply, let session, let body):
                post(body, to: session, reply: reply)
            case .upgrade(let head, let role):
                upgrade(head, role: role, context: context)
            case .idle, .answered:
                break
            }
        }
    }

    private func begin(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        // A new request means the last answer went out: any long-poll here was answered.
        heldPoll = nil
        let reply = HTTPReply(channel: context.channel, request: head)
        state = .answered
        let asksUpgrade = head.headers.contains(name: "upgrade")
        // NIO's request decoder reads nothing after a request that asks for an upgrade,
        // and a HEAD answer must not have the body refusals carry: either way the
        // connection cannot go on after a refusal.
        let refuse = { (refusal: EngineIORequest.Refusal) in
            reply.refuse(refusal, thenClose: asksUpgrade || head.method == .HEAD)
        }
        // The web chat's page and files; everything else is Engine.IO's.
        if head.method == .GET || head.method == .HEAD, !asksUpgrade, let asset = WebChat.asset(uri: head.uri) {
            return reply.asset(asset, bodyless: head.method == .HEAD)
        }
        let request: EngineIORequest
        switch EngineIORequest.read(uri: head.uri, config: server.config) {
        case .success(let r): request = r
        case .failure(let refusal): return refuse(refusal)
        }
        var session: EngineIOSession?
        if let sid = request.sid {
            guard let found = server.registry.session(sid) else { return refuse(.unknownSession) }
            session = found
        }
        switch (request.transport, head.method, session) {
        case (.websocket, .GET, _) where asksUpgrade:
            state = .upgrade(head, session.map { .upgrade($0) } ?? .open(ownEcho: request.ownEcho))
        case (.websocket, _, _):
            refuse(.badRequest)
        case (.polling, .GET, _):
            state = .get(reply, session, ownEcho: request.ownEcho)
        case (.polling, .POST, let session?):
            if let length = head.headers.first(name: "content-length").flatMap(Int.init), length > server.config.maxPayload {
                reply.refuse(.payloadTooLarge, thenClose: true)
                let limit = server.config.maxPayload
                session.onLoop { session.drop("POST body over maxPayload (\(limit) bytes)") }
            } else {
                state = .post(reply, session, context.channel.allocator.buffer(capacity: 0))
            }
        case (.polling, _, nil):
            refuse(.badHandshakeMethod)
        case (.polling, _, _?):
            refuse(.badRequest)
        }
    }

    /// Checks the handshake (and that a polling session can still upgrade) on the
    /// upgrader, then hands the connection over to WebSocket.
    private func upgrade(_ head: HTTPRequestHead, role: EngineIOWebSocketHandler.Role, context: ChannelHandlerContext) {
        let upgrader = EngineIOPipeline.upgrader(for: role, server: server)
        let reply = HTTPReply(channel: context.channel, request: head)
        upgrader.buildUpgradeResponse(channel: context.channel, upgradeRequest: head, initialResponseHeaders: HTTPHeaders())
            .hop(to: context.eventLoop)
            .assumeIsolated()
            .whenComplete { result in
                switch result {
                case .success(let headers):
                    EngineIOPipeline.switchToWebSocket(context, request: head, responseHeaders: headers, upgrader: upgrader)
                case .failure:
                    // No valid WebSocket key or version, or a session that can no longer upgrade.
                    reply.refuse(.badRequest, thenClose: true)
                }
            }
    }

    private func handshake(_ reply: HTTPReply, ownEcho: Bool, context: ChannelHandlerContext) {
        let session = EngineIOSession(server: server, loop: context.eventLoop, transport: .polling, peer: server.peer(of: context.channel),
                                      ownEcho: ownEcho)
        switch server.registry.register(session) {
        case .admitted:
            reply.payload([Outbound.packet(.open(session.handshake))])
            session.start()
        case .full(let n):
            server.registry.countDropped()
            server.log("dropped \(server.peer(of: context.channel)): server full (\(n) sessions)")
            reply.refuse(.full)
        case .closing:
            reply.refuse(.full, thenClose: true)
        }
    }

    /// Decodes here, off the session's loop; a body that is no payload drops the session.
    private func post(_ body: ByteBuffer, to session: EngineIOSession, reply: HTTPReply) {
        let packets: [EngineIO.Packet]
        do {
            packets = try Self.decode(body)
        } catch {
            reply.refuse(.badRequest)
            session.onLoop { session.drop("malformed payload: \(error.message)") }
            return
        }
        session.onLoop {
            guard session.isPolling else {
                return reply.refuse(session.isClosed ? .unknownSession : .badRequest)
            }
            reply.ok()
            session.receive(packets)
        }
    }

    private static func decode(_ body: ByteBuffer) throws(EngineIO.DecodeError) -> [EngineIO.Packet] {
        guard let text = String(validating: body.readableBytesView, as: UTF8.self) else {
            throw EngineIO.DecodeError("body is not UTF-8")
        }
        return try EngineIO.decodePayload(text)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let session = heldPoll {
            let channel = context.channel
            session.onLoop { session.pollAbandoned(on: channel) }
        }
        heldPoll = nil
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .read? = event as? IdleStateHandler.IdleStateEvent {
            // No request for longer than a session could live without one: the client is gone.
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // HTTP parse errors were answered with 400 by NIO's error handler; resets need no answer.
        context.close(promise: nil)
    }
}
