import ParleyJournal
import Testing
@testable import ParleyWire

private func parse(_ text: String) throws -> JSONValue { try JSONValue.parse(text) }

private func nested(_ depth: Int) -> String {
    String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
}

@Suite("JSON values")
struct JSONValueTests {
    @Test(arguments: [
        #"null"#, #"true"#, #"false"#, #"0"#, #"-1"#, #"1.5"#, #""hi""#, #"[]"#, #"{}"#,
        #"[1,"two",{"three":[null,true,false]},-4.25]"#,
        #"{"sid":"oSO0OpakMV_3jnilAAAA","upgrades":[],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000}"#,
        #"{"a":{"b":{"c":[[[]]]}}}"#,
    ])
    func compactTextRoundTripsByteForByte(text: String) throws {
        #expect(try parse(text).text == text)
    }

    @Test func whitespaceAroundTokensIsAllowedAndDropped() throws {
        #expect(try parse(" \t\r\n{ \"a\" : [ 1 , 2 ] ,\n\"b\":null }\n ").text == #"{"a":[1,2],"b":null}"#)
    }

    @Test func objectKeyOrderIsKept() throws {
        let v = try parse(#"{"z":1,"a":2,"m":3}"#)
        #expect(v.object?.map(\.0) == ["z", "a", "m"])
        #expect(v.text == #"{"z":1,"a":2,"m":3}"#)
        #expect(v != (try parse(#"{"a":2,"z":1,"m":3}"#)))
    }

    @Test func duplicateKeysSurviveAndTheFirstWins() throws {
        let v = try parse(#"{"k":1,"k":2}"#)
        #expect(v["k"] == 1)
        #expect(v.text == #"{"k":1,"k":2}"#)
    }

    @Test func literalsBuildTheSameValuesAsParsing() throws {
        let built: JSONValue = ["name": "bob", "age": 42, "ratio": 0.5, "ok": true, "none": nil, "tags": ["a", "b"]]
        #expect(built == (try parse(#"{"name":"bob","age":42,"ratio":0.5,"ok":true,"none":null,"tags":["a","b"]}"#)))
        #expect(built.text == #"{"name":"bob","age":42,"ratio":0.5,"ok":true,"none":null,"tags":["a","b"]}"#)
    }

    @Test func accessorsAnswerOnlyForTheirOwnKind() throws {
        let v = try parse(#"{"s":"x","n":2.5,"i":7,"b":false,"a":[1],"o":{}}"#)
        #expect(v["s"]?.string == "x")
        #expect(v["n"]?.number == 2.5)
        #expect(v["n"]?.int == nil)
        #expect(v["i"]?.int == 7)
        #expect(v["b"]?.bool == false)
        #expect(v["a"]?.array == [1])
        #expect(v["o"]?.object?.isEmpty == true)
        #expect(v["missing"] == nil)
        #expect(v["s"]?.int == nil)
        #expect(v["a"]?[0] == 1)
        #expect(v["a"]?[1] == nil)
        #expect(v["a"]?[-1] == nil)
        #expect(v[0] == nil)
        #expect(JSONValue.array([1])["k"] == nil)
        #expect(JSONValue.number(1e300).int == nil)
    }
}

@Suite("JSON strings")
struct JSONStringTests {
    @Test func everyEscapeDecodes() throws {
        #expect(try parse(#""\" \\ \/ \b \f \n \r \t""#) == .string("\" \\ / \u{8} \u{c} \n \r \t"))
        #expect(try parse(#""\u0041\u00e9\u20AC\u0000""#) == .string("Aé€\u{0}"))
    }

    @Test func surrogatePairsJoinIntoOneScalar() throws {
        #expect(try parse(#""\ud83d\ude00""#) == .string("😀"))
        #expect(try parse(#""\uD83D\uDC4D\uD83C\uDFFD""#) == .string("👍🏽"))
    }

    @Test func loneSurrogatesBecomeTheReplacementCharacter() throws {
        #expect(try parse(#""\ud83d""#) == .string("\u{FFFD}"))
        #expect(try parse(#""\ude00x""#) == .string("\u{FFFD}x"))
        #expect(try parse(#""\ud83dx""#) == .string("\u{FFFD}x"))
        // A high surrogate followed by an escape that is not a low one: both are kept apart.
        #expect(try parse(#""\ud83d\u0041""#) == .string("\u{FFFD}A"))
        #expect(try parse(#""\ud83d\ud83d\ude00""#) == .string("\u{FFFD}😀"))
    }

    @Test func rawUTF8PassesThrough() throws {
        #expect(try parse("\"héllo €😀\"") == .string("héllo €😀"))
        #expect(try JSONValue.parse(bytes: Array("\"€\"".utf8)) == .string("€"))
    }

    @Test func writingEscapesWhatJSONRequires() {
        let v = JSONValue.string("a\"b\\c\nd\u{1}\u{1e}\u{2028}é😀")
        #expect(v.text == #""a\"b\\c\nd\u0001\u001e\u2028é😀""#)
        #expect((try? JSONValue.parse(v.text)) == v)
    }

    /// The writer appends unescaped runs whole; this is the rule it must
    /// keep, written a scalar at a time.
    private static func escapedByScalar(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where u.value < 0x20 || u.value == 0x2028 || u.value == 0x2029:
                let hex = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }

    @Test func writingMatchesTheScalarRuleOnRandomText() throws {
        // U+2020 and U+20AC share the lead byte E2 with U+2028/U+2029; "e" plus
        // U+0301 is one character of two scalars; CR LF is one character.
        let pieces = ["a", "Z", " ", "\"", "\\", "\n", "\r", "\r\n", "\t", "\u{0}", "\u{1f}", "\u{7f}", "\u{2028}", "\u{2029}",
                      "\u{2020}", "€", "é", "e\u{301}", "😀", "\u{E2}", "/"]
        var rng = SeededRandom(seed: 11)
        for _ in 0..<3_000 {
            let text = (0..<Int(rng.next() % 12)).map { _ in pieces[Int(rng.next() % UInt64(pieces.count))] }.joined()
            let written = JSONText.string(text)
            #expect(written == Self.escapedByScalar(text), "\(Array(text.unicodeScalars))")
            #expect(try JSONValue.parse(written) == .string(text))
        }
    }
}

@Suite("JSON numbers")
struct JSONNumberTests {
    @Test func integersNegativesAndExponents() throws {
        #expect(try parse("0") == 0)
        #expect(try parse("-12") == -12)
        #expect(try parse("1e3") == 1000)
        #expect(try parse("1E+3") == 1000)
        #expect(try parse("25e-1") == 2.5)
        #expect(try parse("-0.5e1") == -5)
        #expect(try parse("1.25") == 1.25)
    }

    @Test func negativeZeroIsZeroAndWritesAsZero() throws {
        let v = try parse("-0")
        #expect(v.number == 0)
        #expect(v.number?.sign == .minus)
        #expect(v.text == "0")
        #expect(v.int == 0)
    }

    @Test func integralValuesWriteWithoutAFraction() {
        #expect(JSONValue.number(25000).text == "25000")
        #expect(JSONValue.number(9_007_199_254_740_992).text == "9007199254740992")
        #expect(JSONValue.number(-9_007_199_254_740_992).text == "-9007199254740992")
        #expect(JSONValue.number(0.1).text == "0.1")
        #expect(JSONValue.number(.nan).text == "null")
        #expect(JSONValue.number(.infinity).text == "null")
    }

    @Test func bigIntegersBecomeTheNearestDoubleAndStayValidJSON() throws {
        let v = try parse("12345678901234567890")
        #expect(v.number == 12345678901234567890.0)
        #expect(v.int == nil)
        #expect(try parse(v.text) == v)
        let huge = try parse("1" + String(repeating: "0", count: 300))
        #expect(huge.number == 1e300)
        #expect(try parse(huge.text) == huge)
    }

    @Test(arguments: ["1e999", "-1e999"])
    func numbersOutOfRangeAreRefused(text: String) {
        #expect(throws: JSONError.self) { try parse(text) }
    }
}

@Suite("JSON rejects")
struct JSONRejectTests {
    @Test(arguments: [
        ("[1,2,]", "trailing comma in array"),
        (#"{"a":1,}"#, "trailing comma in object"),
        ("01", "leading zero"),
        ("-01", "leading zero after minus"),
        ("1.", "no digit after point"),
        (".5", "no digit before point"),
        ("1e", "no exponent digits"),
        ("+1", "plus sign"),
        ("-", "lone minus"),
        (#""abc"#, "unterminated string"),
        ("\"a\u{1}b\"", "control character in string"),
        ("\"a\nb\"", "newline in string"),
        (#""\x41""#, "bad escape"),
        (#""\u12G4""#, "bad unicode escape"),
        (#""\u12""#, "short unicode escape"),
        ("[1] 2", "trailing value"),
        ("{} x", "trailing garbage"),
        ("", "empty text"),
        ("   ", "only whitespace"),
        ("NaN", "NaN"),
        ("Infinity", "Infinity"),
        ("tru", "cut literal"),
        ("nul", "cut null"),
        ("[1 2]", "missing comma"),
        (#"{"a" 1}"#, "missing colon"),
        ("{a:1}", "unquoted key"),
        ("[", "unterminated array"),
        (#"{"a":1"#, "unterminated object"),
        ("/* c */ 1", "comment"),
        ("'a'", "single quotes"),
    ])
    func refused(text: String, why: String) {
        #expect(throws: JSONError.self, "\(why)") { try parse(text) }
    }

    @Test func depthLimitIs64ByDefault() throws {
        #expect(try parse(nested(64)).text == nested(64))
        let error = #expect(throws: JSONError.self) { try parse(nested(65)) }
        #expect(error?.message.contains("64") == true)
        #expect(throws: JSONError.self) { try JSONValue.parse(#"{"a":[1]}"#, maxDepth: 1) }
        #expect(try JSONValue.parse(#"{"a":1}"#, maxDepth: 1) == ["a": 1])
    }

    @Test func stringBytesParseExactlyWhenTheyAreValidUTF8() throws {
        // Plain ASCII runs take a path without validation; any byte above
        // 0x7F anywhere in the string must still be checked.
        let alphabet: [UInt8] = Array("ab ~".utf8) + [0x7F, 0x80, 0xBF, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xED, 0xA0, 0xF0, 0x9F, 0x98, 0x80, 0xFF]
        var rng = SeededRandom(seed: 5)
        var valid = 0
        for _ in 0..<4_000 {
            let body = (0..<Int(rng.next() % 10)).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }
            let expected = String(validating: body, as: UTF8.self)
            let parsed = try? JSONValue.parse(bytes: [0x5B, 0x22] + body + [0x22, 0x2C, 0x22, 0x61, 0x22, 0x5D])
            #expect(parsed == expected.map { .array([.string($0), .string("a")]) }, "\(body)")
            if expected != nil { valid += 1 }
        }
        #expect(valid > 100)
    }

    @Test func invalidUTF8InAStringIsRefused() {
        for bytes: [UInt8] in [[0x22, 0xFF, 0x22], [0x22, 0xC3, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0x5C, 0x6E, 0x80, 0x22]] {
            #expect(throws: JSONError.self) { try JSONValue.parse(bytes: bytes) }
        }
    }

    @Test func errorsSayWhere() {
        let error = #expect(throws: JSONError.self) { try parse(#"{"a":tru}"#) }
        #expect(error?.offset == 5)
        #expect(error.map { "\($0)" }?.contains("byte 5") == true)
    }

    @Test func randomInputNeverTrapsAndWhatParsesRoundTrips() throws {
        // Bytes drawn mostly from JSON's own alphabet, so many inputs get deep into the parser.
        let alphabet = Array(#"{}[]:,"\ -+.eE0123456789truefalsnul/bfnrtu"#.utf8) + [0x00, 0x1F, 0x80, 0xC3, 0xA9, 0xED, 0xFF]
        var rng = SeededRandom(seed: 7)
        var parsed = 0
        for _ in 0..<4_000 {
            let n = Int(rng.next() % 24)
            let bytes = (0..<n).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }
            guard let v = try? JSONValue.parse(bytes: bytes, maxDepth: 4) else { continue }
            parsed += 1
            #expect(try JSONValue.parse(v.text, maxDepth: 4) == v)
        }
        #expect(parsed > 0)
    }
}
