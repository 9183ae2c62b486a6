import NIOCore
import NIOWebSocket

/// One frame a WebSocket client sends, ready for the wire: header, masking
/// key and masked payload in one buffer (RFC 6455 §5.2–5.3).
///
/// Written by hand rather than by NIO's `WebSocketFrameEncoder`, which masks
/// a copy of the payload (the frame it unwraps is never the buffer's only
/// owner) and then writes the header as a buffer of its own: a copy and two
/// writes a frame where this is neither.
package struct ClientFrame: Sendable {
    /// The frame as it goes out.
    package let bytes: ByteBuffer

    /// Room kept in front of the payload for the longest client header: two
    /// bytes, a 64-bit length and the 4-byte key.
    private static let headroom = 14
    private static let allocator = ByteBufferAllocator()

    /// Builds the payload in place with `body`, which may write any amount
    /// (`capacity` is a hint), then masks it and puts the header in front.
    package init(_ opcode: WebSocketOpcode, capacity: Int, _ body: (inout ByteBuffer) throws -> Void) rethrows {
        var buffer = Self.payload(capacity: capacity)
        try body(&buffer)
        self.init(opcode, sealing: &buffer)
    }

    /// An empty payload with room for the header in front: a layer above
    /// writes its message into it and hands it to `init(_:sealing:)`.
    /// (Sealed where it lies, the buffer is masked without a copy.)
    package static func payload(capacity: Int) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: headroom + capacity)
        buffer.moveWriterIndex(to: headroom)
        buffer.moveReaderIndex(to: headroom)
        return buffer
    }

    /// The frame of the payload's readable bytes, masked and headed where
    /// they lie when it came from `payload(capacity:)` (else copied into one
    /// that did). `inout`, so the caller's buffer is its only copy when masked.
    package init(_ opcode: WebSocketOpcode, sealing payload: inout ByteBuffer) {
        if payload.readerIndex < Self.headroom {
            var room = Self.payload(capacity: payload.readableBytes)
            room.writeImmutableBuffer(payload)
            payload = room
        }
        Self.seal(&payload, opcode: opcode, key: KernelRandomPool.maskKey())
        bytes = payload
    }

    package init(text: String) {
        self.init(.text, capacity: text.utf8.count) { $0.writeString(text) }
    }

    package init(_ opcode: WebSocketOpcode, bytes: some Collection<UInt8>) {
        self.init(opcode, capacity: bytes.count) { $0.writeBytes(bytes) }
    }

    /// A text or binary message, as `ReceivedMessage` tells them apart.
    package init(isText: Bool, bytes: some Collection<UInt8>) {
        self.init(isText ? .text : .binary, bytes: bytes)
    }

    /// Masks the readable bytes with `key` and writes the header before them.
    /// The key's bytes go out in memory order, and the payload is masked a
    /// word at a time in the same order, so the two agree on any endianness.
    static func seal(_ buffer: inout ByteBuffer, opcode: WebSocketOpcode, key: UInt32) {
        let length = buffer.readableBytes
        buffer.withUnsafeMutableReadableBytes { payload in
            let word = UInt64(key) | UInt64(key) << 32
            var i = 0
            while i + 8 <= payload.count {
                let masked = payload.loadUnaligned(fromByteOffset: i, as: UInt64.self) ^ word
                payload.storeBytes(of: masked, toByteOffset: i, as: UInt64.self)
                i += 8
            }
            withUnsafeBytes(of: key) { k in
                while i < payload.count {
                    payload[i] ^= k[i & 3]
                    i += 1
                }
            }
        }
        let lengthBytes = length <= 125 ? 0 : length <= 0xFFFF ? 2 : 8
        var at = buffer.readerIndex - 2 - lengthBytes - 4
        buffer.moveReaderIndex(to: at)
        // FIN, no extension bits; the mask bit on the length.
        at += buffer.setInteger(0x80 | UInt8(webSocketOpcode: opcode), at: at)
        switch lengthBytes {
        case 0:
            at += buffer.setInteger(0x80 | UInt8(length), at: at)
        case 2:
            at += buffer.setInteger(UInt8(0x80 | 126), at: at)
            at += buffer.setInteger(UInt16(length), at: at)
        default:
            at += buffer.setInteger(UInt8(0x80 | 127), at: at)
            at += buffer.setInteger(UInt64(length), at: at)
        }
        buffer.setInteger(key, at: at, endianness: .host)
    }
}

/// Where a client connection's frames enter the pipeline: next to the
/// socket (or TLS), below NIO's frame encoder, which the upgrader adds and
/// which stays unused. Every frame the client sends goes through here, on
/// the channel's loop, so they leave in the order they were written.
final class ClientFrameWriter: ChannelOutboundHandler {
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }
    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    /// Writes the frames with one flush; `promise` completes with the last
    /// (a stream's writes complete in order, so it fails if any did).
    func write(_ frames: [ClientFrame], promise: EventLoopPromise<Void>?) {
        guard let context else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        guard !frames.isEmpty else {
            promise?.succeed()
            return
        }
        for (i, f) in frames.enumerated() {
            context.write(wrapOutboundOut(f.bytes), promise: i == frames.count - 1 ? promise : nil)
        }
        context.flush()
    }
}
