import Testing
import ParleyWire

/// The STOMP 1.2 codec on its own: escaping, framing, and what is refused.
@Suite("STOMP frames")
struct STOMPFrameTests {
    /// Every item in `bytes`, fed in pieces of `chunk` bytes.
    static func decode(_ bytes: [UInt8], chunk: Int = .max) throws -> [STOMPItem] {
        var d = STOMPDecoder()
        var out: [STOMPItem] = []
        var i = 0
        while i < bytes.count {
            let end = min(bytes.count, i + max(1, min(chunk, bytes.count)))
            d.append(bytes[i..<end])
            i = end
            while let item = try d.next() { out.append(item) }
        }
        #expect(d.pendingCount == 0, "bytes left over")
        return out
    }

    static func frames(_ items: [STOMPItem]) -> [STOMPFrame] {
        items.compactMap { if case .frame(let f) = $0 { f } else { nil } }
    }

    @Test(arguments: ["plain", "a:b", "line\nbreak", "cr\rhere", "back\\slash", "\\c literal", ":\\\n\r", "ünïcödé ✓", ""])
    func escapingRoundTrips(_ value: String) throws {
        let frame = STOMPFrame("SEND", [("destination", "/topic/x"), ("x-\(value)", value)], text: "hi")
        let wire = frame.encoded()
        // Escaped values never put a raw colon or line end into a header value.
        let head = String(decoding: wire.prefix { $0 != 0 }, as: UTF8.self)
        #expect(head.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().allSatisfy { !$0.contains("\r") })
        let back = Self.frames(try Self.decode(wire))
        #expect(back.count == 1)
        #expect(back.first?[header: "x-\(value)"] == value)
        #expect(back.first?.bodyText == "hi")
    }

    @Test func escapesAreTheSpecsFour() throws {
        #expect(STOMP.escape("a:b\\c\nd\re") == #"a\cb\\c\nd\re"#)
        #expect(try STOMP.unescape(#"a\cb\\c\nd\re"#) == "a:b\\c\nd\re")
        #expect(throws: STOMPError.self) { try STOMP.unescape(#"tab\there"#) }
        #expect(throws: STOMPError.self) { try STOMP.unescape("trailing\\") }
    }

    @Test func connectAndConnectedAreNotEscaped() throws {
        let connect = STOMPFrame("CONNECT", [("accept-version", "1.2"), ("passcode", #"p:a\ss"#)])
        #expect(String(decoding: connect.encoded(), as: UTF8.self) == "CONNECT\naccept-version:1.2\npasscode:p:a\\ss\n\n\0")
        // A server's CONNECTED with a backslash is read as is, not as a bad escape.
        let wire = Array("CONNECTED\nversion:1.2\nserver:Odd\\Server/1\n\n\0".utf8)
        #expect(Self.frames(try Self.decode(wire)).first?[header: "server"] == "Odd\\Server/1")
        // The same header in a MESSAGE is an undefined escape: fatal.
        #expect(throws: STOMPError.self) { try Self.decode(Array("MESSAGE\nserver:Odd\\Server/1\n\n\0".utf8)) }
    }

    @Test func contentLengthAllowsNULInTheBody() throws {
        let body: [UInt8] = [0x61, 0x00, 0x62, 0x00]
        let frame = STOMPFrame("MESSAGE", [("destination", "/topic/t")], body: body)
        let wire = frame.encoded()
        #expect(String(decoding: wire, as: UTF8.self).contains("content-length:4\n"))
        let back = Self.frames(try Self.decode(wire))
        #expect(back.first?.body == body)
        #expect(back.first?[header: "content-length"] == "4")
    }

    @Test func aFrameEndingInNULNewlineLeavesAHeartbeat() throws {
        // RabbitMQ's Web-STOMP: one frame per message, each ending in "\0\n".
        let wire = Array("RECEIPT\nreceipt-id:7\n\n\0\n".utf8)
        #expect(try Self.decode(wire) == [.frame(STOMPFrame("RECEIPT", [("receipt-id", "7")])), .heartbeat])
    }

    @Test(arguments: [1, 2, 3, 7, 1000])
    func concatenatedFramesSplitAnywhere(chunk: Int) throws {
        let a = STOMPFrame("MESSAGE", [("destination", "/topic/a"), ("message-id", "1")], text: #"{"type":"TALK"}"#)
        let b = STOMPFrame("MESSAGE", [("destination", "/topic/b")], body: [0, 1, 2])
        let c = STOMPFrame("ERROR", [("message", "bad: thing")], text: "details")
        let wire = a.encoded() + [0x0A] + b.encoded() + [0x0D, 0x0A, 0x0A] + c.encoded()
        let items = try Self.decode(wire, chunk: chunk)
        // The encoder adds content-length to frames with a body; the decoder keeps it.
        func sized(_ f: STOMPFrame) -> STOMPFrame { STOMPFrame(f.command, f.headers + [("content-length", "\(f.body.count)")], body: f.body) }
        #expect(items == [.frame(sized(a)), .heartbeat, .frame(sized(b)), .heartbeat, .heartbeat, .frame(sized(c))])
    }

    @Test func headersMayEndInCRLFAndTheFirstRepeatWins() throws {
        let wire = Array("MESSAGE\r\nfoo:first\r\nfoo:second\r\n\r\nbody\0".utf8)
        let f = try #require(Self.frames(try Self.decode(wire)).first)
        #expect(f[header: "foo"] == "first")
        #expect(f.headers.count == 2)
        #expect(f.bodyText == "body")
    }

    @Test func aFrameWithoutContentLengthEndsAtTheFirstNUL() throws {
        let items = try Self.decode(Array("MESSAGE\n\nab\0MESSAGE\n\ncd\0".utf8))
        #expect(Self.frames(items).map(\.bodyText) == ["ab", "cd"])
    }

    @Test func anIncompleteFrameWaitsForMoreBytes() throws {
        var d = STOMPDecoder()
        d.append(Array("MESSAGE\ncontent-length:5\n\nab".utf8))
        #expect(try d.next() == nil)
        d.append([0x00, 0x63, 0x64])
        #expect(try d.next() == nil)
        d.append([0x00])
        #expect(try d.next() == .frame(STOMPFrame("MESSAGE", [("content-length", "5")], body: [0x61, 0x62, 0x00, 0x63, 0x64])))
    }

    @Test(arguments: [
        "HELLO\n\n\0",                                    // unknown command
        "MESSAGE\nno colon here\n\n\0",                   // header without a colon
        "MESSAGE\n:empty name\n\n\0",                     // empty header name
        "MESSAGE\nx:bad\\tescape\n\n\0",                  // undefined escape
        "MESSAGE\ncontent-length:abc\n\n\0",              // not a number
        "MESSAGE\ncontent-length:-1\n\n\0",               // negative
        "MESSAGE\ncontent-length:2\n\nabc\0",             // no NUL where content-length says
        "MESS\0AGE\n\n\0",                                // NUL in the command
        "\r\r\n",                                         // CR without LF between frames
    ])
    func malformedInputIsAnError(_ text: String) {
        #expect(throws: STOMPError.self) { try Self.decode(Array(text.utf8)) }
    }

    @Test func invalidUTF8InHeadersIsAnError() {
        #expect(throws: STOMPError.self) { try Self.decode(Array("MESSAGE\nx:".utf8) + [0xFF, 0xFE] + Array("\n\n\0".utf8)) }
    }

    @Test func limitsStopAnEndlessFrame() {
        var d = STOMPDecoder(maxFrameBytes: 64)
        d.append(Array("MESSAGE\n\n".utf8) + [UInt8](repeating: 0x61, count: 100))
        #expect(throws: STOMPError.self) { try d.next() }
        var e = STOMPDecoder(maxFrameBytes: 64)
        e.append(Array("MESSAGE\ncontent-length:1000\n\n".utf8))
        #expect(throws: STOMPError.self) { try e.next() }
        var h = STOMPDecoder(maxFrameBytes: 1 << 20, maxHeaders: 3)
        h.append(Array("MESSAGE\na:1\nb:2\nc:3\nd:4\ne:5\n\n\0".utf8))
        #expect(throws: STOMPError.self) { try h.next() }
    }

    @Test func redactedHidesThePasscode() {
        let f = STOMPFrame("CONNECT", [("login", "bot"), ("passcode", "s3cret")]).redacted()
        #expect(!f.description.contains("s3cret"))
        #expect(f.description.contains("login=bot"))
    }
}
