import NIOCore
import ParleyWire

/// An Engine.IO packet as the server sends it, encoded once and shared by
/// every recipient: the bare text, for long-polling payloads, and the same
/// bytes already framed as a WebSocket text frame, which goes to the socket as
/// is. Neither is copied per recipient.
struct OutboundPacket: Sendable {
    let text: ByteBuffer
    let frame: ByteBuffer
    /// The room member (socket id) a broadcast leaves out: the sender of its
    /// own message, when it asked not to be sent it back.
    var skipping: String?
    /// Room members who asked not to be sent packets of this kind (typing
    /// updates, after `typingUpdates(false)`).
    var unwanted: Set<String> = []

    /// Whether this packet leaves `socketID` out.
    func skips(_ socketID: String) -> Bool {
        skipping == socketID || unwanted.contains(socketID)
    }

    init(_ text: String) {
        self.text = ByteBuffer(string: text)
        var frame = ByteBuffer()
        frame.reserveCapacity(self.text.readableBytes + 10)
        // RFC 6455 §5.2, as a server writes it: FIN + text opcode, no mask, the shortest length form.
        frame.writeInteger(UInt8(0x81))
        let length = self.text.readableBytes
        switch length {
        case ..<126: frame.writeInteger(UInt8(length))
        case ...0xFFFF:
            frame.writeInteger(UInt8(126))
            frame.writeInteger(UInt16(length))
        default:
            frame.writeInteger(UInt8(127))
            frame.writeInteger(UInt64(length))
        }
        frame.writeImmutableBuffer(self.text)
        self.frame = frame
    }
}

/// The server sends only text packets: SocketChat has no binary events.
enum Outbound {
    static func packet(_ packet: EngineIO.Packet) -> OutboundPacket {
        switch EngineIO.encode(packet) {
        case .text(let text): OutboundPacket(text)
        case .binary: preconditionFailure("the server sends no binary packets")
        }
    }

    /// A Socket.IO packet inside an Engine.IO message (`4…`).
    static func message(_ packet: SocketIO.Packet) -> OutboundPacket {
        Self.packet(.message(SocketIO.encode(packet).text))
    }

    static let ping = packet(.ping(""))
    static let noop = packet(.noop)
    static let close = packet(.close)
    static let probeAnswer = packet(.pong("probe"))
}
