import ParleyCore
import ParleySocketIO
import ParleyWire
import Testing
import ParleyTestSupport

@Suite("SocketChat server: moderation", .timeLimit(.minutes(1)))
struct SocketChatModerationTests {
    static let config = SocketChatServer.Configuration(moderators: ["mod"])

    /// mod, bob and cat in the lobby, each client past the others' arrivals; with their sids.
    static func room(_ server: SocketChatServer) async throws
        -> (mod: RawWebSocketClient, bob: RawWebSocketClient, cat: RawWebSocketClient, sids: [String: String]) {
        let (mod, modSID) = try await connectChat(port: server.port, nick: "mod")
        let (bob, bobSID) = try await connectChat(port: server.port, nick: "bob")
        let (cat, catSID) = try await connectChat(port: server.port, nick: "cat")
        for client in [mod, bob] { _ = try await client.text { $0.contains("userConnectUpdate") && $0.contains(catSID) } }
        return (mod, bob, cat, ["mod": modSID, "bob": bobSID, "cat": catSID])
    }

    /// With a moderator token, a moderator's name is only for a client whose
    /// CONNECT carried it: an impostor (a web chat visitor, say) can take
    /// neither the name nor its rights, with no token or a wrong one.
    @Test func withATokenAModeratorsNameNeedsIt() async throws {
        var config = Self.config
        config.moderatorToken = "s3cret-token"
        try await withSocketChatServer(config) { server in
            let (mod, _) = try await connectChat(port: server.port, nick: "mod", auth: #"{"token":"s3cret-token"}"#)
            let (bob, bobSID) = try await connectChat(port: server.port, nick: "bob")
            _ = try await mod.text { $0.contains("userConnectUpdate") && $0.contains(bobSID) }
            for auth in [nil, #"{"token":"s3cret-tokeN"}"#] {
                let (impostor, _) = try await connectChat(port: server.port, auth: auth)
                impostor.send(#"42["connectUser","mod"]"#)
                impostor.send(#"421["kickUser",{"user":"bob","reason":"x"}]"#)
                let refused = try await impostor.text { $0.hasPrefix("431") }
                #expect(refused.hasPrefix("431[false"), "\(refused)")
                // Nobody heard a second "mod" arrive.
                #expect(await bob.next(timeout: .milliseconds(300)) == nil)
            }
            // The real one keeps its name and its rights.
            mod.send(#"422["kickUser",{"user":"bob","reason":"spam"}]"#)
            #expect(try await mod.text { $0.hasPrefix("432") } == "432[true]")
            #expect(server.stats.packetsRefused >= 4)
        }
    }

    @Test func aKickRemovesTheUserEveryoneHearsWhyAndTheyMayComeBack() async throws {
        try await withSocketChatServer(Self.config) { server in
            let (mod, bob, cat, sids) = try await Self.room(server)
            mod.send(#"421["kickUser",{"user":"bob","reason":"spam"}]"#)
            let notice = ChatEvent("userKicked", [["nickname": "bob", "reason": "spam", "by": "mod"]])
            for client in [mod, bob, cat] { #expect(try await client.event() == notice) }
            // bob's socket is disconnected from the namespace; the others see him leave.
            #expect(try await bob.text() == "41")
            for client in [mod, cat] {
                #expect(try await client.event() == ChatEvent("userList", [[user(sids["mod"]!, "mod"), user(sids["cat"]!, "cat")]]))
                #expect(try await client.event() == ChatEvent("userExitUpdate", ["bob"]))
                #expect(try await client.event() == ChatEvent("userTypingUpdate", [[:]]))
            }
            #expect(try await mod.text() == "431[true]")
            // What he sends before reading the DISCONNECT reaches no one and costs him nothing.
            bob.send(#"42["chatMessage","bob","still here?"]"#)
            #expect(await cat.next(timeout: .milliseconds(300)) == nil)
            // A kick is not a ban: he connects again.
            bob.send("40")
            let again = try socketID(in: try await bob.text(), prefix: "40")
            bob.send(#"42["connectUser","bob"]"#)
            #expect(try await cat.event().name == "userList")
            #expect(try await cat.event() == ChatEvent("userConnectUpdate", [user(again, "bob")]))
            #expect(server.stats.clientsDropped == 0)
        }
    }

    @Test func aMuteDropsTheUsersMessagesAndTellsThemEachTime() async throws {
        try await withSocketChatServer(Self.config) { server in
            let (mod, bob, cat, _) = try await Self.room(server)
            mod.send(#"422["muteUser",{"user":"bob","seconds":60,"reason":"flood"}]"#)
            let notice = ChatEvent("userMuted", [["nickname": "bob", "seconds": 60, "reason": "flood", "by": "mod"]])
            for client in [mod, bob, cat] { #expect(try await client.event() == notice) }
            #expect(try await mod.text() == "432[true]")
            // His messages reach no one, and he hears why each time.
            for ack in [3, 4] {
                bob.send(#"42\#(ack)["chatMessage","bob","hello?"]"#)
                // The set-up's batched broadcasts can still be on their way on a loaded machine: the next drop counts.
                let dropped = try await bob.text { $0.contains("messageDropped") }
                // The seconds left, rounded up: 60 unless a loaded machine took a second or more to get here.
                let left = ChatEvent(dropped)?.args.first?["seconds"]?.number ?? 0
                #expect(ChatEvent(dropped)?.name == "messageDropped" && (50...60).contains(left), "\(dropped)")
                #expect(ChatEvent(dropped)?.args.first?["reason"] == "flood", "\(dropped)")
                #expect(try await bob.text { $0.hasPrefix("43") } == #"43\#(ack)[false,"muted for \#(Int(left)) more seconds: flood"]"#)
            }
            // Nor under another name: a connection speaks only as the name it connected with.
            bob.send(#"425["chatMessage","notbob","hello?"]"#)
            #expect(try await bob.text { $0.hasPrefix("43") } == #"435[false,"this connection is \"bob\", not \"notbob\""]"#)
            #expect(await cat.next(timeout: .milliseconds(300)) == nil)
            #expect(server.stats.messagesRelayed == 0)
            // A short mute ends by itself.
            mod.send(#"42["muteUser",{"user":"cat","seconds":0.3,"reason":"calm down"}]"#)
            _ = try await cat.text { $0.contains("userMuted") }
            try await Task.sleep(for: .milliseconds(500))
            cat.send(#"42["chatMessage","cat","back"]"#)
            _ = try await mod.text { $0.contains("newChatMessage") && $0.contains("back") }
            #expect(server.stats.messagesRelayed == 1)
        }
    }

    @Test func aDeleteWithdrawsTheMessageForEveryone() async throws {
        try await withSocketChatServer(Self.config) { server in
            let (mod, bob, cat, _) = try await Self.room(server)
            cat.send(#"42["chatMessage","cat","oops"]"#)
            var ids: [JSONValue] = []
            for client in [mod, bob, cat] {
                #expect(try await client.event().name == "userTypingUpdate")
                let message = try await client.event()
                #expect(message.name == "newChatMessage")
                try #require(message.args.count == 4)
                ids.append(message.args[3])
            }
            let id = try #require(ids[0].string)
            #expect(ids.allSatisfy { $0 == ids[0] })
            let request = #"["deleteMessage",{"id":\#(JSONValue.string(id).text)}]"#
            mod.send("425" + request)
            let notice = ChatEvent("messageDeleted", [["id": .string(id), "by": "mod"]])
            for client in [mod, bob, cat] { #expect(try await client.event() == notice) }
            #expect(try await mod.text() == "435[true]")
            mod.send("426" + request)
            #expect(try await mod.text() == #"436[false,"no message \"\#(id)\" in this room (deleted already, or older than the newest 1000)"]"#)
        }
    }

    @Test func onlyModeratorsModerateAndMistakesAreNamed() async throws {
        let log = LogSink()
        try await withSocketChatServer(.init(moderators: ["mod"], log: log.log)) { server in
            let (mod, bob, cat, _) = try await Self.room(server)
            let cases: [(RawWebSocketClient, String, String)] = [
                (cat, #"["kickUser",{"user":"bob","reason":"x"}]"#, #"[false,"\"cat\" is not a moderator"]"#),
                (mod, #"["kickUser",{"user":"nobody"}]"#, #"[false,"no user \"nobody\" in this room"]"#),
                (mod, #"["muteUser",{"user":"nobody","seconds":5}]"#, #"[false,"no user \"nobody\" in this room"]"#),
                (mod, #"["muteUser",{"user":"bob","seconds":-1}]"#, #"[false,"seconds must be more than 0 (and at most 10^12)"]"#),
                (mod, #"["kickUser",{"user":5}]"#, #"[false,"kickUser needs {user: string, reason?: string}"]"#),
                (mod, #"["muteUser","bob",60]"#, #"[false,"muteUser needs {user: string, seconds: number, reason?: string}"]"#),
                (mod, #"["deleteMessage",{}]"#, #"[false,"deleteMessage needs {id: string}"]"#),
            ]
            for (i, (client, event, ack)) in cases.enumerated() {
                client.send("42\(i + 1)" + event)
                #expect(try await client.text() == "43\(i + 1)" + ack)
            }
            // Nothing was broadcast, and everyone is still there.
            for client in [mod, bob] { #expect(await client.next(timeout: .milliseconds(200)) == nil) }
            #expect(server.stats.packetsRefused == cases.count)
            #expect(server.stats.clientsDropped == 0)
            #expect(log.contains(#"refused "kickUser" from 127.0.0.1:"#))
        }
    }

    @Test func aServerWithoutModeratorsRefusesEveryone() async throws {
        try await withSocketChatServer { server in
            let (ann, _) = try await connectChat(port: server.port, nick: "ann")
            ann.send(#"421["kickUser",{"user":"ann","reason":"x"}]"#)
            #expect(try await ann.text() == #"431[false,"\"ann\" is not a moderator"]"#)
        }
    }

    @Test func moderationStaysInItsNamespace() async throws {
        try await withSocketChatServer(Self.config) { server in
            let (mod, _) = try await connectChat(port: server.port, namespace: "/ops", nick: "mod")
            let (bob, _) = try await connectChat(port: server.port, nick: "bob")
            // bob is in the lobby, not in /ops: nobody there to kick.
            mod.send(#"42/ops,1["kickUser",{"user":"bob","reason":"x"}]"#)
            #expect(try await mod.text() == #"43/ops,1[false,"no user \"bob\" in this room"]"#)
            #expect(await bob.next(timeout: .milliseconds(200)) == nil)
        }
    }
}

@Suite("SocketChat: the bot moderates through its session", .timeLimit(.minutes(1)))
struct SocketIOModerationTests {
    static func transport(_ port: Int, name: String) -> SocketIOTransport {
        SocketIOTransport(endpoint: SocketIOEndpoint(host: "127.0.0.1", port: port), name: name, connectTimeout: 5)
    }

    /// The first message `user` says, as the session reports it.
    static func message(from user: String, in events: TransportEvents) async throws -> ChatMessage {
        for try await event in events {
            if case .chat(.message(let m)) = event, m.user == user { return m }
        }
        throw failure("the session ended before \(user) spoke")
    }

    @Test func theBotDeletesMutesAndKicks() async throws {
        try await withSocketChatServer(.init(moderators: ["bot"])) { server in
            let transport = Self.transport(server.port, name: "bot")
            let capabilities = transport.capabilities
            #expect(capabilities.kick && capabilities.mute && capabilities.delete)
            let session = try await transport.connect()
            let (bob, _) = try await connectChat(port: server.port, nick: "bob")
            let (cat, catSID) = try await connectChat(port: server.port, nick: "cat")
            _ = try await bob.text { $0.contains("userConnectUpdate") && $0.contains(catSID) }

            // The bot sees cat's message with the server's id, and withdraws it.
            cat.send(#"42["chatMessage","cat","spam spam"]"#)
            let id = try #require(try await Self.message(from: "cat", in: session.events).id)
            try await session.moderate(.delete(room: "lobby", messageId: id))
            _ = try await bob.text { $0.contains("messageDeleted") && $0.contains(id) }

            try await session.moderate(.mute(room: "lobby", user: "cat", seconds: 60, reason: "flood"))
            #expect(try await bob.event() == ChatEvent("userMuted", [["nickname": "cat", "seconds": 60, "reason": "flood", "by": "bot"]]))

            try await session.moderate(.kick(room: "lobby", user: "bob", reason: "spam"))
            _ = try await bob.text { $0 == "41" }
            _ = try await cat.text { $0.contains("userExitUpdate") && $0.contains("bob") }

            await #expect(throws: TransportError(.refused, #"no user "nobody" in this room"#)) {
                try await session.moderate(.kick(room: "lobby", user: "nobody", reason: ""))
            }
            await #expect(throws: TransportError.self) {
                try await session.moderate(.kick(room: "elsewhere", user: "cat", reason: ""))
            }
            await session.leave()
        }
    }

    @Test func aBotThatIsNoModeratorIsRefusedAndAKickedBotMayComeBack() async throws {
        try await withSocketChatServer(.init(moderators: ["mod"])) { server in
            let transport = Self.transport(server.port, name: "bot")
            let session = try await transport.connect()
            let (mod, _) = try await connectChat(port: server.port, nick: "mod")
            await #expect(throws: TransportError(.refused, #""bot" is not a moderator"#)) {
                try await session.moderate(.mute(room: "lobby", user: "mod", seconds: 5, reason: ""))
            }
            mod.send(#"42["kickUser",{"user":"bot","reason":"bye"}]"#)
            // The session ends as a lost link would (presence comes back), not as a `.kicked` that stops the bot.
            do {
                for try await event in session.events {
                    if case .kicked = event { Issue.record("a moderator's kick reported as .kicked") }
                }
                Issue.record("the session ended cleanly")
            } catch let error as TransportError {
                #expect(error == TransportError(.closed, "a moderator removed the bot from lobby: bye"))
            }
            let again = try await transport.connect()
            _ = try await mod.text { $0.contains("userConnectUpdate") && $0.contains(#""bot""#) }
            await again.leave()
        }
    }

    /// On a server without a moderator token anyone may connect under the
    /// bot's name. That is no moderator's kick: the session ends as a lost
    /// link (presence comes back and takes the name back), saying what happened.
    @Test func aBotWhoseNameIsTakenSaysSoAndComesBack() async throws {
        try await withSocketChatServer(.init(moderators: ["bot"])) { server in
            // The bot's `connectUser` is not acknowledged: the impostor waits
            // until the server has given the bot its name, or its own claim
            // could come first and the bot would take the name from it.
            let (watcher, _) = try await connectChat(port: server.port, nick: "watcher")
            let transport = Self.transport(server.port, name: "bot")
            let session = try await transport.connect()
            _ = try await watcher.text { $0.contains("userConnectUpdate") && $0.contains(#""bot""#) }
            let (impostor, _) = try await connectChat(port: server.port, nick: "bot")
            do {
                for try await event in session.events {
                    if case .kicked = event { Issue.record("a taken name reported as .kicked, which stops the bot") }
                }
                Issue.record("the session ended cleanly")
            } catch let error as TransportError {
                #expect(error.kind == .closed && error.message.hasPrefix(#"another connection took the name "bot" in lobby"#), "\(error)")
            }
            let again = try await transport.connect()
            _ = try await impostor.text { $0.contains("nameTaken") }
            await again.leave()
        }
    }
}
