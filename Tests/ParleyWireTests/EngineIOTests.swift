import ParleyJournal
import Testing
@testable import ParleyWire

@Suite("Base64")
struct Base64Tests {
    @Test(arguments: [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy"),
    ])
    func rfc4648Vectors(plain: String, encoded: String) {
        #expect(Base64.encode(Array(plain.utf8)) == encoded)
        #expect(Base64.decode(encoded[...]) == Array(plain.utf8))
    }

    @Test func paddingMayBeLeftOut() {
        #expect(Base64.decode("Zg"[...]) == Array("f".utf8))
        #expect(Base64.decode("Zm8"[...]) == Array("fo".utf8))
    }

    @Test func everyByteValueRoundTrips() {
        let bytes = (0...255).map(UInt8.init)
        #expect(Base64.decode(Base64.encode(bytes)[...]) == bytes)
        #expect(Base64.encode([0xFB, 0xFF]) == "+/8=")
    }

    @Test(arguments: ["Z", "Zm9vY", "Zg=", "Z===", "Zm=9", "=Zm9", "Zm 9v", "Zm9v-_", "Zm9v\n", "Zg==Zg=="])
    func badInputIsNil(text: String) {
        #expect(Base64.decode(text[...]) == nil)
    }
}

@Suite("Engine.IO packets")
struct EngineIOPacketTests {
    @Test func openPacketIsReadByKeyInAnyOrder() throws {
        let text = #"0{"pingTimeout":20000,"maxPayload":1000000,"upgrades":["websocket"],"sid":"lv_VI97HAXpY6yYWAAAC","pingInterval":25000}"#
        let expected = EngineIO.Handshake(sid: "lv_VI97HAXpY6yYWAAAC", upgrades: ["websocket"], pingInterval: 25000, pingTimeout: 20000, maxPayload: 1_000_000)
        #expect(try EngineIO.decode(text: text) == .open(expected))
    }

    @Test func openPacketEncodesInTheJavaScriptServersOrder() {
        let open = EngineIO.Packet.open(EngineIO.Handshake(sid: "abc", pingInterval: 300, pingTimeout: 200, maxPayload: 500))
        #expect(EngineIO.encode(open) == .text(#"0{"sid":"abc","upgrades":[],"pingInterval":300,"pingTimeout":200,"maxPayload":500}"#))
    }

    @Test func missingMaxPayloadAndUpgradesTakeDefaults() throws {
        let handshake = try EngineIO.Handshake(json: ["sid": "s", "pingInterval": 10, "pingTimeout": 5])
        #expect(handshake == EngineIO.Handshake(sid: "s", upgrades: [], pingInterval: 10, pingTimeout: 5, maxPayload: 1_000_000))
    }

    @Test(arguments: [
        #"0"#, #"0{"#, #"0[]"#, #"0{"pingInterval":1,"pingTimeout":1}"#, #"0{"sid":"s","pingTimeout":1}"#,
        #"0{"sid":"s","pingInterval":"25000","pingTimeout":1}"#, #"0{"sid":"s","pingInterval":1,"pingTimeout":1,"upgrades":"websocket"}"#,
        #"0{"sid":"s","pingInterval":1,"pingTimeout":1,"maxPayload":1.5}"#,
    ])
    func badOpenPacketsAreErrors(text: String) {
        #expect(throws: EngineIO.DecodeError.self) { try EngineIO.decode(text: text) }
    }

    @Test func everyOtherTypeFromTheProtocolExamples() throws {
        #expect(try EngineIO.decode(text: "1") == .close)
        #expect(try EngineIO.decode(text: "2") == .ping(""))
        #expect(try EngineIO.decode(text: "2probe") == .ping("probe"))
        #expect(try EngineIO.decode(text: "3") == .pong(""))
        #expect(try EngineIO.decode(text: "3probe") == .pong("probe"))
        #expect(try EngineIO.decode(text: "4hello") == .message("hello"))
        #expect(try EngineIO.decode(text: "4") == .message(""))
        #expect(try EngineIO.decode(text: #"42["chatMessage","alice","hi"]"#) == .message(#"2["chatMessage","alice","hi"]"#))
        #expect(try EngineIO.decode(text: "4€") == .message("€"))
        #expect(try EngineIO.decode(text: "5") == .upgrade)
        #expect(try EngineIO.decode(text: "6") == .noop)
    }

    /// A frame's bytes, as the WebSocket link hands them over, decode as its
    /// text would: invalid UTF-8 in a message becomes U+FFFD, not an error.
    @Test func aFramesBytesDecodeAsItsText() throws {
        func decode(_ bytes: [UInt8]) throws -> EngineIO.Packet {
            try bytes.withUnsafeBytes { EngineIO.decode(utf8: $0) }.get()
        }
        #expect(try decode(Array("4a".utf8) + [0xFF] + Array("b".utf8)) == .message("a\u{FFFD}b"))
        #expect(try decode(Array("2probe".utf8)) == .ping("probe"))
        #expect(try decode(Array(#"0{"sid":"s","pingInterval":1,"pingTimeout":2}"#.utf8))
            == .open(EngineIO.Handshake(sid: "s", pingInterval: 1, pingTimeout: 2)))
        #expect(throws: EngineIO.DecodeError.self) { try decode([]) }
    }

    @Test func textPacketsEncodeBackToTheirFrames() throws {
        let frames: [(EngineIO.Packet, String)] = [
            (.close, "1"), (.ping(""), "2"), (.ping("probe"), "2probe"), (.pong(""), "3"), (.pong("probe"), "3probe"),
            (.message("hello"), "4hello"), (.upgrade, "5"), (.noop, "6"),
        ]
        for (packet, text) in frames {
            #expect(EngineIO.encode(packet) == .text(text))
            #expect(try EngineIO.decode(text: text) == packet)
        }
    }

    @Test func binaryIsARawFrameOverWebSocket() {
        #expect(EngineIO.encode(.binary([1, 2, 3, 4])) == .binary([1, 2, 3, 4]))
    }

    @Test(arguments: ["", "7", "9x", "x", "{}", "b!!"])
    func unknownOrEmptyPacketsAreErrors(text: String) {
        #expect(throws: EngineIO.DecodeError.self) { try EngineIO.decode(text: text) }
    }
}

@Suite("Engine.IO long-polling payloads")
struct EngineIOPayloadTests {
    @Test func packetsSplitOnTheRecordSeparator() throws {
        #expect(try EngineIO.decodePayload("4hello\u{1e}2\u{1e}4€") == [.message("hello"), .ping(""), .message("€")])
        #expect(try EngineIO.decodePayload("6") == [.noop])
    }

    @Test func binaryTravelsAsBase64() throws {
        #expect(try EngineIO.decodePayload("bAQIDBA==") == [.binary([1, 2, 3, 4])])
        #expect(try EngineIO.decodePayload("4hello\u{1e}bAQIDBA==") == [.message("hello"), .binary([1, 2, 3, 4])])
    }

    @Test func encodingJoinsWithTheSeparator() throws {
        let packets: [EngineIO.Packet] = [.message("hello"), .ping(""), .binary([1, 2, 3, 4]), .message("€")]
        let body = EngineIO.encodePayload(packets)
        #expect(body == "4hello\u{1e}2\u{1e}bAQIDBA==\u{1e}4€")
        #expect(try EngineIO.decodePayload(body) == packets)
    }

    @Test func aSocketIOTextWithTheSeparatorInAStringStillSplitsCorrectly() throws {
        // JSON escapes U+001E, so a packet's text never holds the raw separator.
        let text = SocketIO.encode(.event("msg", ["a\u{1e}b"])).text
        #expect(!text.utf8.contains(0x1E))
        let body = EngineIO.encodePayload([.message(text), .noop])
        #expect(try EngineIO.decodePayload(body) == [.message(text), .noop])
    }

    @Test(arguments: ["", "\u{1e}", "4a\u{1e}", "\u{1e}4a", "4a\u{1e}\u{1e}4b", "4a\u{1e}9", "bAQ!"])
    func malformedPayloadsAreErrors(body: String) {
        #expect(throws: EngineIO.DecodeError.self) { try EngineIO.decodePayload(body) }
    }

    @Test func randomPayloadsNeverTrapAndWhatDecodesReEncodes() throws {
        let alphabet = Array("0123456789b4AQIDB=+/{}\":,sidpng\u{1e}".utf8) + [0xC3, 0xA9]
        var rng = SeededRandom(seed: 11)
        var decoded = 0
        for _ in 0..<3_000 {
            let n = Int(rng.next() % 16)
            let bytes = (0..<n).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }
            guard let packets = try? EngineIO.decodePayload(String(decoding: bytes, as: UTF8.self)) else { continue }
            decoded += 1
            #expect(try EngineIO.decodePayload(EngineIO.encodePayload(packets)) == packets)
        }
        #expect(decoded > 0)
    }
}
