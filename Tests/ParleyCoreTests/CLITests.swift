import Foundation
import Testing

/// The `parley` binary itself: golden transcripts for the shipped plugins and
/// the harness's exit codes. `make test` builds the binary before the tests.
struct CLITests {
    static let binary = packageRoot.appendingPathComponent(".build/debug/parley").path

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func parley(_ args: [String], stdin: String? = nil) throws -> Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = args
        let out = Pipe(), err = Pipe(), inp = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = inp
        try p.run()
        if let stdin { inp.fileHandleForWriting.write(Data(stdin.utf8)) }
        try inp.fileHandleForWriting.close()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Result(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }

    @Test func binaryIsBuilt() {
        #expect(FileManager.default.isExecutableFile(atPath: Self.binary), "run `swift build` (make test does) before the tests")
    }

    @Test(arguments: ["greeter", "echo", "moderator", "persona"])
    func goldenTranscript(plugin: String) throws {
        let golden = fixture("Golden")
        var args = ["plugin", "test", packageRoot.appendingPathComponent("Plugins/\(plugin).lua").path,
                    "--events", golden.appendingPathComponent("\(plugin).events.jsonl").path]
        let config = golden.appendingPathComponent("\(plugin).toml").path
        if FileManager.default.fileExists(atPath: config) { args += ["--config", config] }
        let r = try Self.parley(args)
        let expected = try String(contentsOf: golden.appendingPathComponent("\(plugin).expected.jsonl"), encoding: .utf8)
        #expect(r.status == 0, "stderr: \(r.stderr)")
        #expect(r.stdout == expected)
    }

    @Test func eventsFromStandardInput() throws {
        let r = try Self.parley(["plugin", "test", packageRoot.appendingPathComponent("Plugins/echo.lua").path, "--events", "-"],
                                stdin: #"{"type":"message","room":"r","user":"u","text":"!ping"}"# + "\n")
        #expect(r.status == 0)
        #expect(r.stdout == #"{"plugin":"echo","action":"send","room":"r","text":"pong"}"# + "\n")
    }

    @Test func badInputExitsTwoNamingFileAndLine() throws {
        let echo = packageRoot.appendingPathComponent("Plugins/echo.lua").path
        // (input, line of the error on stdin, message)
        let cases: [(String, Int, String)] = [
            ("{\"type\":\"message\",\"room\":\"r\",\"user\":\"u\",\"text\":\"hi\"}\n{\"type\":\"jion\"}\n", 2, "unknown event type \"jion\""),
            ("\n\n{not json\n", 3, "invalid JSON"),
            ("{\"type\":\"message\",\"room\":\"r\"}\n", 1, "invalid message event: \"user\" must be a string"),
            ("[1,2]\n", 1, "invalid event: expected a JSON object"),
        ]
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let ping = "{\"type\":\"message\",\"room\":\"r\",\"user\":\"u\",\"text\":\"!ping\"}\n"
        for (input, line, message) in cases {
            // Standard input is read a line at a time: the bad line stops the run there.
            let r = try Self.parley(["plugin", "test", echo, "--events", "-"], stdin: input)
            #expect(r.status == 2)
            #expect(r.stderr.contains("<stdin>:\(line): \(message)"), "\(r.stderr)")
            // A file is checked whole before anything runs (the !ping before the bad line never answers).
            let file = dir.appendingPathComponent("events.jsonl")
            try (ping + input).write(to: file, atomically: true, encoding: .utf8)
            let f = try Self.parley(["plugin", "test", echo, "--events", file.path])
            #expect(f.status == 2)
            #expect(f.stderr.contains("\(file.path):\(line + 1): \(message)"), "\(f.stderr)")
            #expect(f.stdout.isEmpty)
        }
        let missing = try Self.parley(["plugin", "test", "/no/such/plugin.lua", "--events", "-"], stdin: "")
        #expect(missing.status == 2 && missing.stderr.contains("/no/such/plugin.lua"))
        let noEvents = try Self.parley(["plugin", "test", echo, "--events", "/no/such/events.jsonl"])
        #expect(noEvents.status == 2 && noEvents.stderr.contains("/no/such/events.jsonl"))
    }

    @Test func badConfigExitsTwoNamingFileLineAndKey() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("bot.toml")
        try "[[bot]]\nname = \"b\"\n\n[bot.limits]\ninstructoins = 5\n".write(to: config, atomically: true, encoding: .utf8)
        let r = try Self.parley(["plugin", "test", packageRoot.appendingPathComponent("Plugins/echo.lua").path,
                                 "--events", "-", "--config", config.path], stdin: "")
        #expect(r.status == 2)
        #expect(r.stderr.contains("bot.toml:5: unknown key 'bot.limits.instructoins'"), "\(r.stderr)")
    }

    @Test func aHostilePluginNeverCrashesTheHarness() throws {
        let r = try Self.parley(["plugin", "test", fixture("Hostile/loop_xpcall_handler.lua").path,
                                 packageRoot.appendingPathComponent("Plugins/echo.lua").path, "--events", "-"],
                                stdin: "{\"type\":\"message\",\"room\":\"r\",\"user\":\"u\",\"text\":\"go\"}\n{\"type\":\"message\",\"room\":\"r\",\"user\":\"u\",\"text\":\"!ping\"}\n")
        #expect(r.status == 0)
        #expect(r.stdout.contains("\"kind\":\"budget\""))
        #expect(r.stdout.hasSuffix("{\"plugin\":\"echo\",\"action\":\"send\",\"room\":\"r\",\"text\":\"pong\"}\n"))
    }
}

extension CLITests {
    @Test func journalKeepsStateBetweenRunsOfTheBinary() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let plugin = dir.appendingPathComponent("counter.lua")
        try #"bot.command("count", function(m) local n = (bot.state.get("n") or 0) + 1; bot.state.set("n", n); m:reply("ack " .. n) end)"#
            .write(to: plugin, atomically: true, encoding: .utf8)
        let journal = dir.appendingPathComponent("journal").path
        let input = #"{"type":"message","room":"r","user":"u","text":"!count"}"# + "\n"
        for expected in ["ack 1", "ack 2", "ack 3"] {
            let r = try Self.parley(["plugin", "test", plugin.path, "--events", "-", "--journal", journal], stdin: input)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("\"text\":\"\(expected)\""))
        }
        let bad = try Self.parley(["plugin", "test", plugin.path, "--events", "-", "--journal", plugin.path], stdin: input)
        #expect(bad.status == 1)
        #expect(bad.stderr.contains(plugin.path))
    }
}

/// `parley check`: the config and every plugin's load, without connecting.
struct CheckCommandTests {
    @Test func aGoodConfigPrintsWhatWouldRun() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("bot.toml")
        try """
        [[bot]]
        name = "greeter"
        plugins = ["\(packageRoot.appendingPathComponent("Plugins/greeter.lua").path)"]
        journal = "state/greeter"
        [[bot]]
        name = "user{n}"
        count = 2
        transport = "socketio"
        plugins = ["\(packageRoot.appendingPathComponent("Plugins/echo.lua").path)"]
        """.write(to: config, atomically: true, encoding: .utf8)
        let r = try CLITests.parley(["check", config.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("bot greeter: streamchat (embedded server)"), "\(r.stdout)")
        #expect(r.stdout.contains("bot user2: socketio"), "\(r.stdout)")
        #expect(r.stdout.contains("ok: 3 bots"), "\(r.stdout)")
    }

    @Test func pluginsThatFailToLoadAreErrorsWithFileAndLine() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try "bot.on(\"load\", function()\n  local x =\nend)\n".write(to: dir.appendingPathComponent("bad.lua"), atomically: true, encoding: .utf8)
        try "error(\"boom at load\")\n".write(to: dir.appendingPathComponent("boom.lua"), atomically: true, encoding: .utf8)
        let config = dir.appendingPathComponent("bot.toml")
        try "[[bot]]\nname = \"b\"\nplugins = [\"bad.lua\", \"boom.lua\"]\n".write(to: config, atomically: true, encoding: .utf8)
        let r = try CLITests.parley(["check", config.path])
        #expect(r.status == 2)
        #expect(r.stderr.contains("bad.lua:3: unexpected symbol"), "\(r.stderr)")
        #expect(r.stderr.contains("boom.lua:1: boom at load"), "\(r.stderr)")
        #expect(r.stderr.contains("2 plugin errors"), "\(r.stderr)")
    }

    @Test func aMissingPluginOrABadKeyIsAConfigError() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("bot.toml")
        try "[[bot]]\nname = \"b\"\nplugins = [\"nope.lua\"]\n".write(to: config, atomically: true, encoding: .utf8)
        let missing = try CLITests.parley(["check", config.path])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("bot.toml:3") && missing.stderr.contains("nope.lua does not exist"), "\(missing.stderr)")
        let gone = try CLITests.parley(["check", dir.appendingPathComponent("absent.toml").path])
        #expect(gone.status == 2, "\(gone.stderr)")
    }
}
