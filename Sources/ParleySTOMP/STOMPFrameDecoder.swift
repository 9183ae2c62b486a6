import NIOCore
import ParleyCore
import ParleyWire

/// The pipeline stage that cuts a STOMP-over-TCP byte stream into frames and
/// heart-beats, in front of the link's handler.
///
/// The cutting rules are ParleyWire's `STOMPDecoder`, which the fuzzer runs
/// without NIO and which Web-STOMP uses per message; this stage hands it the
/// bytes and passes on every complete item. A stream that cannot be STOMP
/// fails with a `.protocolViolation`, and the link drops it.
struct STOMPFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = STOMPItem

    private var items: STOMPDecoder

    init(maxFrameBytes: Int) {
        items = STOMPDecoder(maxFrameBytes: maxFrameBytes)
    }

    /// Every complete item of the bytes so far, in one call: the bytes are
    /// all taken in, so there is nothing left for a second call to find.
    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        items.append(buffer.readableBytesView)
        buffer.moveReaderIndex(to: buffer.writerIndex)
        do {
            while let item = try items.next() { context.fireChannelRead(wrapInboundOut(item)) }
        } catch {
            throw TransportError(.protocolViolation, "\(error)")
        }
        return .needMoreData
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        try decode(context: context, buffer: &buffer)
    }
}
