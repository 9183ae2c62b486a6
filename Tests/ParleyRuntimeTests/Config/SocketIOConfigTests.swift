import Foundation
import ParleyCore
import ParleyNet
import ParleyREST
import ParleyRuntime
import ParleySTOMP
import ParleySocketIO
import ParleyStreamChat
import Testing
import ParleyTestSupport

/// `[bot.socketio]`: defaults speak SocketChat; every key is checked and a
/// mistake names the file, line and key.
@Suite struct SocketIOConfigTests {
    /// The config's folder, with a CA file in `certs/` for `ca_file` to name.
    static let folder: String = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-sio-config-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: dir.appendingPathComponent("certs"), withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: dir.appendingPathComponent("certs/ca.pem").path, contents: Data(configTestCAPEM.utf8))
        return dir.path
    }()

    func parse(_ body: String) throws -> BotConfig {
        try BotConfigFile.parse(text: "[[bot]]\nname = \"b\"\ntransport = \"socketio\"\n" + body, path: Self.folder + "/bot.toml").bots[0]
    }

    func error(_ body: String) -> String { errorText { _ = try parse(body) } }

    /// `{n}` in a fleet's rooms gives each bot its own room, as in its name and journal.
    @Test func aFleetsRoomsTakeEachBotsNumber() throws {
        let file = try BotConfigFile.parse(text: """
            [[bot]]
            name = "greeter{n}"
            count = 3
            transport = "socketio"
            rooms = ["team{n}"]
            journal = "state/{bot}"
            """, path: Self.folder + "/bot.toml")
        #expect(file.bots.map(\.rooms) == [["team1"], ["team2"], ["team3"]])
        #expect(file.bots.map(\.journal) == ["state/greeter1", "state/greeter2", "state/greeter3"].map { Self.folder + "/" + $0 })
    }

    @Test func defaultsAreSocketChat() throws {
        let b = try parse("")
        #expect(b.transport == "socketio")
        #expect(b.socketio == SocketIOOptions())
        #expect(b.socketio.transports == [.websocket, .polling])
        #expect(b.socketio.path == "/socket.io/")
        // The trailing slash servers need is added, as the JS client adds it.
        #expect(try parse("[bot.socketio]\npath = \"/socket.io\"\n").socketio.path == "/socket.io/")
        #expect(b.socketio.events.newMessage == "newChatMessage")
        #expect(b.socketio.events.chatMessage == "chatMessage")
    }

    @Test func everyKeyIsRead() throws {
        let b = try parse("""
        rooms = ["a", "b"]
        [bot.socketio]
        transports = ["polling", "websocket"]
        path = "/chat/"
        ca_file = "certs/ca.pem"
        namespace_per_room = true
        namespace_template = "/ws-channel-{room}"
        ack_timeout = 2.5
        ack_sends = true
        [bot.socketio.headers]
        Authorization = "Bearer t"
        [bot.socketio.query]
        v = "2"
        [bot.socketio.auth]
        token = "sesame"
        [bot.socketio.events]
        new_message = "chat"
        chat_message = "say"
        start_type = ""
        """)
        let o = b.socketio
        #expect(o.transports == [.polling, .websocket])
        #expect(o.path == "/chat/")
        #expect(o.caFile == Self.folder + "/certs/ca.pem")
        #expect(o.namespacePerRoom && o.namespaceTemplate == "/ws-channel-{room}")
        #expect(o.ackTimeout == 2.5 && o.ackSends)
        #expect(o.headers == ["Authorization": "Bearer t"])
        #expect(o.query == ["v": "2"])
        #expect(o.auth == ["token": "sesame"])
        #expect(o.events.newMessage == "chat" && o.events.chatMessage == "say" && o.events.startType == "")
        #expect(o.events.userList == "userList")
    }

    @Test func mistakesNameTheKey() {
        #expect(error("[bot.socketio]\ntransports = [\"carrier-pigeon\"]\n").contains("transports"))
        #expect(error("[bot.socketio]\ntransports = []\n").contains("transports"))
        #expect(error("[bot.socketio]\npath = \"socket.io\"\n").contains("path"))
        #expect(error("[bot.socketio]\nnamespace_template = \"/fixed\"\n").contains("namespace_template"))
        #expect(error("[bot.socketio]\nack_timeout = 0\n").contains("ack_timeout"))
        #expect(error("[bot.socketio]\npth = \"/x/\"\n").contains("pth"))
        #expect(error("[bot.socketio]\nca_file = \"missing.pem\"\n").contains("missing.pem"))
        #expect(error("[bot.socketio.events]\nchat_message = \"\"\n").contains("chat_message"))
        #expect(error("[bot.socketio.events]\nnew_mesage = \"x\"\n").contains("new_mesage"))
        #expect(error("[bot.socketio.headers]\nX = 1\n").contains("X"))
        // One namespace is one room.
        #expect(error("rooms = [\"a\", \"b\"]\n").contains("namespace_per_room"))
    }
}
