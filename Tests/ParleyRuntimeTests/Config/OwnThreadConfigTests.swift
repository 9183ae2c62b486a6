import ParleyCore
import ParleyNet
import ParleyREST
import ParleyRuntime
import ParleySTOMP
import ParleySocketIO
import ParleyStreamChat
import Testing
import ParleyTestSupport

/// `[[bot]] own_thread`: off by default, read when set, refused where the
/// transport cannot live with it.
@Suite struct OwnThreadConfigTests {
    func parse(_ body: String) throws -> BotConfig {
        try BotConfigFile.parse(text: "[[bot]]\nname = \"b\"\n" + body, path: "/tmp/own-thread-bot.toml").bots[0]
    }

    @Test func offByDefaultAndReadWhenSet() throws {
        #expect(try parse("transport = \"socketio\"\n").ownThread == false)
        #expect(try parse("transport = \"socketio\"\nown_thread = true\n").ownThread == true)
        #expect(try parse("transport = \"stomp\"\nserver = \"stomp://127.0.0.1:61613\"\nown_thread = true\n").ownThread == true)
    }

    @Test func mistakesNameTheKey() {
        let notBool = errorText { _ = try parse("transport = \"socketio\"\nown_thread = \"yes\"\n") }
        #expect(notBool.contains("own_thread"), "\(notBool)")
        // StreamChat's quiet-period line timer would fire while a plugin held the thread.
        let streamchat = errorText { _ = try parse("own_thread = true\n") }
        #expect(streamchat.contains("own_thread") && streamchat.contains("StreamChat"), "\(streamchat)")
        #expect(streamchat.contains("own-thread-bot.toml:3"), "names the file and line: \(streamchat)")
    }
}
