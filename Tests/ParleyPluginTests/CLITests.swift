import Foundation
import Testing
import ParleyTestSupport

/// The `parley` binary itself: golden transcripts for the shipped plugins and
/// the harness's exit codes. `make test` builds the binary before the tests.
struct CLITests {
    static let binary = packageRoot.appendingPathComponent(".build/debug/parley").path

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// `timeout`: seconds after which coreutils' `timeout` kills the run (status 124 or 137), for commands that must end by themselves.
    /// `through` runs the binary under another command (`setpriv` to be another user, say).
    static func parley(_ args: [String], stdin: String? = nil, timeout: Int? = nil, through: [String] = []) throws -> Result {
        let p = Process()
        let command = (timeout.map { ["/usr/bin/timeout", "-k", "2", String($0)] } ?? []) + through + [binary] + args
        p.executableURL = URL(fileURLWithPath: command[0])
        p.arguments = Array(command.dropFirst())
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

    @Test(arguments: ["greeter", "echo", "moderator", "persona", "standup", "weather", "github"])
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
        // The same through --expect, as a plugin author runs it.
        let checked = try Self.parley(args + ["--expect", golden.appendingPathComponent("\(plugin).expected.jsonl").path])
        #expect(checked.status == 0, "\(checked.stdout)\(checked.stderr)")
        #expect(checked.stdout.hasPrefix("ok: "), "\(checked.stdout)")
    }

    @Test func eventsFromStandardInput() throws {
        let r = try Self.parley(["plugin", "test", packageRoot.appendingPathComponent("Plugins/echo.lua").path, "--events", "-"],
                                stdin: #"{"type":"message","room":"r","user":"u","text":"!ping"}"# + "\n")
        #expect(r.status == 0)
        #expect(r.stdout == #"{"plugin":"echo","action":"send","room":"r","text":"pong"}"# + "\n")
    }

    /// One own-echo rule for `run` and the harness: the bot's own join, leave
    /// and message never reach plugins, so the greeter needs no self check.
    /// Event files that are not regular files: a device, and a named pipe as `<(…)` makes.
    @Test func eventsFromADeviceOrAPipe() throws {
        let echo = packageRoot.appendingPathComponent("Plugins/echo.lua").path
        let none = try Self.parley(["plugin", "test", echo, "--events", "/dev/null"])
        #expect(none.status == 0 && none.stdout.isEmpty, "\(none.stderr)")
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("events").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = Thread {
            let handle = FileHandle(forWritingAtPath: fifo)
            handle?.write(Data((#"{"type":"message","room":"r","user":"u","text":"!ping"}"# + "\n").utf8))
            try? handle?.close()
        }
        writer.start()
        let piped = try Self.parley(["plugin", "test", echo, "--events", fifo], timeout: 30)
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.stdout == #"{"plugin":"echo","action":"send","room":"r","text":"pong"}"# + "\n")
    }

    @Test func theDemoRefusesAPluginsFolderWithoutItsPlugins() throws {
        let r = try Self.parley(["demo", "--plugins", "/nonexistent"], timeout: 30)
        #expect(r.status == 64 && r.stderr.contains("--plugins /nonexistent has no greeter.lua, moderator.lua, persona.lua"), "\(r.stderr)")
    }

    /// A slip on the command line is a usage error (64) that says what is
    /// wrong: a negative number is a bad value, not a missing one.
    @Test func commandLineSlipsAreUsageErrorsThatSayWhy() throws {
        let negative = try Self.parley(["demo", "--seconds", "-1"], timeout: 30)
        #expect(negative.status == 64 && negative.stderr.contains("--seconds must be more than 0 and at most a year (31536000)"), "\(negative.stderr)")
        let huge = try Self.parley(["demo", "--seconds", "1e9"], timeout: 30)
        #expect(huge.status == 64 && huge.stderr.contains("--seconds must be more than 0 and at most a year"), "\(huge.stderr)")
        #expect(negative.stderr.contains("Usage: parley demo"), "\(negative.stderr)")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // compact's retention takes the config's ranges.
        for (option, value, says) in [("--history-days", "0", "--history-days must be from 0.001 to 36500"),
                                      ("--history-days", "0.0000001", "--history-days must be from 0.001 to 36500"),
                                      ("--history-max", "0", "--history-max must be from 1 to 100000000")] {
            let r = try Self.parley(["journal", "compact", dir.path, option, value], timeout: 30)
            #expect(r.status == 64 && r.stderr.contains(says), "\(option) \(value): \(r.stderr)")
        }
        // `plugin = [...]` for `plugins = [...]` is named as the likely slip.
        let config = dir.appendingPathComponent("bot.toml")
        try "[[bot]]\nname = \"b\"\nplugin = [\"echo.lua\"]\n".write(to: config, atomically: true, encoding: .utf8)
        let slip = try Self.parley(["check", config.path], timeout: 30)
        #expect(slip.status == 2 && slip.stderr.contains("bot.toml:3: key 'bot.plugin': expected a table, got an array"), "\(slip.stderr)")
        #expect(slip.stderr.contains("did you mean plugins = [...]?"), "\(slip.stderr)")
        // Help on a command that is not there is a usage error, not the general help.
        let nosuch = try Self.parley(["help", "jounral"], timeout: 30)
        #expect(nosuch.status == 64 && nosuch.stderr.contains("no command 'parley jounral' (the commands are run, check, serve, demo, plugin, journal)"), "\(nosuch.stderr)")
        let deeper = try Self.parley(["help", "journal", "verify", "x"], timeout: 30)
        #expect(deeper.status == 64 && deeper.stderr.contains("'parley journal verify' has no subcommands"), "\(deeper.stderr)")
        let known = try Self.parley(["help", "journal", "verify"], timeout: 30)
        #expect(known.status == 0 && known.stdout.contains("USAGE: parley journal verify"), "\(known.stdout)")
    }

    /// A binary copied elsewhere and run from another folder still finds the
    /// demo's plugins in the checkout it was built from.
    @Test func aCopiedBinaryFindsTheDemosPlugins() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-copy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let copy = dir.appendingPathComponent("parley")
        try FileManager.default.copyItem(atPath: Self.binary, toPath: copy.path)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        p.arguments = ["-k", "2", "60", copy.path, "demo", "--seconds", "2", "--users", "1"]
        p.currentDirectoryURL = dir
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let e = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0 && o.contains("summary:"), "\(e)")
    }

    @Test func theBotsOwnEventsNeverReachPlugins() throws {
        let greeter = packageRoot.appendingPathComponent("Plugins/greeter.lua").path
        let events = [#"{"type":"join","room":"lobby","user":"parley"}"#,
                      #"{"type":"message","room":"lobby","user":"parley","text":"!ping"}"#,
                      #"{"type":"leave","room":"lobby","user":"parley"}"#,
                      #"{"type":"join","room":"lobby","user":"ann"}"#].joined(separator: "\n") + "\n"
        let r = try Self.parley(["plugin", "test", greeter, packageRoot.appendingPathComponent("Plugins/echo.lua").path, "--events", "-"], stdin: events)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("ann"), "only ann is greeted, nothing answers the bot itself: \(r.stdout)")
    }

    @Test func badInputExitsTwoNamingFileAndLine() throws {
        let echo = packageRoot.appendingPathComponent("Plugins/echo.lua").path
        // (input, line of the error on stdin, message)
        let cases: [(String, Int, String)] = [
            ("{\"type\":\"message\",\"room\":\"r\",\"user\":\"u\",\"text\":\"hi\"}\n{\"type\":\"jion\"}\n", 2, "unknown event type \"jion\""),
            ("\n\n{not json\n", 3, "invalid JSON"),
            ("{\"type\":\"message\",\"room\":\"r\"}\n", 1, "invalid message event: \"user\" must be a string"),
            ("[1,2]\n", 1, "invalid event: expected a JSON object"),
            ("{\"type\":\"message\",\"room\":\"r\",\"user\":\"u\",\"text\":\"hi\",\"tiem\":5}\n", 1,
             "invalid message event: unknown key \"tiem\" (the keys are room, user, text, id, time)"),
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
        [[bot]]
        name = "relay"
        transport = "stomp"
        rooms = ["1"]
        [bot.stomp]
        discovery = "http://127.0.0.1:1/where"
        """.write(to: config, atomically: true, encoding: .utf8)
        let r = try CLITests.parley(["check", config.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("bot greeter: streamchat (embedded server)"), "\(r.stdout)")
        #expect(r.stdout.contains("bot user2: socketio"), "\(r.stdout)")
        // STOMP has no embedded server: its bot's server is the one discovery names.
        #expect(r.stdout.contains("bot relay: stomp (found by discovery), rooms 1"), "\(r.stdout)")
        #expect(r.stdout.contains("ok: 4 bots"), "\(r.stdout)")
    }

    /// Configs `run` would only half run: each is a config error with its
    /// line, found by `check`, never a crash or a bot that cannot start.
    @Test func configsThatCannotRunWholeAreRefusedWithTheirLine() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("a"), withIntermediateDirectories: true)
        try "bot.hear('x', function() end)\n".write(to: dir.appendingPathComponent("a/greeter.lua"), atomically: true, encoding: .utf8)
        let greeter = packageRoot.appendingPathComponent("Plugins/greeter.lua").path
        let cases: [(toml: String, line: Int, says: String)] = [
            ("[[bot]]\nname = \"b\"\nplugins = [\"\(greeter)\", \"\(greeter)\"]\n", 3, "are both named 'greeter'"),
            ("[[bot]]\nname = \"b\"\nplugins = [\"\(greeter)\", \"a/greeter.lua\"]\n", 3, "are both named 'greeter'"),
            ("[[bot]]\nname = \"u{n}\"\ncount = 3\njournal = \"state/fleet\"\n", 4, "share the journal"),
            ("[[bot]]\nname = \"a\"\njournal = \"state/x\"\n[[bot]]\nname = \"b\"\n\njournal = \"state/./x\"\n", 7, "bots 'a' and 'b' share the journal"),
            ("[[bot]]\nname = \"b\"\njournal = \"\"\n", 3, "journal must name a directory"),
            ("[[bot]]\nname = \"b\"\njournal = \"state/j\"\nfsync_interval_ms = 5\n", 4,
             "fsync_interval_ms applies only with fsync = \"interval\" (this bot's fsync is \"always\")"),
            ("[[bot]]\nname = \"b\"\nfsync = \"never\"\n", 3, "fsync applies only with a journal"),
            ("# a comment\n\n[[bot]]\nname = \"b\"\n\n[bot.plugin.greeter]\nx = 1\n", 6,
             "there are settings for plugin 'greeter', but this bot loads no plugins"),
            ("[[bot]]\nname = \"b\"\n[bot.plugin_limits.greeter]\nmemory_kb = 1024\n", 3, "there are settings for plugin 'greeter', but this bot loads no plugins"),
            ("[[bot]]\nname = \"b\"\ntransport = \"socketio\"\nserver = \"127.0.0.1:1\"\n\n[bot.socketio]\n\nca_file = \"nope.pem\"\n", 8,
             "key 'bot.socketio.ca_file': ca_file"),
            ("[[bot]]\nname = \"b\"\ntransport = \"socketio\"\nserver = \"127.0.0.1:1\"\n[bot.socketio]\nca_file = \"a\"\n", 6, "(it is a folder)"),
            ("[[bot]]\nname = \"b\"\ntransport = \"socketio\"\nserver = \"127.0.0.1:1\"\n[bot.socketio]\nca_file = \"a/greeter.lua\"\n", 6,
             "holds no PEM certificate"),
        ]
        for (i, c) in cases.enumerated() {
            let config = dir.appendingPathComponent("bot\(i).toml")
            try c.toml.write(to: config, atomically: true, encoding: .utf8)
            let r = try CLITests.parley(["check", config.path])
            #expect(r.status == 2, "case \(i): \(r.status) \(r.stderr)")
            #expect(r.stderr.contains("bot\(i).toml:\(c.line):") && r.stderr.contains(c.says), "case \(i): \(r.stderr)")
        }
    }

    /// A fleet that needs more open files than the process may have is
    /// refused before any bot starts, saying how many, where it ran out of
    /// descriptors mid-start and NIO stopped the process with no word of why.
    @Test func aFleetPastTheOpenFileLimitIsRefusedAtStart() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("bot.toml")
        try "[[bot]]\nname = \"u{n}\"\ncount = 50\n".write(to: config, atomically: true, encoding: .utf8)
        let r = try CLITests.parley(["run", config.path], timeout: 30, through: ["/bin/bash", "-c", "ulimit -n 100; exec \"$0\" \"$@\""])
        #expect(r.status == 1, "\(r.status) \(r.stderr)")
        #expect(r.stderr.contains("these bots need about 164 open files and this process may open 100 (ulimit -n"), "\(r.stderr)")
        #expect(!r.stderr.contains("online"), "\(r.stderr)")
    }

    /// The harness shows a request's headers, so a golden file can pin an
    /// API key's header; a credential's value is not printed, its presence is.
    @Test func theHarnessShowsARequestsHeaders() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try #"bot.command("get", function() bot.http({ url = "https://api.example.com/x", headers = { ["X-Key"] = "k1", Authorization = "Bearer s3cret" } }, function() end) end)"#
            .write(to: dir.appendingPathComponent("p.lua"), atomically: true, encoding: .utf8)
        try "[[bot]]\nname = \"b\"\nplugins = [\"p.lua\"]\n[bot.http]\nallow = [\"api.example.com\"]\n"
            .write(to: dir.appendingPathComponent("bot.toml"), atomically: true, encoding: .utf8)
        let r = try CLITests.parley(["plugin", "test", dir.appendingPathComponent("p.lua").path, "--config", dir.appendingPathComponent("bot.toml").path,
                                 "--events", "-"], stdin: #"{"type":"message","room":"lobby","user":"al","text":"!get"}"# + "\n")
        #expect(r.status == 0, "\(r.stderr)")
        let http = r.stdout.split(separator: "\n").first { $0.contains(#""action":"http""#) } ?? ""
        #expect(http.contains(#""X-Key":"k1""#) && http.contains(#""Authorization":"***""#) && !http.contains("s3cret"), "\(r.stdout)")
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

    /// A misspelt role in `[bot.roles]` is warned about at its line, and so is
    /// a command whose role nobody has; both leave `check` passing.
    @Test func checkWarnsOfRolesNoCommandNeedsAndCommandsNobodyMayRun() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try """
            bot.command("kick", function() end, { roles = { "moderator" } })
            bot.command("ban", function() end, { roles = { "moderator" } })
            bot.command("skip", function() end, { roles = { "lead" } })
            """.write(to: dir.appendingPathComponent("mod.lua"), atomically: true, encoding: .utf8)
        let config = dir.appendingPathComponent("bot.toml")
        try "[[bot]]\nname = \"b\"\nplugins = [\"mod.lua\"]\n\n[bot.roles]\nmoderater = [\"alice\"]\nlead = [\"bob\"]\n"
            .write(to: config, atomically: true, encoding: .utf8)
        let r = try CLITests.parley(["check", config.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("bot.toml:6: warning: role 'moderater' in [bot.roles] is needed by no command of this bot's plugins (they need 'lead', 'moderator')"), "\(r.stderr)")
        #expect(r.stderr.contains("bot.toml:3: warning: !ban, !kick need the role 'moderator', which [bot.roles] gives nobody: nobody can run them"), "\(r.stderr)")
        #expect(!r.stderr.contains("'lead', which"), "\(r.stderr)")
        // Spelt right, nothing to say.
        try "[[bot]]\nname = \"b\"\nplugins = [\"mod.lua\"]\n\n[bot.roles]\nmoderator = [\"alice\"]\nlead = [\"bob\"]\n"
            .write(to: config, atomically: true, encoding: .utf8)
        let fixed = try CLITests.parley(["check", config.path])
        #expect(fixed.status == 0 && !fixed.stderr.contains("warning"), "\(fixed.stderr)")
    }

    /// A `server` that `run` could not use fails `check` too, at its line, with a token in it masked.
    @Test func checkRefusesAServerRunCouldNotUse() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("bot.toml")
        for (transport, server) in [("streamchat", "localhost"), ("streamchat", "http://127.0.0.1:5080"), ("streamchat", "lobby.example:80:90"), ("socketio", "ftp://127.0.0.1:3000/?token=abc"), ("stomp", "http://127.0.0.1:61613")] {
            try "[[bot]]\nname = \"b\"\ntransport = \"\(transport)\"\n\nserver = \"\(server)\"\n".write(to: config, atomically: true, encoding: .utf8)
            let r = try CLITests.parley(["check", config.path])
            #expect(r.status == 2 && r.stderr.contains("bot.toml:5: key 'bot.server'"), "\(transport): \(r.stderr)")
            #expect(!r.stderr.contains("abc"), "\(r.stderr)")
        }
    }

    /// A plugin's error points at the `plugins` line and at its own line; a
    /// journal `run` could not make is found before it runs.
    @Test func checkNamesTheLinesAndAJournalThatCannotBeMade() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try "bot.cron(\"0 25 * * *\", function() end)\n".write(to: dir.appendingPathComponent("cron.lua"), atomically: true, encoding: .utf8)
        try "".write(to: dir.appendingPathComponent("afile"), atomically: true, encoding: .utf8)
        let config = dir.appendingPathComponent("bot.toml")
        try "[[bot]]\nname = \"b\"\n\nplugins = [\"cron.lua\"]\njournal = \"afile/j\"\n".write(to: config, atomically: true, encoding: .utf8)
        let r = try CLITests.parley(["check", config.path])
        #expect(r.status == 2)
        #expect(r.stderr.contains("bot.toml:4: plugin") && r.stderr.contains("cron.lua:1: bot.cron: hour field '25'"), "\(r.stderr)")
        #expect(r.stderr.contains("bot.toml:5: journal") && r.stderr.contains("afile is not a directory"), "\(r.stderr)")
        #expect(r.stderr.contains("parley: 1 plugin error, 1 journal problem"), "\(r.stderr)")

        // A directory that exists but cannot be written (procfs refuses even root).
        try "[[bot]]\nname = \"b\"\njournal = \"/proc/self\"\n".write(to: config, atomically: true, encoding: .utf8)
        let held = try CLITests.parley(["check", config.path])
        #expect(held.status == 2 && held.stderr.contains("journal /proc/self is a directory this user may not write to"), "\(held.stderr)")
        // One to be made where the permission bits allow it and the file system does not.
        try "[[bot]]\nname = \"b\"\njournal = \"/proc/parley-journal/j\"\n".write(to: config, atomically: true, encoding: .utf8)
        let refused = try CLITests.parley(["check", config.path])
        #expect(refused.status == 2 && refused.stderr.contains("journal /proc/parley-journal/j cannot be made: /proc"), "\(refused.stderr)")
        // A writable parent is left as it was.
        try "[[bot]]\nname = \"b\"\njournal = \"state/j\"\n".write(to: config, atomically: true, encoding: .utf8)
        #expect(try CLITests.parley(["check", config.path]).status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["afile", "bot.toml", "cron.lua"])
    }

    /// A journal whose files `run` could not write (restored as another user,
    /// say) fails `check`, naming the file, though its directory is writable.
    @Test func checkRefusesAJournalWhoseFilesCannotBeWritten() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let journal = dir.appendingPathComponent("j")
        try FileManager.default.createDirectory(at: journal, withIntermediateDirectories: true)
        try Data().write(to: journal.appendingPathComponent("LOCK"))
        let config = dir.appendingPathComponent("bot.toml")
        try "[[bot]]\nname = \"b\"\njournal = \"j\"\n".write(to: config, atomically: true, encoding: .utf8)
        #expect(try CLITests.parley(["check", config.path]).status == 0)
        // Root may write any file: as root, the check runs as nobody, over files that stay root's.
        let asRoot = getuid() == 0
        let through = asRoot ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : []
        for path in [dir.path, journal.path] { chmod(path, asRoot ? 0o777 : 0o755) }
        chmod(config.path, 0o644)
        chmod(journal.appendingPathComponent("LOCK").path, 0o444)
        let r = try CLITests.parley(["check", config.path], through: through)
        #expect(r.status == 2 && r.stderr.contains("bot.toml:3: journal \(journal.path) holds LOCK, a file this user may not read and write"), "\(r.stderr)")
        // `run` refuses it too, before any bot starts, instead of failing when
        // the journal first needs a file.
        let run = try CLITests.parley(["run", config.path], timeout: 30, through: through)
        #expect(run.status == 2 && run.stderr.contains("bot.toml:3: journal \(journal.path) holds LOCK, a file this user may not read and write"), "\(run.stderr)")
        #expect(!run.stderr.contains("bot loop"), "\(run.stderr)")
    }

    /// An advance that would fire a timer billions of times stops at a bound
    /// and says so, instead of running for hours.
    @Test func aHugeAdvanceStopsAtItsBound() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let plugin = dir.appendingPathComponent("tick.lua")
        try "bot.every(2, function() end)\n".write(to: plugin, atomically: true, encoding: .utf8)
        let started = Date()
        let r = try CLITests.parley(["plugin", "test", plugin.path, "--events", "-"], stdin: #"{"type":"advance","seconds":1e10}"# + "\n", timeout: 60)
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("advance of 10,000,000,000 s: the plugins' timers fired 100,000 times and were still due; advance in smaller steps"), "\(r.stderr)")
        #expect(Date().timeIntervalSince(started) < 30)
        // A day of it is fine: 43,200 firings.
        let day = try CLITests.parley(["plugin", "test", plugin.path, "--events", "-"], stdin: #"{"type":"advance","seconds":86400}"# + "\n", timeout: 60)
        #expect(day.status == 0, "\(day.stderr)")
    }

    /// A plugin's runtime error shows its own frames only, not the prelude's or the host's.
    @Test func aTracebackShowsThePluginsOwnFrames() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let plugin = dir.appendingPathComponent("x.lua")
        try "local function inner() error(\"boom\") end\nbot.command(\"go\", function(msg) inner() end)\n".write(to: plugin, atomically: true, encoding: .utf8)
        let r = try CLITests.parley(["plugin", "test", plugin.path, "--events", "-"], stdin: #"{"type":"message","room":"r","user":"u","text":"!go"}"# + "\n")
        #expect(r.stdout.contains(#""message":"x.lua:1: boom\nstack traceback:\n\tx.lua:1: in upvalue 'inner'\n\tx.lua:2: in function <x.lua:2>"}"#), "\(r.stdout)")
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

/// A port someone else holds: `run --http` and `serve` say which address, and end.
struct PortInUseTests {
    @Test func runStopsWhenItsHTTPPortIsTaken() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("bot.toml")
        try "[[bot]]\nname = \"g\"\nplugins = [\"\(packageRoot.appendingPathComponent("Plugins/greeter.lua").path)\"]\n"
            .write(to: config, atomically: true, encoding: .utf8)
        let held = try holdPort()
        defer { close(held.fd) }
        let r = try CLITests.parley(["run", config.path, "--http", String(held.port)], timeout: 30)
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("--http 127.0.0.1:\(held.port): Address already in use; no bot was started"), "\(r.stderr)")
        // Found before any bot started, so none had to leave.
        #expect(!r.stderr.contains("shutting down") && !r.stderr.contains("bot loop"), "\(r.stderr)")
    }

    /// SIGTERM while a bot waits on a server that accepts and never answers
    /// (its WebSocket upgrade hangs): the connect is abandoned, the run ends at once.
    @Test func aBotStillConnectingStopsAtOnce() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let held = try holdPort()
        defer { close(held.fd) }
        let config = dir.appendingPathComponent("bot.toml")
        try "[[bot]]\nname = \"b\"\ntransport = \"socketio\"\nserver = \"127.0.0.1:\(held.port)\"\n[bot.presence]\nconnect_timeout = 60\n"
            .write(to: config, atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CLITests.binary)
        p.arguments = ["run", config.path]
        p.standardError = FileHandle.nullDevice
        try p.run()
        Thread.sleep(forTimeInterval: 2)
        let sent = Date()
        p.terminate()
        p.waitUntilExit()
        #expect(Date().timeIntervalSince(sent) < 5, "SIGTERM to exit: \(Date().timeIntervalSince(sent)) s")
        #expect(p.terminationStatus == 0)
    }

    /// A bot loop held past the group's own time limit (here a plugin given
    /// a budget of ten minutes) cannot drain: 25 s after SIGTERM the process
    /// says so and exits 1, rather than wait for a SIGKILL.
    @Test func aShutdownAHeldLoopBlocksExitsOneAfterItsLimit() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let plugin = dir.appendingPathComponent("hold.lua")
        try "bot.after(0.2, function() while true do end end)\n".write(to: plugin, atomically: true, encoding: .utf8)
        let config = dir.appendingPathComponent("bot.toml")
        try "[[bot]]\nname = \"b\"\nplugins = [\"\(plugin.path)\"]\n[bot.limits]\ninstructions = 1000000000000000\ntime_ms = 600000\n"
            .write(to: config, atomically: true, encoding: .utf8)
        let run = try RunningParley(config: config)
        let p = run.process
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL); p.waitUntilExit() } }
        _ = await run.logged("online", within: 30)
        try await Task.sleep(for: .seconds(1))
        let sent = Date()
        p.terminate()
        _ = await run.exited(within: 45)
        let took = Date().timeIntervalSince(sent)
        let text = run.text
        #expect(!p.isRunning, "still running \(took) s after SIGTERM: \(text)")
        guard !p.isRunning else { return }
        #expect(p.terminationStatus == 1)
        #expect(took >= 24 && took < 40, "\(took) s")
        #expect(text.contains("the shutdown did not finish 25 s after it began: a bot loop is still held"), "\(text)")
    }

    /// SIGHUP reloads plugins only: a config edited since the start is said
    /// to be not applied, and one that no longer loads is said at once.
    @Test func aHangupSaysTheConfigChangedAndIsNotApplied() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("bot.toml")
        let echo = packageRoot.appendingPathComponent("Plugins/echo.lua").path
        let text = "[[bot]]\nname = \"b\"\nplugins = [\"\(echo)\"]\n"
        try text.write(to: config, atomically: true, encoding: .utf8)
        let run = try RunningParley(config: config)
        let p = run.process
        defer { if p.isRunning { p.terminate(); p.waitUntilExit() } }
        func logged(_ s: String) async -> Bool { await run.logged(s) }
        let loops = await logged("bot loop")
        #expect(loops)
        kill(p.processIdentifier, SIGHUP)
        #expect(await logged("plugin echo reloaded"))
        try (text + "prefix = \"?\"\n").write(to: config, atomically: true, encoding: .utf8)
        kill(p.processIdentifier, SIGHUP)
        #expect(await logged("\(config.path) changed since the start and is not applied: SIGHUP reloads plugin files only; restart to apply it"))
        try (text + "nonsense = = =\n").write(to: config, atomically: true, encoding: .utf8)
        kill(p.processIdentifier, SIGHUP)
        #expect(await logged("\(config.path) changed since the start and no longer loads: "))
        #expect(await logged("the bots run on with the config they started with, and a restart would exit 2"))
        p.terminate()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
    }

    /// A fleet that ended by itself is no clean shutdown: every bot kicked
    /// (STOMP's `kick_policy = "stop"`) exits 4, for a supervisor to see. The
    /// broker is a python stub that answers CONNECT and receipts and, once
    /// the bot has announced itself, sends a message on its kick destination.
    @Test func aFleetThatWasKickedExitsFour() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let stub = dir.appendingPathComponent("kicker.py")
        try #"""
        import socket
        srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(1)
        print(srv.getsockname()[1], flush=True)
        c, _ = srv.accept(); buf = b""; kick = None
        while True:
            d = c.recv(4096)
            if not d: break
            buf += d
            while b"\0" in buf:
                frame, buf = buf.split(b"\0", 1)
                lines = frame.decode().lstrip("\r\n").split("\n")
                head = dict(l.split(":", 1) for l in lines[1:lines.index("")] if ":" in l) if "" in lines else {}
                if lines[0] == "CONNECT": c.sendall(b"CONNECTED\nversion:1.2\nheart-beat:0,0\n\n\0")
                elif "receipt" in head: c.sendall(("RECEIPT\nreceipt-id:%s\n\n\0" % head["receipt"]).encode())
                if lines[0] == "SUBSCRIBE" and head.get("destination") == "/queue/kick": kick = head["id"]
                if lines[0] == "SEND" and kick:
                    c.sendall(("MESSAGE\nsubscription:%s\ndestination:/queue/kick\nmessage-id:1\n\nlogged in elsewhere\0" % kick).encode())
        """#.write(to: stub, atomically: true, encoding: .utf8)
        let broker = Process()
        broker.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        broker.arguments = ["python3", stub.path]
        let out = Pipe()
        broker.standardOutput = out
        try broker.run()
        defer { broker.terminate() }
        var port = ""
        while !port.hasSuffix("\n"), let byte = try out.fileHandleForReading.read(upToCount: 1), !byte.isEmpty {
            port += String(decoding: byte, as: UTF8.self)
        }
        let config = dir.appendingPathComponent("bot.toml")
        try """
        [[bot]]
        name = "relay"
        transport = "stomp"
        server = "stomp://127.0.0.1:\(port.trimmingCharacters(in: .whitespacesAndNewlines))"
        rooms = ["1"]
        [bot.stomp]
        kick_destination = "/queue/kick"
        """.write(to: config, atomically: true, encoding: .utf8)
        let r = try CLITests.parley(["run", config.path], timeout: 60)
        #expect(r.status == 4, "\(r.stderr)")
        #expect(r.stderr.contains("kicked by the server: logged in elsewhere"), "\(r.stderr)")
    }

    @Test func serveNamesTheAddressItCannotListenOn() throws {
        let held = try holdPort()
        defer { close(held.fd) }
        let r = try CLITests.parley(["serve", "--streamchat", "127.0.0.1:\(held.port)"], timeout: 30)
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("cannot listen on 127.0.0.1:\(held.port): Address already in use"), "\(r.stderr)")
    }

    /// A Socket.IO server that is not there fails both links at once: the
    /// polling fallback does not wait out `connect_timeout`, so the bot's own
    /// backoff (with its jitter) decides when to try again.
    @Test func aSocketIOServerThatIsNotThereFailsAtOnce() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let held = try holdPort()
        close(held.fd)
        let config = dir.appendingPathComponent("bot.toml")
        try """
        [[bot]]
        name = "s1"
        transport = "socketio"
        server = "http://127.0.0.1:\(held.port)"
        [bot.presence]
        max_attempts = 1
        connect_timeout = 20
        """.write(to: config, atomically: true, encoding: .utf8)
        let started = Date()
        let r = try CLITests.parley(["run", config.path], timeout: 60)
        let took = Date().timeIntervalSince(started)
        #expect(r.status == 3, "\(r.stderr)")
        #expect(r.stderr.contains("websocket:") && r.stderr.contains("polling:"), "both links were tried: \(r.stderr)")
        #expect(took < 10, "took \(took) s against connect_timeout 20")
    }

    /// `--log-level` takes the name the lines print (`warn`) as well as swift-log's (`warning`).
    @Test func theLogLevelTakesTheNameTheLinesPrint() throws {
        let held = try holdPort()
        defer { close(held.fd) }
        for level in ["warn", "warning"] {
            let r = try CLITests.parley(["serve", "--streamchat", "127.0.0.1:\(held.port)", "--log-level", level, "--log-format", "json"], timeout: 30)
            #expect(r.status == 1 && r.stderr.contains("Address already in use"), "\(level): \(r.stderr)")
        }
        let bad = try CLITests.parley(["serve", "--log-level", "loud"], timeout: 30)
        #expect(bad.status == 64 && bad.stderr.contains("--log-level"), "\(bad.stderr)")
        // The values listed are the ones the usage line shows.
        #expect(bad.stderr.contains("- warn\n") && !bad.stderr.contains("warning"), "\(bad.stderr)")
        // A moderator token from a variable that is not there is a usage error, not a server without one.
        let unset = try CLITests.parley(["serve", "--socketio", "127.0.0.1:0", "--moderator", "mod",
                                         "--moderator-token-env", "PARLEY_TEST_NO_SUCH_VARIABLE"], timeout: 30)
        #expect(unset.status == 64 && unset.stderr.contains("PARLEY_TEST_NO_SUCH_VARIABLE is not set"), "\(unset.stderr)")
    }
}

/// The plugin author's kit: `parley plugin new`, and `plugin test --expect/--update`.
struct PluginKitTests {
    @Test func aNewPluginPassesItsOwnTestAtOnce() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let plugins = dir.appendingPathComponent("plugins").path
        let made = try CLITests.parley(["plugin", "new", "weather", "--dir", plugins])
        #expect(made.status == 0, "\(made.stderr)")
        for suffix in [".lua", ".test.jsonl", ".expected.jsonl"] {
            #expect(FileManager.default.fileExists(atPath: "\(plugins)/weather\(suffix)"))
        }
        let r = try CLITests.parley(["plugin", "test", "\(plugins)/weather.lua", "--events", "\(plugins)/weather.test.jsonl",
                                     "--expect", "\(plugins)/weather.expected.jsonl"])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout == "ok: 2 actions as in \(plugins)/weather.expected.jsonl\n")
        // Never over an existing plugin; bad names are refused.
        let again = try CLITests.parley(["plugin", "new", "weather", "--dir", plugins])
        #expect(again.status == 2 && again.stderr.contains("exists"), "\(again.stderr)")
        let bad = try CLITests.parley(["plugin", "new", "Bad-Name", "--dir", plugins])
        #expect(bad.status != 0 && bad.stderr.contains("not a plugin name"), "\(bad.stderr)")
    }

    @Test func aDifferenceIsADiffAndUpdateRewritesTheFile() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let p = dir.path
        _ = try CLITests.parley(["plugin", "new", "hi", "--dir", p])
        // The plugin now says something else.
        let lua = "\(p)/hi.lua"
        try (try String(contentsOfFile: lua, encoding: .utf8)).replacingOccurrences(of: "\"hello, \"", with: "\"hey, \"")
            .write(toFile: lua, atomically: true, encoding: .utf8)
        let args = ["plugin", "test", lua, "--events", "\(p)/hi.test.jsonl", "--expect", "\(p)/hi.expected.jsonl"]
        let r = try CLITests.parley(args)
        #expect(r.status == 1)
        #expect(r.stdout.contains("- {\"plugin\":\"hi\",\"action\":\"send\",\"room\":\"lobby\",\"text\":\"hello, alice!\"}    (expected line 1)"), "\(r.stdout)")
        #expect(r.stdout.contains("+ {\"plugin\":\"hi\",\"action\":\"send\",\"room\":\"lobby\",\"text\":\"hey, alice!\"}    (action 1)"), "\(r.stdout)")
        #expect(r.stdout.contains("  {\"plugin\":\"hi\",\"action\":\"send\",\"room\":\"lobby\",\"text\":\"asked 2 times\"}"), "unchanged lines are context: \(r.stdout)")
        #expect(r.stderr.contains("differ"), "\(r.stderr)")
        let updated = try CLITests.parley(args + ["--update"])
        #expect(updated.status == 0 && updated.stdout.contains("updated"), "\(updated.stderr)")
        #expect(try CLITests.parley(args).status == 0)
    }

    @Test func badInputForTheKitIsAClearErrorWithExitTwo() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let p = dir.path
        _ = try CLITests.parley(["plugin", "new", "hi", "--dir", p])
        let missing = try CLITests.parley(["plugin", "test", "\(p)/hi.lua", "--events", "\(p)/hi.test.jsonl", "--expect", "\(p)/nope.jsonl"])
        #expect(missing.status == 2 && missing.stderr.contains("nope.jsonl: the expected actions file does not exist; --update writes it"), "\(missing.stderr)")
        try "{\"type\":\"message\",\"room\":\"lobby\",\"user\":\"a\",\"text\":\"!hi\"}\n{oops\n".write(toFile: "\(p)/bad.jsonl", atomically: true, encoding: .utf8)
        let invalid = try CLITests.parley(["plugin", "test", "\(p)/hi.lua", "--events", "\(p)/bad.jsonl", "--expect", "\(p)/hi.expected.jsonl"])
        #expect(invalid.status == 2 && invalid.stderr.contains("bad.jsonl:2: invalid JSON"), "\(invalid.stderr)")
        try "bot.command(\"hi\", function(msg)\n  msg:reply(\n".write(toFile: "\(p)/broken.lua", atomically: true, encoding: .utf8)
        let broken = try CLITests.parley(["plugin", "test", "\(p)/broken.lua", "--events", "\(p)/hi.test.jsonl", "--expect", "\(p)/hi.expected.jsonl"])
        #expect(broken.status == 1, "a plugin that does not load makes a diff, not a crash")
        #expect(broken.stdout.contains("broken.lua:3:"), "the load error names the file and line: \(broken.stdout)")
        let noExpect = try CLITests.parley(["plugin", "test", "\(p)/hi.lua", "--events", "\(p)/hi.test.jsonl", "--update"])
        #expect(noExpect.status != 0 && noExpect.stderr.contains("--update needs --expect"), "\(noExpect.stderr)")
    }
}

/// `parley run CONFIG` in the background, its log in a file the test reads
/// while it runs.
struct RunningParley {
    let process = Process()
    let log: URL

    init(config: URL) throws {
        log = config.deletingLastPathComponent().appendingPathComponent("stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: CLITests.binary)
        process.arguments = ["run", config.path]
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
    }

    var text: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// Whether the log says `s` within `seconds`. It waits asleep, not
    /// blocking one of the test pool's few threads, which the other suites
    /// running beside it need.
    func logged(_ s: String, within seconds: Double = 10) async -> Bool {
        let end = Date().addingTimeInterval(seconds)
        // The log is read after every wait, the last one too: a wait that
        // resumed late (the pool busy with other tests) must still look.
        while true {
            if text.contains(s) { return true }
            if Date() >= end { return false }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Waits asleep for the process to end, at most `seconds`; whether it did.
    func exited(within seconds: Double) async -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < end { try? await Task.sleep(for: .milliseconds(200)) }
        return !process.isRunning
    }
}
