import Testing
@testable import ParleyConfig

/// The strict reader: typed accessors, defaults, ranges, nested tables, unknown keys.
@Suite struct ReaderTests {
    static let botConfig = """
    name = "parley"
    instructions = 5_000
    interval = 2
    rooms = ["#general", "#dev"]
    started = 1979-05-27

    [bot]
    fsync = "interval"
    verbose = true

    [limits]
    memory = 1.5

    [[plugin]]
    name = "dice"
    config = { sides = 6, names = ["d6"] }

    [[plugin]]
    name = "echo"
    [plugin.config]
    prefix = ">"
    """

    enum Fsync: String, CaseIterable, Sendable { case always, interval, never }

    struct Plugin: Equatable {
        var name: String
        var config: TOMLValue.Table?
    }

    @Test func readsACompleteConfig() throws {
        let doc = try TOMLDocument(parsing: Self.botConfig, file: "bot.toml")
        var plugins: [Plugin] = []
        try doc.root.read { t in
            #expect(try t.string("name") == "parley")
            #expect(try t.string("prefix", default: "!") == "!")
            #expect(try t.int("instructions", default: 10_000_000, range: 1...) == 5_000)
            #expect(try t.double("interval", default: 0.5, range: 0.1...) == 2.0)
            #expect(try t.stringArray("rooms", default: []) == ["#general", "#dev"])
            #expect(try t.intArray("ports", default: [1]) == [1])
            #expect(try t.datetime("started").text == "1979-05-27")
            #expect(try t.optionalString("absent") == nil)
            #expect(t.line(of: "rooms") == 4)
            #expect(t.line(of: "nope") == nil)
            #expect(t.contains("bot"))
            try t.table("bot") { (b) throws in
                #expect(try b.oneOf("fsync", ["always", "interval", "never"], default: "always") == "interval")
                #expect(try b.oneOf("fsync", default: Fsync.always) == .interval)
                #expect(try b.bool("verbose"))
                #expect(try b.bool("quiet", default: false) == false)
                #expect(b.path == ["bot"])
            }
            let memory = try t.optionalTable("limits") { l in try l.double("memory") }
            #expect(memory == 1.5)
            #expect(try t.optionalTable("absent-table") { _ in 1 } == nil)
            let indices = try t.tableArray("plugin") { (index, p) in
                plugins.append(Plugin(name: try p.string("name"), config: p.rawTable("config")?.plain))
                return index
            }
            #expect(indices == [0, 1])
            #expect(try t.tableArray("none") { (i, _) in i } == [])
        }
        #expect(plugins == [
            Plugin(name: "dice", config: ["sides": 6, "names": ["d6"]]),
            Plugin(name: "echo", config: ["prefix": ">"]),
        ])
    }

    @Test func unknownKeyIsAnErrorWithItsLine() throws {
        let doc = try TOMLDocument(parsing: "name = \"x\"\n\nprefx = \"!\"\n", file: "bot.toml")
        let error = configError {
            try doc.read { t in
                _ = try t.string("name")
                _ = try t.string("prefix", default: "!")
            }
        }
        #expect(error?.kind == .unknownKey)
        #expect(error?.line == 3)
        #expect(error?.key == "prefx")
        #expect(error?.description == "bot.toml:3: unknown key 'prefx' (did you mean 'prefix'?)")
    }

    @Test func unknownKeyInNestedTableNamesTheFullPath() throws {
        let doc = try TOMLDocument(parsing: "[bot]\nname = 'a'\n[bot.limits]\nmemory = 1\nx = 2\n", file: "bot.toml")
        let error = configError {
            try doc.read { t in
                try t.table("bot") { b in
                    _ = try b.string("name")
                    try b.optionalTable("limits") { l in _ = try l.int("memory") }
                }
            }
        }
        #expect(error?.description == "bot.toml:5: unknown key 'bot.limits.x'")
    }

    @Test func unreadSubtableIsUnknown() throws {
        let doc = try TOMLDocument(parsing: "a = 1\n[extra]\nb = 2\n", file: "bot.toml")
        let error = configError { try doc.read { t in _ = try t.int("a") } }
        #expect(error?.description == "bot.toml:2: unknown key 'extra'")
    }

    @Test func oneOfMessageMatchesTheBrief() throws {
        let doc = try TOMLDocument(parsing: "[bot]\n\n\n\n\n\nfsync = \"sometimes\"\n", file: "bot.toml")
        let error = configError {
            try doc.read { t in
                try t.table("bot") { b in _ = try b.oneOf("fsync", ["always", "interval", "never"], default: "always") }
            }
        }
        #expect(error?.description == "bot.toml:7: key 'bot.fsync': expected one of always, interval, never, got \"sometimes\"")
        #expect(error?.kind == .invalidValue)
        let enumError = configError {
            try doc.read { t in try t.table("bot") { b in _ = try b.oneOf("fsync", as: Fsync.self) } }
        }
        #expect(enumError?.message == "expected one of always, interval, never, got \"sometimes\"")
    }

    @Test func typeMismatchSaysExpectedAndFound() throws {
        let doc = try TOMLDocument(parsing: """
        name = 5
        limit = "10"
        ratio = true
        flag = "yes"
        rooms = ["a", 2]
        sub = [1]
        list = [{a = 1}, 3]
        when = 12
        """, file: "bot.toml")
        let cases: [(String, (TableReader) throws -> Void)] = [
            ("bot.toml:1: key 'name': expected a string, got integer 5", { _ = try $0.string("name") }),
            ("bot.toml:2: key 'limit': expected an integer, got \"10\"", { _ = try $0.int("limit", default: 1) }),
            ("bot.toml:3: key 'ratio': expected a number, got boolean true", { _ = try $0.double("ratio") }),
            ("bot.toml:4: key 'flag': expected a boolean, got \"yes\"", { _ = try $0.bool("flag", default: false) }),
            ("bot.toml:5: key 'rooms': expected an array of strings, element 2 is integer 2", { _ = try $0.stringArray("rooms") }),
            ("bot.toml:6: key 'sub': expected a table, got an array", { try $0.optionalTable("sub") { _ in } }),
            ("bot.toml:7: key 'list': expected an array of tables, element 2 is integer 3", { try $0.tableArray("list") { _, t in t.ignoreAll() } }),
            ("bot.toml:8: key 'when': expected a date or time, got integer 12", { _ = try $0.datetime("when") }),
            ("bot.toml:1: key 'name': expected one of a, b, got integer 5", { _ = try $0.oneOf("name", ["a", "b"]) }),
        ]
        for (expected, body) in cases {
            let error = configError { try doc.read { t in t.ignoreAll(); try body(t) } }
            #expect(error?.description == expected)
            #expect(error?.kind == .typeMismatch)
        }
    }

    @Test func rangeViolationsSayTheAllowedRange() throws {
        let doc = try TOMLDocument(parsing: "[vm]\ninstructions = 0\ninterval = 0.05\nport = 70000\nn = 10\nm = -1\n", file: "bot.toml")
        let cases: [(String, (TableReader) throws -> Void)] = [
            ("bot.toml:2: key 'vm.instructions': 0 is out of range (allowed: >= 1)", { _ = try $0.int("instructions", default: 10, range: 1...) }),
            ("bot.toml:3: key 'vm.interval': 0.05 is out of range (allowed: >= 0.1)", { _ = try $0.double("interval", default: 0.5, range: 0.1...) }),
            ("bot.toml:4: key 'vm.port': 70000 is out of range (allowed: 1...65535)", { _ = try $0.int("port", range: 1...65535) }),
            ("bot.toml:5: key 'vm.n': 10 is out of range (allowed: 0..<10)", { _ = try $0.optionalInt("n", range: 0..<10) }),
            ("bot.toml:5: key 'vm.n': 10 is out of range (allowed: <= 5)", { _ = try $0.int("n", range: ...5) }),
            ("bot.toml:6: key 'vm.m': -1.0 is out of range (allowed: 0.0...1.0)", { _ = try $0.double("m", range: 0.0...1.0) }),
        ]
        for (expected, body) in cases {
            let error = configError { try doc.read { t in try t.table("vm") { v in v.ignoreAll(); try body(v) } } }
            #expect(error?.description == expected)
            #expect(error?.kind == .outOfRange)
        }
    }

    @Test func missingRequiredKeyPointsAtItsTable() throws {
        let doc = try TOMLDocument(parsing: "a = 1\n\n[bot]\nx = 1\n", file: "bot.toml")
        let error = configError { try doc.read { t in t.ignore("a"); try t.table("bot") { b in _ = try b.string("name") } } }
        #expect(error?.description == "bot.toml:3: key 'bot.name': missing required key")
        #expect(error?.kind == .missingKey)
        let rootError = configError { try doc.read { t in _ = try t.int("count") } }
        #expect(rootError?.description == "bot.toml:1: key 'count': missing required key")
        let tableError = configError { try doc.read { t in try t.table("limits") { _ in } } }
        #expect(tableError?.description == "bot.toml:1: key 'limits': missing required table")
    }

    @Test func defaultsDoNotHideWrongTypes() throws {
        let doc = try TOMLDocument(parsing: "prefix = 1", file: "bot.toml")
        let error = configError { try doc.read { t in _ = try t.string("prefix", default: "!") } }
        #expect(error?.kind == .typeMismatch)
    }

    @Test func doubleAcceptsIntegersButIntRejectsFloats() throws {
        let doc = try TOMLDocument(parsing: "a = 3\nb = 3.0\n", file: "bot.toml")
        try doc.read { (t) throws in
            #expect(try t.double("a") == 3.0)
            #expect(throws: ConfigError.self) { try t.int("b") }
        }
    }

    @Test func tableArrayReportsErrorsAtTheElement() throws {
        let doc = try TOMLDocument(parsing: "[[bot]]\nname = 'a'\n[[bot]]\nname = 'b'\nnmae = 'c'\n", file: "bot.toml")
        var seen: [String] = []
        let error = configError {
            try doc.read { t in
                _ = try t.tableArray("bot") { (_, b) in seen.append(try b.string("name")) }
            }
        }
        #expect(seen == ["a", "b"])
        // `name` is present and read, so it is not offered as a correction.
        #expect(error?.description == "bot.toml:5: unknown key 'bot.nmae'")
    }

    @Test func rawTableKeepsTheSubtreeAndDefersTypeErrors() throws {
        let doc = try TOMLDocument(parsing: "[plugin]\nlevel = 3\nnested = { a = [1, 2] }\n", file: "bot.toml")
        let raw = try doc.read { t in t.rawTable("plugin") }
        #expect(raw?.plain == ["level": 3, "nested": ["a": [1, 2]]])
        #expect(raw?.file == "bot.toml")
        // The subtree can be read strictly later, with full paths in messages.
        let error = configError { try raw?.read { p in _ = try p.int("level") } }
        #expect(error?.description == "bot.toml:3: unknown key 'plugin.nested'")

        let bad = try TOMLDocument(parsing: "x = 1\nplugin = 'oops'\n", file: "bot.toml")
        let typeError = configError { _ = try bad.read { t in t.ignore("x"); return t.rawTable("plugin") } }
        #expect(typeError?.description == "bot.toml:2: key 'plugin': expected a table, got \"oops\"")
        #expect(try bad.read { t in t.ignore("x", "plugin"); return t.raw("absent") } == nil)
    }

    @Test func customErrorsCarryTheKeyLine() throws {
        let doc = try TOMLDocument(parsing: "[server]\n\nport = 80\n", file: "bot.toml")
        let error = configError {
            try doc.read { t in
                try t.table("server") { s in
                    let port = try s.int("port")
                    if port < 1024 { throw s.error("port", "ports below 1024 need root") }
                }
            }
        }
        #expect(error?.description == "bot.toml:3: key 'server.port': ports below 1024 need root")
        #expect(error?.kind == .invalidValue)
    }

    @Test func bodyErrorsPropagateUnchanged() throws {
        struct Custom: Error {}
        let doc = try TOMLDocument(parsing: "a = 1", file: "bot.toml")
        #expect(throws: Custom.self) { try doc.read { _ in throw Custom() } }
    }

    @Test func keysWithSpecialCharactersAreQuotedInMessages() throws {
        let doc = try TOMLDocument(parsing: "[\"my bot\"]\n\"a.b\" = 1\n", file: "bot.toml")
        let error = configError { try doc.read { t in try t.table("my bot") { _ in } } }
        #expect(error?.description == "bot.toml:2: unknown key '\"my bot\".\"a.b\"'")
    }
}
