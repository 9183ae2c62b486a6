import Foundation
import ParleyCore
import ParleyRuntime
import Synchronization
import Testing
import ParleyTestSupport

/// The shipped bots' plugins (Plugins/greeter.lua, moderator.lua, persona.lua)
/// beyond the one golden transcript each that `CLITests.goldenTranscript` runs:
/// config variants, state across restarts, and transport capabilities the
/// harness's own transport does not have.
struct ShippedPluginTests {
    static func plugin(_ name: String) -> String {
        packageRoot.appendingPathComponent("Plugins/\(name).lua").path
    }

    /// Golden transcripts for config variants: `Golden/NAME.toml`, `.events.jsonl`, `.expected.jsonl`.
    @Test(arguments: [("moderator-shadow", "moderator", 0), ("persona-troll", "persona", 3), ("persona-shy", "persona", 0)])
    func goldenVariant(golden: String, plugin: String, seed: Int) throws {
        let dir = fixture("Golden")
        let r = try CLITests.parley(["plugin", "test", Self.plugin(plugin),
                                     "--config", dir.appendingPathComponent("\(golden).toml").path,
                                     "--events", dir.appendingPathComponent("\(golden).events.jsonl").path,
                                     "--seed", String(seed)])
        let expected = try String(contentsOf: dir.appendingPathComponent("\(golden).expected.jsonl"), encoding: .utf8)
        #expect(r.status == 0, "stderr: \(r.stderr)")
        #expect(r.stdout == expected)
    }

    /// Text from outside the chat fits StreamChat: a push with a long branch,
    /// repository and subject is announced cut to 300 characters, and a
    /// subject holding a frame token is announced with it broken up. The
    /// harness applies the config's transport rules, as the live bot's would.
    @Test func githubFitsItsLineToStreamChat() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("bot.toml")
        try "[[bot]]\nname = \"parley\"\ntransport = \"streamchat\"\nplugins = [\"\(Self.plugin("github"))\"]\n[bot.plugin.github]\nroom = \"lobby\"\n"
            .write(to: config, atomically: true, encoding: .utf8)
        func push(_ subject: String) -> String {
            let body = #"{"ref":"refs/heads/feature/JIRA-1234-improve-the-login-flow","repository":{"full_name":"my-organisation/my-fairly-long-repository-name"},"pusher":{"name":"al"},"commits":[{"message":"\#(subject)"}]}"#
            let quoted = body.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            return #"{"type":"webhook","plugin":"github","path":"push","headers":{"X-GitHub-Event":"push"},"body":""# + quoted + #""}"#
        }
        let events = [push(String(repeating: "word ", count: 40)), push("fix MSG:: parsing ::END")].joined(separator: "\n") + "\n"
        let r = try CLITests.parley(["plugin", "test", Self.plugin("github"), "--config", config.path, "--events", "-"], stdin: events)
        #expect(r.status == 0, "\(r.stderr)")
        let sent = r.stdout.split(separator: "\n").filter { $0.contains(#""action":"send""#) }
        #expect(sent.count == 2, "\(r.stdout)")
        #expect(!r.stdout.contains(#""status":503"#), "\(r.stdout)")
        #expect(sent.first?.contains("…") == true && sent.first?.contains("al pushed 1 commit to feature/JIRA-1234") == true, "\(r.stdout)")
        #expect(sent.last?.contains("fix MSG: parsing ::EN") == true, "\(r.stdout)")
    }

    /// A setting the greeter does not know, or of the wrong type, stops it
    /// at load, naming the line, instead of an error at every join.
    @Test func greeterChecksItsSettingsAtLoad() async throws {
        var options = BotOptions(name: "parley")
        options.pluginConfig["greeter"] = .record([("regreet_after", .string("600"))])
        let source = try String(contentsOfFile: Self.plugin("greeter"), encoding: .utf8)
        let arrival = #"{"type":"join","room":"lobby","user":"ann"}"#
        let typed = try await run(plugins: [("greeter", source)], script: arrival, options: options)
        #expect(typed.contains { $0.errorKind == .runtime && ($0.errorText ?? "").contains("setting regreet_after must be a number (its default is 600), got a string") },
                "\(typed.map(\.json))")
        #expect(typed.compactMap(\.sentText).isEmpty)
        options.pluginConfig["greeter"] = .record([("welcom", .string("Hi {user}"))])
        let typo = try await run(plugins: [("greeter", source)], script: arrival, options: options)
        #expect(typo.contains { ($0.errorText ?? "").contains(#"unknown setting "welcom"; the settings are regreet_after, welcome, welcome_back"#) },
                "\(typo.map(\.json))")
    }

    /// The greeter's "seen" times and the moderator's strikes live in
    /// bot.state, so a restarted bot (the same journal, a new process)
    /// neither greets someone who just left nor forgets their strikes.
    @Test func seenAndStrikesSurviveARestart() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("bot.toml")
        try """
        [[bot]]
        name = "host"
        plugins = ["\(Self.plugin("greeter"))", "\(Self.plugin("moderator"))"]
        [bot.plugin.greeter]
        welcome = "Welcome, {user}!"
        welcome_back = "Welcome back, {user}!"
        """.write(to: config, atomically: true, encoding: .utf8)
        let journal = dir.appendingPathComponent("journal").path
        func run(_ events: [String]) throws -> [String] {
            let r = try CLITests.parley(["plugin", "test", Self.plugin("greeter"), Self.plugin("moderator"),
                                         "--config", config.path, "--journal", journal, "--events", "-"],
                                        stdin: events.joined(separator: "\n") + "\n")
            #expect(r.status == 0, "\(r.stderr)")
            return r.stdout.split(separator: "\n").map(String.init)
        }
        let join = #"{"type":"join","room":"lobby","user":"bob"}"#
        let leave = #"{"type":"leave","room":"lobby","user":"bob"}"#

        let first = try run([join, message("oh heck", user: "bob"), message("darn", user: "bob"), leave])
        #expect(first.contains { $0.contains("Welcome, bob!") })
        #expect(first.contains { $0.contains("audit user=bob strike=2 reason=word action=final_warning") })

        // Each run's clock starts at the same moment, so bob left "just now".
        let second = try run([join, message("crap", user: "bob"), leave])
        #expect(!second.contains { $0.contains("Welcome") }, "\(second)")
        #expect(second.contains { $0.contains("audit user=bob strike=3 reason=word action=mute") }, "\(second)")
        #expect(second.contains { $0.contains(#""action":"mute","room":"lobby","user":"bob","seconds":600"#) })

        let third = try run([#"{"type":"advance","seconds":700}"#, join])
        #expect(third.contains { $0.contains("Welcome back, bob!") }, "\(third)")
    }

    /// Where the chat can mute and kick, strikes 3 and 4 do; where it
    /// cannot, the bot says so in words and warns. The transport's own
    /// protocol tokens count as forbidden without any config.
    @Test func moderatorUsesTheTransportsCapabilities() async throws {
        let source = try String(contentsOfFile: Self.plugin("moderator"), encoding: .utf8)
        let script = ["hi LEAVE::::END", "x ::END", "darn", "heck"].map { message($0, user: "eve") }.joined(separator: "\n")
        var options = BotOptions(name: "mod")
        options.transport = TransportCapabilities(name: "streamchat", kick: true, mute: true, maxCharacters: 300,
                                                  forbiddenSubstrings: ["USR_NAME::", "MSG::", "LEAVE::", "::END"])
        let acting = try await run(plugins: [("moderator", source)], script: script, options: options)
        #expect(acting.compactMap(\.logText) == [
            "audit user=eve strike=1 reason=forbidden action=warn room=lobby",
            "audit user=eve strike=2 reason=forbidden action=final_warning room=lobby",
            "audit user=eve strike=3 reason=word action=mute room=lobby",
            "audit user=eve strike=4 reason=word action=kick room=lobby",
        ])
        #expect(acting.map(\.kind).contains(.moderate(.mute(room: "lobby", user: "eve", seconds: 600, reason: "please mind your language"), answer: 1)))
        // Each with a function that puts a refusal right.
        #expect(acting.map(\.kind).last == .moderate(.kick(room: "lobby", user: "eve", reason: "please mind your language"), answer: 2))

        options.transport = TransportCapabilities(name: "stomp")
        let swearing = ["darn", "heck", "crap", "frak"].map { message($0, user: "eve") }.joined(separator: "\n")
        let talking = try await run(plugins: [("moderator", source)], script: swearing, options: options)
        #expect(talking.compactMap(\.logText).suffix(2) == [
            "audit user=eve strike=3 reason=word action=warn room=lobby",
            "audit user=eve strike=4 reason=word action=warn room=lobby",
        ])
        #expect(talking.compactMap(\.sentText).last == "eve, please mind your language. Strike 4: I can't kick anyone on this chat, so all I can do is warn you.")
        #expect(!talking.contains { if case .moderate = $0.kind { true } else { false } })
    }

    /// A mute is the server's, which forgets it when it restarts: a person
    /// who joins while their mute has time left is muted again for that
    /// time. A person just kicked is not struck again for the lines they had
    /// on the way, until they are back.
    @Test func moderatorMutesAgainOnAJoinAndKicksOnceAVisit() async throws {
        let source = try String(contentsOfFile: Self.plugin("moderator"), encoding: .utf8)
        var options = BotOptions(name: "mod")
        options.transport = TransportCapabilities(name: "socketio", kick: true, mute: true)
        let join = #"{"type":"join","room":"lobby","user":"eve"}"#, leave = #"{"type":"leave","room":"lobby","user":"eve"}"#
        let script = ["darn", "heck", "crap"].map { message($0, user: "eve") }
            + [leave, #"{"type":"advance","seconds":100}"#, join]
            + ["frak", "darn", "heck"].map { message($0, user: "eve") }
            + [join, message("crap", user: "eve")]
        let got = try await run(plugins: [("moderator", source)], script: script.joined(separator: "\n"), options: options)
        #expect(got.compactMap(\.logText) == [
            "audit user=eve strike=1 reason=word action=warn room=lobby",
            "audit user=eve strike=2 reason=word action=final_warning room=lobby",
            "audit user=eve strike=3 reason=word action=mute room=lobby",
            "audit user=eve action=mute_again seconds=500 room=lobby",
            "audit user=eve strike=4 reason=word action=kick room=lobby",
            "audit user=eve action=mute_again seconds=500 room=lobby",   // back after the kick, the mute not over
            "audit user=eve strike=5 reason=word action=kick room=lobby",
        ], "\(got.map(\.json))")
        #expect(got.map(\.kind).contains { if case .moderate(.mute(_, "eve", 500, "still muted"), _) = $0 { true } else { false } }, "\(got.map(\.json))")
    }

    /// A name longer than a state key still collects strikes (its key is
    /// cut between characters), so nobody escapes by picking one.
    @Test func moderatorEscalatesAgainstAVeryLongName() async throws {
        let source = try String(contentsOfFile: Self.plugin("moderator"), encoding: .utf8)
        let name = String(repeating: "é", count: 200)
        let script = ["darn", "heck", "crap"].map { message($0, user: name) }.joined(separator: "\n")
        let got = try await run(plugins: [("moderator", source)], script: script, options: BotOptions(name: "mod"))
        #expect(got.compactMap(\.logText).map { $0.replacingOccurrences(of: name, with: "NAME") } == [
            "audit user=NAME strike=1 reason=word action=warn room=lobby",
            "audit user=NAME strike=2 reason=word action=final_warning room=lobby",
            "audit user=NAME strike=3 reason=word action=mute room=lobby",
        ], "\(got.compactMap(\.logText).count) audit lines")
    }

    /// Settings are checked when the plugin loads, naming the setting and the
    /// wrong value: found mid-conversation, each would fail every message.
    @Test(arguments: [("mute_seconds = 90.5", "mute_seconds must be a whole number of seconds from 1 to 604800; 90.5 is not"),
                      (#"words = ["two words"]"#, #"words must be a list of single words (letters and digits, no spaces); "two words" is not"#),
                      (#"exempt = "bob""#, #"exempt must be a list of user names; "bob" is not"#),
                      (#"flood_messages = "5""#, #"flood_messages must be a whole number from 1 to 1000; "5" is not"#),
                      ("flood_seconds = 0.5", "flood_seconds must be a whole number of seconds from 1 to 86400; 0.5 is not"),
                      ("words = {heck = true}", "words must be a list of single words (letters and digits, no spaces); a table with named keys is not"),
                      ("steps = []", "steps must list at least one step"),
                      ("flood_mesages = 2", #"unknown setting "flood_mesages"; the settings are words, flood_messages"#)])
    func moderatorSettingsAreCheckedAtLoad(setting: String, says: String) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("bot.toml")
        try "[[bot]]\nname = \"mod\"\nplugins = [\"\(Self.plugin("moderator"))\"]\n[bot.plugin.moderator]\n\(setting)\n"
            .write(to: config, atomically: true, encoding: .utf8)
        let r = try CLITests.parley(["check", config.path], timeout: 30)
        #expect(r.status == 2 && r.stderr.contains(says), "\(r.stderr)")
    }

    /// On a chat without a roster the moderator keeps who left: a step that
    /// failed because its person had gone needs no correcting in the room.
    @Test func aStepOnSomeoneWhoLeftIsNotCorrected() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("bot.toml")
        try "[[bot]]\nname = \"mod\"\nplugins = [\"\(Self.plugin("moderator"))\"]\n[bot.plugin.moderator]\nsteps = [\"kick\"]\n"
            .write(to: config, atomically: true, encoding: .utf8)
        let events = [#"{"type":"join","room":"lobby","user":"fred"}"#, #"{"type":"leave","room":"lobby","user":"fred"}"#,
                      #"{"type":"moderation_reply","verb":"kick","error":"no user \"fred\" in the room"}"#,
                      message("heck", user: "fred")]
        let r = try CLITests.parley(["plugin", "test", Self.plugin("moderator"), "--config", config.path, "--events", "-"],
                                    stdin: events.joined(separator: "\n") + "\n")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("result=failed") && !r.stdout.contains("could not kick"), "\(r.stdout)")
    }

    /// A misspelt escalation step is a load error, not an audit line that lies;
    /// a one-minute mute says "1 minute"; a moderator's own commands are no flood.
    @Test func moderatorChecksItsStepsAndSparesModerators() async throws {
        let source = try String(contentsOfFile: Self.plugin("moderator"), encoding: .utf8)
        var options = BotOptions(name: "mod")
        options.transport = TransportCapabilities(name: "socketio", kick: true, mute: true)
        options.pluginConfig["moderator"] = .record([("steps", .list([.string("warn"), .string("ban")]))])
        let refused = try await run(plugins: [("moderator", source)], script: message("darn", user: "eve"), options: options)
        #expect(refused.contains { $0.errorKind == .runtime && $0.json.contains("unknown step 'ban' in steps") }, "\(refused.map(\.json))")

        options.pluginConfig["moderator"] = .record([("steps", .list([.string("mute")])), ("mute_seconds", .int(60)), ("flood_messages", .int(2))])
        options.roles = ["moderator": ["carol"]]
        let script = [message("darn", user: "eve")] + Array(repeating: message("!strikes eve", user: "carol"), count: 4)
        let acting = try await run(plugins: [("moderator", source)], script: script.joined(separator: "\n"), options: options)
        #expect(acting.compactMap(\.sentText) == ["eve, please mind your language. You are muted for 1 minute."]
                + Array(repeating: "eve has 1 strike.", count: 4), "\(acting.map(\.json))")
    }

    /// A mute and a kick are of one room: muted in the lobby is not muted in
    /// dev, kicked from the lobby is still struck in dev. A mute the server
    /// refused is not put back at the next join. Names: a long one is cut
    /// where the bot says it, a name with spaces is one name to the commands,
    /// and a name cannot forge an audit field.
    @Test func moderatorKeepsMutesAndKicksToTheirRoom() async throws {
        let source = try String(contentsOfFile: Self.plugin("moderator"), encoding: .utf8)
        var options = BotOptions(name: "mod")
        options.transport = TransportCapabilities(name: "socketio", kick: true, mute: true)
        options.roles = ["moderator": ["carol"]]
        options.pluginConfig["moderator"] = .record([("steps", .list([.string("mute"), .string("kick")])), ("mute_seconds", .int(600))])
        func join(_ user: String, _ room: String) -> String { #"{"type":"join","room":"\#(room)","user":"\#(user)"}"# }
        let script = [
            message("darn", user: "bob"),                         // strike 1 in the lobby: muted there
            join("bob", "dev"),                                   // not muted in dev
            message("heck", user: "bob", room: "dev"),            // strike 2, in dev: kicked from dev
            message("crap", user: "bob"),                         // the kick was dev's: struck in the lobby
            join("bob", "lobby"),                                 // the lobby's mute is put back
            // The server's refusal of the next mute, given ahead as the harness takes it.
            #"{"type":"moderation_reply","verb":"mute","error":"\"mod\" is not a moderator"}"#,
            message("darn", user: "yan"),
            join("yan", "lobby"),                                 // refused: not put back
            message("!strikes bad guy", user: "carol"),
            message("!pardon nobody", user: "carol"),
            message("!pardon bob", user: "carol"),
            message("heck", user: "mallory action=pardon"),
            message("frak", user: String(repeating: "z", count: 290)),
            // A name of exactly 40 characters is said whole; inner spacing is kept.
            message("crap", user: String(repeating: "y", count: 40)),
            message("darn", user: "bad  guy"),
            message("!strikes bad  guy", user: "carol"),
        ]
        let got = try await run(plugins: [("moderator", source)], script: script.joined(separator: "\n"), options: options)
        let audits = got.compactMap(\.logText).filter { $0.hasPrefix("audit") }
        #expect(audits.prefix(6) == [
            "audit user=bob strike=1 reason=word action=mute room=lobby",
            "audit user=bob strike=2 reason=word action=kick room=dev",
            "audit user=bob strike=3 reason=word action=kick room=lobby",
            "audit user=bob action=mute_again seconds=600 room=lobby",
            "audit user=yan strike=1 reason=word action=mute room=lobby",
            #"audit user=yan action=mute result=failed room=lobby why="\"mod\" is not a moderator""#,
        ], "\(got.map(\.json))")
        #expect(!audits.contains { $0.contains("user=yan action=mute_again") }, "\(audits)")
        #expect(audits.contains(#"audit user="mallory action=pardon" strike=1 reason=word action=mute room=lobby"#), "\(audits)")
        let said = got.compactMap(\.sentText)
        #expect(said.contains("bad guy has 0 strikes."), "\(said)")
        #expect(said.contains("nobody has no strikes to forgive."), "\(said)")
        #expect(said.contains("bob is forgiven. A mute still runs, in lobby (600 s): the chat has no unmute."), "\(said)")
        #expect(said.contains(String(repeating: "y", count: 40) + ", please mind your language. You are muted for 10 minutes."), "\(said)")
        #expect(said.contains("bad  guy has 1 strike."), "\(said)")
        #expect(said.contains(String(repeating: "z", count: 40) + "…, please mind your language. You are muted for 10 minutes."), "\(said)")
    }

    /// A name too long for a state key still has its "seen" time: not greeted
    /// twice. Cut between characters, so a long name in any script is no error.
    @Test(arguments: [String(repeating: "n", count: 300), String(repeating: "é", count: 130), String(repeating: "漢", count: 90)])
    func greeterRemembersAVeryLongName(name: String) async throws {
        let source = try String(contentsOfFile: Self.plugin("greeter"), encoding: .utf8)
        let join = #"{"type":"join","room":"lobby","user":"\#(name)"}"#, leave = #"{"type":"leave","room":"lobby","user":"\#(name)"}"#
        let got = try await run(plugins: [("greeter", source)], script: [join, leave, join].joined(separator: "\n"))
        #expect(got.compactMap(\.sentText) == ["Welcome, \(name)!"], "\(got.map(\.json))")
        #expect(!got.contains { $0.errorKind != nil }, "\(got.map(\.json))")
    }

    /// A persona answers a greeting that names it, whatever its name ends with.
    @Test func personaKnowsANameThatEndsInPunctuation() async throws {
        let source = try String(contentsOfFile: Self.plugin("persona"), encoding: .utf8)
        var options = BotOptions(name: "amy.b(x)")
        options.pluginConfig["persona"] = .record([("style", .string("chatty"))])
        let script = ["hi amy.b(x)!", "hello amy.b(x)", "hey amy.b(x)"].map { message($0, user: "bob") }
            + [#"{"type":"advance","seconds":10}"#]
        let got = try await run(plugins: [("persona", source)], script: script.joined(separator: "\n"), options: options)
        // A chatty persona answers nine greetings in ten (seeded, so the same every run).
        let answers: Set<String> = ["thanks bob!", "bob o/", "good to see you, bob"]
        #expect(got.compactMap(\.sentText).filter(answers.contains).count >= 2, "\(got.map(\.json))")
    }

    /// A persona shows typing for a time proportional to the line's length
    /// (1 s per 12 characters, between 1 and 4.5 s), then sends the line.
    @Test func personaTypesForATimeProportionalToTheText() async throws {
        let step = 0.25
        var lines = [message("hi all", user: "bob")]
        lines += Array(repeating: #"{"type":"advance","seconds":\#(step)}"#, count: 480)
        let feed = Mutex((lines: lines, next: 0))
        let seen = Mutex<[(time: Double, action: BotAction)]>([])
        let source = try String(contentsOfFile: Self.plugin("persona"), encoding: .utf8)
        let host = PluginTestHost(executor: testExecutor)
        try await host.runStreaming(options: BotOptions(name: "amy"), plugins: [("persona", Array(source.utf8))], file: "test",
                                    nextLine: {
                                        feed.withLock { f in
                                            guard f.next < f.lines.count else { return nil }
                                            f.next += 1
                                            return f.lines[f.next - 1]
                                        }
                                    },
                                    emit: { a in
                                        // Steps before this one have all run: the action happened within the last step.
                                        let t = Double(feed.withLock { $0.next } - 1) * step
                                        seen.withLock { $0.append((t, a)) }
                                    })
        var typingSince: Double?
        var checked = 0
        for (t, a) in seen.withLock({ $0 }) {
            switch a.kind {
            case .typing(_, true):
                typingSince = typingSince ?? t
            case .send(_, let text):
                let since = try #require(typingSince, "sent \"\(text)\" without typing first")
                let expected = min(4.5, max(1, Double(text.utf8.count) / 12))
                #expect(abs((t - since) - expected) <= step, "\"\(text)\": typed for \(t - since) s, expected \(expected) s")
                typingSince = nil
                checked += 1
            default:
                break
            }
        }
        #expect(checked >= 5)
    }

    /// Without typing indicators (the transport has none), lines go out at once.
    @Test func personaWithoutTypingSendsAtOnce() async throws {
        var options = BotOptions(name: "amy")
        options.transport = TransportCapabilities(name: "streamchat", typing: false)
        let source = try String(contentsOfFile: Self.plugin("persona"), encoding: .utf8)
        let actions = try await run(plugins: [("persona", source)], script: #"{"type":"advance","seconds":60}"#, options: options)
        #expect(actions.contains { $0.sentText != nil })
        #expect(!actions.contains { if case .typing = $0.kind { true } else { false } })
    }
}
