import NIOConcurrencyHelpers
import NIOCore
import ParleyCore
import ParleyNet
import ParleyWire

/// Socket.IO v5 over one Engine.IO session: namespace connects, events, acks
/// with a per-call timeout, binary packets.
///
/// Events reach `notify` in the order the server sent them, on the thread
/// that read them; nothing here blocks, so a slow consumer never stalls the
/// heartbeat.
package final class SocketIOClient: Sendable {
    /// An event from the server.
    package struct Event: Sendable {
        package var namespace: String
        package var name: String
        package var arguments: [JSONValue]
        /// Binary attachments, resolved from placeholders (`SocketIO.attachment(for:in:)`).
        package var packet: SocketIO.Packet
    }

    package enum Notice: Sendable {
        case event(Event)
        /// The server disconnected a namespace on its own (a kick).
        case disconnected(namespace: String)
        /// A CONNECT_ERROR after the namespace was connected.
        case refused(namespace: String, message: String)
    }

    private struct State {
        var reassembler = SocketIO.Reassembler()
        var repeats: StateRepeats
        var nextAckID = 0
        /// Who waits for each ack: called once, with it, a timeout or the end.
        var acks: [Int: AckWaiter] = [:]
        var connects: [String: CheckedContinuation<String, Error>] = [:]
        var connected: [String: String] = [:]
        var ended: TransportError?
    }

    private let state: NIOLockedValueBox<State>
    private let engineBox = NIOLockedValueBox<EngineIOConnection?>(nil)
    private let notify: @Sendable (Notice) -> Void
    private let log: @Sendable (String) -> Void

    private var engine: EngineIOConnection { engineBox.withLockedValue { $0! } }

    package var linkName: String { engine.linkName }

    private init(wholeState: Set<String>, notify: @escaping @Sendable (Notice) -> Void, log: @escaping @Sendable (String) -> Void) {
        state = NIOLockedValueBox(State(repeats: StateRepeats(events: wholeState)))
        self.notify = notify
        self.log = log
    }

    /// Opens the Engine.IO session. `ended` is called once when it is over.
    /// `wholeState` names the events that carry a whole state each time: one
    /// the same as the last of its event and namespace is not delivered again.
    package static func open(_ settings: EngineIOConnection.Settings, wholeState: Set<String> = [],
                             notify: @escaping @Sendable (Notice) -> Void,
                             ended: @escaping @Sendable (TransportError?) -> Void,
                             log: @escaping @Sendable (String) -> Void) async throws -> SocketIOClient {
        let client = SocketIOClient(wholeState: wholeState, notify: notify, log: log)
        let engine = try await EngineIOConnection.open(settings, deliver: { [weak client] p in client?.receive(p) },
                                                       ended: { [weak client] e in
                                                           client?.failAll(e ?? TransportError(.closed, "the session was closed"))
                                                           ended(e)
                                                       }, log: log)
        client.engineBox.withLockedValue { $0 = engine }
        return client
    }

    // MARK: namespaces

    /// Connects a namespace; returns its Socket.IO sid. A refusal
    /// (CONNECT_ERROR, either form) throws `.refused` with the server's words.
    package func connect(namespace: String, auth: JSONValue?, timeout: Double) async throws -> String {
        let text = SocketIO.encode(SocketIO.Packet(type: .connect, namespace: namespace, data: auth)).text
        let timer = afterTimeout(timeout) { [weak self] in
            self?.resolveConnect(namespace, .failure(TransportError(.timeout, "no answer to CONNECT \(namespace) within \(timeout) s")))
        }
        defer { timer.cancel() }
        return try await withCheckedThrowingContinuation { (c: CheckedContinuation<String, Error>) in
            let dead = state.withLockedValue { s -> TransportError? in
                if let e = s.ended { return e }
                s.connects[namespace] = c
                return nil
            }
            if let dead { c.resume(throwing: dead); return }
            engine.enqueue([.message(text)])
        }
    }

    private func resolveConnect(_ namespace: String, _ result: Result<String, Error>) {
        let waiter = state.withLockedValue { s -> CheckedContinuation<String, Error>? in
            if case .success(let sid) = result { s.connected[namespace] = sid }
            return s.connects.removeValue(forKey: namespace)
        }
        waiter?.resume(with: result)
    }

    // MARK: emitting

    /// The Engine.IO packets of one event (its text, then each attachment),
    /// checked against the server's maxPayload before anything is written.
    package func packets(_ name: String, _ args: [JSONValue], namespace: String, id: Int? = nil,
                         attachments: [[UInt8]]) throws -> [EngineIO.Packet] {
        var packet = SocketIO.Packet.event(name, args, namespace: namespace, id: id)
        packet.attachments = attachments
        let (text, binary) = SocketIO.encode(packet)
        // Appended in place: a literal joined to a mapped list runs a generic concatenation on every send.
        var packets: [EngineIO.Packet] = []
        packets.reserveCapacity(1 + binary.count)
        packets.append(.message(text))
        for b in binary { packets.append(.binary(b)) }
        try engine.check(packets)
        return packets
    }

    /// An event's Engine.IO message, the `4` and its Socket.IO text, written
    /// straight into the buffer its WebSocket frame is sealed in: no packet,
    /// string or list in between (`write(messages:)`).
    package func message(_ name: String, _ args: [JSONValue], namespace: String) throws -> ByteBuffer {
        // Written into memory of a size guessed from the strings (room for an
        // escape in every byte but a control character's): a byte appended
        // to a `ByteBuffer` costs a check of its room and its owner. Text that
        // does not fit is counted and written again.
        let guess = args.reduce(24 + namespace.utf8.count + 2 * name.utf8.count) { $0 + 2 * ($1.string?.utf8.count ?? 32) }
        var buffer = ClientFrame.payload(capacity: 1 + guess)
        buffer.writeInteger(EngineIO.messageType)
        func write(room: Int) -> Bool {
            var fits = false
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: room) { memory in
                var sink = JSONMemorySink(memory)
                SocketIO.writeEvent(name, args, namespace: namespace, to: &sink)
                fits = !sink.overflowed
                return fits ? sink.written : 0
            }
            return fits
        }
        if !write(room: guess) {
            var count = JSONByteCount()
            SocketIO.writeEvent(name, args, namespace: namespace, to: &count)
            let fitted = write(room: count.bytes)
            assert(fitted, "an event's counted size did not hold it")
        }
        try engine.check(size: buffer.readableBytes)
        return buffer
    }

    /// Emits an event and returns once it is written (no ack asked).
    package nonisolated(nonsending) func emit(_ name: String, _ args: [JSONValue], namespace: String, attachments: [[UInt8]] = []) async throws {
        let written = engine.write(try packets(name, args, namespace: namespace, attachments: attachments))
        do {
            try await written.valueOnCaller()
        } catch let error as TransportError {
            throw error
        } catch {
            throw TransportError(.closed, "write failed: \(error)")
        }
    }

    /// Forgets the last packet of each whole-state event (see `StateRepeats`).
    package func forgetStates() {
        state.withLockedValue { $0.repeats.forget() }
    }

    /// Writes the packets of an event (from `packets`) without waiting: in
    /// order with every other write, and nobody waits for it (typing changes).
    package func enqueue(_ packets: [EngineIO.Packet]) {
        engine.enqueue(packets)
    }

    /// Writes the packets of several events (from `packets`) with one flush;
    /// the future completes once they are written.
    package func write(packets: [EngineIO.Packet]) -> EventLoopFuture<Void> {
        engine.write(packets)
    }

    /// Writes the messages of several events (from `message`) with one flush,
    /// as `write(packets:)`.
    package func write(messages: inout [ByteBuffer]) -> EventLoopFuture<Void> {
        engine.write(messages: &messages)
    }

    /// What waits for an ack.
    package typealias AckWaiter = @Sendable (Result<[JSONValue], any Error>) -> Void

    /// Emits an event asking for an ack; returns the ack's arguments, or throws
    /// `.timeout` when none comes within `timeout` seconds.
    package nonisolated(nonsending) func emitWithAck(_ name: String, _ args: [JSONValue], namespace: String, attachments: [[UInt8]] = [],
                     timeout: Double) async throws -> [JSONValue] {
        let packets = try ackedPackets(name, args, namespace: namespace, attachments: attachments)
        return try await withCheckedThrowingContinuation { (c: CheckedContinuation<[JSONValue], Error>) in
            emit(acked: packets, timeout: timeout) { c.resume(with: $0) }
        }
    }

    /// The packets of an event that asks for an ack, with its id (for `emit(acked:)`).
    package func ackedPackets(_ name: String, _ args: [JSONValue], namespace: String,
                              attachments: [[UInt8]] = []) throws -> (id: Int, name: String, packets: [EngineIO.Packet]) {
        let id = state.withLockedValue { s -> Int in
            defer { s.nextAckID += 1 }
            return s.nextAckID
        }
        return (id, name, try packets(name, args, namespace: namespace, id: id, attachments: attachments))
    }

    /// Writes an event that asks for an ack; `done` is called once: with the
    /// ack's arguments (on the link's loop), with `.timeout` after `timeout`
    /// seconds, or with the session's end if it ends first.
    package func emit(acked event: (id: Int, name: String, packets: [EngineIO.Packet]), timeout: Double, done: @escaping AckWaiter) {
        let id = event.id, name = event.name
        let timer = afterTimeout(timeout) { [weak self] in
            self?.resolveAck(id, .failure(TransportError(.timeout, "no ack for '\(name)' within \(timeout) s")))
        }
        let dead = state.withLockedValue { s -> TransportError? in
            if let e = s.ended { return e }
            s.acks[id] = { result in
                timer.cancel()
                done(result)
            }
            return nil
        }
        if let dead {
            timer.cancel()
            done(.failure(dead))
            return
        }
        // Registered before the write, so a fast ack finds its waiter.
        engine.enqueue(event.packets)
    }

    private func resolveAck(_ id: Int, _ result: Result<[JSONValue], Error>) {
        let waiter = state.withLockedValue { $0.acks.removeValue(forKey: id) }
        waiter?(result)
    }

    /// Leaves the namespaces (`41`) and closes the session.
    package func close() {
        let namespaces = state.withLockedValue { Array($0.connected.keys) }
        engine.enqueue(namespaces.sorted().map { .message(SocketIO.encode(SocketIO.Packet(type: .disconnect, namespace: $0)).text) })
        engine.close()
    }

    package func abort() {
        engine.close()
    }

    // MARK: receiving

    private func receive(_ packet: EngineIO.Packet) {
        let complete: SocketIO.Packet?
        do {
            switch packet {
            case .message(let text):
                // Not while a binary packet waits: any text packet breaks that sequence, a repeat too.
                if state.withLockedValue({ !$0.reassembler.waiting && $0.repeats.isRepeat(text) }) { return }
                let (p, expecting) = try SocketIO.decode(text)
                complete = state.withLockedValue { s in
                    s.repeats.record(text, p)
                    return s.reassembler.add(p, expecting: expecting)
                }
            case .binary(let bytes):
                complete = try state.withLockedValue { s throws(SocketIO.DecodeError) in try s.reassembler.add(binary: bytes) }
            default:
                return
            }
        } catch {
            log("socketio: dropped a malformed packet (\(error))")
            return
        }
        guard let p = complete else { return }
        switch p.type {
        case .connect:
            let sid = p.data?["sid"]?.string ?? ""
            resolveConnect(p.namespace, .success(sid))
        case .connectError:
            let message = p.connectErrorMessage ?? "refused"
            let waiting = state.withLockedValue { $0.connects[p.namespace] != nil }
            if waiting {
                resolveConnect(p.namespace, .failure(TransportError(.refused, "the server refused namespace \(p.namespace): \(message)")))
            } else {
                notify(.refused(namespace: p.namespace, message: message))
            }
        case .disconnect:
            state.withLockedValue { _ = $0.connected.removeValue(forKey: p.namespace) }
            notify(.disconnected(namespace: p.namespace))
        case .event, .binaryEvent:
            guard let name = p.eventName else { return }
            if let id = p.id {
                // Bots have nothing to return; an empty ack keeps servers that wait for one happy.
                engine.enqueue([.message(SocketIO.encode(SocketIO.Packet(type: .ack, namespace: p.namespace, id: id, data: .array([]))).text)])
            }
            notify(.event(Event(namespace: p.namespace, name: name, arguments: p.eventArguments, packet: p)))
        case .ack, .binaryAck:
            guard let id = p.id else { return }
            resolveAck(id, .success(p.eventArguments))
        }
    }

    private func failAll(_ error: TransportError) {
        let (acks, connects) = state.withLockedValue { s in
            s.ended = error
            defer { s.acks = [:]; s.connects = [:] }
            return (Array(s.acks.values), Array(s.connects.values))
        }
        for a in acks { a(.failure(error)) }
        for c in connects { c.resume(throwing: error) }
    }
}
