import NIOCore
import NIOWebSocket
import ParleyCore
import ParleyWire

/// One Engine.IO session: its transport (long-polling, or a WebSocket,
/// possibly reached by upgrading), the server's heartbeat, the packets
/// waiting for a long-poll, and the switch from polling to WebSocket.
///
/// A session lives on one event loop, the one of the connection that opened
/// it, and its state is only touched there (hence `@unchecked Sendable`).
/// Polling requests may arrive on any connection, on any loop; handlers hop
/// to `loop` with `onLoop` before calling in. Everything Socket.IO happens in
/// `SessionSockets`; this type only carries packets.
///
/// Sessions end in one of two ways. The client *leaves* (a close packet, its
/// WebSocket closes, it abandons a long-poll): nothing is logged. The server
/// *drops* it (malformed input, no pong, no CONNECT in time, too much queued):
/// logged and counted. Either way each namespace's disconnect logic runs.
final class EngineIOSession: @unchecked Sendable {
    enum Transport {
        case polling
        case websocket(SessionWebSocket)
    }

    let sid: String
    let loop: any EventLoop
    /// The connection that opened the session, and the sid: who log lines are about.
    let who: String
    private let server: ServerContext
    private let sockets: SessionSockets

    private var transport: Transport
    /// A WebSocket that answered the probe and may take over once it sends `5`.
    private var upgrade: SessionWebSocket?
    /// The held long-poll GET, answered as soon as something is queued.
    private var pendingPoll: HTTPReply?
    /// Packets waiting for a long-poll (or for an upgrade to finish).
    private var queue: [OutboundPacket] = []
    private var queuedBytes = 0
    private(set) var isClosed = false
    private var nextPing: Scheduled<Void>?
    private var pongDeadline: Scheduled<Void>?
    private var connectDeadline: Scheduled<Void>?

    /// `ownEcho`: false when the handshake asked not to be sent the client's own messages.
    init(server: ServerContext, loop: any EventLoop, transport: Transport, peer: String, ownEcho: Bool = true) {
        self.sid = SessionRegistry.makeID()
        self.loop = loop
        self.who = "\(peer) (\(sid))"
        self.server = server
        self.sockets = SessionSockets(server: server, ownEcho: ownEcho)
        self.transport = transport
    }

    /// The open packet's contents. Only a polling session is offered the upgrade.
    var handshake: EngineIO.Handshake {
        let config = server.config
        var upgrades: [String] = []
        if case .polling = transport, config.allowWebSocket { upgrades = ["websocket"] }
        return EngineIO.Handshake(
            sid: sid,
            upgrades: upgrades,
            pingInterval: config.pingInterval.wholeMilliseconds,
            pingTimeout: config.pingTimeout.wholeMilliseconds,
            maxPayload: config.maxPayload
        )
    }

    /// Runs `body` on the session's loop: at once when already there.
    func onLoop(_ body: @escaping @Sendable () -> Void) {
        if loop.inEventLoop { body() } else { loop.execute(body) }
    }

    /// Starts the clocks, once registered. A WebSocket session gets its open packet
    /// here; a polling one got it as the handshake response.
    func start() {
        loop.assertInEventLoop()
        if case .websocket(let link) = transport {
            link.write(Outbound.packet(.open(handshake)))
            link.flush()
        }
        schedulePing()
        let timeout = server.config.connectTimeout
        connectDeadline = loop.scheduleTask(in: TimeAmount(timeout)) { [self] in
            drop("no Socket.IO CONNECT within \(timeout)")
        }
    }

    // MARK: inbound

    func receive(_ packets: [EngineIO.Packet]) {
        for packet in packets where !isClosed { receive(packet) }
    }

    func receive(_ packet: EngineIO.Packet) {
        guard !isClosed else { return }
        do {
            switch packet {
            case .message(let text): try sockets.receive(text: text, session: self)
            case .binary(let bytes): try sockets.receive(binary: bytes, session: self)
            case .pong: pongReceived()
            case .close: close()
            case .noop, .upgrade: break
            case .ping: drop("ping from the client: in Engine.IO v4 only the server pings")
            case .open: drop("open packet from the client")
            }
        } catch {
            drop("\(error)")
        }
    }

    /// A SocketIO CONNECT succeeded: the session has proved it is a Socket.IO client.
    func socketConnected() {
        connectDeadline?.cancel()
        connectDeadline = nil
    }

    /// A moderator kicked this session's socket in `namespace`; on the loop.
    func kicked(from namespace: String, socketID: String) {
        guard !isClosed else { return }
        sockets.kicked(from: namespace, socketID: socketID, session: self)
    }

    // MARK: outbound

    /// Writes or queues one packet; `flush` sends what a batch queued.
    func send(_ packet: OutboundPacket) {
        guard !isClosed else { return }
        if case .websocket(let link) = transport {
            link.write(packet)
        } else {
            queue.append(packet)
            queuedBytes += packet.text.readableBytes
        }
    }

    func flush() {
        guard !isClosed else { return }
        switch transport {
        case .websocket(let link):
            link.flush()
        case .polling:
            // Checked here, not in `send`: dropping in the middle of a batch would
            // run the disconnect logic while the room is still delivering.
            if queuedBytes > server.config.maxOutboundBytes {
                drop("more than \(server.config.maxOutboundBytes) bytes queued: the client does not poll")
                return
            }
            guard upgrade == nil, let poll = pendingPoll, !queue.isEmpty else { return }
            pendingPoll = nil
            poll.payload(queue)
            queue = []
            queuedBytes = 0
        }
    }

    /// A room's broadcast batch, on this loop.
    func deliver(_ packets: [OutboundPacket]) {
        for packet in packets { send(packet) }
        flush()
    }

    /// Sends `packet` behind the room broadcasts already queued on this loop, so an
    /// ack arrives after the packets its event caused, as from the reference servers.
    func sendAfterQueuedBroadcasts(_ packet: OutboundPacket) {
        loop.execute { [self] in
            send(packet)
            flush()
        }
    }

    // MARK: long-polling

    /// A GET for this session: answered now if packets wait, else held until some do.
    func poll(_ reply: HTTPReply) {
        guard !isClosed else {
            reply.refuse(.unknownSession)
            return
        }
        guard case .polling = transport else {
            reply.refuse(.badRequest)
            return
        }
        if pendingPoll != nil {
            reply.refuse(.badRequest)
            drop("a second long-poll while one is pending")
            return
        }
        if upgrade != nil {
            reply.payload([Outbound.noop])
            return
        }
        pendingPoll = reply
        flush()
    }

    /// The connection of a held long-poll closed: the client is gone.
    func pollAbandoned(on channel: any Channel) {
        guard !isClosed, let poll = pendingPoll, poll.channel === channel else { return }
        pendingPoll = nil
        close()
    }

    /// True while the session polls: not closed, not upgraded. POSTs are refused otherwise.
    var isPolling: Bool {
        if case .polling = transport { return !isClosed }
        return false
    }

    // MARK: upgrade

    /// Whether a WebSocket may take over: the session polls and no upgrade is under way.
    var acceptsUpgrade: Bool { isPolling && upgrade == nil }

    /// The WebSocket sent `2probe`: answer it, and release the pending GET with a
    /// noop so the client can finish the switch. Until then packets wait in the queue.
    func probe(_ link: SessionWebSocket) {
        guard acceptsUpgrade else {
            link.close()
            return
        }
        upgrade = link
        link.write(Outbound.probeAnswer)
        link.flush()
        if let poll = pendingPoll {
            pendingPoll = nil
            poll.payload([Outbound.noop])
        }
    }

    /// The WebSocket sent `5`: it is the transport now, and what waited goes out on it.
    func completeUpgrade(_ link: SessionWebSocket) {
        guard !isClosed, upgrade == link else {
            link.close()
            return
        }
        upgrade = nil
        transport = .websocket(link)
        if let poll = pendingPoll {
            pendingPoll = nil
            poll.payload([Outbound.noop])
        }
        for packet in queue { link.write(packet) }
        queue = []
        queuedBytes = 0
        link.flush()
    }

    /// A WebSocket of this session closed: the end of the session, or of an upgrade attempt.
    func transportClosed(_ link: SessionWebSocket) {
        guard !isClosed else { return }
        if upgrade == link {
            upgrade = nil
            flush()
        } else if case .websocket(let current) = transport, current == link {
            close()
        }
    }

    // MARK: heartbeat

    private func schedulePing() {
        let interval = server.config.pingInterval
        let timeout = server.config.pingTimeout
        nextPing = loop.scheduleTask(in: TimeAmount(interval)) { [self] in
            nextPing = nil
            send(Outbound.ping)
            flush()
            pongDeadline = loop.scheduleTask(in: TimeAmount(timeout)) { [self] in
                drop("no pong within \(timeout) of a ping")
            }
        }
    }

    private func pongReceived() {
        guard let deadline = pongDeadline else { return }
        deadline.cancel()
        pongDeadline = nil
        schedulePing()
    }

    // MARK: closing

    /// The server ends the session: logged and counted. A WebSocket is closed
    /// with `closeCode`: 1000 but for broken WebSocket framing.
    func drop(_ reason: String, closeCode: WebSocketErrorCode = .normalClosure) {
        guard !isClosed else { return }
        server.registry.countDropped()
        server.log("dropped \(who): \(reason)")
        finish(announce: true, closeCode: closeCode)
    }

    /// The client left.
    func close() {
        finish(announce: true)
    }

    /// The server is shutting down: no one is told.
    func shutdown() {
        finish(announce: false)
    }

    private func finish(announce: Bool, closeCode: WebSocketErrorCode = .normalClosure) {
        guard !isClosed else { return }
        isClosed = true
        for task in [nextPing, pongDeadline, connectDeadline] { task?.cancel() }
        switch transport {
        case .polling: pendingPoll?.payload([Outbound.close])
        case .websocket(let link): link.close(closeCode)
        }
        pendingPoll = nil
        upgrade?.close()
        upgrade = nil
        queue = []
        server.registry.remove(self)
        sockets.leaveAll(session: self, announce: announce)
    }
}
