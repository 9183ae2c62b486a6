import Foundation
import ParleyCore
import ParleyNet
import ParleyREST
import ParleyRuntime
import ParleySTOMP
import ParleySocketIO
import ParleyStreamChat
import ParleyWire
import Testing
import ParleyTestSupport

/// `[bot.streamchat]` and what StreamChat cannot carry, refused when the
/// config is read, with file and line; and plugin files that are not there.
@Suite struct StreamChatConfigTests {
    func parse(_ body: String, path: String = "/tmp/streamchat-bot.toml") throws -> BotConfig {
        try BotConfigFile.parse(text: "[[bot]]\n" + body, path: path).bots[0]
    }

    @Test func aQuietRoomIsNotADeadLinkByDefault() throws {
        let o = try parse("name = \"b\"\n").streamchat
        #expect(o.idleTimeout == 0, "no read idle timeout unless asked for")
        #expect(o.keepalive == TCPKeepalive(idle: 60, interval: 10, count: 3))
        let tuned = try parse("name = \"b\"\n[bot.streamchat]\nkeepalive_idle = 5\nkeepalive_interval = 2\nkeepalive_count = 4\n").streamchat
        #expect(tuned.keepalive == TCPKeepalive(idle: 5, interval: 2, count: 4))
        #expect(tuned.keepalive?.bound == 13)
        #expect(try parse("name = \"b\"\n[bot.streamchat]\nkeepalive = false\n").streamchat.keepalive == nil)
    }

    /// `moderator_token` (or `_env`) is what the bot presents before its name;
    /// one that cannot go in a frame is refused at its line.
    @Test func theModeratorTokenIsReadAndChecked() throws {
        #expect(try parse("name = \"b\"\n").streamchat.moderatorToken == nil)
        #expect(try parse("name = \"b\"\n[bot.streamchat]\nmoderator_token = \"abc123\"\n").streamchat.moderatorToken == "abc123")
        let bad = errorText { _ = try parse("name = \"b\"\n[bot.streamchat]\nmoderator_token = \"a::b\"\n") }
        #expect(bad.contains("streamchat-bot.toml:4") && bad.contains("cannot go in a StreamChat frame"), "\(bad)")
        setenv("PARLEY_TEST_SC_TOKEN", "from-env", 1)
        #expect(try parse("name = \"b\"\n[bot.streamchat]\nmoderator_token_env = \"PARLEY_TEST_SC_TOKEN\"\n").streamchat.moderatorToken == "from-env")
    }

    @Test func aNameWithAFrameTokenIsRefused() {
        let e = errorText { _ = try parse("name = \"bad::name\"\n") }
        #expect(e.contains("streamchat-bot.toml:2") && e.contains("bad::name") && e.contains("'::'"), "\(e)")
        let fleet = errorText { _ = try parse("name = \"u{n}::x\"\ncount = 2\n") }
        #expect(fleet.contains("u1::x"), "\(fleet)")
        // Other transports have no such rule.
        #expect((try? parse("name = \"bad::name\"\ntransport = \"socketio\"\n")) != nil)
    }

    /// A bot's name goes into every log line, `check`'s listing and the server: no control characters.
    @Test func aBotNameWithAControlCharacterIsRefused() {
        for bad in ["a\\nb", "a\\u001B[2Jb", "a\\u2028b"] {
            let e = errorText { _ = try BotConfigFile.parse(text: "[[bot]]\nname = \"\(bad)\"\n", path: "/tmp/n.toml") }
            #expect(e.contains("n.toml:2") && e.contains("control characters or line breaks"), "\(bad): \(e)")
        }
    }

    /// The command prefix is matched against a line's first bytes: no control characters either.
    @Test func aPrefixWithAControlCharacterIsRefused() {
        for bad in ["!\\u0000", "\\n", "!\\u2028"] {
            let e = errorText { _ = try BotConfigFile.parse(text: "[[bot]]\nname = \"b\"\nprefix = \"\(bad)\"\n", path: "/tmp/p.toml") }
            #expect(e.contains("p.toml:3") && e.contains("command prefix") && e.contains("control characters"), "\(bad): \(e)")
        }
    }

    @Test func streamChatHasOneRoom() throws {
        let e = errorText { _ = try parse("name = \"b\"\n\nrooms = [\"general\", \"random\"]\n") }
        #expect(e.contains("streamchat-bot.toml:4") && e.contains("one room"), "\(e)")
        #expect(try parse("name = \"b\"\nrooms = [\"lobby\"]\n").rooms == ["lobby"])
    }

    @Test func aPluginFileThatIsNotThereIsRefused() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-cfg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try "bot.on('load', function() end)".write(to: dir.appendingPathComponent("here.lua"), atomically: true, encoding: .utf8)
        let path = dir.appendingPathComponent("bot.toml").path
        #expect(try parse("name = \"b\"\nplugins = [\"here.lua\"]\n", path: path).plugins == [dir.appendingPathComponent("here.lua").path])
        let missing = errorText { _ = try parse("name = \"b\"\nplugins = [\"here.lua\", \"nope.lua\"]\n", path: path) }
        #expect(missing.contains("bot.toml:3") && missing.contains(dir.appendingPathComponent("nope.lua").path)
                && missing.contains("does not exist"), "\(missing)")
        let folder = errorText { _ = try parse("name = \"b\"\nplugins = [\".\"]\n", path: path) }
        #expect(folder.contains("folder"), "\(folder)")
    }
}
