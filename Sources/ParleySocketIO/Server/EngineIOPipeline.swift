import NIOCore
import NIOHTTP1
import NIOWebSocket

/// The handlers of one connection: HTTP with an idle timer in front, and
/// WebSocket once a request upgrades it.
///
/// NIO's upgrade handler upgrades only a connection's first request, but
/// clients upgrade on a connection they have polled on (python-engineio keeps
/// its aiohttp connection alive), so `EngineIOHTTPHandler` takes the upgrade
/// of any request and `switchToWebSocket` swaps the handlers. The request
/// decoder stops at an upgrade request and hands the bytes behind it to the
/// WebSocket decoder when it leaves.
enum EngineIOPipeline {
    private enum Name {
        static let idle = "engineio-idle"
        static let encoder = "engineio-http-encoder"
        static let decoder = "engineio-http-decoder"
        static let pipelining = "engineio-http-pipelining"
        static let errors = "engineio-http-errors"
    }

    /// Fragments one WebSocket message may come in: bounds the aggregator's work
    /// per message, as `maxPayload` bounds its bytes.
    private static let maxFragments = 1_000

    static func configure(_ channel: any Channel, server: ServerContext) throws {
        let config = server.config
        let pipeline = channel.pipeline.syncOperations
        // No request for a ping interval and timeout means no live session uses the
        // connection; after an upgrade the session's own heartbeat takes over.
        try pipeline.addHandler(IdleStateHandler(readTimeout: TimeAmount(config.pingInterval + config.pingTimeout)), name: Name.idle)
        try pipeline.addHandler(HTTPResponseEncoder(), name: Name.encoder)
        try pipeline.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes)), name: Name.decoder)
        try pipeline.addHandler(HTTPServerPipelineHandler(), name: Name.pipelining)
        try pipeline.addHandler(HTTPServerProtocolErrorHandler(), name: Name.errors)
        try pipeline.addHandler(EngineIOHTTPHandler(server: server))
    }

    /// Checks a request's WebSocket handshake headers and, for the upgrade of a
    /// polling session, that the session can still upgrade; writes the 101's
    /// headers; and adds the WebSocket handlers once the HTTP ones are gone.
    static func upgrader(for role: EngineIOWebSocketHandler.Role, server: ServerContext) -> NIOWebSocketServerUpgrader {
        let maxPayload = max(1, min(server.config.maxPayload, Int(UInt32.max)))
        return NIOWebSocketServerUpgrader(
            maxFrameSize: maxPayload,
            // The WebSocket handler answers framing errors itself, as drops.
            automaticErrorHandling: false,
            shouldUpgrade: { channel, _ in
                switch role {
                case .open: channel.eventLoop.makeSucceededFuture(HTTPHeaders())
                case .upgrade(let session): session.loop.submit { session.acceptsUpgrade ? HTTPHeaders() : nil }
                }
            },
            upgradePipelineHandler: { channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    let bypass = FrameBypass()
                    try pipeline.addHandler(bypass, position: .before(pipeline.handler(type: WebSocketFrameEncoder.self)))
                    try pipeline.addHandler(
                        NIOWebSocketFrameAggregator(
                            minNonFinalFragmentSize: 0,
                            maxAccumulatedFrameCount: maxFragments,
                            maxAccumulatedFrameSize: maxPayload
                        )
                    )
                    try pipeline.addHandler(EngineIOWebSocketHandler(server: server, role: role, bypass: pipeline.context(handler: bypass)))
                }
            }
        )
    }

    /// Answers an upgrade request with 101 and turns the connection into a
    /// WebSocket: called from the HTTP handler, at `context`, which leaves too.
    /// The order matters: the 101 goes out through the HTTP encoder before it
    /// leaves, and the request decoder leaves last, when the WebSocket decoder
    /// is there to take the bytes it kept.
    static func switchToWebSocket(
        _ context: ChannelHandlerContext,
        request: HTTPRequestHead,
        responseHeaders: HTTPHeaders,
        upgrader: NIOWebSocketServerUpgrader
    ) {
        guard context.channel.isActive else { return }
        let pipeline = context.pipeline.syncOperations
        for name in [Name.idle, Name.pipelining, Name.errors] { pipeline.removeHandler(name: name, promise: nil) }
        let response = HTTPResponseHead(version: request.version, status: .switchingProtocols, headers: responseHeaders)
        context.writeAndFlush(NIOAny(HTTPServerResponsePart.head(response)), promise: nil)
        pipeline.removeHandler(name: Name.encoder, promise: nil)
        let channel = context.channel
        upgrader.upgrade(context: context, upgradeRequest: request).assumeIsolated().whenComplete { result in
            pipeline.removeHandler(context: context, promise: nil)
            pipeline.removeHandler(name: Name.decoder, promise: nil)
            if case .failure = result { channel.close(promise: nil) }
        }
    }
}
