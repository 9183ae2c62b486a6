import Foundation
import ParleyCore
import ParleyStreamChat
import Synchronization
import Testing
import ParleyTestSupport

/// The real `parley` binary (`make test` builds it first).
let parleyBinary = packageRoot.appendingPathComponent(".build/debug/parley").path

/// Runs `parley` with arguments (and `environment` added to this process's);
/// returns the process (already started). `stdout`/`stderr` take a `Pipe` or
/// a `FileHandle` (a log file); nil discards.
func launchParley(_ args: [String], stdout: Any? = nil, stderr: Any? = nil, environment: [String: String] = [:]) throws -> Process {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: parleyBinary)
    p.arguments = args
    if !environment.isEmpty {
        p.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
    }
    p.standardOutput = stdout ?? FileHandle.nullDevice
    p.standardError = stderr ?? FileHandle.nullDevice
    try p.run()
    return p
}

@Suite(.timeLimit(.minutes(3)), .serialized)
struct ProcessTests {
    @Test func killNineMidConversationAndRestartFromTheJournal() async throws {
        let server = try await StreamChatServer.start(.init())
        defer { Task { await server.shutdown() } }
        let dir = try temporaryDirectory()
        let counter = """
        -- Counts "!count" messages in bot.state and replies with the count
        -- and the command's tag.
        bot.command("count", function(msg, args)
          local n = (bot.state.get("n") or 0) + 1
          bot.state.set("n", n)
          msg:reply("count " .. n .. " " .. (args[1] or ""))
        end)
        """
        try counter.write(to: dir.appendingPathComponent("counter.lua"), atomically: true, encoding: .utf8)
        try """
        [[bot]]
        name = "counter"
        server = "127.0.0.1:\(server.port)"
        plugins = ["counter.lua"]
        journal = "state/counter"
        [bot.presence]
        backoff_initial = 0.05
        backoff_max = 0.2
        """.write(to: dir.appendingPathComponent("bot.toml"), atomically: true, encoding: .utf8)
        let config = dir.appendingPathComponent("bot.toml").path

        let alice = try await Person("alice", port: server.port)
        func counts() -> [Int] {
            alice.texts(from: "counter").compactMap { $0.split(separator: " ").dropFirst().first.flatMap { Int($0) } }
        }
        func answered(_ tag: String) -> Bool { alice.texts(from: "counter").contains { $0.hasSuffix(" " + tag) } }
        func joins() -> Int { alice.joins(of: "counter") }
        for round in 1...6 {
            let bot = try launchParley(["run", config])
            #expect(await eventually { joins() == round }, "round \(round): the bot came back")
            // Wait for the answer to this very command, not just a higher count:
            // the last round's resend is a higher count too, and a kill before
            // its delivery is on disk would send it a third time. The bot drains
            // its outbox in order, so this answer means the resend is marked.
            try await alice.say("!count r\(round)a")
            #expect(await eventually { answered("r\(round)a") }, "round \(round): a reply")
            // Kill it at a random moment around a handler.
            try await alice.say("!count r\(round)b")
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...15)))
            kill(bot.processIdentifier, SIGKILL)
            _ = await finish(bot)
        }
        // Every count heard: never backwards, each at most twice (a resend after a kill).
        let heard = counts()
        var last = 0
        for c in heard {
            #expect(c >= last, "went backwards: \(heard)")
            last = c
        }
        #expect(Dictionary(grouping: heard, by: { $0 }).values.allSatisfy { $0.count <= 2 }, "\(heard)")
        #expect(heard.max()! >= 6, "\(heard)")
        // The journal is sound after all those kills.
        let verify = Pipe()
        let v = try launchParley(["journal", "verify", dir.appendingPathComponent("state/counter").path], stdout: verify)
        let verified = await finish(v, stdout: verify)
        #expect(verified.status == 0, "\(verified.stdout)")
        await alice.leave()
    }

    @Test func runStopsCleanlyOnSIGTERMAndLeaves() async throws {
        let server = try await StreamChatServer.start(.init())
        defer { Task { await server.shutdown() } }
        let dir = try temporaryDirectory()
        try """
        [[bot]]
        name = "quiet"
        server = "127.0.0.1:\(server.port)"
        plugins = ["\(packageRoot.appendingPathComponent("Plugins/echo.lua").path)"]
        """.write(to: dir.appendingPathComponent("bot.toml"), atomically: true, encoding: .utf8)
        let alice = try await Person("alice", port: server.port)
        let bot = try launchParley(["run", dir.appendingPathComponent("bot.toml").path])
        #expect(await eventually { alice.joins(of: "quiet") == 1 })
        kill(bot.processIdentifier, SIGTERM)
        #expect(await finish(bot).status == 0)
        #expect(await eventually { alice.leaves(of: "quiet") == 1 })
        await alice.leave()
    }

    @Test func badConfigExitsTwoNamingFileLineAndKey() async throws {
        let dir = try temporaryDirectory()
        let path = dir.appendingPathComponent("bot.toml").path
        try "[[bot]]\nname = \"x\"\nfsync = \"sometimes\"\n".write(toFile: path, atomically: true, encoding: .utf8)
        let err = Pipe()
        let p = try launchParley(["run", path], stderr: err)
        let r = await finish(p, stdout: err)
        let text = r.stdout
        #expect(r.status == 2)
        #expect(text.contains("bot.toml:3"), "\(text)")
        #expect(text.contains("fsync"), "\(text)")
    }

    @Test func aMissingPluginFileIsAConfigError() async throws {
        let dir = try temporaryDirectory()
        let path = dir.appendingPathComponent("bot.toml").path
        try "[[bot]]\nname = \"x\"\n\nplugins = [\"nope.lua\"]\n".write(toFile: path, atomically: true, encoding: .utf8)
        let err = Pipe()
        let r = await finish(try launchParley(["run", path], stderr: err), stdout: err)
        #expect(r.status == 2)
        #expect(r.stdout.contains("bot.toml:4"), "\(r.stdout)")
        #expect(r.stdout.contains(dir.appendingPathComponent("nope.lua").standardizedFileURL.path), "\(r.stdout)")
        #expect(!r.stdout.contains("embedded"), "fails before any server or connection: \(r.stdout)")
    }

    @Test(arguments: ["streamchat", "socketio"])
    func demoEndsWithGreetingsAndModerationInItsSummary(_ transport: String) async throws {
        let out = Pipe()
        let p = try launchParley(["demo", "--seconds", "20", "--seed", "42", "--transport", transport], stdout: out)
        let r = await finish(p, stdout: out)
        let text = r.stdout
        #expect(r.status == 0)
        let summary = text.split(separator: "\n").last { $0.hasPrefix("summary:") }.map(String.init) ?? ""
        func count(_ what: String) -> Int {
            guard let r = summary.range(of: #"(\d+) \#(what)"#, options: .regularExpression) else { return 0 }
            return Int(summary[r].split(separator: " ")[0]) ?? 0
        }
        #expect(count("greetings") >= 3, "\(summary)")
        #expect(count("moderation actions") >= 4, "\(summary)")
        // The troll is warned, muted by the server, and then kicked out of the room.
        let lines = text.split(separator: "\n")
        let muted = lines.firstIndex { $0.contains("mute: ben in lobby for 4 s") }
        let kicked = lines.firstIndex { $0.contains("kick: ben from lobby") }
        #expect(muted != nil && kicked != nil && muted! < kicked!, "\(text)")
        #expect(lines.contains { $0.contains("ben, please") && $0.hasSuffix("You are out of the room now.") }, "\(text)")
        // One kick a visit: what ben had on the way when he was kicked is not
        // an offence again, and he sulks a while before he talks once back.
        var outThisVisit = 0
        for line in lines {
            if line.hasSuffix("→ ben joined") { outThisVisit = 0 }
            if line.contains("ben, please") && line.hasSuffix("You are out of the room now.") {
                outThisVisit += 1
                #expect(outThisVisit == 1, "ben kicked twice in one visit: \(text)")
            }
        }
        #expect(!text.contains("could not kick ben"), "\(text)")
        // A moderation follows what it answers: ben's n-th strike comes after at least n of his messages.
        var said = 0, strikes = 0
        for line in lines {
            if line.contains(" ben: ") { said += 1 }
            if line.contains("audit user=ben ") {
                strikes += 1
                #expect(said >= strikes, "strike \(strikes) before ben said that much: \(text)")
            }
        }
        // The summary counts the people's joins, not the staff's.
        #expect(count("joins") >= 6 && count("joins") == lines.filter { $0.contains(" → ") && $0.hasSuffix(" joined") && !$0.contains("→ greeter") && !$0.contains("→ moderator") }.count,
                "\(text)")
        #expect(count("plugin errors") == 0, "\(text)")
        if transport == "socketio" { #expect(text.contains("is typing…"), "people show typing on Socket.IO: \(text)") }
    }
}

/// Waits for a process without blocking a cooperative thread (tests share a
/// pool as wide as the machine has cores), collecting its standard output.
func finish(_ p: Process, stdout pipe: Pipe? = nil) async -> (status: Int32, stdout: String) {
    let collected = Mutex(Data())
    pipe?.fileHandleForReading.readabilityHandler = { h in
        let d = h.availableData
        collected.withLock { $0.append(d) }
    }
    let status: Int32 = await withCheckedContinuation { c in
        // The handler goes in first, then the check: a process that ended in
        // between is caught by the check, and `once` keeps it to one resume.
        let once = Mutex(false)
        let resume = { @Sendable (status: Int32) in
            if once.withLock({ done in defer { done = true }; return !done }) { c.resume(returning: status) }
        }
        p.terminationHandler = { resume($0.terminationStatus) }
        if !p.isRunning { resume(p.terminationStatus) }
    }
    if let pipe {
        pipe.fileHandleForReading.readabilityHandler = nil
        let rest = pipe.fileHandleForReading.readDataToEndOfFile()
        collected.withLock { $0.append(rest) }
    }
    return (status, String(decoding: collected.withLock { $0 }, as: UTF8.self))
}

/// Runs of the real binary with hundreds of bots: they load both cores for
/// seconds, so they run in the heavy pass of `make test`, where they cannot
/// starve other tests' plugins past their time budgets.
@Suite(.timeLimit(.minutes(3)), .serialized)
struct CrowdProcessTests {
    /// Arrivals spread over the ramp: many people and a short run still end
    /// on time, with the summary saying who joined, was greeted and spoke.
    @Test func aLargeDemoEndsOnTime() async throws {
        let out = Pipe()
        let started = Date()
        let p = try launchParley(["demo", "--users", "300", "--seconds", "8", "--seed", "7"], stdout: out)
        let r = await finish(p, stdout: out)
        let took = Date().timeIntervalSince(started)
        #expect(r.status == 0)
        // 8 s, then the people and the bots leave (1 s drains) and the servers
        // stop: 10–11 s alone, 15.5 s once beside the other heavy tests. The
        // bound catches a stop that hangs (the group's cap is 20 s more).
        #expect(took < 25, "ran \(took) s for --seconds 8")
        let people = r.stdout.split(separator: "\n").last { $0.hasPrefix("people:") }.map(String.init) ?? ""
        let numbers = people.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        #expect(numbers.count == 4, "\(people)")
        if numbers.count == 4 {
            #expect(numbers[1] == 300)
            #expect(numbers[0] >= 250, "most of 300 joined within a ramp of 8/3 s: \(people)")
            #expect(numbers[2] >= 1 && numbers[3] >= 1, "\(people)")
        }
    }

    /// A clean shutdown of a fleet with journals: the others' leaves arrive
    /// while each bot stops, and none of them may meet a closed journal.
    @Test func aFleetShutsDownWithoutAnError() async throws {
        let dir = try temporaryDirectory()
        try """
        [[bot]]
        name = "bot{n}"
        count = 100
        plugins = ["\(packageRoot.appendingPathComponent("Plugins/greeter.lua").path)", "\(packageRoot.appendingPathComponent("Plugins/echo.lua").path)"]
        journal = "state/bot{n}"
        """.write(to: dir.appendingPathComponent("bot.toml"), atomically: true, encoding: .utf8)
        let err = Pipe()
        let p = try launchParley(["run", dir.appendingPathComponent("bot.toml").path], stderr: err)
        // Every bot online and greeted by the others' greeters: journals busy.
        try await Task.sleep(for: .seconds(6))
        kill(p.processIdentifier, SIGTERM)
        let r = await finish(p, stdout: err)
        #expect(r.status == 0)
        let errors = r.stdout.split(separator: "\n").filter { $0.contains(" error: ") || $0.contains("journal") && $0.contains("closed") }
        #expect(errors.isEmpty, "\(errors.prefix(5))")
        for n in [1, 50, 100] {
            let verify = Pipe()
            let v = try launchParley(["journal", "verify", dir.appendingPathComponent("state/bot\(n)").path], stdout: verify)
            #expect(await finish(v, stdout: verify).status == 0)
        }
    }
}
