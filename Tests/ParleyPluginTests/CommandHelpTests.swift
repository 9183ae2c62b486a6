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
                             ("{usage = true}", "usage must be a string")] {
            let p = "bot.command(\"x\", function() end, \(opts))"
            let actions = try await run(plugins: [("p", p)], script: "")
            #expect(errors(actions).contains { $0.contains(says) }, "\(opts): \(errors(actions))")
        }
    }
}
