import Foundation
import ParleyStreamChat
import Testing
import ParleyTestSupport

/// What `parley` does when its output fails: a closed pipe (`| head`) or a
/// full disk (`> /dev/full`). Short-lived commands end quietly on a closed
/// pipe and with one clear line on a full disk; a running bot keeps running.
@Suite(.timeLimit(.minutes(3)), .serialized)
struct OutputFailureTests {
    /// Runs a bash script with the binary as `$0` and `args` as `$1`…; returns its status and output.
    static func bash(_ script: String, _ args: [String] = []) async throws -> (status: Int32, stdout: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/bash")
        p.arguments = ["-c", script, parleyBinary] + args
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        return await finish(p, stdout: out)
    }

    /// The status of `$0 …` in a pipeline, and what it wrote to standard error.
    static func piped(_ command: String, into reader: String, in dir: URL) async throws -> (status: Int32, stderr: String) {
        let err = dir.appendingPathComponent("stderr-\(UUID().uuidString)").path
        let r = try await bash("set +o pipefail; \(command) 2>\"$1\" | \(reader) >/dev/null; echo ${PIPESTATUS[0]}", [err])
        let stderr = (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
        return (Int32(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1, stderr)
    }

    /// A plugin that answers every line, and enough lines to fill a pipe's buffer.
    static func pingScript(in dir: URL, count: Int) throws -> String {
        let path = dir.appendingPathComponent("pings.jsonl").path
        let line = #"{"type":"message","room":"r","user":"u","text":"!ping"}"# + "\n"
        try String(repeating: line, count: count).write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static let echo = packageRoot.appendingPathComponent("Plugins/echo.lua").path
    /// A closed pipe: killed by SIGPIPE as `cat` is (128 + 13), or done before it noticed.
    static let quietStatuses: Set<Int32> = [0, 141]

    @Test func shortLivedCommandsEndQuietlyOnAClosedPipe() async throws {
        let dir = try temporaryDirectory()
        let events = try Self.pingScript(in: dir, count: 3000)
        let journal = dir.appendingPathComponent("journal").path
        let made = try await Self.bash("\"$0\" plugin test \"$1\" --events \"$2\" --journal \"$3\" >/dev/null; echo $?", [Self.echo, events, journal])
        #expect(made.stdout.hasPrefix("0"), "the journal for the dump was made")
        for command in ["\"$0\" demo --seconds 3 --users 2",
                        "\"$0\" plugin test \(Self.echo) --events \(events)",
                        "\"$0\" journal dump \(journal)"] {
            let r = try await Self.piped(command, into: "head -2", in: dir)
            #expect(Self.quietStatuses.contains(r.status), "\(command): status \(r.status), stderr \(r.stderr)")
            #expect(r.stderr.isEmpty, "\(command): \(r.stderr)")
        }
    }

    @Test func shortLivedCommandsSayOnceThatTheDiskIsFull() async throws {
        let dir = try temporaryDirectory()
        let events = try Self.pingScript(in: dir, count: 10)
        let journal = dir.appendingPathComponent("journal").path
        _ = try await Self.bash("\"$0\" plugin test \"$1\" --events \"$2\" --journal \"$3\" >/dev/null", [Self.echo, events, journal])
        for command in ["\"$0\" demo --seconds 2 --users 2",
                        "\"$0\" plugin test \(Self.echo) --events \(events)",
                        "\"$0\" journal dump \(journal)"] {
            // Standard error into the pipe, standard output to the full disk.
            let r = try await Self.bash("\(command) 2>&1 >/dev/full | cat; echo \"status ${PIPESTATUS[0]}\"")
            let lines = r.stdout.split(separator: "\n")
            #expect(lines.last == "status 1", "\(command): \(r.stdout)")
            #expect(lines.count == 2, "\(command): one line and the status: \(r.stdout)")
            #expect(r.stdout.contains("parley: cannot write to standard output: No space left on device"), "\(command): \(r.stdout)")
        }
    }

    /// A bot outlives its log: the consumer went away or the disk filled,
    /// and it still answers.
    @Test(arguments: ["closed pipe", "full disk"])
    func aRunningBotKeepsRunningWhenItsLogFails(_ failure: String) async throws {
        let server = try await StreamChatServer.start(.init())
        defer { Task { await server.shutdown() } }
        let dir = try temporaryDirectory()
        try """
        -- Logs a line for every message, so every message meets the failed output.
        bot.on("message", function(msg) bot.log.info("heard " .. msg.text) end)
        bot.command("ping", function(msg) msg:reply("pong " .. (msg.text:match("%d+") or "")) end)
        """.write(to: dir.appendingPathComponent("loud.lua"), atomically: true, encoding: .utf8)
        try """
        [[bot]]
        name = "loud"
        server = "127.0.0.1:\(server.port)"
        plugins = ["loud.lua"]
        journal = "state"
        """.write(to: dir.appendingPathComponent("bot.toml"), atomically: true, encoding: .utf8)
        let pidFile = dir.appendingPathComponent("pid").path, statusFile = dir.appendingPathComponent("status").path
        let script = failure == "closed pipe"
            // Both streams into a reader that takes 10 bytes and leaves.
            ? "(\"$0\" run \"$1\" 2>&1 & echo $! >\"$2\"; wait $!; echo $? >\"$3\") | head -c 10 >/dev/null"
            // The log to a full disk; standard output still works.
            : "\"$0\" run \"$1\" 2>/dev/full & echo $! >\"$2\"; wait $!; echo $? >\"$3\""
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/bash")
        p.arguments = ["-c", script, parleyBinary, dir.appendingPathComponent("bot.toml").path, pidFile, statusFile]
        let out = Pipe()
        p.standardOutput = out
        // In the room before the bot: StreamChat tells of a join only those already there.
        let alice = try await Person("alice", port: server.port)
        try p.run()
        #expect(await eventually { alice.joins(of: "loud") >= 1 })
        for i in 1...5 {
            try await alice.say("!ping \(i)")
            #expect(await eventually(10) { alice.texts(from: "loud").contains("pong \(i)") }, "answer \(i) after the log failed")
        }
        let pid = pid_t(try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        #expect(pid > 0)
        kill(pid, SIGTERM)
        let r = await finish(p, stdout: out)
        let status = try String(contentsOfFile: statusFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(status == "0", "a clean shutdown after the log failed")
        if failure == "full disk" {
            let notices = r.stdout.split(separator: "\n").filter { $0.contains("log output failed") }
            #expect(notices.count == 1, "said once on standard output: \(r.stdout)")
        }
        await alice.leave()
    }
}
