import ParleyConfig
import ParleyCore
import ParleyRuntime
import ParleySocketIO
import ParleyStreamChat
import ParleyTestSupport
import Testing

/// The transport registry: a config names a transport by the name its driver
/// registered, the driver reads its own table, and the options it read make
/// the bot's transport. A transport the registry does not hold is an error
/// naming the ones it does.
@Suite struct TransportRegistryTests {
    /// A transport of the test's own, registered beside StreamChat: nothing
    /// in the config reader or the fleet names it.
    struct EchoOptions: TransportOptions, Equatable {
        var greeting = "hi"

        func makeTransport(for bot: TransportTarget) throws(ConfigError) -> any Transport {
            let a = try bot.address(transport: "echo")
            return StreamChatTransport(host: a.host, port: a.port, name: bot.name + "-" + greeting)
        }
    }

    static let echo = TransportDriver(name: "echo") { table, bot in
        var o = EchoOptions()
        if let table { o.greeting = try table.string("greeting", default: o.greeting) }
        if bot.chosen, bot.rooms != ["lobby"] { throw bot.table.error("rooms", "echo has one room") }
        return o
    }

    static let registry = TransportRegistry([StreamChatTransport.driver, echo])

    func parse(_ body: String) throws -> BotConfigFile {
        try BotConfigFile.parse(text: "[[bot]]\nname = \"b\"\n" + body, path: "/tmp/registry-bot.toml", transports: Self.registry)
    }

    @Test func aRegisteredTransportIsReadAndMade() throws {
        let file = try parse("transport = \"echo\"\nserver = \"127.0.0.1:7000\"\n[bot.echo]\ngreeting = \"hello\"\n")
        #expect(file.bots[0].transport == "echo")
        #expect(file.bots[0].options(EchoOptions.self) == EchoOptions(greeting: "hello"))
        let specs = try BotSpecs.make(file, embedded: [:], log: { _, _ in })
        let made = try #require(specs[0].transport as? StreamChatTransport)
        #expect(made.name == "b-hello" && made.host == "127.0.0.1" && made.port == 7000)
    }

    @Test func theDriverChecksItsOwnKeysAndTheBots() {
        #expect(errorText { _ = try parse("transport = \"echo\"\n[bot.echo]\ngreting = \"x\"\n") }.contains("bot.echo.greting"))
        #expect(errorText { _ = try parse("transport = \"echo\"\nrooms = [\"a\", \"b\"]\n") }.contains("echo has one room"))
    }

    @Test func anUnknownTransportNamesTheRegisteredOnes() {
        let text = errorText { _ = try parse("transport = \"smoke\"\n") }
        #expect(text.contains("transport") && text.contains("streamchat") && text.contains("echo"), "\(text)")
        // The standard registry has the four Parley ships, and not the test's.
        #expect(TransportRegistry.standard.names == ["streamchat", "socketio", "rest", "stomp"])
        #expect(errorText { _ = try BotConfigFile.parse(text: "[[bot]]\nname = \"b\"\ntransport = \"echo\"\n", path: "/tmp/b.toml") }
            .contains("echo"))
    }

    @Test func aBotWithoutAServerUsesItsTransportsEmbeddedOne() throws {
        let file = try parse("transport = \"echo\"\n")
        let specs = try BotSpecs.make(file, embedded: ["echo": HostPort(host: "127.0.0.1", port: 7001)], log: { _, _ in })
        #expect((specs[0].transport as? StreamChatTransport)?.port == 7001)
        #expect(errorText { _ = try BotSpecs.make(file, embedded: [:], log: { _, _ in }) }.contains("no embedded echo server"))
    }

    /// A Socket.IO bot on the embedded server connects with the server's
    /// moderator token (beside its own auth); one with a `server` of its own never gets it.
    @Test func aSocketIOBotOnTheEmbeddedServerCarriesItsModeratorToken() throws {
        let file = try BotConfigFile.parse(text: """
        [[bot]]
        name = "mod"
        transport = "socketio"
        [bot.socketio.auth]
        team = "blue"
        [[bot]]
        name = "away"
        transport = "socketio"
        server = "127.0.0.1:9"
        """, path: "/tmp/b.toml")
        let specs = try BotSpecs.make(file, embedded: ["socketio": HostPort(host: "127.0.0.1", port: 7002)],
                                      embeddedAuth: ["socketio": ["token": "t0k"]], log: { _, _ in })
        #expect((specs[0].transport as? SocketIOTransport)?.options.auth == ["team": "blue", "token": "t0k"])
        #expect((specs[1].transport as? SocketIOTransport)?.options.auth == nil)
    }
}
