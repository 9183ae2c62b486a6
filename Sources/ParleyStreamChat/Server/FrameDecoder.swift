import NIOCore
import ParleyWire

/// The pipeline stage that cuts a client's bytes into frames, in front of
/// `StreamChatConnectionHandler`.
///
/// The cutting rules are ParleyWire's `ClientFrameDecoder`, which the fuzzer
/// runs without NIO; this stage hands it the bytes and passes on every
/// complete frame. Bytes that cannot be a frame, or too many of them without
/// a frame end, fail with a `FrameError` that the handler turns into a drop.
struct StreamChatFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = StreamChat.ClientFrame

    private var frames = StreamChat.ClientFrameDecoder()
    /// Bytes without a frame end past which the client is dropped.
    let maxPendingBytes: Int

    init(maxPendingBytes: Int) {
        self.maxPendingBytes = maxPendingBytes
    }

    /// Every complete frame of the bytes so far, in one call: the bytes are
    /// all taken in, so there is nothing left for a second call to find.
    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        frames.append(buffer.readableBytesView)
        buffer.moveReaderIndex(to: buffer.writerIndex)
        while let frame = try frames.next() {
            context.fireChannelRead(wrapInboundOut(frame))
        }
        if frames.pendingCount >= maxPendingBytes {
            throw StreamChat.FrameError(message: "\(frames.pendingCount) bytes without a frame end")
        }
        return .needMoreData
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        try decode(context: context, buffer: &buffer)
    }
}
