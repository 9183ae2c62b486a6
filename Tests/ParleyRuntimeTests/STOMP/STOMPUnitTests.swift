import ParleyCore
import ParleyRuntime
@testable import ParleySTOMP
import ParleyWire
import Testing

/// The pure parts of the STOMP transport: addresses, heart-beat negotiation,
/// the chat mapping, and `server` values in a config.
@Suite struct STOMPUnitTests {
    @Test func endpointsParse() {
        #expect(STOMPEndpoint.parse("ws://127.0.0.1:15674/ws") == STOMPEndpoint(link: .websocket, host: "127.0.0.1", port: 15674, requestTarget: "/ws"))
        #expect(STOMPEndpoint.parse("wss://chat.example/stomp?v=2") == STOMPEndpoint(link: .websocket, host: "chat.example", port: 443, tls: true, requestTarget: "/stomp?v=2"))
        #expect(STOMPEndpoint.parse("stomp://[::1]:61613") == STOMPEndpoint(link: .tcp, host: "::1", port: 61613, requestTarget: "/"))
        #expect(STOMPEndpoint.parse("stomp+ssl://mq.example") == STOMPEndpoint(link: .tcp, host: "mq.example", port: 61614, tls: true, requestTarget: "/"))
        for bad in ["http://x/ws", "127.0.0.1:61613", "ws://:80/ws", "ws://h:0/ws", "ws://h:x/ws", "stomp://h:1/path", "ws://u@h/ws"] {
            #expect(STOMPEndpoint.parse(bad) == nil, "\(bad)")
        }
        #expect(STOMPEndpoint.parse("ws://127.0.0.1:15674/ws")?.description == "ws://127.0.0.1:15674/ws")
    }

    @Test func heartBeatsNegotiateAsTheSpecSays() {
        #expect(STOMPClient.negotiate(client: (10_000, 10_000), server: "5000,20000") == (20_000, 10_000))
        #expect(STOMPClient.negotiate(client: (0, 1000), server: "1000,1000") == (0, 1000))
        #expect(STOMPClient.negotiate(client: (1000, 1000), server: "0,0") == (0, 0))
        #expect(STOMPClient.negotiate(client: (1000, 1000), server: nil) == (0, 0))
        #expect(STOMPClient.negotiate(client: (1000, 1000), server: "garbage") == (0, 0))
    }

    func frame(_ body: String, sub: String = "sub-0") -> STOMPFrame {
        STOMPFrame("MESSAGE", [("subscription", sub), ("destination", "/topic/chat.room.r")], text: body)
    }

    @Test func typesMapToEvents() throws {
        var o = STOMPOptions()
        o.types.typingStop = "STOP"
        o.kickType = "DUPLICATE_LOGIN"
        let m = STOMPChatMapper(options: o, botName: "bot")
        func map(_ type: String, _ sender: String = "ann", _ text: String = "hi") -> TransportEvent? {
            try? m.map(frame(#"{"type":"\#(type)","roomId":"other","sender":"\#(sender)","message":"\#(text)"}"#), room: "r").get()
        }
        #expect(map("TALK") == .chat(.message(ChatMessage(room: "r", user: "ann", text: "hi"))))
        #expect(map("ENTER") == .chat(.join(room: "r", user: "ann", time: nil)))
        #expect(map("LEAVE") == .chat(.leave(room: "r", user: "ann", time: nil)))
        #expect(map("TYPING") == .chat(.typing(room: "r", user: "ann", on: true)))
        #expect(map("STOP") == .chat(.typing(room: "r", user: "ann", on: false)))
        #expect(map("NEWS") == nil)
        #expect(map("DUPLICATE_LOGIN", "bot", "new device") == .kicked("new device"))
        #expect(map("DUPLICATE_LOGIN", "ann") == nil)
        if case .failure = m.map(frame("nope"), room: "r") {} else { Issue.record("a body that is not JSON must be refused") }
    }

    @Test func sendsRenderTheTemplate() {
        var o = STOMPOptions()
        o.send = "/pub/chat/message"
        let f = STOMPChatMapper(options: o, botName: "bot").send(type: "TALK", room: "r1", text: "a \"quote\"\nnew line")
        #expect(f.command == "SEND" && f[header: "destination"] == "/pub/chat/message")
        #expect(f.bodyText == #"{"type":"TALK","roomId":"r1","sender":"bot","message":"a \"quote\"\nnew line"}"#)
    }

    @Test func configServersBuildTheTransport() throws {
        func make(_ server: String) throws -> [BotSpec] {
            let file = try BotConfigFile.parse(text: "[[bot]]\nname = \"b\"\ntransport = \"stomp\"\nserver = \"\(server)\"\n", path: "/tmp/b.toml")
            return try BotSpecs.make(file, embedded: [:], log: { _, _ in })
        }
        let spec = try #require(try make("ws://127.0.0.1:15674/ws").first)
        #expect(spec.transport.capabilities.name == "stomp")
        #expect((spec.transport as? STOMPTransport)?.endpoint == STOMPEndpoint.parse("ws://127.0.0.1:15674/ws"))
        #expect(throws: (any Error).self) { try make("127.0.0.1:15674") }
    }
}
