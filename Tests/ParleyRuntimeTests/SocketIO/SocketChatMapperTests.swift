import ParleyCore
import ParleyJournal
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

    /// A typing set the same, byte for byte, as the last of its namespace is
    /// dropped before it is decoded: over random runs of packets in two
    /// namespaces (typing sets, messages, acked and binary events), plugins
    /// hear exactly what they hear with every packet decoded.
    @Test func droppingRepeatedWholeStatesChangesNothingPluginsHear() throws {
        let namespaces = ["/a": "a", "/b": "b"]
        let sets: [JSONValue] = [[:], ["amy": 1], ["amy": 1, "ben": 1], ["ben": 1], ["parley": 1]]
        var rng = SeededRandom(seed: 3)
        var dropped = 0
        for _ in 0..<200 {
            var all = SocketChatMapper(events: SocketChatEvents(), botName: "parley")
            var kept = SocketChatMapper(events: SocketChatEvents(), botName: "parley")
            var repeats = StateRepeats(events: ["userTypingUpdate"])
            var heardAll: [BotEvent] = [], heardKept: [BotEvent] = []
            for _ in 0..<40 {
                let ns = rng.next() % 2 == 0 ? "/a" : "/b"
                let packet: SocketIO.Packet = switch rng.next() % 6 {
                case 0: .event("newChatMessage", ["amy", "hi"], namespace: ns)
                case 1: .event("userTypingUpdate", [sets[Int(rng.next() % 3)]], namespace: ns, id: 7)
                // Its placeholder object maps as a typing set of its own keys: a change of state.
                case 2: SocketIO.Packet(type: .binaryEvent, namespace: ns, data: ["userTypingUpdate", SocketIO.placeholder(0)], attachments: [[1]])
                default: .event("userTypingUpdate", [sets[Int(rng.next() % UInt64(sets.count))]], namespace: ns)
                }
                let text = SocketIO.encode(packet).text
                let decoded = try SocketIO.decode(text).packet
                heardAll += all.map(decoded.eventName!, decoded.eventArguments, room: namespaces[ns]!)
                if repeats.isRepeat(text) {
                    dropped += 1
                    continue
                }
                repeats.record(text, decoded)
                heardKept += kept.map(decoded.eventName!, decoded.eventArguments, room: namespaces[ns]!)
            }
            #expect(heardKept == heardAll)
        }
        #expect(dropped > 300)
    }

    /// Only a plain event can be a repeat: one asking for an ack is answered
    /// every time, and it still changes the state, so it makes the last plain one stale.
    @Test func anAckedWholeStateIsNeverARepeat() throws {
        var repeats = StateRepeats(events: ["userTypingUpdate"])
        let acked = SocketIO.encode(.event("userTypingUpdate", [[:]], id: 4)).text
        repeats.record(acked, try SocketIO.decode(acked).packet)
        #expect(!repeats.isRepeat(acked))
        let plain = SocketIO.encode(.event("userTypingUpdate", [[:]])).text
        repeats.record(plain, try SocketIO.decode(plain).packet)
        #expect(repeats.isRepeat(plain))
        let other = SocketIO.encode(.event("userTypingUpdate", [["amy": 1]], id: 5)).text
        repeats.record(other, try SocketIO.decode(other).packet)
        #expect(!repeats.isRepeat(plain))
        // Another event with the same arguments is not the same state.
        #expect(!repeats.isRepeat(SocketIO.encode(.event("userList", [[:]])).text))
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
