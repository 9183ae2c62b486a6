import Foundation
import ParleyCore
import ParleyRuntime
import Testing

/// Every file in Hostile/ attacks one sandbox point. Each declares the error
/// kind it must produce in its first line (`-- expect: budget`). For each:
/// the host survives, that error is reported for the hostile plugin, and a
/// second plugin in the same bot still answers.
struct HostileTests {
    static let files: [String] = {
        let dir = fixture("Hostile")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { $0.hasSuffix(".lua") }.sorted()
    }()

    @Test func thereAreHostilePlugins() { #expect(Self.files.count >= 40) }

    @Test(arguments: files)
    func hostilePluginIsContained(file: String) async throws {
        let source = try String(contentsOf: fixture("Hostile/" + file), encoding: .utf8)
        let expect = try #require(source.split(separator: "\n").first?.split(separator: ":").last)
            .trimmingCharacters(in: .whitespaces)
        let kind = try #require(PluginErrorKind(rawValue: expect), "bad expect line in \(file)")
        let name = String(file.dropLast(4))
        let canary = #"bot.command("ping", function(m) m:reply("pong") end)"#
        let script = [message("go " + String(repeating: "a", count: 100)), message("!ping")].joined(separator: "\n")
        // The instruction budget stops CPU attacks deterministically; a roomy wall clock
        // keeps a loaded CI machine from turning a memory attack into a deadline trip.
        var options = BotOptions(name: "parley")
        options.limits.timeMilliseconds = 10_000
        let actions = try await run(plugins: [(name, source), ("canary", canary)], script: script, options: options)
        let errors = actions.filter { $0.plugin == name }.compactMap(\.errorKind)
        #expect(errors.contains(kind), "\(file): expected a \(kind) error, got \(actions.map(\.json))")
        #expect(actions.contains { $0.plugin == "canary" && $0.sentText == "pong" }, "\(file): the canary did not answer")
        // A failed handler has no effects: nothing it sent before failing goes out.
        if kind != .quota {
            #expect(!actions.contains { $0.plugin == name && $0.sentText != nil })
        }
    }

    /// table.insert, remove and concat are the sandbox's own (charged for
    /// their steps), and string.rep and table.move are wrapped: each still
    /// answers as stock Lua 5.4's does (the lines below are `lua5.4`'s).
    @Test func theGuardedLibraryFunctionsKeepTheirMeaning() async throws {
        let p = #"""
        bot.command("go", function()
          local function p(...)
            local t = {}
            for i = 1, select("#", ...) do t[#t + 1] = tostring((select(i, ...))) end
            print(table.concat(t, " "))
          end
          local t = {1, 2, 3}
          table.insert(t, 4); table.insert(t, 1, 0); table.insert(t, 3, 9)
          p(table.concat(t, ","))
          p(table.remove(t), table.remove(t, 1), table.remove(t, 2), table.concat(t, ","))
          p(table.remove({}), table.remove({}, 0), #t)
          p(pcall(table.insert, t, 9, 1))
          p(pcall(table.insert, t, 1, 2, 3))
          p(pcall(table.remove, t, 7))
          p(table.concat({1, 2.5, "x"}, "-", 2, 3), table.concat({}, "x"), table.concat({1, 2, 3}, ", ", 3, 2))
          p(pcall(table.concat, {1, {}, 3}))
          p(table.concat(table.move({1, 2, 3}, 1, 3, 2), ","))
          p(string.rep("ab", 3, "-"), string.rep("", 5), string.rep("x", 0), string.rep("x", -1), string.rep("", 3, ","))
          local r = {1, 2, 3, 4, 5}; p(table.remove(r, #r + 1), #r)
        end)
        """#
        let got = try await run(plugins: [("p", p)], script: message("!go")).compactMap(\.logText)
        #expect(got == ["0,1,9,2,3,4", "4 0 9 1,2,3", "nil nil 3",
                        "false bad argument #2 to 'table.insert' (position out of bounds)",
                        "false wrong number of arguments to 'insert'",
                        "false bad argument #2 to 'table.remove' (position out of bounds)",
                        "2.5-x  ", "false invalid value (table) at index 2 in table for 'concat'",
                        "1,1,2,3", "ab-ab-ab    ,,", "nil 5"], "\(got)")
    }

    @Test func floodedSendsStopAtTheQuota() async throws {
        let source = try String(contentsOf: fixture("Hostile/quota_sends.lua"), encoding: .utf8)
        let actions = try await run(plugins: [("flood", source)], script: message("go"))
        #expect(actions.filter { $0.sentText != nil }.count == 20)
        #expect(actions.filter { $0.errorKind == .quota }.count == 1)
    }

    @Test func floodedLogsStopAtTheQuotaAndAreCut() async throws {
        let source = try String(contentsOf: fixture("Hostile/quota_logs.lua"), encoding: .utf8)
        let actions = try await run(plugins: [("flood", source)], script: message("go"))
        let logs = actions.compactMap(\.logText)
        #expect(logs.count == 100)
        #expect(logs.allSatisfy { $0.utf8.count <= 1024 })
    }

    @Test func circuitBreakerDisablesAfterFiveFailuresInARow() async throws {
        let bad = #"bot.hear("go", function() error("nope") end) bot.command("ping", function(m) m:reply("alive") end)"#
        let canary = #"bot.command("ping", function(m) m:reply("pong") end)"#
        let script = (Array(repeating: message("go"), count: 7) + [message("!ping")]).joined(separator: "\n")
        let actions = try await run(plugins: [("bad", bad), ("canary", canary)], script: script)
        #expect(actions.filter { $0.plugin == "bad" && $0.errorKind == .runtime }.count == 5)
        let disabled = actions.filter { $0.errorKind == .pluginDisabled }
        #expect(disabled.count == 1)
        if case .error(_, let message)? = disabled.first?.kind {
            #expect(message.contains("bad") && message.contains("runtime: "))
        }
        #expect(!actions.contains { $0.sentText == "alive" })
        #expect(actions.contains { $0.plugin == "canary" && $0.sentText == "pong" })
    }

    @Test func successResetsTheFailureCount() async throws {
        let flaky = #"bot.hear("bad", function() error("x") end) bot.hear("good", function(m) m:reply("ok") end)"#
        let pattern = [message("bad"), message("bad"), message("bad"), message("bad"), message("good")]
        let script = (pattern + pattern).joined(separator: "\n")
        let actions = try await run(plugins: [("flaky", flaky)], script: script)
        #expect(!actions.contains { $0.errorKind == .pluginDisabled })
        #expect(actions.filter { $0.sentText == "ok" }.count == 2)
    }
}
