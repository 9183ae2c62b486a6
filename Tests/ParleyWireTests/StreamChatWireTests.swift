import ParleyJournal
import Testing
@testable import ParleyWire

/// 👍🏽: one Character, two scalars, eight UTF-8 bytes.
private let thumb = "👍🏽"

@Suite("StreamChat text rules")
struct StreamChatTextTests {
    @Test func plainTextPasses() {
        #expect(StreamChat.check("hello, lobby") == nil)
        #expect(StreamChat.check(String(repeating: "a", count: 300)) == nil)
    }

    @Test func limitCountsCharactersNotBytesOrScalars() {
        #expect(StreamChat.check(String(repeating: thumb, count: 300)) == nil)
        #expect(StreamChat.check(String(repeating: thumb, count: 301)) == .tooLong(characters: 301))
        #expect(StreamChat.check(String(repeating: "a", count: 301)) == .tooLong(characters: 301))
        // 300 "e" + combining acute: 600 scalars, 300 Characters.
        #expect(StreamChat.check(String(repeating: "e\u{301}", count: 300)) == nil)
    }

    @Test func emptyAndLineBreaksAreRefused() {
        #expect(StreamChat.check("") == .empty)
        #expect(StreamChat.check("a\nb") == .lineBreak)
        #expect(StreamChat.check("a\rb") == .lineBreak)
        #expect(StreamChat.check("a\r\nb") == .lineBreak)
    }

    @Test(arguments: StreamChat.forbiddenTokens)
    func forbiddenTokensAreRefusedAnywhere(token: String) {
        #expect(StreamChat.check(token) == .forbiddenToken(token))
        #expect(StreamChat.check("before \(token) after") == .forbiddenToken(token))
        #expect(StreamChat.check("x\(token)") == .forbiddenToken(token))
    }

    @Test func aCombiningMarkDoesNotHideAToken() {
        // At the Character level ":" + U+0301 is one grapheme, so "MSG::" is not a
        // substring; the bytes on the wire still hold it.
        #expect(StreamChat.check("MSG::\u{301}x") == .forbiddenToken("MSG::"))
        #expect(StreamChat.checkName("a::\u{301}") == .forbiddenToken("::"))
    }

    @Test func namesMayNotHoldTheSeparator() {
        #expect(StreamChat.checkName("bob") == nil)
        #expect(StreamChat.checkName("bob the builder") == nil)
        #expect(StreamChat.checkName("a::b") == .forbiddenToken("::"))
        #expect(StreamChat.checkName("") == .empty)
        #expect(StreamChat.checkName("a\nb") == .lineBreak)
    }

    /// A client never sends a terminal control; a server that relays them
    /// as U+FFFD lets them through the other checks.
    @Test func controlCharactersAreRefusedUnlessLetThrough() {
        #expect(StreamChat.check("tab\tis fine") == nil)
        #expect(StreamChat.check("é ünïcödé 👋") == nil)
        #expect(StreamChat.check("red \u{1B}[31m") == .controlCharacter("\u{1B}"))
        #expect(StreamChat.check("del \u{7F}") == .controlCharacter("\u{7F}"))
        #expect(StreamChat.check("csi \u{9B}2J") == .controlCharacter("\u{9B}"))
        #expect(StreamChat.check("bell \u{07}", controls: true) == nil)
        #expect(StreamChat.checkName("x\u{1B}]0;pwned") == .controlCharacter("\u{1B}"))
        #expect("\(StreamChat.TextProblem.controlCharacter("\u{1B}"))".contains("\\u{1B}"))
    }

    @Test func problemsDescribeThemselves() {
        #expect("\(StreamChat.TextProblem.tooLong(characters: 301))".contains("301"))
        #expect("\(StreamChat.TextProblem.forbiddenToken("MSG::"))".contains("MSG::"))
    }

    @Test func multiLineTextBecomesOneMessagePerLine() {
        #expect(StreamChat.lines(of: "a\nb\r\nc\rd\n\n") == ["a", "b", "c", "d"])
        #expect(StreamChat.lines(of: "") == [])
    }
}

@Suite("StreamChat client frame decoder")
struct ClientFrameDecoderTests {
    static let frames: [StreamChat.ClientFrame] = [
        .userName("zoë 👍🏽"), .message("hi"), .message("a:b: c ::EN"), .message(String(repeating: thumb, count: 3)),
        .message(""), .leave, .token("s3cret"),
    ]
    static let stream = frames.flatMap(\.encoded)

    private func decodeAll(_ d: inout StreamChat.ClientFrameDecoder) throws -> [StreamChat.ClientFrame] {
        var out: [StreamChat.ClientFrame] = []
        while let f = try d.next() { out.append(f) }
        return out
    }

    @Test func severalFramesInOneRead() throws {
        var d = StreamChat.ClientFrameDecoder()
        d.append(Self.stream)
        #expect(try decodeAll(&d) == Self.frames)
        #expect(d.pendingCount == 0)
    }

    @Test func splitAtEveryByteOffset() throws {
        for cut in 0...Self.stream.count {
            var d = StreamChat.ClientFrameDecoder()
            d.append(Self.stream[..<cut])
            var got = try decodeAll(&d)
            d.append(Self.stream[cut...])
            got += try decodeAll(&d)
            #expect(got == Self.frames, "cut at \(cut)")
        }
    }

    @Test func splitAtEveryPairOfOffsets() throws {
        let stream = Array("USR_NAME::ann::ENDMSG::é::END".utf8)
        for a in 0...stream.count {
            for b in a...stream.count {
                var d = StreamChat.ClientFrameDecoder()
                var got: [StreamChat.ClientFrame] = []
                for piece in [stream[..<a], stream[a..<b], stream[b...]] {
                    d.append(piece)
                    got += try decodeAll(&d)
                }
                #expect(got == [.userName("ann"), .message("é")], "cuts at \(a), \(b)")
            }
        }
    }

    @Test func oneByteAtATime() throws {
        var d = StreamChat.ClientFrameDecoder()
        var got: [StreamChat.ClientFrame] = []
        for byte in Self.stream {
            d.append([byte])
            got += try decodeAll(&d)
        }
        #expect(got == Self.frames)
    }

    @Test func pendingCountsBytesOfTheIncompleteFrame() throws {
        var d = StreamChat.ClientFrameDecoder()
        d.append(Array("MSG::a::ENDMSG::hel".utf8))
        #expect(try d.next() == .message("a"))
        #expect(try d.next() == nil)
        #expect(d.pendingCount == 8)
        d.append(Array("lo::E".utf8))
        #expect(try d.next() == nil)
        #expect(d.pendingCount == 13)
        d.append(Array("ND".utf8))
        #expect(try d.next() == .message("hello"))
        #expect(d.pendingCount == 0)
    }

    @Test func aLongDripStaysLinear() throws {
        // 64 KiB one byte at a time: quadratic rescanning would take seconds.
        var d = StreamChat.ClientFrameDecoder()
        d.append(Array("MSG::".utf8))
        var early = 0
        for _ in 0..<65_536 {
            d.append(CollectionOfOne(UInt8(ascii: "a")))
            if try d.next() != nil { early += 1 }
        }
        #expect(early == 0)
        d.append(Array("::END".utf8))
        #expect(try d.next() == .message(String(repeating: "a", count: 65_536)))
    }

    @Test func lineBreaksAndSpacesBetweenFramesAreIgnored() throws {
        var d = StreamChat.ClientFrameDecoder()
        d.append(Array("\r\n USR_NAME::a::END\n\nMSG::x::END\r\n".utf8))
        #expect(try decodeAll(&d) == [.userName("a"), .message("x")])
        #expect(d.pendingCount == 0)
    }

    @Test func theFirstEndTokenEndsTheFrame() throws {
        var d = StreamChat.ClientFrameDecoder()
        d.append(Array("MSG::a:::END".utf8))
        #expect(try d.next() == .message("a:"))
    }

    @Test(arguments: ["HELLO", "GET / HTTP/1.1\r\n", "\u{0}", "MSX", "USR_NAMX", "LEAVE:x", "msg::x::END", "\u{FF}"])
    func bytesThatCannotStartAFrameThrowEarly(garbage: String) {
        var d = StreamChat.ClientFrameDecoder()
        d.append(Array(garbage.utf8))
        #expect(throws: StreamChat.FrameError.self) { try d.next() }
    }

    @Test func garbageAfterAValidFrameThrowsAfterTheFrame() throws {
        var d = StreamChat.ClientFrameDecoder()
        d.append(Array("MSG::ok::END\u{0}\u{1}".utf8))
        #expect(try d.next() == .message("ok"))
        #expect(throws: StreamChat.FrameError.self) { try d.next() }
    }

    @Test func prefixesOfFramesWait() throws {
        for prefix in ["M", "MS", "MSG", "MSG:", "U", "USR_NAME:", "L", "LEAVE::", "LEAVE::::EN"] {
            var d = StreamChat.ClientFrameDecoder()
            d.append(Array(prefix.utf8))
            #expect(try d.next() == nil, "\(prefix)")
        }
    }

    @Test func unknownFramesThrow() {
        for frame in ["LEAVE::x::END", "USR_NAME:x::END", "MSG:x::END", "::END"] {
            var d = StreamChat.ClientFrameDecoder()
            d.append(Array(frame.utf8))
            #expect(throws: StreamChat.FrameError.self, "\(frame)") { try d.next() }
        }
    }

    @Test func invalidUTF8InAFrameThrows() {
        var d = StreamChat.ClientFrameDecoder()
        d.append(Array("MSG::".utf8) + [0xC3, 0x28, 0xFF] + Array("::END".utf8))
        #expect(throws: StreamChat.FrameError(message: "frame is not valid UTF-8")) { try d.next() }
    }

    @Test func nulBytesInsideAFrameAreText() throws {
        var d = StreamChat.ClientFrameDecoder()
        d.append(Array("MSG::a\u{0}b::END".utf8))
        #expect(try d.next() == .message("a\u{0}b"))
    }

    @Test func aCombiningMarkAfterThePrefixDoesNotHideIt() throws {
        var d = StreamChat.ClientFrameDecoder()
        d.append(Array("MSG::\u{301}x::END".utf8))
        #expect(try d.next() == .message("\u{301}x"))
    }

    @Test func errorsPreviewTheBytesSafely() {
        var d = StreamChat.ClientFrameDecoder()
        d.append([0x00, 0x1B] + Array(String(repeating: "z", count: 100).utf8))
        let error = #expect(throws: StreamChat.FrameError.self) { try d.next() }
        #expect(error?.message.contains("'??zzz") == true)
        #expect(error?.message.hasSuffix("…'") == true)
    }

    @Test func randomBytesNeverCrashTheDecoder() {
        var rng = SeededRandom(seed: 42)
        for _ in 0..<2_000 {
            var d = StreamChat.ClientFrameDecoder()
            let pieces = Int(rng.next() % 5) + 1
            decoding: for _ in 0..<pieces {
                let n = Int(rng.next() % 64)
                var bytes = (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                if rng.next() % 2 == 0 { bytes = Array("MSG::".utf8) + bytes + Array("::END".utf8) }
                d.append(bytes)
                do { while try d.next() != nil {} } catch { break decoding }
            }
        }
    }
}

@Suite("StreamChat server lines")
struct ServerLineTests {
    @Test func encodingEndsEveryLineWithNewline() {
        #expect(StreamChat.ServerLine.joined("bob").encoded == Array("bob has joined\n".utf8))
        #expect(StreamChat.ServerLine.left("bob").encoded == Array("bob has left\n".utf8))
        #expect(StreamChat.ServerLine.message(user: "bob", text: "hi").encoded == Array("bob::hi\n".utf8))
    }

    @Test func parsing() {
        #expect(StreamChat.ServerLine(line: "bob has joined") == .joined("bob"))
        #expect(StreamChat.ServerLine(line: "bob the builder has left") == .left("bob the builder"))
        #expect(StreamChat.ServerLine(line: "bob::hi::there") == .message(user: "bob", text: "hi::there"))
        #expect(StreamChat.ServerLine(line: "bob::") == .message(user: "bob", text: ""))
        #expect(StreamChat.ServerLine(line: "bob::x has joined") == .message(user: "bob", text: "x has joined"))
        #expect(StreamChat.ServerLine(line: "has joined") == nil)
        #expect(StreamChat.ServerLine(line: " has joined") == nil)
        #expect(StreamChat.ServerLine(line: "::hi") == nil)
        #expect(StreamChat.ServerLine(line: "whatever") == nil)
        #expect(StreamChat.ServerLine(line: "") == nil)
    }

    @Test func aCombiningMarkCannotTurnAMessageIntoAJoin() {
        // "bob" says "\u{301} has joined": the separator must still be found.
        #expect(StreamChat.ServerLine(line: "bob::\u{301} has joined") == .message(user: "bob", text: "\u{301} has joined"))
    }

    @Test(arguments: [
        StreamChat.ServerLine.joined("zoë 👍🏽"), .left("a b"), .message(user: "x", text: "y: z :: w"),
    ])
    func roundTrip(line: StreamChat.ServerLine) {
        let text = String(decoding: line.encoded.dropLast(), as: UTF8.self)
        #expect(StreamChat.ServerLine(line: text) == line)
    }
}

@Suite("StreamChat server line splitter")
struct ServerLineSplitterTests {
    static let stream = Array("ann has joined\nann::hé👍🏽\r\nbob::\n\nann has left\n".utf8)
    static let lines = ["ann has joined", "ann::hé👍🏽", "bob::", "", "ann has left"]

    private func all(_ s: inout StreamChat.ServerLineSplitter) -> [String] {
        var out: [String] = []
        while let l = s.next() { out.append(l) }
        return out
    }

    @Test func splitAtEveryByteOffset() {
        for cut in 0...Self.stream.count {
            var s = StreamChat.ServerLineSplitter()
            s.append(Self.stream[..<cut])
            var got = all(&s)
            s.append(Self.stream[cut...])
            got += all(&s)
            #expect(got == Self.lines, "cut at \(cut)")
            #expect(s.pendingCount == 0)
        }
    }

    @Test func oneByteAtATime() {
        var s = StreamChat.ServerLineSplitter()
        var got: [String] = []
        for b in Self.stream {
            s.append([b])
            got += all(&s)
        }
        #expect(got == Self.lines)
    }

    @Test func manyLinesInOneRead() {
        var s = StreamChat.ServerLineSplitter()
        let n = 20_000
        s.append((0..<n).flatMap { Array("u::\($0)\n".utf8) })
        let got = all(&s)
        #expect(got.count == n)
        #expect(got.last == "u::\(n - 1)")
    }

    @Test func unterminatedTail() {
        var s = StreamChat.ServerLineSplitter()
        s.append(Array("a::b\nbob has jo".utf8))
        #expect(s.next() == "a::b")
        #expect(s.next() == nil)
        #expect(s.pendingCount == 10)
        #expect(s.takeUnterminated() == "bob has jo")
        #expect(s.takeUnterminated() == nil)
        #expect(s.pendingCount == 0)
        s.append(Array("x\n".utf8))
        #expect(s.next() == "x")
    }

    @Test func invalidUTF8IsDecodedLeniently() {
        var s = StreamChat.ServerLineSplitter()
        s.append(Array("a::".utf8) + [0xFF, 0x00] + [0x0A])
        #expect(s.next() == "a::\u{FFFD}\u{0}")
    }

    @Test func aLoneCarriageReturnLineIsEmpty() {
        var s = StreamChat.ServerLineSplitter()
        s.append(Array("\r\n".utf8))
        #expect(s.next() == "")
    }
}


@Suite("StreamChat moderation frames and notices")
struct StreamChatModerationWireTests {
    private func decode(_ text: String) throws -> [StreamChat.ClientFrame] {
        var d = StreamChat.ClientFrameDecoder()
        d.append(Array(text.utf8))
        var out: [StreamChat.ClientFrame] = []
        while let f = try d.next() { out.append(f) }
        return out
    }

    @Test func framesEncodeAndDecode() throws {
        let frames: [StreamChat.ClientFrame] = [
            .kick(user: "bob", reason: "spam: twice"), .kick(user: "zoë 👍🏽", reason: ""),
            .mute(user: "bob", seconds: 60, reason: "a::b"), .mute(user: "bob", seconds: 1.5, reason: "flood"),
        ]
        #expect(frames.map { String(decoding: $0.encoded, as: UTF8.self) } == [
            "KICK::bob::spam: twice::END", "KICK::zoë 👍🏽::::END", "MUTE::bob::60::a::b::END", "MUTE::bob::1.5::flood::END",
        ])
        #expect(try decode(frames.map { String(decoding: $0.encoded, as: UTF8.self) }.joined()) == frames)
    }

    @Test(arguments: ["KICK::bob::END", "KICK::::x::END", "MUTE::bob::60::END", "MUTE::bob::1e3::x::END", "MUTE::bob::-1::x::END", "MUTE::::5::x::END"])
    func malformedFramesAreErrors(frame: String) {
        #expect(throws: StreamChat.FrameError.self) { try decode(frame) }
    }

    @Test func noticesReadBack() {
        let notices: [(String, StreamChat.ServerLine)] = [
            ("::KICKED::bob::spam", .kicked(user: "bob", reason: "spam")),
            ("::KICKED::bob::", .kicked(user: "bob", reason: "")),
            ("::MUTED::bob::60::too::loud", .muted(user: "bob", seconds: 60, reason: "too::loud")),
            ("::DROPPED::0.25::flood", .dropped(seconds: 0.25, reason: "flood")),
            ("::OK", .ok),
            ("::REFUSED::\"cat\" is not a moderator", .refused("\"cat\" is not a moderator")),
        ]
        for (line, notice) in notices {
            #expect(StreamChat.ServerLine(line: line) == notice)
            #expect(notice.encoded == Array((line + "\n").utf8))
        }
        for line in ["::KICKED::bob", "::MUTED::bob::soon::x", "::DROPPED::x", "::OKAY", "::NOPE::x", "::"] {
            #expect(StreamChat.ServerLine(line: line) == nil, "\(line)")
        }
    }

    @Test func secondsHaveOneWireForm() throws {
        #expect(StreamChat.format(seconds: 60) == "60")
        #expect(StreamChat.format(seconds: 1.5) == "1.5")
        #expect(StreamChat.format(seconds: 0.001) == "0.001")
        #expect(StreamChat.format(seconds: 1e-7) == "0")
        #expect(StreamChat.format(seconds: -3) == "0")
        #expect(StreamChat.format(seconds: .nan) == "0")
        #expect(StreamChat.format(seconds: 1e300) == "1000000000000")
        // What reads is to the millisecond, so it writes back as it read.
        for text in ["0.0005", "1.0005", "007", "3.14159", "999999999999.999"] {
            let value = try #require(StreamChat.seconds(Array(text.utf8)))
            #expect(StreamChat.seconds(Array(StreamChat.format(seconds: value).utf8)) == value, "\(text)")
        }
    }
}
