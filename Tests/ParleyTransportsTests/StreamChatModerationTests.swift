import ParleyCore
import ParleyStreamChat
import ParleyWire
import Testing
import ParleyTestSupport

@Suite("StreamChat server: moderation", .timeLimit(.minutes(1)))
struct StreamChatModerationTests {
    static let config = StreamChatServer.Configuration(moderators: ["mod"])

    /// mod, bob and cat in the lobby, each client past the others' arrivals.
    static func room(_ server: StreamChatServer) throws -> (mod: RawClient, bob: RawClient, cat: RawClient) {
        let mod = try join("mod", port: server.port)
        let bob = try join("bob", port: server.port)
        let cat = try join("cat", port: server.port)
        for client in [mod, bob] { try client.skip(until: "cat has joined") }
        return (mod, bob, cat)
    }

    @Test func aKickRemovesTheUserEveryoneHearsWhyAndTheyMayComeBack() async throws {
        try await withServer(Self.config) { server in
            let (mod, bob, cat) = try Self.room(server)
            try mod.send("KICK::bob::spam, twice::END")
            #expect(try mod.lines(3) == ["::KICKED::bob::spam, twice", "bob has left", "::OK"])
            #expect(try cat.lines(2) == ["::KICKED::bob::spam, twice", "bob has left"])
            // bob hears why, then the server closes his connection.
            #expect(try bob.line() == "::KICKED::bob::spam, twice")
            #expect(bob.closedByServer())
            #expect(await eventually { server.stats.registeredClients == 2 })
            // A kick is not a ban.
            let back = try join("bob", port: server.port)
            #expect(try cat.line() == "bob has joined")
            try back.send("MSG::hi again::END")
            #expect(try cat.line() == "bob::hi again")
            #expect(server.stats.clientsDropped == 0)
        }
    }

    @Test func aMuteDropsTheUsersMessagesAndTellsThemEachTime() async throws {
        try await withServer(Self.config) { server in
            let (mod, bob, cat) = try Self.room(server)
            try mod.send("MUTE::bob::60::flood::END")
            #expect(try mod.lines(2) == ["::MUTED::bob::60::flood", "::OK"])
            for client in [bob, cat] { #expect(try client.line() == "::MUTED::bob::60::flood") }
            try bob.send("MSG::hello?::ENDMSG::anyone?::END")
            #expect(try bob.lines(2) == ["::DROPPED::60::flood", "::DROPPED::60::flood"])
            #expect(cat.read(timeout: .milliseconds(300)) == .timeout)
            #expect(server.stats.messagesRelayed == 0)
            // A short mute ends by itself; the others talk all along.
            try cat.send("MSG::poor bob::END")
            #expect(try mod.line() == "cat::poor bob")
            try mod.send("MUTE::cat::0.3::calm down::END")
            #expect(try cat.skip(until: "::MUTED::cat::0.3::calm down") == ["cat::poor bob"])
            try await Task.sleep(for: .milliseconds(500))
            try cat.send("MSG::back::END")
            #expect(try cat.line() == "cat::back")
        }
    }

    @Test func onlyModeratorsModerateAndMistakesAreNamed() async throws {
        let log = LogSink()
        try await withServer(.init(moderators: ["mod"], log: log.log)) { server in
            let (mod, bob, cat) = try Self.room(server)
            try cat.send("KICK::bob::x::END")
            #expect(try cat.line() == #"::REFUSED::"cat" is not a moderator"#)
            for (frame, answer) in [
                ("KICK::nobody::x::END", #"::REFUSED::no user "nobody" in the room"#),
                ("MUTE::nobody::5::x::END", #"::REFUSED::no user "nobody" in the room"#),
                ("MUTE::bob::0::x::END", "::REFUSED::seconds must be more than 0"),
                ("KICK::bob::MSG:: inside::END", "::REFUSED::reason: message contains the protocol token 'MSG::'"),
            ] {
                try mod.send(frame)
                #expect(try mod.line() == answer)
            }
            // Nothing was broadcast, and everyone is still there.
            #expect(bob.read(timeout: .milliseconds(200)) == .timeout)
            #expect(server.stats.framesRefused == 5)
            #expect(server.stats.registeredClients == 3)
            #expect(log.contains("refused KICK from 127.0.0.1:"))
        }
    }

    @Test(arguments: ["KICK::bob::END", "KICK::::x::END", "MUTE::bob::60::END", "MUTE::bob::soon::x::END", "MUTE::bob::-5::x::END"])
    func aMalformedModerationFrameDropsOnlyItsSender(frame: String) async throws {
        let log = LogSink()
        try await withServer(.init(moderators: ["mod"], log: log.log)) { server in
            let (mod, bob, cat) = try Self.room(server)
            try mod.send(frame)
            #expect(mod.closedByServer())
            #expect(try bob.line() == "mod has left")
            #expect(log.all.contains { $0.contains("malformed") })
            try bob.send("MSG::still here::END")
            #expect(try bob.line() == "bob::still here")
            #expect(try cat.skip(until: "bob::still here") == ["mod has left"])
        }
    }

    /// With a moderator token, a moderator's name is only for a connection
    /// that sent the token first: anyone else is refused the name and
    /// dropped, and other names need no token.
    @Test func aModeratorsNameNeedsTheTokenWhenTheServerHasOne() async throws {
        let log = LogSink()
        try await withServer(.init(moderators: ["mod"], moderatorToken: "s3cret-token", log: log.log)) { server in
            let impostor = try RawClient(port: server.port)
            try impostor.send("USR_NAME::mod::END")
            #expect(try impostor.line() == #"::REFUSED::"mod" is a moderator's name: only a client that sends the moderator token first may use it"#)
            #expect(impostor.closedByServer())
            let wrong = try RawClient(port: server.port)
            try wrong.send("TOKEN::guess::ENDUSR_NAME::mod::END")
            #expect(try wrong.line().hasPrefix(#"::REFUSED::"mod" is a moderator's name"#))
            #expect(wrong.closedByServer())
            let bob = try join("bob", port: server.port)
            let mod = try RawClient(port: server.port)
            try mod.send("TOKEN::s3cret-token::ENDUSR_NAME::mod::END")
            #expect(try bob.line() == "mod has joined")
            try mod.skip(until: "mod has joined")
            try mod.send("KICK::bob::bye::END")
            #expect(try mod.lines(3) == ["::KICKED::bob::bye", "bob has left", "::OK"])
            // A token after the name is refused, and the token never reaches the log.
            try mod.send("TOKEN::s3cret-token::END")
            #expect(await eventually { log.contains("refused TOKEN from 127.0.0.1:") })
            #expect(!log.contains("s3cret"))
        }
    }

    /// A name is one connection's: a newer connection under it takes it over,
    /// and the older one is told, leaves the room and is closed.
    @Test func aNameInUseIsTakenOverByTheNewerConnection() async throws {
        try await withServer(Self.config) { server in
            let ann = try join("ann", port: server.port)
            let first = try join("bob", port: server.port)
            try ann.skip(until: "bob has joined")
            let second = try RawClient(port: server.port)
            try second.send("USR_NAME::bob::END")
            #expect(try first.line() == #"::TAKEN::another connection joined as "bob""#)
            #expect(first.closedByServer())
            #expect(try ann.lines(2) == ["bob has left", "bob has joined"])
            try second.skip(until: "bob has joined")
            try second.send("MSG::still me::END")
            #expect(try ann.line() == "bob::still me")
            #expect(server.stats.registeredClients == 2)
        }
    }

    @Test func aModerationFrameBeforeUserNameIsRefused() async throws {
        try await withServer(Self.config) { server in
            let anon = try RawClient(port: server.port)
            try anon.send("KICK::bob::x::END")
            #expect(try anon.line() == "::REFUSED::sent before USR_NAME")
        }
    }
}

@Suite("StreamChat: the bot moderates through its session", .timeLimit(.minutes(1)))
struct StreamChatBotModerationTests {
    static func transport(_ port: Int, name: String) -> StreamChatTransport {
        var options = StreamChatOptions()
        options.echoTimeout = 5
        return StreamChatTransport(host: "127.0.0.1", port: port, name: name, options: options, connectTimeout: 5)
    }

    @Test func theBotMutesAndKicksAndCannotDelete() async throws {
        try await withServer(.init(moderators: ["bot"])) { server in
            let transport = Self.transport(server.port, name: "bot")
            #expect(transport.capabilities.kick && transport.capabilities.mute && !transport.capabilities.delete)
            let session = try await transport.connect()
            let bob = try join("bob", port: server.port)

            try await session.moderate(.mute(room: "lobby", user: "bob", seconds: 60, reason: "flood"))
            // The bot's own arrival may reach bob first: its connect returns once its name is sent.
            let before = try bob.skip(until: "::MUTED::bob::60::flood")
            #expect(before.allSatisfy { $0 == "bot has joined" }, "\(before)")
            try await session.moderate(.kick(room: "lobby", user: "bob", reason: "spam"))
            #expect(try bob.line() == "::KICKED::bob::spam")
            #expect(bob.closedByServer())

            await #expect(throws: TransportError(.refused, #"no user "nobody" in the room"#)) {
                try await session.moderate(.kick(room: "lobby", user: "nobody", reason: ""))
            }
            await #expect(throws: TransportError(.refused, "not supported: StreamChat messages have no ids")) {
                try await session.moderate(.delete(room: "lobby", messageId: "1"))
            }
            await #expect(throws: TransportError.self) {
                try await session.moderate(.kick(room: "elsewhere", user: "bob", reason: ""))
            }
            // A control character is refused before it leaves, not relayed altered.
            await #expect(throws: TransportError.self) {
                try await session.send(OutgoingMessage(id: "m0", room: "lobby", text: "red \u{1B}[31malert"))
            }
            await #expect(throws: TransportError.self) {
                try await session.moderate(.mute(room: "lobby", user: "mod", seconds: 5, reason: "bell \u{07}"))
            }
            // The session is still fine for chat.
            try await session.send(OutgoingMessage(id: "m1", room: "lobby", text: "all quiet"))
            await session.leave()
        }
    }

    /// The bot sends `moderator_token` before its name; without it, on a
    /// server that has one, its session ends saying why.
    @Test func theBotPresentsItsModeratorToken() async throws {
        try await withServer(.init(moderators: ["bot"], moderatorToken: "s3cret-token")) { server in
            var options = StreamChatOptions()
            options.echoTimeout = 5
            options.moderatorToken = "s3cret-token"
            let session = try await StreamChatTransport(host: "127.0.0.1", port: server.port, name: "bot", options: options, connectTimeout: 5).connect()
            let bob = try join("bob", port: server.port)
            try await session.moderate(.kick(room: "lobby", user: "bob", reason: "spam"))
            #expect(try bob.skip(until: "::KICKED::bob::spam").allSatisfy { $0 == "bot has joined" })
            await session.leave()

            let refused = try await Self.transport(server.port, name: "bot").connect()
            var ended: (any Error)?
            do { for try await _ in refused.events {} } catch { ended = error }
            #expect("\(ended.map { "\($0)" } ?? "")".contains("the server refused the bot's name: \"bot\" is a moderator's name"), "\(String(describing: ended))")
        }
    }

    @Test func aMutedBotsSendIsAnsweredAndAKickedBotMayComeBack() async throws {
        try await withServer(.init(moderators: ["mod"])) { server in
            let transport = Self.transport(server.port, name: "bot")
            let session = try await transport.connect()
            let mod = try join("mod", port: server.port)
            await #expect(throws: TransportError(.refused, #""bot" is not a moderator"#)) {
                try await session.moderate(.kick(room: "lobby", user: "mod", reason: ""))
            }
            try mod.send("MUTE::bot::60::quiet::END")
            try mod.skip(until: "::OK")
            // The dropped line is answered at once, not left to the 5 s echo timeout.
            let started = ContinuousClock.now
            try await session.send(OutgoingMessage(id: "m1", room: "lobby", text: "can anyone hear me?"))
            #expect(ContinuousClock.now - started < .seconds(2))
            #expect(mod.read(timeout: .milliseconds(200)) == .timeout)

            try mod.send("KICK::bot::bye::END")
            do {
                for try await _ in session.events {}
                Issue.record("the session ended cleanly")
            } catch let error as TransportError {
                #expect(error == TransportError(.closed, "a moderator removed the bot from the room: bye"))
            }
            let again = try await transport.connect()
            #expect(try mod.skip(until: "bot has joined").contains("bot has left"))
            await again.leave()
        }
    }
}
