import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import ParleyWire
import Synchronization
import ParleyTestSupport

/// A scriptable STOMP-over-WebSocket "broker": it upgrades any request to
/// `/ws` (whatever its query), answers CONNECT with CONNECTED (no heart-beats) and every frame
/// that asks for a receipt with its RECEIPT, records what the client sends,
/// and otherwise sends exactly the WebSocket messages a test tells it to,
/// well-formed or not.
final class RawSTOMPPeer: Sendable {
    let port: Int
    private let listener: Channel
    private let registry: Registry

    private init(port: Int, listener: Channel, registry: Registry) {
        self.port = port
        self.listener = listener
        self.registry = registry
    }

    static func start() async throws -> RawSTOMPPeer {
        let registry = Registry()
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.tcpOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let upgrader = NIOWebSocketServerUpgrader(
                        maxFrameSize: 1 << 24,
                        shouldUpgrade: { channel, head in
                            channel.eventLoop.makeSucceededFuture(head.uri.split(separator: "?").first == "/ws" ? HTTPHeaders() : nil)
                        },
                        upgradePipelineHandler: { channel, _ in
                            channel.eventLoop.makeCompletedFuture {
                                let connection = RawSTOMPConnection(channel: channel)
                                try channel.pipeline.syncOperations.addHandler(
                                    NIOWebSocketFrameAggregator(minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 10_000,
                                                                maxAccumulatedFrameSize: 1 << 24))
                                try channel.pipeline.syncOperations.addHandler(RawSTOMPHandler(connection: connection))
                                registry.connections.withLock { $0.append(connection) }
                            }
                        })
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return RawSTOMPPeer(port: listener.localAddress!.port!, listener: listener, registry: registry)
    }

    var connections: [RawSTOMPConnection] { registry.connections.withLock { $0 } }

    /// The `index`th connection (0 is the first) once it exists and has subscribed.
    func connection(_ index: Int, timeout: Double = 15) async throws -> RawSTOMPConnection {
        guard await eventually(timeout, { connections.count > index && connections[index].subscribed }) else {
            throw PeerError("no subscribed STOMP connection #\(index) within \(timeout) s (have \(connections.count))")
        }
        return connections[index]
    }

    func stop() async {
        try? await listener.close()
        for c in connections { c.abort() }
    }

    fileprivate final class Registry: Sendable {
        let connections = Mutex<[RawSTOMPConnection]>([])
    }
}

/// One client of a `RawSTOMPPeer`.
final class RawSTOMPConnection: Sendable {
    private let channel: Channel
    private let inbox = Mutex<[STOMPFrame]>([])
    private let closedFlag = Mutex(false)
    private let closeCodes = Mutex<[UInt16]>([])
    fileprivate let decoder = Mutex(STOMPDecoder())

    fileprivate init(channel: Channel) { self.channel = channel }

    /// Every frame the client sent, in order.
    var received: [STOMPFrame] { inbox.withLock { $0 } }
    var isClosed: Bool { closedFlag.withLock { $0 } }
    /// The codes of the close frames the client sent.
    var closeFrames: [UInt16] { closeCodes.withLock { $0 } }
    var subscribed: Bool { received.contains { $0.command == "SUBSCRIBE" } }

    /// Bodies of the client's SEND frames.
    var sentBodies: [String] { received.filter { $0.command == "SEND" }.map(\.bodyText) }

    func send(_ text: String) async throws {
        try await channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .text, data: channel.allocator.buffer(string: text)))
    }

    func send(bytes: [UInt8], binary: Bool = false) async throws {
        try await channel.writeAndFlush(WebSocketFrame(fin: true, opcode: binary ? .binary : .text, data: channel.allocator.buffer(bytes: bytes)))
    }

    func abort() { channel.close(promise: nil) }

    fileprivate func record(_ f: STOMPFrame) { inbox.withLock { $0.append(f) } }
    fileprivate func markClosed() { closedFlag.withLock { $0 = true } }
    fileprivate func recordClose(_ code: UInt16) { closeCodes.withLock { $0.append(code) } }

    /// A chat MESSAGE on the bot's first room subscription.
    static func chat(_ sender: String, _ text: String, type: String = "TALK") -> String {
        let body: JSONValue = ["type": .string(type), "roomId": "lobby", "sender": .string(sender), "message": .string(text)]
        return String(decoding: STOMPFrame("MESSAGE", [("subscription", "sub-0"), ("destination", "/topic/chat.room.lobby"),
                                                       ("message-id", "m1")], text: body.text).encoded(), as: UTF8.self) + "\n"
    }
}

/// Decodes the client's frames, answers CONNECT and receipts, records the rest.
private final class RawSTOMPHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let connection: RawSTOMPConnection

    init(connection: RawSTOMPConnection) { self.connection = connection }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text, .binary:
            let frames = connection.decoder.withLock { d -> [STOMPFrame] in
                d.append(frame.unmaskedData.readableBytesView)
                var out: [STOMPFrame] = []
                while case .some(let item) = try? d.next() { if case .frame(let f) = item { out.append(f) } }
                return out
            }
            for f in frames {
                connection.record(f)
                var answer: STOMPFrame?
                if f.command == "CONNECT" {
                    answer = STOMPFrame("CONNECTED", [("version", "1.2"), ("heart-beat", "0,0")])
                } else if let r = f[header: "receipt"], f.command != "DISCONNECT" {
                    answer = STOMPFrame("RECEIPT", [("receipt-id", r)])
                }
                if let answer {
                    let bytes = answer.encoded() + [0x0A]
                    context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, data: context.channel.allocator.buffer(bytes: bytes))), promise: nil)
                }
            }
        case .connectionClose:
            var data = frame.unmaskedData
            connection.recordClose(data.readInteger(as: UInt16.self) ?? 0)
            context.close(promise: nil)
        default:
            break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        connection.markClosed()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }
}
