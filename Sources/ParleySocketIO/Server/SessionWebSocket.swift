import NIOCore
import NIOWebSocket

/// A session's WebSocket, as the session sees it. Packets go out already
/// framed, the same buffer for every recipient of a broadcast, written past
/// the frame encoder (see `FrameBypass`); control frames go through it.
/// Usable from any loop, since an upgraded session may live on another loop
/// than its WebSocket.
struct SessionWebSocket: Sendable, Equatable {
    let channel: any Channel
    /// Where already framed packets enter the pipeline: past the frame encoder.
    private let bypass: NIOLoopBound<ChannelHandlerContext>

    /// On the channel's loop; `bypass` is the context of the `FrameBypass` handler.
    init(channel: any Channel, bypass: ChannelHandlerContext) {
        self.channel = channel
        self.bypass = NIOLoopBound(bypass, eventLoop: channel.eventLoop)
    }

    func write(_ packet: OutboundPacket) {
        if channel.eventLoop.inEventLoop {
            bypass.value.write(NIOAny(packet.frame), promise: nil)
        } else {
            let bypass = self.bypass
            channel.eventLoop.execute { bypass.value.write(NIOAny(packet.frame), promise: nil) }
        }
    }

    func flush() {
        channel.flush()
    }

    /// A close frame, then the connection, without waiting for the client's
    /// close frame: a client that does not read must not keep the socket open.
    func close(_ code: WebSocketErrorCode = .normalClosure) {
        var data = ByteBuffer()
        data.write(webSocketErrorCode: code)
        channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .connectionClose, data: data), promise: nil)
        channel.close(promise: nil)
    }

    static func == (a: SessionWebSocket, b: SessionWebSocket) -> Bool {
        a.channel === b.channel
    }
}

/// An empty handler in front of the WebSocket frame encoder. Packets the
/// server sends are framed once per broadcast (`OutboundPacket.frame`) and
/// written at this handler's context, so they skip the encoder: no frame
/// header is built and no frame boxed per recipient.
final class FrameBypass: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
}
