import ParleyCore
import Testing
@testable import ParleyRuntime

/// `bot.command` with help, usage and roles; the built-in `help`; `bot.roles`.
@Suite struct CommandHelpTests {
    func texts(_ a: [BotAction]) -> [String] { a.compactMap(\.sentText) }
    func logs(_ a: [BotAction]) -> [String] { a.compactMap(\.logText) }

    static let moderation = """
    bot.command("kick", function(m, args) m:reply("kicked " .. args[1]) end,
                {help = "remove a user", usage = "USER", roles = {"moderator"}})
    bot.command("warn", function(m, args) m:reply("warned " .. args[1]) end,
                {help = "warn a user", usage = "USER", roles = {"moderator", "admin"}})
    """
    static let fun = """
    bot.command("roll", function(m) m:reply("4") end, {help = "roll a die"})
    bot.command("ping", function(m) m:reply("pong") end)
    """

    static var options: BotOptions {
        var o = BotOptions(name: "parley")
        o.roles = ["moderator": ["alice"], "admin": ["root"]]
        return o
    }

    static func advance(_ seconds: Double) -> String { #"{"type":"advance","seconds":\#(seconds)}"# }

    @Test func aGuardedCommandRunsOnlyForItsRoles() async throws {
        let script = [message("!kick eve", user: "alice"), message("!kick eve", user: "mallory"),
                      message("!warn eve", user: "root"), message("!warn eve", user: "mallory")].joined(separator: "\n")
        let actions = try await run(plugins: [("mod", Self.moderation)], script: script, options: Self.options)
        #expect(texts(actions) == ["kicked eve", "mallory: !kick needs the moderator role.", "warned eve",
                                   "mallory: !warn needs one of the roles admin, moderator."])
        #expect(logs(actions) == ["refused !kick for mallory: needs the moderator role",
                                  "refused !warn for mallory: needs one of the roles admin, moderator"])
    }

    /// A user who keeps trying hears the refusal once a minute; every try is logged.
    @Test func theRefusalIsSaidOnceAMinutePerUserAndCommand() async throws {
        let script = [message("!kick a", user: "mallory"), message("!kick b", user: "mallory"),
                      message("!warn c", user: "mallory"), Self.advance(61), message("!kick d", user: "mallory")]
            .joined(separator: "\n")
        let actions = try await run(plugins: [("mod", Self.moderation)], script: script, options: Self.options)
        #expect(texts(actions) == ["mallory: !kick needs the moderator role.",
                                   "mallory: !warn needs one of the roles admin, moderator.",
                                   "mallory: !kick needs the moderator role."])
        #expect(logs(actions).count == 4)
    }

    @Test func helpListsWhatTheAskingUserMayRunFromEveryPlugin() async throws {
        let script = [message("!help", user: "mallory"), message("!help", user: "alice"),
                      message("!help kick", user: "mallory"), message("parley: help roll"), message("!help nope"),
                      message("!help !roll"), message("parley: help !nope")]
            .joined(separator: "\n")
        let actions = try await run(plugins: [("fun", Self.fun), ("mod", Self.moderation)], script: script, options: Self.options)
        #expect(texts(actions) == [
            "Commands: !ping, !roll. !help NAME tells more.",
            "Commands: !kick, !ping, !roll, !warn. !help NAME tells more.",
            "!kick USER: remove a user (needs the moderator role)",
            "!roll: roll a die",
            // A prefixed `!help nope` reaches every bot in the room: one that
            // does not know it stays silent. Asked by name, it says so.
            "!roll: roll a die",
            "No command !nope. !help lists them.",
        ])
        // Answered once, by the first plugin, which listens to no messages itself.
        #expect(actions.filter { $0.sentText != nil }.allSatisfy { $0.plugin == "fun" })
    }

    /// The plugin that answers `help` is the first enabled one: once the
    /// first is disabled (five failures in a row), the next answers, and the
    /// disabled one's commands are no longer listed.
    @Test func helpIsAnsweredByTheNextPluginOnceTheFirstIsDisabled() async throws {
        let boom = #"bot.command("boom", function() error("x") end)"#
        let script = ([message("!help")] + Array(repeating: message("!boom"), count: 5) + [message("!help"), message("!help roll")])
            .joined(separator: "\n")
        let actions = try await run(plugins: [("boom", boom), ("fun", Self.fun)], script: script, options: Self.options)
        #expect(texts(actions) == ["Commands: !boom, !ping, !roll. !help NAME tells more.",
                                   "Commands: !ping, !roll. !help NAME tells more.", "!roll: roll a die"])
        #expect(actions.filter { $0.sentText != nil }.map(\.plugin) == ["boom", "fun", "fun"])
    }

    @Test func aPluginsOwnHelpReplacesTheBuiltIn() async throws {
        let own = #"bot.command("help", function(m) m:reply("ask a human") end)"#
        let actions = try await run(plugins: [("fun", Self.fun), ("own", own)], script: message("!help"), options: Self.options)
        #expect(texts(actions) == ["ask a human"])
    }

    /// The first plugin answers `help` for the whole bot even without
    /// commands of its own: it loads them on the first line that starts with
    /// the prefix or has the bot's name near its start, in any case.
    @Test func theFirstPluginAnswersHelpByNameInAnyCase() async throws {
        let greeter = #"bot.on("join", function() end)"#
        let script = [message("hello parley"), message("Parley, help"), message("@PARLEY help"), message("xparley: help")]
            .joined(separator: "\n")
        let actions = try await run(plugins: [("greeter", greeter), ("fun", Self.fun)], script: script, options: Self.options)
        #expect(errors(actions).isEmpty, "\(errors(actions))")
        let said = actions.filter { $0.sentText != nil }
        #expect(said.map(\.plugin) == ["greeter", "greeter"], "\(texts(actions))")
        #expect(texts(actions).allSatisfy { $0.contains("roll") && $0.contains("ping") }, "\(texts(actions))")
    }

    /// A bot without commands stays silent: in a room of greeters, one `!help` would draw an answer from each.
    @Test func aBotWithoutCommandsDoesNotAnswerHelp() async throws {
        let quiet = #"bot.on("join", function() end)"#
        let script = [message("!help"), message("!help roll"), message("hello there")].joined(separator: "\n")
        #expect(texts(try await run(plugins: [("quiet", quiet)], script: script)) == [])
    }

    /// A bot whose commands all need a role the user lacks has nothing to
    /// offer a prefixed `!help`, which the room's other bots answer too: it
    /// stays silent; asked by name, it says so.
    @Test func commandsTheUserMayNotRunAreNotListed() async throws {
        let guarded = #"bot.command("ban", function(m) m:reply("banned") end, { roles = { "moderator" } })"#
        let script = [message("!help"), message("parley: help"), message("@parley help")].joined(separator: "\n")
        #expect(texts(try await run(plugins: [("mod", guarded)], script: script)) == ["No commands you may run here.", "No commands you may run here."])
    }

    /// `prefix = ""` turns prefixed commands off: the commands load, and
    /// answer only when addressed to the bot by name.
    @Test func anEmptyPrefixLeavesCommandsAddressedByName() async throws {
        var o = Self.options
        o.commandPrefix = ""
        let script = [message("!ping"), message("ping"), message("parley: ping"), message("@parley roll"),
                      message("parley, help")].joined(separator: "\n")
        let actions = try await run(plugins: [("fun", Self.fun)], script: script, options: o)
        #expect(errors(actions).isEmpty, "\(errors(actions))")
        let said = texts(actions)
        #expect(said.prefix(2) == ["pong", "4"], "\(said)")
        #expect(said.count == 3 && said[2].contains("parley: roll"), "\(said)")
    }

    /// `bot.prefix` is the configured prefix, for usage lines.
    @Test func botPrefixIsTheConfiguredPrefix() async throws {
        let p = #"bot.command("use", function(m) m:reply("usage: " .. bot.prefix .. "use X") end)"#
        var o = Self.options
        o.commandPrefix = "?"
        #expect(texts(try await run(plugins: [("p", p)], script: message("?use"), options: o)) == ["usage: ?use X"])
    }

    /// A long list still goes out: on StreamChat in lines of at most 300
    /// characters, each a message of its own; past the message's bytes, it
    /// ends with how many more there are.
    @Test func aLongCommandListIsWrappedAndCut() async throws {
        let many = (1...60).map { "bot.command(\"cmd\($0)\", function() end, {help = \"does thing \($0)\"})" }.joined(separator: "\n")
        var o = Self.options
        o.transport = TransportCapabilities(name: "streamchat", maxCharacters: 300, linesAreMessages: true)
        let said = texts(try await run(plugins: [("many", many)], script: message("!help"), options: o))
        #expect(said.count == 1, "\(said)")
        let lines = said.first?.split(separator: "\n") ?? []
        #expect(lines.count > 1 && lines.allSatisfy { $0.count <= 300 }, "\(lines.map(\.count))")
        #expect(said.first?.hasPrefix("Commands: !cmd1, !cmd10,") == true)
        #expect(said.first?.hasSuffix("!cmd9. !help NAME tells more.") == true, "\(said)")

        let huge = (1...800).map { "bot.command(\"command\($0)\", function() end)" }.joined(separator: "\n")
        let cut = texts(try await run(plugins: [("huge", huge)], script: message("!help")))
        #expect(cut.count == 1 && cut[0].utf8.count <= 4096, "\(cut.map(\.utf8.count))")
        #expect(cut.first?.range(of: #"… and \d+ more\. !help NAME tells more\.$"#, options: .regularExpression) != nil, "\(cut)")
    }

    @Test func botRolesReadsTheConfig() async throws {
        let p = #"bot.command("whoami", function(m) m:reply(m.user .. ": " .. table.concat(bot.roles(m.user), ",")) end)"#
        var o = Self.options
        o.roles["admin"] = ["root", "alice"]
        let script = [message("!whoami", user: "alice"), message("!whoami", user: "eve")].joined(separator: "\n")
        #expect(texts(try await run(plugins: [("p", p)], script: script, options: o)) == ["alice: admin,moderator", "eve: "])
    }

    @Test func badCommandOptionsAreLoadErrors() async throws {
        for (opts, says) in [("5", "the options must be a table"), ("{help = 1}", "help must be a string"),
                             ("{roles = {}}", "roles must be a list"), ("{roles = {1}}", "roles must be a list"),
                             ("{usage = true}", "usage must be a string"), ("{help = 'one\\ntwo'}", "help must be one line")] {
            let p = "bot.command(\"x\", function() end, \(opts))"
            let actions = try await run(plugins: [("p", p)], script: "")
            #expect(errors(actions).contains { $0.contains(says) }, "\(opts): \(errors(actions))")
        }
    }
}
