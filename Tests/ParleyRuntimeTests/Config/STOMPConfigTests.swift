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

/// `[bot.stomp]`: defaults speak RabbitMQ Web-STOMP with CocoTalk-style JSON;
/// every key is checked and a mistake names the file, line and key.
@Suite struct STOMPConfigTests {
    func parse(_ body: String, server: String? = "ws://127.0.0.1:15674/ws") throws -> BotConfig {
        let head = "[[bot]]\nname = \"b\"\ntransport = \"stomp\"\n" + (server.map { "server = \"\($0)\"\n" } ?? "")
        return try BotConfigFile.parse(text: head + body, path: "/tmp/stomp-bot.toml").bots[0]
    }

    func error(_ body: String, server: String? = "ws://127.0.0.1:15674/ws") -> String { errorText { _ = try parse(body, server: server) } }

    @Test func defaultsAreRabbitMQAndCocoTalk() throws {
        let o = try parse("").stomp
        #expect(o == STOMPOptions())
        #expect(o.host == "/")
        #expect(o.login == nil && o.passcode == nil)
        #expect(o.heartBeat == (10_000, 10_000))
        #expect(o.subscribe == "/topic/chat.room.{room}" && o.send == "/topic/chat.room.{room}")
        #expect(o.types.join == "ENTER" && o.types.message == "TALK" && o.types.leave == "LEAVE" && o.types.typing == "TYPING")
        #expect(o.kickPolicy == .stop)
        #expect(o.body.render([.type: "TALK", .room: "r1", .sender: "bot", .message: "hi \"there\""])
            == #"{"type":"TALK","roomId":"r1","sender":"bot","message":"hi \"there\""}"#)
    }

    @Test func everyKeyIsRead() throws {
        let o = try parse("""
        [bot.stomp]
        host = "chat"
        login = "bot"
        passcode = "s3cret"
        heart_beat = [5000, 0]
        heart_beat_margin = 2.5
        subscribe = "/sub/chat/room/{room}"
        send = "/pub/chat/message"
        body = '{"kind":"{type}","data":{"room":"{room}","from":"{sender}","text":"{message}"},"app":"parley"}'
        announce = false
        receipt_timeout = 3
        discovery = "http://127.0.0.1:8080/socket-server"
        kick_destination = "/queue/kick.{user}"
        kick_type = "DUPLICATE_LOGIN"
        kick_policy = "reclaim"
        reclaim_delay = 30
        max_frame_bytes = 65536
        [bot.stomp.connect_headers]
        Authorization = "Bearer t"
        [bot.stomp.headers]
        Cookie = "a=b"
        [bot.stomp.types]
        join = "JOIN"
        typing = ""
        """).stomp
        #expect(o.host == "chat" && o.login == "bot" && o.passcode == "s3cret")
        #expect(o.heartBeat == (5000, 0) && o.heartBeatMargin == 2.5)
        #expect(o.subscribe == "/sub/chat/room/{room}" && o.send == "/pub/chat/message")
        #expect(o.body.paths[.sender] == ["data", "from"])
        let body = try JSONValue.parse(#"{"kind":"TALK","data":{"room":"r","from":"ann","text":"yo"}}"#)
        #expect(o.body.read(.sender, from: body) == "ann" && o.body.read(.message, from: body) == "yo")
        #expect(o.body.render([.type: "TALK", .room: "r", .sender: "b", .message: "m"])
            == #"{"kind":"TALK","data":{"room":"r","from":"b","text":"m"},"app":"parley"}"#)
        #expect(!o.announce && o.receiptTimeout == 3)
        #expect(o.discovery == "http://127.0.0.1:8080/socket-server")
        #expect(o.kickDestination == "/queue/kick.{user}" && o.kickType == "DUPLICATE_LOGIN")
        #expect(o.kickPolicy == .reclaim(after: 30))
        #expect(o.maxFrameBytes == 65536)
        #expect(o.connectHeaders == ["Authorization": "Bearer t"] && o.headers == ["Cookie": "a=b"])
        #expect(o.types.join == "JOIN" && o.types.typing == "" && o.types.message == "TALK")
    }

    @Test func discoveryStandsInForTheServer() throws {
        #expect(try parse("[bot.stomp]\ndiscovery = \"http://127.0.0.1:1/\"\n", server: nil).stomp.discovery != nil)
        #expect(error("", server: nil).contains("server"))
    }

    @Test func mistakesNameTheKey() {
        #expect(error("[bot.stomp]\nheart_beat = [1000]\n").contains("heart_beat"))
        #expect(error("[bot.stomp]\nheart_beat = [-1, 0]\n").contains("heart_beat"))
        #expect(error("[bot.stomp]\nsubscribe = \"/topic/fixed\"\n").contains("subscribe"))
        #expect(error("[bot.stomp]\nsend = \"topic/x\"\n").contains("send"))
        #expect(error("[bot.stomp]\nbody = '{\"message\":\"{message}\"}'\n").contains("{sender}"))
        #expect(error("[bot.stomp]\nbody = 'not json'\n").contains("body"))
        #expect(error("[bot.stomp]\nbody = '[\"{sender}\"]'\n").contains("body"))
        #expect(error("[bot.stomp]\nreceipt_timeout = 0\n").contains("receipt_timeout"))
        #expect(error("[bot.stomp]\ndiscovery = \"ws://x/\"\n").contains("discovery"))
        #expect(error("[bot.stomp]\nkick_policy = \"fight\"\n").contains("kick_policy"))
        #expect(error("[bot.stomp]\nkick_destination = \"kick\"\n").contains("kick_destination"))
        #expect(error("[bot.stomp]\npasscode = \"a\\nb\"\n").contains("passcode"))
        #expect(error("[bot.stomp]\nhots = \"/\"\n").contains("hots"))
        #expect(error("[bot.stomp.types]\nmessage = \"\"\n").contains("message"))
        let shared = error("[bot.stomp.types]\njoin = \"TALK\"\n")
        #expect(shared.contains("join and message share the type name 'TALK'"), "\(shared)")
        #expect(error("[bot.stomp.types]\ntypo = \"X\"\n").contains("typo"))
        #expect(error("[bot.stomp.connect_headers]\nX = 1\n").contains("X"))
    }

    /// A room listed twice would be subscribed twice, and every message in it
    /// handled and answered twice; an empty list or name joins nothing.
    @Test func eachRoomIsNamedOnce() {
        let twice = error("rooms = [\"1\", \"2\", \"1\"]\n")
        #expect(twice.contains("stomp-bot.toml:5") && twice.contains("rooms") && twice.contains("'1' is listed twice"), "\(twice)")
        #expect(error("rooms = []\n").contains("name at least one room"))
        #expect(error("rooms = [\"1\", \" \"]\n").contains("a room name must not be empty"))
    }

    /// The passcode is in the options for CONNECT, never in an error message.
    @Test func thePasscodeStaysOutOfErrors() {
        let e = error("[bot.stomp]\npasscode = \"s3cret\"\nreceipt_timeout = -1\n")
        #expect(e.contains("receipt_timeout") && !e.contains("s3cret"))
    }
}
