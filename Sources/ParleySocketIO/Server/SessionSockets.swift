import ParleyCore
import ParleyWire

/// The Socket.IO side of one session: the namespaces it connected (one socket,
/// with its own sid, in each), the binary packet it is reassembling, and the
/// dispatch of its packets to the rooms.
///
/// What a client can get wrong ends here in one of two ways, as in the
/// JavaScript server. Input the parser refuses, a text packet cutting into a
/// binary packet's attachments, an event for a namespace the client never
/// connected, a stray binary message or a CONNECT_ERROR from a client is a
/// `Violation`: the session is dropped. An event SocketChat does not
/// know or cannot use, or an invalid namespace, is *refused*: counted, logged,
/// and the client stays.
///
/// A class on its session's loop, like the session: the session calls in while
/// the rooms call back into the session, and a struct stored in the session
/// would be inout for the whole call.
final class SessionSockets {
    struct Violation: Error, CustomStringConvertible {
        var description: String
    }

    private struct Socket {
        let id: String
        let room: SocketChatRoom
    }

    /// The JavaScript client's limit; also keeps namespaces out of log lines and rooms unbounded.
    static let maxNamespaceBytes = 200

    private let server: ServerContext
    /// By namespace.
    private var sockets: [String: Socket] = [:]
    /// Namespaces a moderator kicked this client from: its events there, sent
    /// before it read the DISCONNECT, are ignored until it connects again.
    private var kickedFrom: Set<String> = []
    /// A packet and its attachments together are held to `maxPayload`, as one message is.
    private var reassembler: SocketIO.Reassembler

    /// Whether the client's own messages are sent back to it (its handshake's `echo`).
    private let ownEcho: Bool

    init(server: ServerContext, ownEcho: Bool) {
        self.server = server
        self.ownEcho = ownEcho
        reassembler = SocketIO.Reassembler(maxBytes: server.config.maxPayload)
    }

    func receive(text: String, session: EngineIOSession) throws(Violation) {
        // As the JavaScript parser: a text packet may not cut into a binary packet's attachments.
        if reassembler.waiting { throw Violation(description: "text packet while a binary packet waits for attachments") }
        let decoded: (packet: SocketIO.Packet, expectedAttachments: Int)
        do {
            decoded = try SocketIO.decode(text)
        } catch {
            throw Violation(description: "malformed packet: \(error.message)")
        }
        if let packet = reassembler.add(decoded.packet, expecting: decoded.expectedAttachments) {
            try dispatch(packet, session)
        }
    }

    func receive(binary: [UInt8], session: EngineIOSession) throws(Violation) {
        let completed: SocketIO.Packet?
        do {
            completed = try reassembler.add(binary: binary)
        } catch {
            throw Violation(description: error.message)
        }
        if let completed { try dispatch(completed, session) }
    }

    /// The session ended: every socket leaves its room.
    func leaveAll(session: EngineIOSession, announce: Bool) {
        let all = sockets
        sockets = [:]
        for socket in all.values {
            server.rooms.leave(socket.room, socketID: socket.id, session: session, announce: announce)
        }
    }

    /// A moderator kicked the socket: its room already let it go. The client
    /// gets a DISCONNECT for the namespace and may connect to it again.
    func kicked(from namespace: String, socketID: String, session: EngineIOSession) {
        guard sockets[namespace]?.id == socketID else { return }
        sockets[namespace] = nil
        kickedFrom.insert(namespace)
        session.send(Outbound.message(SocketIO.Packet(type: .disconnect, namespace: namespace)))
        session.flush()
    }

    private func dispatch(_ packet: SocketIO.Packet, _ session: EngineIOSession) throws(Violation) {
        switch packet.type {
        case .connect:
            kickedFrom.remove(packet.namespace)
            connect(packet.namespace, session, auth: packet.data)
        case .disconnect:
            if let socket = sockets.removeValue(forKey: packet.namespace) {
                server.rooms.leave(socket.room, socketID: socket.id, session: session, announce: true)
            }
        case .event, .binaryEvent:
            if kickedFrom.contains(packet.namespace) {
                refuse(Self.quoted(packet.eventName ?? "?"), from: session, because: "sent after a kick from \(Self.quoted(packet.namespace))")
                return
            }
            guard let socket = sockets[packet.namespace], let name = packet.eventName else {
                throw Violation(description: "event for namespace \(Self.quoted(packet.namespace)), which it has not connected")
            }
            let ack = { (values: [JSONValue]) in
                guard let id = packet.id else { return }
                let ack = SocketIO.Packet(type: .ack, namespace: packet.namespace, id: id, data: .array(values))
                session.sendAfterQueuedBroadcasts(Outbound.message(ack))
            }
            switch socket.room.handle(event: name, packet.eventArguments, from: socket.id) {
            case .handled(let values):
                ack(values)
            case .denied(let reason):
                refuse(Self.quoted(name), from: session, because: reason)
                ack(SocketChatModeration.refusal(reason))
            case .muted(let seconds, let reason):
                let notice: JSONValue = ["seconds": .number(seconds), "reason": .string(reason)]
                session.sendAfterQueuedBroadcasts(
                    Outbound.message(.event(SocketChatModeration.dropped, [notice], namespace: packet.namespace)))
                ack(SocketChatModeration.refusal("muted for \(Int(seconds)) more seconds: \(reason)"))
            case .refused(let reason):
                refuse(Self.quoted(name), from: session, because: reason)
            case .unknown:
                refuse(Self.quoted(name), from: session, because: "SocketChat has no such event")
            }
        case .ack, .binaryAck:
            // The server never asks a client for an ack; a stray one is harmless.
            break
        case .connectError:
            throw Violation(description: "CONNECT_ERROR from a client")
        }
    }

    /// Answers CONNECT with the socket's sid, then joins the room, so the answer is
    /// out before any broadcast. A repeated CONNECT is answered with the same sid.
    private func connect(_ namespace: String, _ session: EngineIOSession, auth: JSONValue?) {
        guard namespace.utf8.count <= Self.maxNamespaceBytes,
              !namespace.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            refuse("CONNECT", from: session, because: "invalid namespace")
            let refusal = SocketIO.Packet(type: .connectError, namespace: namespace, data: ["message": "Invalid namespace"])
            session.send(Outbound.message(refusal))
            session.flush()
            return
        }
        let id = sockets[namespace]?.id ?? SessionRegistry.makeID()
        session.send(Outbound.message(SocketIO.Packet(type: .connect, namespace: namespace, data: ["sid": .string(id)])))
        session.flush()
        // The flush may have dropped the session (too much queued): a closed session joins nothing.
        guard sockets[namespace] == nil, !session.isClosed else { return }
        let trusted = server.rooms.moderatorToken.map { token in
            auth?["token"]?.string.map { Redactor.matches($0, secret: token) } ?? false
        } ?? false
        let room = server.rooms.join(namespace, socketID: id, session: session, trusted: trusted, ownEcho: ownEcho)
        sockets[namespace] = Socket(id: id, room: room)
        session.socketConnected()
    }

    private func refuse(_ what: String, from session: EngineIOSession, because reason: String) {
        server.registry.countRefused()
        server.log("refused \(what) from \(session.who): \(reason)")
    }

    /// Client text in a log line: escaped, so it cannot forge lines, and cut short.
    private static func quoted(_ text: String) -> String {
        let cut = text.count > 64 ? String(text.prefix(64)) + "…" : text
        return cut.debugDescription
    }
}
