import NIOConcurrencyHelpers
import NIOCore
import ParleyCore
import ParleyNet
import ParleyWire

/// STOMP over WebSocket (`ws://host:port/ws`, RabbitMQ Web-STOMP): frames go
/// out as text messages (binary when the bytes are not UTF-8) and whatever
/// arrives, text or binary, one frame per message or several, is bytes for
/// the STOMP decoder.
struct STOMPWebSocketLink: STOMPLink {
    let connection: WebSocketConnection

    static func connect(_ e: STOMPEndpoint, headers: [String: String], maxFrameSize: Int, timeout: Double,
                        on loop: (any EventLoop)?, sink: STOMPLinkSink) async throws -> STOMPWebSocketLink {
        var headers = headers
        // Spring and RabbitMQ pick the STOMP subprotocol from this list.
        if !headers.keys.contains(where: { $0.lowercased() == "sec-websocket-protocol" }) {
            headers["Sec-WebSocket-Protocol"] = "v12.stomp, v11.stomp, v10.stomp"
        }
        let target = WebSocketTarget(host: e.host, port: e.port, requestTarget: e.requestTarget,
                                     headers: headers, tls: e.tls ? TransportTLS.configuration(caFile: nil) : nil, loop: loop)
        // Messages arrive one at a time, in order, on the connection's loop;
        // the lock only makes that hand-over visible.
        let decoder = NIOLockedValueBox(STOMPDecoder(maxFrameBytes: maxFrameSize))
        let connection = try await WebSocketConnection.connect(
            to: target, maxFrameSize: maxFrameSize, timeout: timeout,
            sink: WebSocketSink(message: { m in
                let cut = decoder.withLockedValue { d -> Result<[STOMPItem], STOMPError> in
                    d.append(m.data.readableBytesView)
                    var items: [STOMPItem] = []
                    do throws(STOMPError) {
                        while let item = try d.next() { items.append(item) }
                    } catch {
                        return .failure(error)
                    }
                    return .success(items)
                }
                switch cut {
                case .success(let items):
                    for item in items { sink.item(item) }
                    return nil
                case .failure(let error):
                    return TransportError(.protocolViolation, "\(error)")
                }
            }, closed: sink.closed))
        return STOMPWebSocketLink(connection: connection)
    }

    private static func frame(_ bytes: [UInt8]) -> ClientFrame {
        ClientFrame(isText: String(validating: bytes, as: UTF8.self) != nil, bytes: bytes)
    }

    func enqueue(_ bytes: [UInt8]) { connection.enqueue([Self.frame(bytes)]) }

    func send(_ bytes: [UInt8]) async throws { try await connection.send([Self.frame(bytes)]) }

    func close() { connection.close() }

    func abort() { connection.abort() }
}
