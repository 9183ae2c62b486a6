import Foundation
import ParleyRuntime
import Testing
import ParleyTestSupport

/// `[bot.http]` and `[bot.webhooks.NAME]`: read into the bot's options, and
/// each mistake named by its key.
@Suite struct HTTPConfigTests {
    func parse(_ body: String) throws -> BotConfig {
        try BotConfigFile.parse(text: "[[bot]]\nname = \"b\"\n" + body, path: "/tmp/http-bot.toml").bots[0]
    }

    @Test func theAllowListAndLimitsReachThePluginHost() throws {
        let b = try parse("""
        [bot.http]
        allow = ["api.example.com", "*.example.org", "127.0.0.1:8080", "[::1]:9000"]
        timeout = 2.5
        max_bytes = 4096
        requests_per_event = 2
        in_flight = 3
        """)
        #expect(b.http.allow.map(\.host) == ["api.example.com", "*.example.org", "127.0.0.1", "::1"])
        #expect(b.http.allow.map(\.port) == [nil, nil, 8080, 9000])
        #expect(b.http.timeout == 2.5 && b.http.maxBytes == 4096 && b.http.requestsPerEvent == 2 && b.http.inFlight == 3)
        #expect(b.botOptions.http == b.http)
        // Nothing is reachable by default.
        #expect(try parse("").http.allow.isEmpty)
    }

    @Test func badEntriesAndLimitsNameTheKey() {
        for bad in ["\"http://api.example.com\"", "\"host:99999\"", "\"::1\"", "\"a b\"", "\"\""] {
            let e = errorText { _ = try parse("[bot.http]\nallow = [\(bad)]\n") }
            #expect(e.contains("allow") && e.contains("is not a host"), "\(bad): \(e)")
        }
        let timeout = errorText { _ = try parse("[bot.http]\ntimeout = 0\n") }
        #expect(timeout.contains("timeout"), "\(timeout)")
        let unknown = errorText { _ = try parse("[bot.http]\nallowed = []\n") }
        #expect(unknown.contains("allowed"), "\(unknown)")
    }

    @Test func webhookSecretsComeFromTheFileOrTheEnvironment() throws {
        let dir = try temporaryDirectory()
        let plugin = dir.appendingPathComponent("hooks.lua").path
        try "".write(toFile: plugin, atomically: true, encoding: .utf8)
        let head = "plugins = [\"\(plugin)\"]\n"
        #expect(try parse(head + "[bot.webhooks.hooks]\nsecret = \"0123456789abcdef\"\n").webhookSecrets == ["hooks": "0123456789abcdef"])
        setenv("PARLEY_TEST_HOOK_SECRET", "from-the-environment-0123", 1)
        #expect(try parse(head + "[bot.webhooks.hooks]\nsecret_env = \"PARLEY_TEST_HOOK_SECRET\"\n").webhookSecrets["hooks"]
                == "from-the-environment-0123")
        let short = errorText { _ = try parse(head + "[bot.webhooks.hooks]\nsecret = \"short\"\n") }
        #expect(short.contains("secret") && short.contains("16 bytes"), "\(short)")
        let both = errorText { _ = try parse(head + "[bot.webhooks.hooks]\nsecret = \"0123456789abcdef\"\nsecret_env = \"X\"\n") }
        #expect(both.contains("not both"), "\(both)")
        let missing = errorText { _ = try parse(head + "[bot.webhooks.hooks]\nsecret_env = \"PARLEY_TEST_NO_SUCH_VAR\"\n") }
        #expect(missing.contains("PARLEY_TEST_NO_SUCH_VAR is not set"), "\(missing)")
        let stranger = errorText { _ = try parse(head + "[bot.webhooks.other]\nsecret = \"0123456789abcdef\"\n") }
        #expect(stranger.contains("other") && stranger.contains("not a plugin this bot loads"), "\(stranger)")
    }
}
