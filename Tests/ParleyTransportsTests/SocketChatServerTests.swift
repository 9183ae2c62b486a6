import ParleyWire
import Testing
import ParleyTestSupport

@Suite("SocketChat server: Socket.IO", .timeLimit(.minutes(1)))
struct SocketIOServerTests {
    @Test func connectAnswersWithAFreshSocketID() async throws {
        try await withSocketChatServer { server in
            let ws = try await RawWebSocketClient.connect(port: server.port)
            guard case .open(let open) = try EngineIO.decode(text: try await ws.text()) else { throw failure("no open packet") }
            ws.send(#"40{"token":"t"}"#)
            let lobby = try socketID(in: try await ws.text(), prefix: "40")
            ws.send(#"40/ops,{"token":"t"}"#)
            let ops = try socketID(in: try await ws.text(), prefix: "40/ops,")
            #expect(Set([open.sid, lobby, ops]).count == 3)
            // Connecting again to a connected namespace changes nothing.
            ws.send("40/ops,")
            #expect(try socketID(in: try await ws.text(), prefix: "40/ops,") == ops)
        }
    }

    @Test func namespacesAreRoomsOfTheirOwn() async throws {
        try await withSocketChatServer { server in
            let (ann, annSID) = try await connectChat(port: server.port)
            let (bea, beaSID) = try await connectChat(port: server.port, namespace: "/ops")
            bea.send(#"42/ops,["connectUser","bea"]"#)
            #expect(try await bea.event() == ChatEvent("userList", [[user(beaSID, "bea")]], namespace: "/ops"))
            #expect(try await bea.event() == ChatEvent("userConnectUpdate", [user(beaSID, "bea")], namespace: "/ops"))
            ann.send(#"42["connectUser","ann"]"#)
            #expect(try await ann.event() == ChatEvent("userList", [[user(annSID, "ann")]]))
            #expect(try await ann.event() == ChatEvent("userConnectUpdate", [user(annSID, "ann")]))
            // ann also joins /ops on the same connection: a second socket, with its own sid and room.
            ann.send("40/ops,")
            let annOps = try socketID(in: try await ann.text(), prefix: "40/ops,")
            ann.send(#"42/ops,["connectUser","ann"]"#)
            let both: JSONValue = [user(beaSID, "bea"), user(annOps, "ann")]
            #expect(try await ann.event() == ChatEvent("userList", [both], namespace: "/ops"))
            #expect(try await bea.event() == ChatEvent("userList", [both], namespace: "/ops"))
            #expect(try await bea.event() == ChatEvent("userConnectUpdate", [user(annOps, "ann")], namespace: "/ops"))
            // Nothing from the lobby reached bea.
            #expect(await bea.next(timeout: .milliseconds(200)) == nil)
        }
    }

    @Test func theWholeSocketChatFlow() async throws {
        try await withSocketChatServer { server in
            let (ann, annSID) = try await connectChat(port: server.port)
            ann.send(#"42["connectUser","ann"]"#)
            let annInfo = user(annSID, "ann")
            #expect(try await ann.event() == ChatEvent("userList", [[annInfo]]))
            #expect(try await ann.event() == ChatEvent("userConnectUpdate", [annInfo]))

            let (bob, bobSID) = try await connectChat(port: server.port)
            bob.send(#"42["connectUser","bob"]"#)
            let bobInfo = user(bobSID, "bob")
            for client in [ann, bob] {
                #expect(try await client.event() == ChatEvent("userList", [[annInfo, bobInfo]]))
                #expect(try await client.event() == ChatEvent("userConnectUpdate", [bobInfo]))
            }

            // Typing: the whole set each time, in the order people started.
            for (sender, packet, typing) in [
                (bob, #"42["startType","bob"]"#, ["bob": 1] as JSONValue),
                (ann, #"42["startType","ann"]"#, ["bob": 1, "ann": 1]),
                (bob, #"42["stopType","bob"]"#, ["ann": 1]),
            ] {
                sender.send(packet)
                for client in [ann, bob] { #expect(try await client.event() == ChatEvent("userTypingUpdate", [typing])) }
            }

            // A message ends its sender's typing and reaches everyone, the sender too: the
            // seed's three arguments, and the message's id (what `deleteMessage` names).
            ann.send(#"42["chatMessage","ann","hello, lobby 👋"]"#)
            for client in [ann, bob] {
                #expect(try await client.event() == ChatEvent("userTypingUpdate", [[:]]))
                let message = try await client.event()
                #expect(message.name == "newChatMessage")
                try #require(message.args.count == 4)
                #expect(message.args[3].string?.isEmpty == false)
                #expect(message.args[0] == "ann")
                #expect(message.args[1] == "hello, lobby 👋")
                let date = try #require(message.args[2].string)
                #expect(try #/\d{1,2}/\d{1,2}/\d{4}, \d{1,2}:\d{2}:\d{2} (AM|PM)/#.wholeMatch(in: date) != nil, "date \(date)")
            }
            #expect(server.stats.messagesRelayed == 1)

            // bob types and vanishes: he goes offline but stays in the list, and stops typing.
            bob.send(#"42["startType","bob"]"#)
            for client in [ann, bob] { #expect(try await client.event() == ChatEvent("userTypingUpdate", [["bob": 1]])) }
            await bob.disconnect()
            #expect(try await ann.event() == ChatEvent("userList", [[annInfo, user(bobSID, "bob", online: false)]]))
            #expect(try await ann.event() == ChatEvent("userExitUpdate", ["bob"]))
            #expect(try await ann.event() == ChatEvent("userTypingUpdate", [[:]]))

            // He comes back on a new connection: same entry, new id, online again.
            let (bob2, bob2SID) = try await connectChat(port: server.port)
            bob2.send(#"42["connectUser","bob"]"#)
            let bobBack = user(bob2SID, "bob")
            for client in [ann, bob2] {
                #expect(try await client.event() == ChatEvent("userList", [[annInfo, bobBack]]))
                #expect(try await client.event() == ChatEvent("userConnectUpdate", [bobBack]))
            }

            // exitUser removes him; the disconnect after it finds nobody and says so with null.
            bob2.send(#"42["exitUser","bob"]"#)
            for client in [ann, bob2] { #expect(try await client.event() == ChatEvent("userExitUpdate", ["bob"])) }
            await bob2.disconnect()
            #expect(try await ann.event() == ChatEvent("userList", [[annInfo]]))
            #expect(try await ann.event() == ChatEvent("userExitUpdate", [nil]))
            #expect(try await ann.event() == ChatEvent("userTypingUpdate", [[:]]))
            #expect(server.stats.clientsDropped == 0)
        }
    }

    /// A client whose handshake says `echo=false` (Parley's bots do) is not
    /// sent its own typing and messages back; everyone else hears them.
    @Test func aClientThatAsksIsNotSentItsOwnDoings() async throws {
        try await withSocketChatServer { server in
            let (bot, _) = try await connectChat(port: server.port, nick: "bot", query: "EIO=4&transport=websocket&echo=false")
            let (ann, annSID) = try await connectChat(port: server.port, nick: "ann")
            _ = try await bot.text { $0.contains("userConnectUpdate") && $0.contains(annSID) }
            bot.send(#"42["startType","bot"]"#)
            bot.send(#"42["chatMessage","bot","hello"]"#)
            #expect(try await ann.event() == ChatEvent("userTypingUpdate", [["bot": 1]]))
            #expect(try await ann.event() == ChatEvent("userTypingUpdate", [[:]]))
            let hello = try await ann.event()
            #expect(hello.name == "newChatMessage" && hello.args.prefix(2) == ["bot", "hello"], "\(hello)")
            // The bot's next frames are ann's answer: none of its own came before it.
            ann.send(#"42["chatMessage","ann","hi bot"]"#)
            #expect(try await bot.event() == ChatEvent("userTypingUpdate", [[:]]))
            let answer = try await bot.event()
            #expect(answer.name == "newChatMessage" && answer.args.prefix(2) == ["ann", "hi bot"], "\(answer)")
            // ann, who did not ask, hears her own.
            #expect(try await ann.event() == ChatEvent("userTypingUpdate", [[:]]))
            #expect(try await ann.event().args.prefix(2) == ["ann", "hi bot"])
        }
    }

    /// A client that says `typingUpdates(false)` (a bot whose plugins do not
    /// listen to typing) is sent no typing sets until it says `true` again;
    /// its messages and everyone else's typing are as before.
    @Test func aClientThatAsksIsSentNoTypingUpdates() async throws {
        try await withSocketChatServer { server in
            let (bot, _) = try await connectChat(port: server.port, nick: "bot")
            let (ann, annSID) = try await connectChat(port: server.port, nick: "ann")
            _ = try await bot.text { $0.contains("userConnectUpdate") && $0.contains(annSID) }
            // With an ack id, so the answer says the server has taken it.
            bot.send(#"421["typingUpdates",false]"#)
            #expect(try await bot.text() == "431[]")
            ann.send(#"42["startType","ann"]"#)
            ann.send(#"42["chatMessage","ann","hi"]"#)
            // ann hears both typing sets; the bot only the message.
            #expect(try await ann.event() == ChatEvent("userTypingUpdate", [["ann": 1]]))
            #expect(try await ann.event() == ChatEvent("userTypingUpdate", [[:]]))
            #expect(try await ann.event().args.prefix(2) == ["ann", "hi"])
            #expect(try await bot.event().args.prefix(2) == ["ann", "hi"])
            bot.send(#"422["typingUpdates",true]"#)
            #expect(try await bot.text() == "432[]")
            ann.send(#"42["startType","ann"]"#)
            #expect(try await bot.event() == ChatEvent("userTypingUpdate", [["ann": 1]]))
            // Anything but a boolean is refused, and changes nothing.
            bot.send(#"423["typingUpdates","no"]"#)
            ann.send(#"42["stopType","ann"]"#)
            #expect(try await bot.event() == ChatEvent("userTypingUpdate", [[:]]))
            // Counted when the bot's connection reads it, which ann's need not wait for.
            #expect(await eventually(5) { server.stats.packetsRefused == 1 })
            #expect(server.stats.clientsDropped == 0)
        }
    }

    /// The list keeps the offline users that left last, `offlineUsers` of
    /// them: the original keeps every name that ever connected, and sends
    /// them all on every join and leave.
    @Test func theListKeepsOnlyTheLatestOfflineUsers() async throws {
        try await withSocketChatServer(.init(offlineUsers: 2)) { server in
            let (ann, annSID) = try await connectChat(port: server.port, nick: "ann")
            var sids: [String: String] = [:]
            // Joins and leaves of bob, cy and dee, in order: the last leave's list has forgotten bob.
            var list: JSONValue = []
            for nick in ["bob", "cy", "dee"] {
                let (ws, sid) = try await connectChat(port: server.port, nick: nick)
                sids[nick] = sid
                await ws.disconnect()
                // Each leave is heard before the next join: the server sees a
                // socket close on that socket's loop, and a later leave could
                // overtake it and change which names are the latest offline.
                while true {
                    let e = try await ann.event()
                    if e.name == "userList" { list = e.args[0] }
                    if e.name == "userExitUpdate", e.args.first == .string(nick) { break }
                }
            }
            /// ann's next `userList` after the events before it.
            func nextList() async throws -> JSONValue {
                while true {
                    let e = try await ann.event()
                    if e.name == "userList" { return e.args[0] }
                }
            }
            #expect(list == [user(annSID, "ann"), user(sids["cy"]!, "cy", online: false), user(sids["dee"]!, "dee", online: false)])
            // cy comes back: online again, and no longer counted among the offline.
            let (cy, cySID) = try await connectChat(port: server.port, nick: "cy")
            #expect(try await nextList() == [user(annSID, "ann"), user(cySID, "cy"), user(sids["dee"]!, "dee", online: false)])
            let (eve, eveSID) = try await connectChat(port: server.port, nick: "eve")
            await eve.disconnect()
            _ = try await nextList()
            #expect(try await nextList() == [user(annSID, "ann"), user(cySID, "cy"), user(sids["dee"]!, "dee", online: false),
                                             user(eveSID, "eve", online: false)])
            await cy.disconnect()
            #expect(try await nextList() == [user(annSID, "ann"), user(cySID, "cy", online: false), user(eveSID, "eve", online: false)])
        }
    }

    @Test func aPollingClientAndAWebSocketClientShareTheRoom() async throws {
        try await withSocketChatServer { server in
            let sid = try await pollingConnect(port: server.port)
            let uri = eio("transport=polling&sid=\(sid)")
            _ = try await RawHTTP.request(.POST, port: server.port, uri: uri, body: #"42["connectUser","pat"]"#)
            _ = try await RawHTTP.request(port: server.port, uri: uri)  // pat's own userList and userConnectUpdate
            let (ann, _) = try await connectChat(port: server.port, nick: "ann")
            ann.send(#"42["chatMessage","ann","hi pat"]"#)
            var events: [ChatEvent] = []
            while events.count < 4 {
                let body = try await RawHTTP.request(port: server.port, uri: uri).body
                events += body.split(separator: "\u{1e}").compactMap { ChatEvent(String($0)) }
            }
            #expect(events.map(\.name) == ["userList", "userConnectUpdate", "userTypingUpdate", "newChatMessage"])
            #expect(events[3].args.prefix(2) == ["ann", "hi pat"])
        }
    }

    @Test func acksAnswerEventsAfterTheirBroadcasts() async throws {
        let log = LogSink()
        try await withSocketChatServer(.init(log: log.log)) { server in
            let (ann, _) = try await connectChat(port: server.port, nick: "ann")
            ann.send(#"421["chatMessage","ann","hi"]"#)
            #expect(try await ann.event().name == "userTypingUpdate")
            #expect(try await ann.event().name == "newChatMessage")
            #expect(try await ann.text() == "431[true]")
            ann.send(#"4212["startType","ann"]"#)
            #expect(try await ann.event().name == "userTypingUpdate")
            #expect(try await ann.text() == "4312[]")
            ann.send("40/ops,")
            _ = try await ann.text()
            ann.send(#"42/ops,["connectUser","ann"]"#)
            _ = try await ann.text { $0.contains("userConnectUpdate") }
            ann.send(#"42/ops,7["stopType","ann"]"#)
            #expect(try await ann.event() == ChatEvent("userTypingUpdate", [[:]], namespace: "/ops"))
            #expect(try await ann.text() == "43/ops,7[]")
            // Unknown events are ignored: no broadcast, no ack.
            ann.send(#"429["noSuchEvent",1]"#)
            #expect(await eventually { server.stats.packetsRefused == 1 })
            #expect(await ann.next(timeout: .milliseconds(200)) == nil)
            // Logged after the count, on the server's loop.
            #expect(await eventually { log.contains(#"refused "noSuchEvent" from 127.0.0.1:"#) })
        }
    }

    /// A connection speaks, types and leaves only as the name it connected
    /// with. The seed believes the name in every packet, so anyone could
    /// speak as a moderator, or get another person struck.
    @Test func aConnectionSpeaksOnlyAsItsOwnName() async throws {
        try await withSocketChatServer { server in
            let (ann, _) = try await connectChat(port: server.port, nick: "ann")
            let (eve, _) = try await connectChat(port: server.port, nick: "eve")
            _ = try await ann.text { $0.contains("userConnectUpdate") && $0.contains("eve") }
            let notAnn = #"[false,"this connection is \"eve\", not \"ann\""]"#
            for (id, packet) in [(1, #"["chatMessage","ann","I am ann"]"#), (2, #"["startType","ann"]"#), (3, #"["exitUser","ann"]"#)] {
                eve.send("42\(id)" + packet)
                #expect(try await eve.text { $0.hasPrefix("43") } == "43\(id)" + notAnn)
            }
            // A connection that never named itself speaks as nobody.
            let (anon, _) = try await connectChat(port: server.port)
            anon.send(#"424["chatMessage","ann","hi"]"#)
            #expect(try await anon.text { $0.hasPrefix("43") }.contains("send connectUser first"))
            // Names nobody could read are refused, and so is an empty message.
            for (id, name) in [(5, ""), (6, "   "), (7, String(repeating: "x", count: 65)), (8, "a\u{7}b")] {
                anon.send("42\(id)" + #"["connectUser",\#(JSONValue.string(name).text)]"#)
                #expect(try await anon.text { $0.hasPrefix("43") }.hasPrefix("43\(id)[false,\"a nickname"))
            }
            ann.send(#"429["chatMessage","ann"," \n "]"#)
            #expect(try await ann.text { $0.hasPrefix("43") } == #"439[false,"an empty message"]"#)
            #expect(await ann.next(timeout: .milliseconds(300)) == nil)
            #expect(server.stats.messagesRelayed == 0)
        }
    }

    /// A name connected again from another connection is the newcomer's: the
    /// connection that held it hears so and leaves the room, rather than go
    /// on speaking as someone the room no longer lists.
    @Test func aNameTakenOverTakesTheOldConnectionOutOfTheRoom() async throws {
        try await withSocketChatServer { server in
            let (first, _) = try await connectChat(port: server.port, nick: "twin")
            let (second, _) = try await connectChat(port: server.port, nick: "twin")
            let told = try await first.text { $0.contains("nameTaken") }
            #expect(ChatEvent(told) == ChatEvent("nameTaken", [["nickname": "twin"]]))
            #expect(try await first.text() == "41")
            first.send(#"42["chatMessage","twin","still me?"]"#)
            second.send(#"42["chatMessage","twin","the real one"]"#)
            _ = try await second.text { $0.contains("the real one") }
            #expect(await first.next(timeout: .milliseconds(300)) == nil)
            #expect(server.stats.messagesRelayed == 1)
        }
    }

    @Test func eventsWithUnusableArgumentsAreIgnored() async throws {
        try await withSocketChatServer { server in
            let (ann, _) = try await connectChat(port: server.port, nick: "ann")
            for packet in [#"42["connectUser"]"#, #"42["connectUser",5]"#, #"42["chatMessage","ann"]"#,
                           #"42["chatMessage","ann",{"text":"hi"}]"#, #"42["startType",null]"#, #"42["exitUser",["ann"]]"#] {
                ann.send(packet)
            }
            ann.send(#"42["stopType","ann"]"#)
            #expect(try await ann.event() == ChatEvent("userTypingUpdate", [[:]]))
            #expect(server.stats.packetsRefused == 6)
            #expect(server.stats.messagesRelayed == 0)
            #expect(server.stats.clientsDropped == 0)
        }
    }

    @Test func invalidNamespacesAreRefusedAndTheClientStays() async throws {
        try await withSocketChatServer { server in
            let (ann, _) = try await connectChat(port: server.port)
            let long = "/" + String(repeating: "n", count: 200)
            ann.send("40\(long),")
            #expect(try await ann.text() == #"44\#(long),{"message":"Invalid namespace"}"#)
            ann.send("40/bell\u{7},")
            #expect(try await ann.text() == "44/bell\u{7},{\"message\":\"Invalid namespace\"}")
            let justFits = String(long.dropLast())
            ann.send("40\(justFits),")
            #expect(try await ann.text().hasPrefix("40\(justFits),{\"sid\":"))
            #expect(server.stats.packetsRefused == 2)
        }
    }

    @Test func aDisconnectPacketLeavesOnlyThatNamespace() async throws {
        try await withSocketChatServer { server in
            let (ann, _) = try await connectChat(port: server.port, nick: "ann")
            let (bob, _) = try await connectChat(port: server.port, nick: "bob")
            _ = try await ann.text { $0.contains("userConnectUpdate") && $0.contains("bob") }
            bob.send("41")
            #expect(try await ann.event().name == "userList")
            #expect(try await ann.event() == ChatEvent("userExitUpdate", ["bob"]))
            #expect(try await ann.event() == ChatEvent("userTypingUpdate", [[:]]))
            // The connection stays; bob may connect again.
            bob.send("40")
            let again = try socketID(in: try await bob.text(), prefix: "40")
            bob.send(#"42["connectUser","bob"]"#)
            #expect(try await ann.event().name == "userList")
            #expect(try await ann.event() == ChatEvent("userConnectUpdate", [user(again, "bob")]))
            #expect(server.stats.sessions == 2)
        }
    }

    static let malformed: [String] = ["4abc", "42{}", #"42["x""#, #"42/nope,["startType","x"]"#, "44{\"message\":\"x\"}", "stray binary", "interrupted binary",
                                   "attachments over maxPayload"]

    @Test(arguments: malformed)
    func malformedInputClosesOnlyThatClient(input: String) async throws {
        let log = LogSink()
        try await withSocketChatServer(.init(log: log.log)) { server in
            let (ann, _) = try await connectChat(port: server.port, nick: "ann")
            let (bob, _) = try await connectChat(port: server.port, nick: "bob")
            _ = try await ann.text { $0.contains("userConnectUpdate") && $0.contains("bob") }
            switch input {
            case "stray binary":
                bob.send(binary: [1, 2, 3])
            case "interrupted binary":
                bob.send(#"451-["blob",{"_placeholder":true,"num":0}]"#)
                bob.send(#"42["startType","bob"]"#)
            case "attachments over maxPayload":
                // Each frame is under the 1,000,000-byte limit; together they are not.
                bob.send(#"452-["blob",{"_placeholder":true,"num":0},{"_placeholder":true,"num":1}]"#)
                bob.send(binary: [UInt8](repeating: 7, count: 600_000))
                bob.send(binary: [UInt8](repeating: 7, count: 600_000))
            default:
                bob.send(input)
            }
            #expect(await bob.closedByServer())
            #expect(try await ann.event().name == "userList")
            #expect(try await ann.event() == ChatEvent("userExitUpdate", ["bob"]))
            #expect(log.all.contains { $0.hasPrefix("dropped 127.0.0.1:") })
            #expect(server.stats.clientsDropped == 1)
            // The server goes on serving the others and new clients.
            _ = try await ann.event()
            ann.send(#"42["chatMessage","ann","still here"]"#)
            _ = try await ann.text { $0.contains("still here") }
            let (cat, _) = try await connectChat(port: server.port, nick: "cat")
            withExtendedLifetime(cat) {}
        }
    }

    @Test func aClientThatDoesNotReadIsDropped() async throws {
        let log = LogSink()
        try await withSocketChatServer(.init(maxOutboundBytes: 64 * 1024, log: log.log)) { server in
            let rex = try await RawWebSocketClient.connect(port: server.port, reading: false)
            rex.send("40")
            rex.send(#"42["connectUser","rex"]"#)
            let (ann, _) = try await connectChat(port: server.port, nick: "ann")
            let text = String(repeating: "z", count: 8_000)
            var rexLeft = false
            var sent = 0
            while !rexLeft, sent < 2_000 {
                for _ in 0..<20 { ann.send(#"42["chatMessage","ann","\#(text)"]"#) }
                sent += 20
                var echoes = 0
                while echoes < 20 {
                    let event = try await ann.event()
                    if event.name == "newChatMessage" { echoes += 1 }
                    if event == ChatEvent("userExitUpdate", ["rex"]) { rexLeft = true }
                }
            }
            #expect(rexLeft)
            #expect(log.contains("more than 65536 bytes queued: the client does not read"))
            #expect(server.stats.clientsDropped == 1)
        }
    }

    @Test func twoHundredClientsAllReceiveABroadcast() async throws {
        try await withSocketChatServer { server in
            var clients = [try await connectChat(port: server.port, nick: "ann").0]
            for _ in 1..<200 { clients.append(try await connectChat(port: server.port).0) }
            clients[0].send(#"42["chatMessage","ann","hello, all"]"#)
            for client in clients {
                #expect(try await client.event() == ChatEvent("userTypingUpdate", [[:]]))
                #expect(try await client.event().args.prefix(2) == ["ann", "hello, all"])
            }
            #expect(server.stats.sessions == 200)
        }
    }
}

// MARK: helpers

/// A Socket.IO event as a test compares it: namespace, name, arguments.
struct ChatEvent: Equatable, CustomStringConvertible {
    var namespace: String
    var name: String
    var args: [JSONValue]

    init(_ name: String, _ args: [JSONValue], namespace: String = "/") {
        self.namespace = namespace
        self.name = name
        self.args = args
    }

    /// The event in one Engine.IO text packet (`42…`); nil for anything else.
    init?(_ text: String) {
        guard case .message(let inner)? = try? EngineIO.decode(text: text),
              let (packet, _) = try? SocketIO.decode(inner),
              let name = packet.eventName
        else { return nil }
        self.init(name, packet.eventArguments, namespace: packet.namespace)
    }

    var description: String { "\(namespace) \(name)\(JSONValue.array(args).text)" }
}

extension RawWebSocketClient {
    /// The next Socket.IO event, answering pings on the way; throws on anything else.
    func event(timeout: Duration = .seconds(10)) async throws -> ChatEvent {
        while true {
            let text = try await text(timeout: timeout)
            if text == "2" {
                send("3")
                continue
            }
            guard let event = ChatEvent(text) else { throw failure("expected an event, got \(text)") }
            return event
        }
    }
}

/// A WebSocket client connected to `namespace`, with its socket's sid; with a
/// nickname it has also sent `connectUser` and read its own two answers.
/// CONNECT goes out from the client's event loop right after the upgrade, so a
/// starved test task cannot miss a short connect timeout.
func connectChat(port: Int, namespace: String = "/", nick: String? = nil, auth: String? = nil,
                 query: String = "EIO=4&transport=websocket") async throws -> (RawWebSocketClient, String) {
    let prefix = namespace == "/" ? "40" : "40\(namespace),"
    let event = namespace == "/" ? "42" : "42\(namespace),"
    let greeting = [prefix + (auth ?? "")] + (nick.map { [#"\#(event)["connectUser",\#(JSONValue.string($0).text)]"#] } ?? [])
    let ws = try await RawWebSocketClient.connect(port: port, query: query, greeting: greeting)
    guard try await ws.text().hasPrefix("0{") else { throw failure("no open packet") }
    let sid = try socketID(in: try await ws.text(), prefix: prefix)
    if nick != nil {
        _ = try await ws.text { $0.contains("userConnectUpdate") && $0.contains(sid) }
    }
    return (ws, sid)
}

/// The sid in a CONNECT answer such as `40/ops,{"sid":"…"}`.
func socketID(in text: String, prefix: String) throws -> String {
    guard text.hasPrefix(prefix + "{"), let sid = try JSONValue.parse(String(text.dropFirst(prefix.count)))["sid"]?.string else {
        throw failure("expected a CONNECT answer after \(prefix), got \(text)")
    }
    return sid
}

/// A SocketChat user entry, keys in the seed's order.
func user(_ id: String, _ nickname: String, online: Bool = true) -> JSONValue {
    ["id": .string(id), "nickname": .string(nickname), "isConnected": .bool(online)]
}

func failure(_ description: String) -> RawWebSocketClient.Failure {
    RawWebSocketClient.Failure(description: description)
}
