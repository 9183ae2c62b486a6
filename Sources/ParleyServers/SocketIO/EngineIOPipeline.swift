import NIOCore
import NIOHTTP1
import NIOWebSocket

/// The handlers of one accepted connection: HTTP with a WebSocket upgrader,
/// the Engine.IO HTTP handler behind it, and an idle timer in front.
///
/// An upgrade is accepted only for requests the HTTP handler would not refuse
/// anyway (same path, version and transport rules) and, for an upgrade of a
/// polling session, only while that session can still upgrade. Everything the
/// upgrader declines reaches the HTTP handler, which answers with the reason.
enum EngineIOPipeline {
    private static let httpHandlerName = "engineio-http"
    private static let idleHandlerName = "engineio-idle"
    /// Fragments one WebSocket message may come in: bounds the aggregator's work
    /// per message, as `maxPayload` bounds its bytes.
    private static let maxFragments = 1_000

    static func configure(_ channel: any Channel, server: ServerContext) throws {
        let config = server.config
        let upgrader = NIOWebSocketServerUpgrader(
            maxFrameSize: max(1, min(config.maxPayload, Int(UInt32.max))),
            // The WebSocket handler answers framing errors itself, as drops.
            automaticErrorHandling: false,
            shouldUpgrade: { channel, head in shouldUpgrade(head, on: channel, server: server) },
            upgradePipelineHandler: { channel, head in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHandler(
                        NIOWebSocketFrameAggregator(
                            minNonFinalFragmentSize: 0,
                            maxAccumulatedFrameCount: maxFragments,
                            maxAccumulatedFrameSize: max(1, config.maxPayload)
                        )
                    )
                    try pipeline.addHandler(EngineIOWebSocketHandler(server: server, role: role(for: head, server: server)))
                }
            }
        )
        let pipeline = channel.pipeline.syncOperations
        // No request for a ping interval and timeout means no live session uses the
        // connection; after an upgrade the session's own heartbeat takes over.
        let idle = TimeAmount(config.pingInterval + config.pingTimeout)
        try pipeline.addHandler(IdleStateHandler(readTimeout: idle), name: idleHandlerName)
        try pipeline.configureHTTPServerPipeline(
            withServerUpgrade: (
                upgraders: [upgrader],
                completionHandler: { context in
                    let pipeline = context.pipeline.syncOperations
                    pipeline.removeHandler(name: httpHandlerName, promise: nil)
                    pipeline.removeHandler(name: idleHandlerName, promise: nil)
                }
            )
        )
        try pipeline.addHandler(EngineIOHTTPHandler(server: server), name: httpHandlerName)
    }

    private static func shouldUpgrade(_ head: HTTPRequestHead, on channel: any Channel, server: ServerContext) -> EventLoopFuture<HTTPHeaders?> {
        guard head.method == .GET,
              case .success(let request) = EngineIORequest.read(uri: head.uri, config: server.config),
              request.transport == .websocket
        else { return channel.eventLoop.makeSucceededFuture(nil) }
        guard let sid = request.sid else { return channel.eventLoop.makeSucceededFuture(HTTPHeaders()) }
        guard let session = server.registry.session(sid) else { return channel.eventLoop.makeSucceededFuture(nil) }
        return session.loop.submit { session.acceptsUpgrade ? HTTPHeaders() : nil }
    }

    /// A WebSocket-only client, or the upgrade of the polling session named by
    /// `sid` (nil if it ended since `shouldUpgrade`: the handler then closes the connection).
    private static func role(for head: HTTPRequestHead, server: ServerContext) -> EngineIOWebSocketHandler.Role {
        guard case .success(let request) = EngineIORequest.read(uri: head.uri, config: server.config),
              let sid = request.sid
        else { return .open }
        return .upgrade(server.registry.session(sid))
    }
}
