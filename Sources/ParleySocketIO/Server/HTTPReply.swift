import NIOCore
import NIOHTTP1

/// The answer to one HTTP request, writable from any event loop.
///
/// A long-poll is answered by its session, which may live on another loop
/// than the connection the GET came in on; so the reply holds the channel, not
/// a handler context, and hops to the channel's loop to write.
struct HTTPReply: Sendable {
    let channel: any Channel
    let version: HTTPVersion
    let keepAlive: Bool

    init(channel: any Channel, request: HTTPRequestHead) {
        self.channel = channel
        self.version = request.version
        self.keepAlive = request.isKeepAlive
    }

    /// 200 with Engine.IO packets as a long-polling payload (joined by `\u{1e}`).
    func payload(_ packets: [OutboundPacket]) {
        var body = ByteBuffer()
        body.reserveCapacity(packets.reduce(packets.count) { $0 + $1.text.readableBytes })
        for (i, packet) in packets.enumerated() {
            if i > 0 { body.writeInteger(UInt8(0x1E)) }
            body.writeImmutableBuffer(packet.text)
        }
        send(.ok, body, contentType: "text/plain; charset=UTF-8")
    }

    /// 200 `ok`: a POST's packets were taken.
    func ok() {
        send(.ok, ByteBuffer(string: "ok"), contentType: "text/plain; charset=UTF-8")
    }

    /// 200 with one of the web chat's files (only its headers for a HEAD).
    func asset(_ asset: WebChat.Asset, bodyless: Bool) {
        send(.ok, bodyless ? ByteBuffer() : asset.body, contentType: asset.contentType, length: asset.body.readableBytes,
             extra: WebChat.securityHeaders)
    }

    func refuse(_ refusal: EngineIORequest.Refusal, thenClose: Bool = false) {
        let body = refusal.body
        send(refusal.status, ByteBuffer(string: body.text), contentType: body.contentType, thenClose: thenClose)
    }

    private func send(_ status: HTTPResponseStatus, _ body: ByteBuffer, contentType: String, thenClose: Bool = false,
                      length: Int? = nil, extra: [(String, String)] = []) {
        let close = thenClose || !keepAlive
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: contentType)
        headers.add(name: "Content-Length", value: String(length ?? body.readableBytes))
        for (name, value) in extra { headers.add(name: name, value: value) }
        if close { headers.add(name: "Connection", value: "close") }
        let head = HTTPResponseHead(version: version, status: status, headers: headers)
        let channel = self.channel
        let write: @Sendable () -> Void = {
            channel.write(HTTPServerResponsePart.head(head), promise: nil)
            channel.write(HTTPServerResponsePart.body(.byteBuffer(body)), promise: nil)
            let done = channel.writeAndFlush(HTTPServerResponsePart.end(nil))
            if close { done.whenComplete { _ in channel.close(promise: nil) } }
        }
        if channel.eventLoop.inEventLoop {
            write()
        } else {
            channel.eventLoop.execute(write)
        }
    }
}
