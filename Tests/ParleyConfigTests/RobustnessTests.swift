import ParleyJournal
import Testing
@testable import ParleyConfig

/// The parser will be fuzzed: on any input it must return or throw, quickly, without
/// crashing or recursing without bound.
@Suite(.timeLimit(.minutes(2))) struct RobustnessTests {
    static let seeds: [String] = [
        ReaderTests.botConfig,
        """
        # This is a TOML document
        title = "TOML Example"
        [owner]
        name = "Tom Preston-Werner"
        dob = 1979-05-27T07:32:00-08:00
        [database]
        enabled = true
        ports = [ 8000, 8001, 8002 ]
        data = [ ["delta", "phi"], [3.14] ]
        temp_targets = { cpu = 79.5, case = 72.0 }
        [servers.alpha]
        ip = "10.0.0.1"
        [[fruits]]
        name = "apple"
        [fruits.physical]
        color = "red"
        [[fruits.varieties]]
        name = "red delicious"
        """,
        #"""
        str = "esc \t \" \\ \u00E9 \U0001F600"
        ml = """
        Roses \
          are red"""
        lit = 'C:\path'
        mll = '''
        raw ''text'' '''
        hex = 0xdead_beef
        oct = 0o755
        bin = 0b1101
        flt = [6.626e-34, -inf, nan, 1_000.5]
        dt = [1979-05-27 07:32:00Z, 1979-05-27T00:32:00.999999, 1979-05-27, 07:32:00]
        "quoted key".dotted.'lit' = { a.b = [1, { c = 2 }], d = {} }
        """#,
    ]

    static let alphabet: [UInt8] = Array("[]{}\"'=.,#\n\r\t \\_-+:0123456789abcdefxobeEtrunaiTZz".utf8) + [0x00, 0x7F, 0xC3, 0xA9, 0xFF, 0xE2]

    /// Parses and, on success, walks the whole tree; either outcome is fine.
    /// Returns whether the input parsed.
    @discardableResult
    static func exercise(_ bytes: [UInt8]) -> Bool {
        guard let doc = try? TOMLDocument(parsing: bytes, file: "fuzz.toml") else { return false }
        _ = doc.plain
        _ = try? doc.read { t in t.ignoreAll() }
        return true
    }

    @Test func randomlyMutatedDocumentsNeverCrash() {
        var rng = SeededRandom(seed: 0x5EED_0F_7041)
        let clock = ContinuousClock()
        var slowest = Duration.zero
        var parsed = 0
        for iteration in 0..<4000 {
            var bytes = Array(Self.seeds[iteration % Self.seeds.count].utf8)
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                guard !bytes.isEmpty else { break }
                let i = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<6, using: &rng) {
                case 0:  // delete a short range
                    bytes.removeSubrange(i..<min(bytes.count, i + Int.random(in: 1...8, using: &rng)))
                case 1:  // insert interesting bytes
                    for _ in 0..<Int.random(in: 1...3, using: &rng) {
                        bytes.insert(Self.alphabet.randomElement(using: &rng) ?? 0, at: i)
                    }
                case 2:  // duplicate a chunk
                    let chunk = bytes[i..<min(bytes.count, i + Int.random(in: 1...40, using: &rng))]
                    bytes.insert(contentsOf: chunk, at: Int.random(in: 0...bytes.count, using: &rng))
                case 3:  // truncate
                    bytes.removeSubrange(i...)
                case 4:  // replace a byte
                    bytes[i] = Self.alphabet.randomElement(using: &rng) ?? 0
                default:  // random byte anywhere
                    bytes[i] = UInt8.random(in: 0...255, using: &rng)
                }
            }
            var ok = false
            let elapsed = clock.measure { ok = Self.exercise(bytes) }
            slowest = max(slowest, elapsed)
            if ok { parsed += 1 }
        }
        #expect(slowest < .seconds(1))
        #expect(parsed > 0)  // some mutations stay valid, so the success path is exercised too
    }

    @Test func everyPrefixOfAValidDocumentReturnsOrThrows() {
        for seed in Self.seeds {
            let bytes = Array(seed.utf8)
            for end in 0...bytes.count { Self.exercise(Array(bytes[..<end])) }
        }
    }

    static let hostile: [(String, String)] = {
        let n = 100_000
        return [
            ("deep arrays", "a=" + String(repeating: "[", count: n)),
            ("deep closed arrays", "a = " + String(repeating: "[", count: n) + String(repeating: "]", count: n)),
            ("deep inline tables", "a=" + String(repeating: "{a=", count: n)),
            ("deep closed inline tables", "a=" + String(repeating: "{a=", count: n) + "1" + String(repeating: "}", count: n)),
            ("deep mixed", "a = " + String(repeating: "[{a = ", count: n / 2)),
            ("long header", "[" + String(repeating: "a.", count: n) + "a]"),
            ("long array header", "[[" + String(repeating: "a.", count: n) + "a]]"),
            ("long dotted key", String(repeating: "a.", count: n) + "a = 1"),
            ("long dotted key in inline table", "x = {" + String(repeating: "a.", count: n) + "a = 1}"),
            ("quote run", "a = \"\"\"" + String(repeating: "\"", count: n)),
            ("apostrophe run", "a = '''" + String(repeating: "'", count: n)),
            ("long number", "a = " + String(repeating: "1", count: n)),
            ("long float", "a = 1." + String(repeating: "1", count: n)),
            ("long unterminated string", "a = \"" + String(repeating: "x", count: n)),
            ("many open brackets in a key", String(repeating: "[", count: n)),
            ("many equals", String(repeating: "=", count: n)),
            ("backslash run", "a = \"\"\"" + String(repeating: "\\", count: n)),
        ]
    }()

    @Test func hostileInputsFailFast() {
        let clock = ContinuousClock()
        for (name, text) in Self.hostile {
            var error: ConfigError?
            let elapsed = clock.measure { error = parseError(text) }
            #expect(error != nil, "\(name) should be rejected")
            #expect(elapsed < .seconds(3), "\(name) took \(elapsed)")
        }
        #expect(parseError("a=" + String(repeating: "[", count: 100_000))?.message.contains("deeper than 64 levels") == true)
        #expect(parseError("[" + String(repeating: "a.", count: 100_000) + "a]")?.message.contains("deeper than 64 levels") == true)
    }

    /// Generators of large valid documents, and a check of the parsed result.
    static let scalable: [(String, @Sendable (Int) -> String, @Sendable (TOMLValue.Table, Int) -> Bool)] = [
        ("long array", { "a = [" + String(repeating: "1,", count: $0) + "]" }, { $0["a"]?.arrayValue?.count == $1 }),
        ("array-of-tables elements", { String(repeating: "[[t]]\nx = 1\n", count: $0) }, { $0["t"]?.arrayValue?.count == $1 }),
        ("nested array-of-tables elements", { String(repeating: "[[a.b.c.d]]\nx = 1\n", count: $0) },
         { $0["a"]?.tableValue?["b"]?.tableValue?["c"]?.tableValue?["d"]?.arrayValue?.count == $1 }),
        ("tables", { (0..<$0).map { "[t\($0)]\nx = \($0)\n" }.joined() }, { $0.count == $1 }),
        ("keys", { (0..<$0).map { "k\($0) = \($0)\n" }.joined() }, { $0.count == $1 }),
        ("dotted keys", { (0..<$0).map { "a.k\($0) = \($0)\n" }.joined() }, { $0["a"]?.tableValue?.count == $1 }),
        ("inline tables", { "a = [" + String(repeating: "{x = 1, y.z = 2},", count: $0) + "]" }, { $0["a"]?.arrayValue?.count == $1 }),
        ("long string", { "a = \"" + String(repeating: "é\\t", count: $0) + "\"" }, { $0["a"]?.stringValue?.count == 2 * $1 }),
        ("long multi-line string", { "a = \"\"\"" + String(repeating: "x\"\"\n", count: $0) + "\"\"\"" }, { $0["a"]?.stringValue?.count == 4 * $1 }),
        ("long comment", { "# " + String(repeating: "x", count: 10 * $0) + "\na = 1" }, { t, _ in t.count == 1 }),
        ("long key", { String(repeating: "k", count: 10 * $0) + " = 1" }, { t, _ in t.count == 1 }),
    ]

    /// Quadrupling the input must not take much more than four times as long. The
    /// absolute floor keeps timer noise on tiny runs from failing the test.
    @Test(arguments: 0..<scalable.count)
    func largeValidInputsParseInLinearTime(_ index: Int) throws {
        let (name, generate, verify) = Self.scalable[index]
        let clock = ContinuousClock()
        let n = 4000
        let small = generate(n), large = generate(4 * n)
        var doc: TOMLValue.Table = [:]
        let t1 = try clock.measure { doc = try parse(small) }
        #expect(verify(doc, n), "\(name)")
        let t4 = try clock.measure { doc = try parse(large) }
        #expect(verify(doc, 4 * n), "\(name)")
        #expect(t4 < max(t1 * 12, .milliseconds(300)), "\(name): \(t1) for n, \(t4) for 4n")
    }

    @Test func deepTablesWithinTheLimit() throws {
        let text = (1...64).map { "[" + Array(repeating: "a", count: $0).joined(separator: ".") + "]\nx = 1\n" }.joined()
        var table = try parse(text)
        for _ in 1...63 { table = try #require(table["a"]?.tableValue) }
        #expect(table["x"] == 1)
        #expect(table["a"] == ["x": 1])
    }

    @Test func positionsStayCorrectOnALongLine() throws {
        let root = try TOMLDocument(parsing: "a = [" + String(repeating: "1, ", count: 1000) + "22]", file: testFile).root
        let last = try #require(root["a"]?.arrayValue?.last)
        #expect(last.position == TOMLPosition(line: 1, column: 6 + 3000))
    }
}
