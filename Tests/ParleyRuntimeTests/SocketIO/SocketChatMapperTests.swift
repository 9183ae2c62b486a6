import ParleyCore
@testable import ParleySocketIO
import ParleyWire
import Testing

/// The SocketChat → Parley event mapping on its own (no network).
@Suite struct SocketChatMapperTests {
    @Test func mapsTheSocketChatSet() {
        var m = SocketChatMapper(events: SocketChatEvents(), botName: "parley")
        #expect(m.map("newChatMessage", ["amy", "hi", "11/21/2026, 3:04:05 PM"], room: "lobby")
            == [.message(ChatMessage(room: "lobby", user: "amy", text: "hi"))])
        #expect(m.map("userConnectUpdate", [["id": "x", "nickname": "amy", "isConnected": true]], room: "lobby")
            == [.join(room: "lobby", user: "amy", time: nil)])
        #expect(m.map("userExitUpdate", ["amy"], room: "lobby") == [.leave(room: "lobby", user: "amy", time: nil)])
        // The seed server sends userExitUpdate(null) after an exitUser: nobody left.
        #expect(m.map("userExitUpdate", [nil], room: "lobby").isEmpty)
        #expect(m.map("userList", [[["id": "1", "nickname": "amy", "isConnected": true],
                                    ["id": "2", "nickname": "ben", "isConnected": false],
                                    ["garbage": 1], 7]], room: "lobby")
            == [.roster(room: "lobby", users: [RosterEntry(user: "amy", online: true), RosterEntry(user: "ben", online: false)])])
        #expect(m.map("somethingElse", ["x"], room: "lobby").isEmpty)
        // Wrong shapes are ignored, never a crash.
        #expect(m.map("newChatMessage", [1, [:], nil], room: "lobby").isEmpty)
        #expect(m.map("userTypingUpdate", ["not a set"], room: "lobby").isEmpty)
        #expect(m.map("userList", [], room: "lobby").isEmpty)
    }

    /// The server sends the whole typing set each time; plugins hear who
    /// started and who stopped, per room, never the bot itself.
    @Test func typingIsTheDifferenceBetweenSets() {
        var m = SocketChatMapper(events: SocketChatEvents(), botName: "parley")
        #expect(m.map("userTypingUpdate", [["amy": 1]], room: "a") == [.typing(room: "a", user: "amy", on: true)])
        #expect(m.map("userTypingUpdate", [["amy": 1, "ben": 1, "parley": 1]], room: "a") == [.typing(room: "a", user: "ben", on: true)])
        #expect(m.map("userTypingUpdate", [["amy": 1, "ben": 1]], room: "a").isEmpty)
        #expect(m.map("userTypingUpdate", [["ben": 1]], room: "b") == [.typing(room: "b", user: "ben", on: true)])
        #expect(m.map("userTypingUpdate", [[:]], room: "a")
            == [.typing(room: "a", user: "amy", on: false), .typing(room: "a", user: "ben", on: false)])
    }

    /// Renamed events: the same mapping for a server with other names.
    @Test func eventNamesComeFromConfig() {
        var events = SocketChatEvents()
        events.newMessage = "chat"
        events.userConnect = "joined"
        events.typingUpdate = ""
        var m = SocketChatMapper(events: events, botName: "parley")
        #expect(m.map("chat", ["amy", "hi"], room: "r") == [.message(ChatMessage(room: "r", user: "amy", text: "hi"))])
        #expect(m.map("joined", ["amy"], room: "r") == [.join(room: "r", user: "amy", time: nil)])
        #expect(m.map("newChatMessage", ["amy", "hi", "d"], room: "r").isEmpty)
        #expect(m.map("userTypingUpdate", [["amy": 1]], room: "r").isEmpty)
    }
}
