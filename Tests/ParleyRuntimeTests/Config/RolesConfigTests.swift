import ParleyRuntime
import Testing
import ParleyTestSupport

/// `[bot.roles]`: role name → users; read into the plugin host's options.
@Suite struct RolesConfigTests {
    func parse(_ body: String) throws -> BotConfig {
        try BotConfigFile.parse(text: "[[bot]]\nname = \"b\"\n" + body, path: "/tmp/roles-bot.toml").bots[0]
    }

    @Test func rolesReachThePluginHost() throws {
        let b = try parse("[bot.roles]\nmoderator = [\"alice\", \"bob\"]\nadmin = [\"root\"]\n")
        #expect(b.roles == ["moderator": ["alice", "bob"], "admin": ["root"]])
        #expect(b.botOptions.roles == b.roles)
        #expect(try parse("").roles.isEmpty)
    }

    @Test func mistakesNameTheKey() {
        let notAList = errorText { _ = try parse("[bot.roles]\nmoderator = \"alice\"\n") }
        #expect(notAList.contains("moderator"), "\(notAList)")
        let empty = errorText { _ = try parse("[bot.roles]\nmoderator = [\"\"]\n") }
        #expect(empty.contains("moderator") && empty.contains("must not be empty"), "\(empty)")
    }
}
