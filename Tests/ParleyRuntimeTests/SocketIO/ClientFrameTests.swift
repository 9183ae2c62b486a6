import NIOCore
import NIOEmbedded
import NIOWebSocket
import ParleyNet
import Testing

/// The frames Parley's WebSocket clients write themselves, read back by
/// NIO's own frame decoder, as a server reads them.
struct ClientFrameTests {
    /// Every length form (7-bit, 16-bit, 64-bit) and payloads that end on
    /// and off a word: FIN, the opcode, a masking key, and the payload back
    /// once unmasked.
    @Test(arguments: [0, 1, 7, 8, 9, 125, 126, 65_535, 65_536, 100_003])
    func aFrameReadsBackThroughNIOsDecoder(length: Int) throws {
        let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let frame = ClientFrame(.binary, bytes: payload)
        let read = try Self.decode(frame)
        #expect(read.fin && read.opcode == .binary && read.maskKey != nil)
        #expect(Array(read.unmaskedData.readableBytesView) == payload)
        let lengthBytes = length > 65_535 ? 8 : length > 125 ? 2 : 0
        #expect(frame.bytes.readableBytes == 2 + lengthBytes + 4 + length)
    }

    /// A builder may write past its capacity hint: the buffer grows and the
    /// room for the header in front stays.
    @Test func aBuilderMayOutgrowItsCapacity() throws {
        let text = String(repeating: "héllo, ", count: 300)
        let frame = ClientFrame(.text, capacity: 2) { $0.writeString(text) }
        let read = try Self.decode(frame)
        #expect(read.opcode == .text)
        #expect(String(buffer: read.unmaskedData) == text)
    }

    /// A payload written by a layer above is sealed where it lies when it has
    /// the room in front (`payload(capacity:)`), and copied when it has not.
    @Test func aPayloadIsSealedWhereItLiesOrCopied() throws {
        var roomy = ClientFrame.payload(capacity: 4)
        roomy.writeString("4[\"hi\"]")
        let storage = roomy.withUnsafeReadableBytes { UInt(bitPattern: $0.baseAddress) }
        let sealed = ClientFrame(.text, sealing: &roomy)
        #expect(sealed.bytes.withUnsafeReadableBytes { UInt(bitPattern: $0.baseAddress) } == storage - 6)
        #expect(String(buffer: try Self.decode(sealed).unmaskedData) == "4[\"hi\"]")

        var tight = ByteBuffer(string: "no room in front")
        let copied = ClientFrame(.text, sealing: &tight)
        #expect(String(buffer: try Self.decode(copied).unmaskedData) == "no room in front")
    }

    /// Each frame has its own key, so the same payload goes out differently.
    @Test func framesAreMaskedWithFreshKeys() throws {
        let frames = (0..<50).map { _ in ClientFrame(text: "the same words") }
        let keys = try frames.map { try #require(try Self.decode($0).maskKey).map { $0 } }
        #expect(Set(keys).count >= 49)
        #expect(Set(frames.map { Array($0.bytes.readableBytesView) }).count >= 49)
    }

    private static func decode(_ frame: ClientFrame) throws -> WebSocketFrame {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(WebSocketFrameDecoder(maxFrameSize: 1 << 20)))
        defer { _ = try? channel.finish() }
        try channel.writeInbound(frame.bytes)
        return try #require(try channel.readInbound(as: WebSocketFrame.self))
    }
}
