import Foundation
import ParleyCore
import ParleyNet
@testable import ParleySocketIO
import ParleyWire
import Synchronization
import Testing
import ParleyTestSupport

/// BINARY_EVENT both ways against the real python-socketio fixture: the
/// client's attachments reach the server intact (its `binaryEcho` acks their
/// length) and the server's `binaryReply` comes back with the same bytes,
/// over WebSocket (raw binary frames), long-polling (`b` + base64) and a
/// polling session upgraded to WebSocket.
@Suite(.timeLimit(.minutes(1)))
struct SocketIOBinaryTests {
    /// Links to test over, named for the test list.
    enum Links: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case websocket, polling, upgraded
        var links: [SocketIOOptions.Link] {
            switch self {
            case .websocket: [.websocket]
            case .polling: [.polling]
            case .upgraded: [.polling, .websocket]
            }
        }
        var testDescription: String { rawValue }
    }

    /// Bytes that are neither text nor compressible (a fixed xorshift
    /// stream): base64 or UTF-8 mistakes show, and no gzip shortcut applies.
    static func bytes(_ count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [UInt8] {
        var x = seed
        return (0..<count).map { _ in
            x ^= x << 13
            x ^= x >> 7
            x ^= x << 17
            return UInt8(truncatingIfNeeded: x >> 24)
        }
    }

    /// A `SocketIOClient` opened directly on the fixture, recording the events it gets.
    final class Probe: Sendable {
        let client: SocketIOClient
        private let box: EventBox

        private init(client: SocketIOClient, box: EventBox) {
            self.client = client
            self.box = box
        }

        var events: [SocketIOClient.Event] { box.events.withLock { $0 } }

        static func open(port: Int, links: [SocketIOOptions.Link]) async throws -> Probe {
            let settings = EngineIOConnection.Settings(endpoint: SocketIOEndpoint(host: "127.0.0.1", port: port), links: links,
                                                       headers: [:], caFile: nil, connectTimeout: 5,
                                                       http: RenewableHTTPClient(caFile: nil))
            let box = EventBox()
            let client = try await SocketIOClient.open(settings, notify: { notice in
                if case .event(let e) = notice { box.events.withLock { $0.append(e) } }
            }, ended: { _ in }, log: { _ in })
            _ = try await client.connect(namespace: "/", auth: nil, timeout: 5)
            return Probe(client: client, box: box)
        }
    }

    /// The events a probe's client reported, filled from its notify closure.
    final class EventBox: Sendable {
        let events = Mutex<[SocketIOClient.Event]>([])
    }

    /// Sends `binaryEcho(bytes)` and returns the ack and the `binaryReply` event that came back.
    /// The waits are generous: python gzips and base64-encodes tens of KB a
    /// poll, which takes seconds while the rest of the suite loads both cores.
    static func echo(_ probe: Probe, _ payload: [UInt8]) async throws -> (ack: [JSONValue], reply: SocketIOClient.Event?) {
        let before = probe.events.count
        let ack = try await probe.client.emitWithAck("binaryEcho", [SocketIO.placeholder(0)], namespace: "/",
                                                     attachments: [payload], timeout: 30)
        _ = await eventually(30) { probe.events.dropFirst(before).contains { $0.name == "binaryReply" } }
        return (ack, probe.events.dropFirst(before).first { $0.name == "binaryReply" })
    }

    /// Checks one `binaryEcho` round trip: the ack is `[length]` and the
    /// `binaryReply` BINARY_EVENT's placeholder resolves to exactly the bytes sent.
    static func expectRoundTrip(_ probe: Probe, _ payload: [UInt8], _ what: String) async throws {
        let (ack, reply) = try await echo(probe, payload)
        #expect(ack == [.number(Double(payload.count))], "\(what): ack \(ack)")
        let event = try #require(reply, "\(what): no binaryReply")
        #expect(event.packet.type == .binaryEvent, "\(what)")
        #expect(event.packet.attachments.count == 1, "\(what)")
        let back = try #require(event.arguments.first.flatMap { SocketIO.attachment(for: $0, in: event.packet) },
                                "\(what): the reply's argument is no placeholder: \(event.arguments)")
        #expect(back == payload, "\(what): \(back.count) bytes came back")
    }

    /// Over WebSocket (raw binary frames), long-polling (`b` + base64) and
    /// polling upgraded to WebSocket, attachments of 0 bytes, 1 byte, 1 KB and
    /// 100 KB (40 KB over polling) go to the server as a BINARY_EVENT and come
    /// back as one with the same bytes. One server for all three: python
    /// starts slowly.
    ///
    /// Why 40 KB over polling: python-engineio 4.15.1 reads a polling POST
    /// with aiohttp's `StreamReader.read(length)`, which returns what has
    /// arrived so far; a body that comes in several TCP reads (133 KB of
    /// base64 sometimes does, under load) is cut and the packet lost. 40 KB
    /// (53 KB of base64) stays within one read.
    @Test func binaryEventsGoBothWays() async throws {
        let server = try await PythonSocketChat.start()
        for links in Links.allCases {
            let probe = try await Probe.open(port: server.port, links: links.links)
            if links == .upgraded {
                #expect(await eventually(5) { probe.client.linkName == "websocket" })
            }
            for size in [0, 1, 1000, links == .polling ? 40_000 : 100_000] {
                do {
                    try await Self.expectRoundTrip(probe, Self.bytes(size), "\(links), \(size) bytes")
                } catch {
                    Issue.record(error, "\(links), \(size) bytes")
                    break
                }
            }
            #expect(probe.client.linkName == (links == .polling ? "polling" : "websocket"))
            probe.client.close()
        }
        await server.stop()
    }

    /// Long-polling answers that compress well are read like any other.
    /// python-engineio gzips polling answers over 1 KB for clients that send
    /// `Accept-Encoding`; a 60 KB attachment of one repeated byte and a 30 KB
    /// chat line of one letter must still arrive over polling.
    @Test
    func wellCompressedPollingAnswersAreRead() async throws {
        let server = try await PythonSocketChat.start()
        let probe = try await Probe.open(port: server.port, links: [.polling])
        do {
            try await Self.expectRoundTrip(probe, [UInt8](repeating: 7, count: 60_000), "polling, 60 KB of one byte value")
        } catch {
            Issue.record(error, "polling, 60 KB of one byte value")
        }
        probe.client.close()

        var polling = SocketIOOptions()
        polling.transports = [.polling]
        let endpoint = SocketIOEndpoint(host: "127.0.0.1", port: server.port)
        let reader = try await Person("reader", transport: SocketIOTransport(endpoint: endpoint, name: "reader", options: polling, connectTimeout: 5))
        let writer = try await Person("writer", transport: SocketIOTransport(endpoint: endpoint, name: "writer", connectTimeout: 5))
        let line = String(repeating: "a", count: 30_000)
        try await writer.say(line)
        #expect(await eventually(5) { reader.texts(from: "writer") == [line] }, "reader heard \(reader.messages.map { ($0.user, $0.text.count) })")
        await reader.leave()
        await writer.leave()
        await server.stop()
    }

    /// Through a bot's `SocketIOSession`: the binary emit is acked with its
    /// length, and the BINARY_EVENT that follows (no chat event) leaves the
    /// session working: a chat message sent afterwards is heard.
    @Test func aSessionSendsBinaryAndSurvivesTheBinaryReply() async throws {
        let server = try await SocketServer.start(.python)
        let session = try await server.transport("binbot").connect() as! SocketIOSession
        let payload = Self.bytes(100_000)
        let ack = try await session.client.emitWithAck("binaryEcho", [SocketIO.placeholder(0)], namespace: "/",
                                                       attachments: [payload], timeout: 30)
        #expect(ack == [.number(100_000)])
        try await session.send(OutgoingMessage(id: "1", room: "lobby", text: "after the blob"))
        var heard: [String] = []
        for try await e in session.events {
            if case .chat(.message(let m)) = e {
                heard.append(m.text)
                break
            }
        }
        #expect(heard == ["after the blob"])
        await session.leave()
        await server.stop()
    }

    /// An attachment over the server's maxPayload is refused before anything
    /// is written, and the session goes on.
    @Test func anAttachmentOverMaxPayloadIsRefusedLocally() async throws {
        let server = try await SocketServer.start(.python)
        let session = try await server.transport("bigbot").connect() as! SocketIOSession
        await #expect {
            _ = try await session.client.emitWithAck("binaryEcho", [SocketIO.placeholder(0)], namespace: "/",
                                                     attachments: [Self.bytes(1_000_001)], timeout: 5)
        } throws: { error in
            (error as? TransportError)?.kind == .refused
        }
        let ack = try await session.client.emitWithAck("binaryEcho", [SocketIO.placeholder(0)], namespace: "/",
                                                       attachments: [Self.bytes(10)], timeout: 5)
        #expect(ack == [.number(10)])
        await session.leave()
        await server.stop()
    }
}
