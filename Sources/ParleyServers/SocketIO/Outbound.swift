import NIOCore
import ParleyWire

/// Engine.IO packets as the server sends them: encoded once into a buffer that
/// every recipient shares. A WebSocket frame carries the buffer as is, and a
/// long-polling payload joins several; either way the bytes are not copied
/// per recipient.
///
/// The server sends only text packets: SocketChat has no binary events.
enum Outbound {
    static func packet(_ packet: EngineIO.Packet) -> ByteBuffer {
        switch EngineIO.encode(packet) {
        case .text(let text): ByteBuffer(string: text)
        case .binary: preconditionFailure("the server sends no binary packets")
        }
    }

    /// A Socket.IO packet inside an Engine.IO message (`4…`).
    static func message(_ packet: SocketIO.Packet) -> ByteBuffer {
        Self.packet(.message(SocketIO.encode(packet).text))
    }

    static let ping = packet(.ping(""))
    static let noop = packet(.noop)
    static let close = packet(.close)
    static let probeAnswer = packet(.pong("probe"))
}
