import Foundation
import ParleyCore
import ParleyRuntime
import ParleyLua
import Testing
import ParleyTestSupport

/// A plugin can read no file and no environment variable: the hostile
/// plugin `Hostile/forbidden_host_reach.lua` tries every route (io, os,
/// loadfile/dofile, require/package, debug, binary and env-less `load`,
/// string.dump, collectgarbage options, the string metatable, coroutines,
/// the `bot` table) against a file and an environment variable this test
/// made, with contents nobody could guess; every route is told no, nothing
/// it says carries the secret, the file is untouched, and the host and a
/// second plugin keep going.
struct SandboxReachTests {
    @Test func aPluginReadsNoFileAndNoEnvironmentVariable() async throws {
        let envName = "PARLEY_SANDBOX_SECRET_\(UInt32.random(in: 0...UInt32.max))"
        let envSecret = "ENV-SECRET-\(UUID().uuidString)"
        setenv(envName, envSecret, 1)
        defer { unsetenv(envName) }
        let dir = try temporaryDirectory()
        let file = dir.appendingPathComponent("secret.txt").path
        let fileSecret = "FILE-SECRET-\(UUID().uuidString)"
        try fileSecret.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(String(cString: getenv(envName)) == envSecret)

        let source = try String(contentsOf: fixture("Hostile/forbidden_host_reach.lua"), encoding: .utf8)
        let canary = #"bot.command("ping", function(m) m:reply("pong") end)"#
        var options = BotOptions(name: "parley")
        options.pluginConfig["reach"] = .table(array: [], hash: [
            LuaPair(key: .bytes(Array("path".utf8)), value: .bytes(Array(file.utf8))),
            LuaPair(key: .bytes(Array("var".utf8)), value: .bytes(Array(envName.utf8))),
        ])
        let script = [message("!probe"), message("go"), message("!ping")].joined(separator: "\n")
        let actions = try await run(plugins: [("reach", source), ("canary", canary)], script: script, options: options)

        // Nothing the plugin did carries either secret: not a send, not a log line, not an error.
        for a in actions {
            #expect(!a.json.contains(envSecret) && !a.json.contains(fileSecret), "leaked: \(a.json)")
        }
        let report = try #require(actions.first { $0.plugin == "reach" }?.sentText, "\(actions.map(\.json))")
        let lines = report.split(separator: "\n").map(String.init)
        #expect(lines.count >= 40, "every route reported: \(report)")
        let got = lines.filter { !$0.hasSuffix(": no") }
        #expect(got.isEmpty, "routes that got something: \(got)")
        // The direct reach is a runtime error; the host and the other plugin carry on.
        #expect(actions.contains { $0.plugin == "reach" && $0.errorKind == .runtime })
        #expect(actions.contains { $0.plugin == "canary" && $0.sentText == "pong" })
        // os.remove / os.rename did nothing.
        #expect(try String(contentsOfFile: file, encoding: .utf8) == fileSecret)
        #expect(!FileManager.default.fileExists(atPath: file + ".moved"))
    }
}
