import NIOCore
import NIOSSL
import NIOWebSocket
import ParleyCore
import ParleyNet
import ParleyWire
import Synchronization

/// Where a link hands what it receives: packets in order, then exactly one
/// `closed` (nil: closed on purpose by this side).
struct LinkSink: Sendable {
    var packet: @Sendable (EngineIO.Packet) -> Void
    var closed: @Sendable (TransportError?) -> Void
    /// Text frames that are not Engine.IO (logged and dropped, never fatal).
    var malformed: @Sendable (String) -> Void
}

/// Engine.IO over one `WebSocketConnection`: one packet per message.
final class WebSocketLink: EngineIOLink {
    private let connection: WebSocketConnection
    /// The largest message accepted; the server's maxPayload once its open packet is read.
    var frameLimit: FrameLimit { connection.frameLimit }

    private init(connection: WebSocketConnection) {
        self.connection = connection
    }

    /// Connects and upgrades; throws `TransportError` when the TCP connect,
    /// TLS or the HTTP upgrade fails.
    static func connect(endpoint: SocketIOEndpoint, sid: String?, headers: [String: String], tls: TLSConfiguration?, loop: (any EventLoop)?,
                        maxFrameSize: Int, timeout: Double, sink: LinkSink) async throws -> WebSocketLink {
        let target = WebSocketTarget(host: endpoint.host, port: endpoint.port,
                                     requestTarget: endpoint.target(transport: .websocket, sid: sid),
                                     headers: headers, tls: tls, loop: loop)
        /// An open packet was read (a broken one after that is noise, not a failed open).
        let opened = Atomic(false)
        let messages = WebSocketSink(
            message: { message in
                guard message.isText else {
                    sink.packet(.binary(Array(message.data.readableBytesView)))
                    return nil
                }
                switch message.data.withUnsafeReadableBytes({ EngineIO.decode(utf8: $0) }) {
                case .success(let packet):
                    if case .open = packet { opened.store(true, ordering: .relaxed) }
                    sink.packet(packet)
                case .failure(let error):
                    if message.data.readableBytesView.first == UInt8(ascii: "0"), !opened.load(ordering: .relaxed) {
                        // A broken open packet: nothing can follow it, so fail now rather than at the connect timeout.
                        return TransportError(.protocolViolation, "the Engine.IO open packet is malformed (\(error))")
                    }
                    let text = String(decoding: message.data.readableBytesView.prefix(80), as: UTF8.self)
                    sink.malformed("dropped a frame that is not Engine.IO (\(error)): \(text.debugDescription)")
                }
                return nil
            },
            closed: sink.closed)
        let connection = try await WebSocketConnection.connect(to: target, maxFrameSize: maxFrameSize, timeout: timeout, sink: messages)
        return WebSocketLink(connection: connection)
    }

    /// Writes packets without waiting (heartbeat answers, acks).
    func enqueue(_ packets: [EngineIO.Packet]) {
        connection.enqueue(packets.map(Self.frame))
    }

    /// Writes packets, one frame each, with one flush.
    func write(_ packets: [EngineIO.Packet]) -> EventLoopFuture<Void> {
        connection.write(packets.map(Self.frame))
    }

    /// Messages written out in place: each buffer is sealed as its frame, with no copy.
    func write(messages: inout [ByteBuffer]) -> EventLoopFuture<Void> {
        connection.write(messages.indices.map { ClientFrame(.text, sealing: &messages[$0]) })
    }

    /// A message's type digit and text are written straight into its frame;
    /// the rare other packets go through `EngineIO.encode`.
    private static func frame(_ p: EngineIO.Packet) -> ClientFrame {
        if case .message(let text) = p {
            return ClientFrame(.text, capacity: text.utf8.count + 1) {
                $0.writeInteger(EngineIO.messageType)
                $0.writeString(text)
            }
        }
        switch EngineIO.encode(p) {
        case .text(let s): return ClientFrame(text: s)
        case .binary(let b): return ClientFrame(.binary, bytes: b)
        }
    }

    /// Closes with a close frame; the sink then hears `closed(nil)`.
    func close() { connection.close() }

    /// Drops the connection without a close frame.
    func abort() { connection.abort() }
}
