import Foundation
import ParleyCore
import ParleyStore
import ParleyRuntime
import ParleyLua
import Testing

/// Plugin API v1, one behaviour per test, through the same path as `parley plugin test`.
struct PluginAPITests {
    func texts(_ a: [BotAction]) -> [String] { a.compactMap(\.sentText) }
    func logs(_ a: [BotAction]) -> [String] { a.compactMap(\.logText) }

    /// bot.command, bot.cron, bot.http, bot.webhook and the moderation calls
    /// live in prelude extensions a VM loads on first use, and bot.state,
    /// bot.json and bot.log are made on first use: a plugin without them
    /// carries less, one that uses them cannot tell, and the `bot` table's
    /// metatable (the loader) is out of a plugin's reach.
    @Test func preludeExtensionsLoadOnFirstUse() async throws {
        let p = #"""
        local before = collectgarbage("count")
        local lazy = rawget(bot, "command") == nil and rawget(bot, "http") == nil
        local cmd = type(bot.command)
        local after = collectgarbage("count")
        print(lazy, cmd, type(bot.cron), type(bot.kick), tostring(getmetatable(bot)), after > before)
        print(pcall(setmetatable, bot, {}))
        local made = rawget(bot, "state") == nil and rawget(bot, "json") == nil and rawget(bot, "log") == nil
        local state = bot.state
        bot.state.set("k", bot.json.decode(bot.json.encode({ 1, 2 })))
        print(made, rawget(bot, "state") == state, #bot.state.get("k"), bot.state.keys()[1], bot.log.warn ~= nil)
        bot.command("hi", function(m) m:reply("hello") end)
        """#
        let got = try await run(plugins: [("p", p)], script: message("!hi") + "\n" + message("!help"))
        #expect(got.compactMap(\.logText) == ["true\tfunction\tfunction\tfunction\tlocked\ttrue",
                                              "false\tcannot change a protected metatable",
                                              "true\ttrue\t2\tk\ttrue"])
        #expect(texts(got) == ["hello", "Commands: !hi. !help NAME tells more."])
    }

    @Test func messageFieldsAndReply() async throws {
        let p = #"bot.on("message", function(m) m:reply(table.concat({m.room, m.user, m.text, m.id, tostring(m.time)}, "|")) end)"#
        let script = #"{"type":"message","room":"r1","user":"bob","text":"hi","id":"x7","time":100}"#
        #expect(texts(try await run(plugins: [("p", p)], script: script)) == ["r1|bob|hi|x7|100.0"])
    }

    /// The message table C builds has exactly its fields (`replayed` only
    /// when set), binary-safe text, a float time, and `reply`'s metatable.
    @Test func aMessageTableHasExactlyItsFields() async throws {
        let p = #"""
        bot.on("message", function(m)
          local keys = {}
          for k in pairs(m) do keys[#keys + 1] = k end
          table.sort(keys)
          m:reply(table.concat(keys, ",") .. "|" .. #m.text .. "|" .. math.type(m.time) .. "|" .. tostring(m.replayed))
        end)
        """#
        let script = #"{"type":"message","room":"r1","user":"bob","text":"a\u0000b","id":"x7","time":100}"#
        let got = texts(try await run(plugins: [("p", p)], script: script))
        #expect(got == ["id,room,text,time,user|3|float|nil"])

        // A replayed one (catch-up), straight through the VM as the bot hands it over.
        let vm = try PluginVM(setup: VMSetup(prelude: PreludeAccess.source, botName: "parley",
                                             hostFunctions: PreludeAccess.hostFunctions, commonStrings: PreludeAccess.commonStrings),
                              limits: PluginLimits())
        #expect(vm.load(source: Array(p.utf8), chunkName: "p", now: 0).0 == nil)
        let (failure, actions) = vm.dispatchMessage(room: "r1", user: "bob", text: "hi", id: "x8", time: 101, replayed: true, now: 101)
        #expect(failure == nil)
        #expect(actions == [.send(room: "r1", text: "id,replayed,room,text,time,user|2|float|true")])
    }

    /// The VM reuses the room and sender strings of the last message when the
    /// bytes match (`parley_field_cache`); a change of either, a long name
    /// (not kept) or a same-length neighbour must still arrive as sent. And the
    /// returned action arrays are independent values although the VM reuses
    /// their storage.
    @Test func roomsAndSendersArriveAsSentWhateverTheLastMessageWas() async throws {
        let vm = try PluginVM(setup: VMSetup(prelude: PreludeAccess.source, botName: "parley",
                                             hostFunctions: PreludeAccess.hostFunctions, commonStrings: PreludeAccess.commonStrings),
                              limits: PluginLimits())
        #expect(vm.load(source: Array(#"bot.on("message", function(m) m:reply(m.user .. "@" .. m.room) end)"#.utf8),
                        chunkName: "p", now: 0).0 == nil)
        let long = String(repeating: "r", count: 41), long2 = String(repeating: "r", count: 40) + "s"
        let lines: [(String, String)] = [("lobby", "ann"), ("lobby", "ann"), ("lobbz", "ann"), ("lobby", "bob"),
                                         (long, "bob"), (long2, "bob"), (long, "bob"), ("", ""), ("lobby", "ann"),
                                         ("a\u{0}b", "é"), ("a\u{0}c", "é"), (String(repeating: "x", count: 40), "ann")]
        var kept: [[VMAction]] = []
        for (i, (room, user)) in lines.enumerated() {
            let (failure, actions) = vm.dispatchMessage(room: room, user: user, text: "t", id: "m\(i)", time: 1, now: 1)
            #expect(failure == nil)
            kept.append(actions)
        }
        #expect(kept == lines.map { [.send(room: $0.0, text: "\($0.1)@\($0.0)")] })
    }

    /// A send or typing indicator to the message's own room is recorded
    /// without the room (`PARLEY_ROOM_HERE`) and comes back as the room string
    /// the bot passed in; any other room, a prefix of it or one longer, comes
    /// back as written.
    /// The VM overwrites the last event's action array in place, so events
    /// with more, fewer and no actions must each get exactly their own.
    @Test func repliesToTheMessagesRoomAndOtherRoomsInEveryMix() async throws {
        let vm = try PluginVM(setup: VMSetup(prelude: PreludeAccess.source, botName: "parley",
                                             hostFunctions: PreludeAccess.hostFunctions, commonStrings: PreludeAccess.commonStrings),
                              limits: PluginLimits())
        let p = #"""
        bot.on("message", function(m)
          for word in m.text:gmatch("%S+") do
            if word == "here" then m:reply("h")
            elseif word == "log" then bot.log.info("l")
            elseif word == "typing" then bot.typing(m.room, true); bot.typing("lob", false)
            else bot.send(word, "to " .. word) end
          end
        end)
        bot.on("join", function(ev) bot.send(ev.room, "welcome") end)
        """#
        #expect(vm.load(source: Array(p.utf8), chunkName: "p", now: 0).0 == nil)
        let cases: [(String, [VMAction])] = [
            ("here lob lobbyx here", [.send(room: "lobby", text: "h"), .send(room: "lob", text: "to lob"),
                                      .send(room: "lobbyx", text: "to lobbyx"), .send(room: "lobby", text: "h")]),
            ("lobby", [.send(room: "lobby", text: "to lobby")]),
            ("log", [.log(.info, "l")]),
            ("", []),
            ("here log other", [.send(room: "lobby", text: "h"), .log(.info, "l"), .send(room: "other", text: "to other")]),
            ("typing here", [.typing(room: "lobby", on: true), .typing(room: "lob", on: false), .send(room: "lobby", text: "h")]),
        ]
        var kept: [[VMAction]] = []
        for (i, (text, _)) in cases.enumerated() {
            let (failure, actions) = vm.dispatchMessage(room: "lobby", user: "ann", text: text, id: "m\(i)", time: 1, now: 1)
            #expect(failure == nil)
            kept.append(actions)
        }
        #expect(kept == cases.map(\.1))
        // Outside a message there is no room of its own: the room is carried.
        let (failure, actions) = vm.dispatch(kind: "join", now: 2) { w in
            w.beginTable(array: 0, pairs: 2); w.field("room", "lobby"); w.field("user", "bob")
        }
        #expect(failure == nil)
        #expect(actions == [.send(room: "lobby", text: "welcome")])
    }

    @Test func hearPassesCapturesAfterTheMessage() async throws {
        let p = #"bot.hear("(%d+)%s*%+%s*(%d+)", function(m, a, b) m:reply(tostring(tonumber(a) + tonumber(b))) end)"#
        #expect(texts(try await run(plugins: [("p", p)], script: message("what is 2 + 40?"))) == ["42"])
    }

    /// `bot.hear` matches in C (`native.hear`), not through `string.find`
    /// in Lua: the same plugin compares the two on every message, so a
    /// handler must get exactly the captures find returns after its span
    /// (position captures as numbers, none for a pattern without captures,
    /// plain patterns included) and fire exactly when find matches.
    @Test func hearMatchesExactlyAsStringFindDoes() async throws {
        let p = #"""
        local patterns = { "^hello (%w+)", "world", "()o()", "(%d+)-(%d+)", "%b()", "^$", "[%a_]+$", "x*" }
        local function show(...)
          local t = table.pack(...)
          for i = 1, t.n do t[i] = math.type(t[i]) or type(t[i]) end
          return t.n .. ":" .. table.concat(t, ",", 1, t.n) .. ":" .. table.concat(table.pack(...), ",", 1, t.n)
        end
        for i, pat in ipairs(patterns) do
          bot.hear(pat, function(msg, ...) bot.send(msg.room, "hear " .. i .. " " .. show(...)) end)
        end
        bot.on("message", function(msg)
          for i, pat in ipairs(patterns) do
            local r = table.pack(string.find(msg.text, pat))
            if r[1] then bot.send(msg.room, "find " .. i .. " " .. show(table.unpack(r, 3, r.n))) end
          end
        end)
        """#
        let lines = ["hello world", "", "call 555-1234 (now (really))", "snake_case", "nothing to see", "xo"]
        let sent = texts(try await run(plugins: [("p", p)], script: lines.map { message($0) }.joined(separator: "\n")))
        let finds = sent.filter { $0.hasPrefix("find ") }.map { $0.dropFirst(5) }
        let hears = sent.filter { $0.hasPrefix("hear ") }.map { $0.dropFirst(5) }
        #expect(hears == finds)
        #expect(hears.contains("1 1:string:world") && hears.contains("3 2:integer,integer:5,6"))
        #expect(hears.contains("4 2:string,string:555,1234") && hears.contains("6 0::"))
        #expect(hears.count == 19)  // 5 + 2 + 4 + 2 + 3 + 3 patterns matched across the six lines
    }

    @Test func aMalformedHearPatternFailsThatPluginOnly() async throws {
        let bad = #"bot.hear("(%w+", function(m) m:reply("never") end)"#
        let good = #"bot.hear("^ping$", function(m) m:reply("pong") end)"#
        let actions = try await run(plugins: [("bad", bad), ("good", good)], script: message("ping"))
        #expect(texts(actions) == ["pong"])
        let failures = actions.filter { $0.errorKind == .runtime }
        #expect(failures.count == 1 && errors(failures)[0].contains("unfinished capture"))
    }

    @Test func commandsByPrefixAndByName() async throws {
        let p = #"bot.command("say", function(m, args) m:reply(#args .. ":" .. table.concat(args, ",") .. ":" .. args.raw) end)"#
        let script = [message("!say a  b"), message("parley: say x"), message("@parley say y"),
                      message("Parley, SAY z"), message("parleyx say no"), message("say no"), message("!"),
                      // A sentence that starts with the name is not addressed to the bot.
                      message("parley say no"), message("parley said no"), message("  parley: say no"), message("@parleyx say no"),
                      message("!say a b \t "), message("!say   "), message("!say"), message("!say é\tü  ß\u{0B}x"),
                      // The name with a colon after "@", blanks after the colon, the command in capitals;
                      // a name and nothing after it, or a line shorter than the name, is none.
                      message("@parley:say w"), message("parley:\t say t"), message("!SAY Up"),
                      message("parley:"), message("@parley "), message("parl"), message("@")]
            .joined(separator: "\n")
        // Blanks around the arguments are not part of `args.raw`; any of
        // Lua's %s separates words, and other bytes (UTF-8 included) are word.
        #expect(texts(try await run(plugins: [("p", p)], script: script))
                    == ["2:a,b:a  b", "1:x:x", "1:y:y", "1:z:z", "2:a,b:a b", "0::", "0::", "4:é,ü,ß,x:é\tü  ß\u{0B}x",
                        "1:w:w", "1:t:t", "1:Up:Up"])
    }

    /// A command line with more words than the plugin's memory holds fails
    /// that event as a memory error, and the next command still runs.
    @Test func aCommandLineTooBigForThePluginsMemoryFailsOnlyItsEvent() async throws {
        var o = BotOptions(name: "parley")
        o.limits.memoryBytes = 2 << 20
        let p = #"bot.command("say", function(m, args) m:reply("words: " .. #args) end)"#
        let flood = "!say " + String(repeating: "a ", count: 200_000)
        let actions = try await run(plugins: [("p", p)], script: [message(flood), message("!say one two")].joined(separator: "\n"), options: o)
        #expect(actions.compactMap(\.errorKind) == [.memory])
        #expect(texts(actions) == ["words: 2"])
    }

    @Test func configurablePrefix() async throws {
        var o = BotOptions(name: "bob")
        o.commandPrefix = "."
        let p = #"bot.command("ping", function(m) m:reply("pong") end)"#
        let script = [message(".ping"), message("!ping"), message("bob: ping")].joined(separator: "\n")
        #expect(texts(try await run(plugins: [("p", p)], script: script, options: o)) == ["pong", "pong"])
    }

    @Test func theBotsOwnMessagesNeverReachItsPlugins() async throws {
        let p = #"bot.on("message", function(m) m:reply("saw " .. m.user) end)"#
        let script = [message("hi", user: "parley"), message("hi", user: "eve")].joined(separator: "\n")
        #expect(texts(try await run(plugins: [("p", p)], script: script)) == ["saw eve"])
    }

    @Test func joinLeaveTypingRosterConnectionAndLoadEvents() async throws {
        let p = """
        bot.on("load", function() bot.log.info("loaded as " .. bot.name) end)
        bot.on("join", function(e) bot.log.info("join " .. e.room .. " " .. e.user) end)
        bot.on("leave", function(e) bot.log.info("leave " .. e.user) end)
        bot.on("typing", function(e) bot.log.info("typing " .. e.user .. " " .. tostring(e.on)) end)
        bot.on("roster", function(e)
          local parts = {}
          for _, u in ipairs(e.users) do parts[#parts + 1] = u.user .. "=" .. tostring(u.online) end
          bot.log.info("roster " .. table.concat(parts, ","))
        end)
        bot.on("connection", function(e) bot.log.info("connection " .. e.state) end)
        bot.command("who", function(m)
          local parts = {}
          for _, u in ipairs(bot.roster(m.room)) do parts[#parts + 1] = u.user .. "=" .. tostring(u.online) end
          m:reply("(" .. table.concat(parts, ",") .. ")")
        end)
        """
        // The roster leaves out the bot itself and whoever left, and is
        // forgotten while the bot is off the chat.
        let script = """
        {"type":"connection","state":"online"}
        {"type":"roster","room":"lobby","users":[{"user":"amy","online":true},{"user":"parley","online":true},{"user":"zed","online":false}]}
        {"type":"join","room":"lobby","user":"bob"}
        {"type":"typing","room":"lobby","user":"bob","on":true}
        {"type":"leave","room":"lobby","user":"amy"}
        \(message("!who"))
        {"type":"connection","state":"offline"}
        {"type":"connection","state":"online"}
        \(message("!who"))
        {"type":"join","room":"lobby","user":"cy"}
        \(message("!who"))
        """
        let a = try await run(plugins: [("p", p)], script: script)
        #expect(logs(a) == ["loaded as parley", "connection online", "roster amy=true,zed=false", "join lobby bob",
                            "typing bob true", "leave amy", "connection offline", "connection online", "join lobby cy"])
        #expect(texts(a) == ["(bob=true,zed=false)", "()", "(cy=true)"])
    }

    /// A kind no handler listens to never reaches the plugin's VM, until a
    /// handler for it registers (here from inside another handler).
    @Test func eventsNoHandlerListensToSkipTheVMUntilOneDoes() async throws {
        let p = """
        bot.on("message", function(m)
          if m.text == "listen" then bot.on("join", function(e) bot.log.info("join " .. e.user) end) end
        end)
        """
        let script = """
        {"type":"join","room":"lobby","user":"amy"}
        \(message("listen"))
        {"type":"join","room":"lobby","user":"bob"}
        """
        #expect(logs(try await run(plugins: [("p", p)], script: script)) == ["join bob"])
    }

    /// A skipped event is no success: it does not reset a failing plugin's streak.
    @Test func skippedEventsDoNotResetTheFailureStreak() async throws {
        let p = #"bot.on("message", function() error("always fails") end)"#
        let join = #"{"type":"join","room":"lobby","user":"amy"}"#
        let script = (0..<5).flatMap { _ in [message("x"), join] }.joined(separator: "\n")
        let a = try await run(plugins: [("p", p)], script: script)
        #expect(a.filter { $0.errorKind == .pluginDisabled }.count == 1)
    }

    @Test func stateRoundTripsNestedValuesAndBinaryStrings() async throws {
        let p = """
        bot.command("set", function(m)
          assert(bot.state.set("k", { n = 1, f = 2.5, b = true, s = "\\0\\255x", list = { 1, 2, { deep = "yes" } } }))
        end)
        bot.command("get", function(m)
          local v = bot.state.get("k")
          m:reply(string.format("%d %.1f %s %d %s %s", v.n, v.f, tostring(v.b), #v.s, v.list[3].deep, math.type(v.n)))
          assert(bot.state.get("missing") == nil)
          assert(bot.state.set("k", nil)); assert(bot.state.get("k") == nil)
        end)
        bot.command("bad", function(m)
          local ok, err = bot.state.set("f", function() end)
          m:reply(tostring(ok) .. " " .. err)
        end)
        """
        let a = try await run(plugins: [("p", p)], script: [message("!set"), message("!get"), message("!bad")].joined(separator: "\n"))
        #expect(texts(a) == ["1 2.5 true 3 yes integer", "nil bot.state.set: functions cannot be passed or stored here"])
    }

    @Test func stateKeysListsWhatTheHandlerSees() async throws {
        let p = """
        bot.command("fill", function(m)
          bot.state.set("karma:bob", 2)
          bot.state.set("karma:amy", 5)
          bot.state.set("other", true)
          m:reply(table.concat(bot.state.keys("karma:"), ","))
        end)
        bot.command("drop", function(m)
          bot.state.set("karma:bob", nil)
          m:reply(table.concat(bot.state.keys(), ","))
          m:reply(select(2, pcall(bot.state.keys, 5)))
        end)
        """
        let a = try await run(plugins: [("p", p)], script: [message("!fill"), message("!drop")].joined(separator: "\n"))
        #expect(texts(a) == ["karma:amy,karma:bob", "karma:amy,other", "p.lua:10: bot.state.keys: the prefix must be a string"], "\(texts(a))")
    }

    @Test func aFailedHandlerHasNoEffects() async throws {
        let p = """
        bot.command("boom", function(m)
          bot.state.set("n", 99); bot.send(m.room, "should not go out"); bot.typing(m.room, true)
          bot.after(1, function() bot.send(m.room, "timer should not fire") end)
          error("failed after acting")
        end)
        bot.command("n", function(m) m:reply(tostring(bot.state.get("n"))) end)
        """
        let script = [message("!boom"), #"{"type":"advance","seconds":5}"#, message("!n")].joined(separator: "\n")
        let a = try await run(plugins: [("p", p)], script: script)
        #expect(texts(a) == ["nil"])
        #expect(!a.contains { if case .typing = $0.kind { true } else { false } })
    }

    @Test func stateIsPerPlugin() async throws {
        let a1 = #"bot.command("set", function() bot.state.set("k", "from a") end)"#
        let b1 = #"bot.command("get", function(m) m:reply(tostring(bot.state.get("k"))) end)"#
        let a = try await run(plugins: [("a", a1), ("b", b1)], script: [message("!set"), message("!get")].joined(separator: "\n"))
        #expect(texts(a) == ["nil"])
    }

    @Test func timersFireInOrderOnTheVirtualClockAndCancel() async throws {
        let p = """
        local n = 0
        bot.command("go", function(m)
          bot.after(2, function() bot.send("lobby", "after 2 at " .. os.time() % 100) end)
          local id = bot.every(1, function() n = n + 1; bot.send("lobby", "tick " .. n) end)
          bot.after(3.5, function() bot.cancel(id); bot.send("lobby", "cancelled") end)
          local x = bot.after(1, function() bot.send("lobby", "never") end)
          assert(bot.cancel(x) == true and bot.cancel(x) == false)
          local ok, err = bot.after(0.05, function() end)
          assert(ok == nil and err:find("too short"))
        end)
        """
        let script = [message("!go"), #"{"type":"advance","seconds":10}"#].joined(separator: "\n")
        let a = try await run(plugins: [("p", p)], script: script)
        // Timers due at the same moment fire in the order they were scheduled.
        #expect(texts(a) == ["tick 1", "after 2 at 2", "tick 2", "tick 3", "cancelled"])
    }

    /// A bot's rooms come from its config: a send to another is refused when
    /// it is made (a `true` is a promise the transport would break), and a
    /// reply to the event's room, or a send to a configured room, goes.
    @Test func aSendToARoomTheBotIsNotInIsRefusedWhenMade() throws {
        var options = BotOptions(name: "parley")
        options.rooms = ["lobby", "ops"]
        let bot = Bot(options: options, now: 1_000)
        _ = try bot.loadPlugin(name: "p", source: Array("""
        bot.on("message", function(msg)
          local ok, err = bot.send("elsewhere", "x")
          assert(ok == nil and err == "this bot is not in room 'elsewhere' (its rooms are in its config)", err)
          assert(bot.send("ops", "to ops"))
          local typed, why = bot.typing("elsewhere", true)
          assert(typed == nil and why == "this bot is not in room 'elsewhere' (its rooms are in its config)", why)
          assert(bot.typing("ops", true))
          msg:reply("here")
        end)
        """.utf8))
        let a = try bot.handle(.message(ChatMessage(room: "lobby", user: "alice", text: "hi")))
        #expect(texts(a) == ["to ops", "here"], "\(a)")
        #expect(a.filter { if case .typing = $0.kind { true } else { false } }.count == 1, "\(a)")
    }

    /// Registrations that could only be slips: a command named with the
    /// prefix (it would answer "!!x"), a webhook path served twice (the
    /// second handler would replace the first).
    @Test func registrationsThatCouldOnlyBeSlipsAreErrors() throws {
        let bot = Bot(options: BotOptions(name: "parley"), now: 1_000)
        _ = try bot.loadPlugin(name: "p", source: Array(#"""
        local function say(fn) local ok, err = pcall(fn); bot.send("lobby", tostring(err)) end
        bot.on("message", function()
          say(function() bot.command("!x", function() end) end)
          say(function() bot.webhook("hook", function() end); bot.webhook("/hook/", function() end) end)
          say(function() bot.webhook("../up", function() end) end)
          say(function() bot.webhook("a//b", function() end) end)
        end)
        """#.utf8))
        let said = texts(try bot.handle(.message(ChatMessage(room: "lobby", user: "alice", text: "hi"))))
        #expect(said.count == 4, "\(said)")
        #expect(said.first?.hasSuffix("bot.command: name the command without the prefix ('x', not '!x')") == true, "\(said)")
        #expect(said[1].hasSuffix("bot.webhook: this plugin serves 'hook' already"), "\(said)")
        // A path no client sends as written could never be called.
        #expect(said[2].hasSuffix("bot.webhook: '../up' has an empty, '.' or '..' part, which no client sends as written"), "\(said)")
        #expect(said[3].hasSuffix("bot.webhook: 'a//b' has an empty, '.' or '..' part, which no client sends as written"), "\(said)")
    }

    /// A misspelt option would be dropped without a word, and what it says
    /// lost: every options table names the key it does not know. So do a
    /// `msg.reply` that should be `msg:reply`, and a JSON object that would
    /// hold one key twice.
    @Test func aMisspeltOptionIsAnErrorThatNamesIt() throws {
        let bot = Bot(options: BotOptions(name: "parley"), now: 1_000)
        _ = try bot.loadPlugin(name: "p", source: Array(#"""
        local function say(fn) local ok, err = pcall(fn); bot.send("lobby", tostring(err)) end
        bot.on("message", function(msg)
          say(function() bot.history("lobby", { limt = 5 }) end)
          say(function() bot.after(5, function() end, { nmae = "x" }) end)
          say(function() bot.every(5, function() end, { "x" }) end)
          say(function() bot.cron("0 9 * * *", function() end, { dta = 1 }) end)
          say(function() bot.http({ url = "http://example.com/", timout = 1 }, function() end) end)
          say(function() msg.reply("hi") end)
          local _, err = bot.json.encode({ [1] = "a", ["1"] = "b" })
          bot.send("lobby", err)
          bot.send("lobby", select(2, bot.json.encode(0/0)))
          local cyclic = {}
          cyclic.self = cyclic
          bot.send("lobby", select(2, bot.json.encode(cyclic)))
          bot.send("lobby", select(2, bot.json.encode({ f = print })))
        end)
        """#.utf8))
        let a = try bot.handle(.message(ChatMessage(room: "lobby", user: "alice", text: "hi")))
        let said = texts(a)
        let expected = [
            "p.lua:3: bot.history: unknown option 'limt' (the options are limit, before, after)",
            "bot.after: unknown option 'nmae' (the options are name, data)",
            "bot.every: the options are named: name, data",
            "bot.cron: unknown option 'dta' (the options are name, data)",
            "p.lua:7: bot.http: unknown option 'timout' (the options are url, method, headers, body, timeout)",
            "p.lua:8: msg:reply(text) is called with a colon, not msg.reply(text)",
            #"bot.json.encode: the key "1" appears twice, as a number and as a string"#,
            "bot.json.encode: NaN has no JSON form",
            "bot.json.encode: table nested too deeply (or cyclic)",
            "bot.json.encode: functions cannot be passed or stored here",
        ]
        #expect(said.count == expected.count, "\(said)")
        for (got, want) in zip(said, expected) { #expect(got.hasSuffix(want), "\(got)") }
    }

    /// On a live bot's wall clock a loop that was busy makes timers late,
    /// and a late every timer fires once, on its phase: catching up back to
    /// back would hold the loop (its other plugins, its link) for longer
    /// than it was late, and a timer slower than its interval for ever.
    @Test func aLateTimerOnAWallClockFiresOnceAndKeepsItsPhase() throws {
        final class Wall { var now = 1_000.0 }
        let wall = Wall()
        let bot = Bot(options: BotOptions(name: "parley"), now: wall.now)
        bot.clock = { wall.now }
        _ = try bot.loadPlugin(name: "p", source: Array(#"bot.every(0.1, function() bot.send("lobby", "tick") end)"#.utf8))
        wall.now = 1_001.04
        #expect(texts(try bot.advance(to: wall.now)) == ["tick"])
        #expect(abs((bot.nextDue ?? 0) - 1_001.1) < 1e-6, "\(String(describing: bot.nextDue))")
        // Later in its period, it skips the slot so near: two firings in a moment read as one doubled.
        wall.now = 1_001.17
        #expect(texts(try bot.advance(to: wall.now)) == ["tick"])
        #expect(abs((bot.nextDue ?? 0) - 1_001.3) < 1e-6, "\(String(describing: bot.nextDue))")
        wall.now = 1_001.3
        // Each handler takes 0.16 s, over its 0.1 s interval: the loop comes
        // back to the timers 0.16 s after it last did, and finds one tick due.
        for _ in 1...8 {
            wall.now += 0.16
            #expect(texts(try bot.advance(to: wall.now)) == ["tick"])
        }
    }

    @Test func typingIsDebouncedStopsOnSendAndAfterFiveSeconds() async throws {
        let p = """
        bot.command("t", function(m) bot.typing(m.room, true); bot.typing(m.room, true) end)
        bot.command("s", function(m) bot.typing(m.room, true); bot.send(m.room, "done") end)
        """
        let script = [message("!t"), #"{"type":"advance","seconds":4}"#, message("!t"), #"{"type":"advance","seconds":4}"#,
                      #"{"type":"advance","seconds":2}"#, message("!s")].joined(separator: "\n")
        let a = try await run(plugins: [("p", p)], script: script)
        let shape = a.map { act -> String in
            switch act.kind {
            case .typing(_, let on): return on ? "on" : "off"
            case .send(_, let t): return t
            default: return "?"
            }
        }
        // on; refreshed at 4 s (no action); auto-off at 9 s; on then off before the send.
        #expect(shape == ["on", "off", "on", "off", "done"])
    }

    @Test func historyPagesNewestLastWithCursors() async throws {
        let p = """
        bot.command("page", function(m, args)
          local opts = { limit = tonumber(args[1]) }
          if args[2] then opts.before = args[2] end
          local page = bot.history(m.room, opts)
          local parts = {}
          for _, msg in ipairs(page.messages) do parts[#parts + 1] = msg.text end
          m:reply(table.concat(parts, ",") .. " | " .. tostring(page.before ~= nil))
          bot.state.set("before", page.before)
        end)
        bot.command("older", function(m)
          local page = bot.history(m.room, { before = bot.state.get("before"), limit = 2 })
          local parts = {}
          for _, msg in ipairs(page.messages) do parts[#parts + 1] = msg.text end
          m:reply(table.concat(parts, ",") .. " | " .. tostring(page.before))
          local ok, err = bot.history(m.room, { before = "garbage" })
          assert(ok == nil and err:find("invalid cursor"))
          -- Any number is a cursor, up to the largest (Int.max in base 36): past the end, an empty page.
          local far = assert(bot.history(m.room, { after = "m1y2p0ij32e8e7" }))
          assert(#far.messages == 0 and far.after == "m1y2p0ij32e8e7")
          assert(#assert(bot.history(m.room, { before = "m1y2p0ij32e8e7" })).messages > 0)
          -- Past it too, and with leading zeros: still "m and a base-36 number".
          assert(#assert(bot.history(m.room, { after = "m99999999999999999999" })).messages == 0)
          assert(#assert(bot.history(m.room, { before = "m01" })).messages == 1)
          for _, bad in ipairs({ "m", "m-1", "m+1", "M1", "m1 " }) do
            local none, why = bot.history(m.room, { before = bad })
            assert(none == nil and why:find("invalid cursor"), bad)
          end
        end)
        """
        let script = ["one", "two", "three", "!page 2", "!older"].map { message($0) }.joined(separator: "\n")
        let a = try await run(plugins: [("p", p)], script: script)
        // History holds what the bot saw and what it sent, the current message included.
        #expect(texts(a) == ["three,!page 2 | true", "one,two | nil"])
    }

    @Test func printGoesToTheLogAndOsTimeFollowsTheVirtualClock() async throws {
        let p = #"bot.command("t", function() print("at", os.time(), os.date("!%Y-%m-%d")) end)"#
        let a = try await run(plugins: [("p", p)], script: message("!t"))
        #expect(logs(a) == ["at\t1767225600\t2026-01-01"])
    }

    /// `os.date` and `os.time` keep the bot's `timezone`, as `bot.cron` does,
    /// whatever the process's TZ: winter and summer offsets, the zone in `%z`,
    /// a local table read back to the same instant, and "!" still UTC.
    @Test func osDateAndOsTimeFollowTheBotsTimeZone() async throws {
        var o = BotOptions(name: "parley")
        o.timeZone = TimeZone(identifier: "Europe/Berlin")!
        let p = #"""
        bot.command("t", function(m)
          local now = os.time()                                   -- 2026-01-01 00:00 UTC
          local nine = os.date("*t", now)
          nine.hour, nine.min, nine.sec = 9, 0, 0
          local summer = os.time{year = 2026, month = 7, day = 1, hour = 12}
          local odd = {year = 2026, month = 14, day = 0, hour = 25}
          local t = os.time(odd)
          m:reply(table.concat({
            os.date("%Y-%m-%d %H:%M %z", now), os.date("!%H:%M %z", now),
            tostring(os.date("*t", now).isdst), tostring(os.time(nine) - now),
            os.date("%H:%M %z", summer), tostring(os.date("*t", summer).isdst), tostring(summer),
            string.format("%d-%d-%d %d:00 wday %d", odd.year, odd.month, odd.day, odd.hour, odd.wday), os.date("%c", t),
            os.date("%%z")}, " | "))
        end)
        """#
        #expect(texts(try await run(plugins: [("p", p)], script: message("!t"), options: o)) == [
            "2026-01-01 01:00 +0100 | 00:00 +0000 | false | 28800 | 12:00 +0200 | true | 1782900000"
                + " | 2027-2-1 1:00 wday 2 | Mon Feb  1 01:00:00 2027 | %z"])
        // The hour the clocks repeat reads back to the same instant by isdst;
        // the hour they skip is read with the earlier offset (02:30 is 03:30 CEST).
        let dst = #"""
        bot.command("t", function(m)
          local out = {}
          for _, t in ipairs({1729989000, 1729992600}) do
            local d = os.date("*t", t)
            out[#out + 1] = os.date("%H:%M %z", t) .. " " .. tostring(d.isdst) .. " " .. tostring(os.time(d) == t)
          end
          local gap = os.time{year = 2024, month = 3, day = 31, hour = 2, min = 30}
          out[#out + 1] = tostring(gap) .. " " .. os.date("%H:%M %z", gap)
          m:reply(table.concat(out, " | "))
        end)
        """#
        #expect(texts(try await run(plugins: [("p", dst)], script: message("!t"), options: o)) == [
            "02:30 +0200 true true | 02:30 +0100 false true | 1711848600 03:30 +0200"])
        // UTC by default.
        #expect(texts(try await run(plugins: [("p", #"bot.command("t", function(m) m:reply(os.date("%H:%M %z")) end)"#)], script: message("!t")))
                == ["00:00 +0000"])
    }

    /// A moderation step the transport would refuse is refused at the call,
    /// where the plugin sees it: a reason of two lines, one with a protocol
    /// token, and the bot moderating itself.
    @Test func moderationTheTransportWouldRefuseIsRefusedAtTheCall() async throws {
        var o = BotOptions(name: "modbot")
        o.transport = .streamchat
        let p = #"""
        bot.command("t", function(m)
          -- (the reply cannot quote "::END" either, so its colons become dots)
          local function r(ok, err) return tostring(ok) .. " " .. (tostring(err):gsub(":", ".")) end
          m:reply(table.concat({
            r(bot.kick(m.room, "troll", "one\ntwo")), r(bot.mute(m.room, "troll", 5, "bad ::END here")),
            r(bot.kick(m.room, "modbot", "oops")), r(bot.kick(m.room, "troll", "fine"))}, " | "))
        end)
        """#
        let a = try await run(plugins: [("p", p)], script: message("!t"), options: o)
        #expect(texts(a) == ["nil the reason must be one line | nil the reason contains '..END', which streamchat forbids"
                             + " | nil the bot cannot kick itself | true nil"], "\(a)")
        #expect(a.filter { if case .moderate = $0.kind { true } else { false } }.count == 1, "only the good kick is made")
    }

    @Test func pluginConfigIsBotConfig() async throws {
        var o = BotOptions(name: "parley")
        o.pluginConfig["p"] = .record([("welcome", .string("Hi {user}")), ("list", .list([.int(1), .int(2)]))])
        let p = #"bot.command("c", function(m) m:reply(bot.config.welcome .. #bot.config.list) end)"#
        #expect(texts(try await run(plugins: [("p", p)], script: message("!c"), options: o)) == ["Hi {user}2"])
    }

    @Test func apiMisuseIsARuntimeErrorNamingThePluginLine() async throws {
        let p = "bot.on(\"nonsense\", function() end)"
        let a = try await run(plugins: [("p", p)], script: "")
        guard case .error(.runtime, let msg)? = a.first?.kind else { Issue.record("no error: \(a)"); return }
        #expect(msg.hasPrefix("p.lua:1: bot.on: unknown event kind 'nonsense'"))
    }

    @Test func forbiddenSubstringsAreRefusedBeforeSending() async throws {
        var o = BotOptions(name: "parley")
        o.transport.forbiddenSubstrings = ["::END", "MSG::"]
        let p = #"bot.command("x", function(m) local ok, err = bot.send(m.room, "a::END"); bot.log.info(err) end)"#
        let a = try await run(plugins: [("p", p)], script: message("!x"), options: o)
        #expect(texts(a).isEmpty)
        #expect(logs(a) == ["message contains '::END', which this transport forbids"])
        #expect(a.contains { $0.errorKind == .quota })
    }

    /// StreamChat cannot carry control characters: `bot.send` and a reason
    /// refuse them at the call (C0 but tab and line breaks, DEL, C1), where
    /// the plugin sees it, and a text of several lines still goes out.
    @Test func controlCharactersAreRefusedWhereTheTransportCannotCarryThem() async throws {
        var o = BotOptions(name: "parley")
        o.transport = .streamchat
        let p = #"""
        bot.command("x", function(m)
          for _, s in ipairs({ "bell\7", "del\127x", "esc\27[31m", "nul\0x", "c1\u{85}x", "vt\vx", "ff\fx" }) do
            local ok, err = bot.send(m.room, s)
            bot.log.info(tostring(ok) .. " " .. tostring(err))
          end
          bot.log.info(tostring(bot.send(m.room, "tab\there\r\nand a line")) .. " " .. tostring(bot.transport.controls))
          local ok, err = bot.kick(m.room, "troll", "go\7")
          bot.log.info(tostring(ok) .. " " .. err)
        end)
        """#
        let a = try await run(plugins: [("p", p)], script: message("!x"), options: o)
        let refused = ["0007", "007F", "001B", "0000", "0085", "000B", "000C"].map {
            "nil message contains the control character U+\($0), which this transport cannot carry"
        }
        #expect(logs(a) == refused + ["true false", "nil the reason contains the control character U+0007, which streamchat cannot carry"],
                "\(logs(a))")
        #expect(texts(a) == ["tab\there\r\nand a line"])
        // Where the transport carries them, they pass.
        let socket = try await run(plugins: [("p", #"bot.command("x", function(m) m:reply("bell\7") end)"#)], script: message("!x"))
        #expect(texts(socket) == ["bell\u{07}"])
    }

    /// Mistakes a plugin author makes, each refused where it is made rather than lost later.
    @Test func mistakesAreRefusedWhereTheyAreMade() async throws {
        let p = #"""
        bot.command("go", function(m)
          print(bot.send(m.room, "\n \t\n"))
          print(pcall(bot.cron, nil, function() end))
          print(pcall(bot.command, "zz", function() end, { hlep = "x" }))
          print(pcall(bot.history, m.room, { limit = 101 }))
          print(pcall(bot.history, m.room, "newest"))
        end)
        """#
        let actions = try await run(plugins: [("p", p)], script: message("!go"))
        // A blank send leaves a trace too, as every refused send does.
        #expect(actions.contains { $0.errorKind == .quota && errors([$0]) == ["empty message"] }, "\(actions)")
        let got = logs(actions)
        #expect(got == ["nil\tempty message",
                        "false\tp.lua:3: bot.cron: the schedule must be a string, got nil",
                        "false\tp.lua:4: bot.command: unknown option 'hlep' (the options are help, usage, roles)",
                        "false\tp.lua:5: bot.history: limit must be a whole number from 1 to 100",
                        "false\tp.lua:6: bot.history: the options must be a table"], "\(got)")
    }

    /// A malformed `bot.hear` pattern fails the plugin's load with its line,
    /// instead of failing on every message; what Lua accepts still loads.
    @Test func aMalformedHearPatternIsALoadError() async throws {
        let bad = "bot.command(\"ping\", function(m) m:reply(\"pong\") end)\nbot.hear(\"(%d+\", function() end)\n"
        let refused = try await run(plugins: [("bad", bad)], script: message("!ping"))
        #expect(refused.contains { $0.errorKind == .runtime && $0.json.contains("bad.lua:2: bot.hear: unfinished capture") }, "\(refused.map(\.json))")
        #expect(texts(refused).isEmpty)
        let fine = #"""
        for _, p in ipairs({ "[]]", "[^]]x", "()%1", "%f[%w]hi%f[^%w]", "%b()", "^!(%S+)%s*(.-)$", "a$b" }) do bot.hear(p, function() end) end
        bot.command("ping", function(m) m:reply("pong") end)
        """#
        #expect(texts(try await run(plugins: [("fine", fine)], script: message("!ping"))) == ["pong"])
    }

    /// A webhook's own status is kept; credentials never reach it, in the harness as behind `--http`.
    @Test func aWebhookKeepsItsStatusAndNeverSeesCredentials() async throws {
        let p = #"""
        bot.webhook("ok", function() return { status = 200 } end)
        bot.webhook("headers", function(req) return { body = bot.json.encode(req.headers) } end)
        bot.webhook("bad", function() return { status = 204, body = "x" } end)
        bot.webhook("typo", function()
          return { status = 200, header = {} }
        end)
        """#
        func hook(_ path: String, _ headers: String = "{}") -> String {
            #"{"type":"webhook","plugin":"p","path":"\#(path)","method":"POST","headers":\#(headers),"body":""}"#
        }
        let got = try await run(plugins: [("p", p)], script: [hook("ok"), hook("headers", #"{"Authorization":"Bearer s","Cookie":"c","X-Tag":"1"}"#), hook("bad"), hook("typo")].joined(separator: "\n"))
        let replies = got.compactMap { a -> String? in
            if case .webhookReply(_, let status, let body) = a.kind { return "\(status) \(body)" } else { return nil }
        }
        #expect(replies == ["200 ", #"200 {"x-tag":"1"}"#, "500 the handler failed\n", "500 the handler failed\n"], "\(replies)")
        // The handler has returned when its answer is read: the error names the line it was written at.
        #expect(got.contains { $0.errorKind == .runtime && $0.json.contains("p.lua:3: bot.webhook: the handler's answer: a 204 has no body") }, "\(got.map(\.json))")
        #expect(got.contains { $0.errorKind == .runtime && $0.json.contains("p.lua:4: bot.webhook: the handler's answer: unknown option 'header' (the options are status, body)") }, "\(got.map(\.json))")

        // A plugin disabled for its failures answers 503 in the harness, as behind `--http`.
        let flaky = "bot.command(\"fail\", function() error(\"nope\") end)\nbot.webhook(\"w\", function() return { body = \"ok\" } end)\n"
        let off = try await run(plugins: [("p", flaky)], script: (Array(repeating: message("!fail"), count: 5) + [hook("w")]).joined(separator: "\n"))
        let answers = off.compactMap { a -> String? in
            if case .webhookReply(_, let status, let body) = a.kind { return "\(status) \(body)" } else { return nil }
        }
        #expect(answers == ["503 plugin p is disabled (it failed too often); it serves again once reloaded\n"], "\(answers)")
    }

    /// In the harness, a moderation step in a room outside the config's is
    /// refused to its function, as every transport refuses it live.
    @Test func aStepOutsideTheConfigsRoomsIsRefusedInTheHarness() async throws {
        var o = BotOptions(name: "parley")
        o.rooms = ["lobby"]
        let p = #"""
        bot.command("k", function(msg)
          bot.kick(msg.args or "nowhere", "bob", "spam", function(ok, err) msg:reply(tostring(ok) .. " " .. tostring(err)) end)
          bot.kick("lobby", "bob", "spam", function(ok, err) msg:reply(tostring(ok) .. " " .. tostring(err)) end)
        end)
        """#
        let got = texts(try await run(plugins: [("p", p)], script: message("!k"), options: o))
        #expect(got == ["nil this bot is not in room 'nowhere' (rooms: lobby)", "true nil"], "\(got)")
    }

    /// `bot.fit` makes outside text something `bot.send` takes: frame tokens
    /// broken up, control characters made spaces, each line cut to the
    /// transport's characters and the whole to the plugin's bytes.
    @Test func fitCutsOutsideTextToWhatTheTransportCarries() async throws {
        var o = BotOptions(name: "parley")
        o.transport = .streamchat
        o.limits.messageBytes = 1000
        let p = #"""
        bot.command("f", function(m)
          local long = string.rep("é", 400)
          for _, t in ipairs({ "a MSG:: b ::END c MSG:::", "bell\7 and\27 esc", long, "short\n" .. long, string.rep("ab\n", 600) }) do
            local fitted = bot.fit(t)
            local ok, err = bot.send(m.room, fitted)
            bot.log.info(("%s %d %s"):format(tostring(ok), utf8.len(fitted), err or fitted:sub(1, 24)))
          end
        end)
        """#
        let a = try await run(plugins: [("p", p)], script: message("!f"), options: o)
        // "MSG:::" loses a colon twice: the first cut leaves "MSG::" again.
        #expect(logs(a) == ["true 20 a MSG: b ::EN c MSG:", "true 14 bell  and  esc", "true 300 éééééééééééé",
                            "true 306 short\nééééééééé", "true 998 ab\nab\nab\nab\nab\nab\nab\nab\n"], "\(logs(a))")
        // Where nothing needs it, the text comes back as it was.
        let plain = try await run(plugins: [("p", #"bot.command("f", function(m) m:reply(bot.fit("bell\7 ok")) end)"#)], script: message("!f"))
        #expect(texts(plain) == ["bell\u{07} ok"])
    }

    /// `bot.settings` fills in defaults and refuses, at load and at the
    /// plugin's line, a key it does not know or a value of another type.
    @Test func settingsFillInDefaultsAndRefuseTyposAndTypes() async throws {
        var o = BotOptions(name: "parley")
        let p = #"""
        local s = bot.settings({ room = "lobby", every = 60, loud = false })
        bot.command("s", function(m) m:reply(("%s %s %s"):format(s.room, s.every, s.loud)) end)
        """#
        o.pluginConfig["p"] = .record([("every", .int(5))])
        #expect(texts(try await run(plugins: [("p", p)], script: message("!s"), options: o)) == ["lobby 5 false"])
        o.pluginConfig["p"] = .record([("evry", .int(5))])
        let typo = try await run(plugins: [("p", p)], script: message("!s"), options: o)
        #expect(typo.compactMap(\.errorText).first?.hasPrefix(#"p.lua:1: unknown setting "evry"; the settings are every, loud, room"#) == true, "\(typo)")
        o.pluginConfig["p"] = .record([("loud", .string("yes"))])
        let typed = try await run(plugins: [("p", p)], script: message("!s"), options: o)
        #expect(typed.compactMap(\.errorText).first?.hasPrefix("p.lua:1: setting loud must be a boolean (its default is false), got a string") == true, "\(typed)")
        #expect(texts(typed).isEmpty, "the plugin did not load")
    }

    /// A budget error names the line where the budget ran out, even when a
    /// pcall caught it there and it was raised again further on.
    @Test func aBudgetErrorNamesWhereTheBudgetRanOutThroughAPcall() async throws {
        var o = BotOptions(name: "parley")
        o.limits.instructions = 200_000
        let p = #"""
        local function spin()
          local x = 0
          while true do x = x + 1 end
        end
        bot.command("a", function(msg)
          local ok = pcall(spin)
          msg:reply("after pcall")
        end)
        bot.command("b", function(msg) spin() end)
        """#
        let a = try await run(plugins: [("p", p)], script: [message("!a"), message("!b")].joined(separator: "\n"), options: o)
        let budget = a.compactMap { action -> String? in
            guard case .error(.budget, let text) = action.kind else { return nil }
            return String(text.split(separator: "\n").first ?? "")
        }
        #expect(budget == ["p.lua:3: instruction budget exceeded (200000 instructions per event)",
                           "p.lua:3: instruction budget exceeded (200000 instructions per event)"], "\(a)")
        #expect(texts(a).isEmpty, "the handler stopped at its budget")
    }

    /// A plugin that swallows memory errors in a `pcall` loop until its budget
    /// runs out gets a budget error worded as one, with its line: not the
    /// memory error its last try met.
    @Test func aBudgetSpentOnMemoryErrorsIsReportedAsTheBudget() async throws {
        var o = BotOptions(name: "parley")
        o.limits.instructions = 200_000
        o.limits.memoryBytes = 1 << 20
        let p = #"""
        local keep = {}
        bot.command("a", function(msg)
          pcall(function() while true do keep[#keep + 1] = {} end end)
          while true do pcall(string.rep, "x", 1 << 20) end
        end)
        """#
        let a = try await run(plugins: [("p", p)], script: message("!a"), options: o)
        let errors = a.compactMap { action -> String? in
            guard case .error(let kind, let text) = action.kind else { return nil }
            return "\(kind.rawValue): \(text.split(separator: "\n").first ?? "")"
        }
        #expect(errors.count == 1 && errors[0].hasPrefix("budget: p.lua:4: ") && errors[0].contains("budget exceeded"), "\(errors)")
    }

    /// A `bot.hear` pattern that spends the budget in its search, before any
    /// line of the plugin runs, is named by its handler's line.
    @Test func aBudgetSpentInAHearPatternNamesItsHandler() async throws {
        var o = BotOptions(name: "parley")
        o.limits.instructions = 200_000
        let p = #"""
        bot.on("load", function() end)
        bot.hear("(.-)(.-)(.-)(.-)(.-)y$", function(msg) msg:reply("matched") end)
        """#
        let a = try await run(plugins: [("p", p)], script: message(String(repeating: "x", count: 300)), options: o)
        let budget = a.compactMap { action -> String? in
            guard case .error(.budget, let text) = action.kind else { return nil }
            return String(text.split(separator: "\n").first ?? "")
        }
        #expect(budget == ["p.lua:2: bot.hear's pattern: instruction budget exceeded (200000 instructions per event)"], "\(a)")
    }

    /// An API call that fails names the plugin's line that made it. A plugin's
    /// `return f(...)` hands its frame to f and Lua keeps no line for it: the
    /// error says so, rather than naming a line that made no such call. The
    /// prelude's own calls between its helpers never read as the plugin's.
    @Test func anAPIErrorNamesThePluginsLineOrSaysATailCallTookIt() async throws {
        let p = #"""
        local function h()
          return bot.every("x", function() end)
        end
        bot.command("a", function(msg) local ok = msg:reply({}) end)
        bot.command("b", function(msg) return msg:reply({}) end)
        bot.command("c", function(msg) h() end)
        bot.command("d", function(msg) bot.every("x", function() end) end)
        bot.command("e", function(msg) bot.after(1, 5) end)
        bot.command("f", function(msg) bot.kick("lobby", 5) end)
        bot.command("g", function(msg) local ok, err = pcall(bot.every, "x", function() end); msg:reply(err) end)
        bot.command("n", function(msg) msg:reply(5) end)
        bot.command("y", function(msg) bot.typing(msg.room, "yes") end)
        bot.command("z", function(msg) bot.cancel(nil) end)
        bot.command("s", function(msg) bot.send(nil, "x") end)
        bot.command("t", function(msg) local ok, err = pcall(bot.send, msg.room, nil); msg:reply(err) end)
        bot.command("u", function(msg) msg:reply(tostring(bot.typing(msg.room, nil))) end)
        """#
        // A success between failures: five in a row would disable the plugin.
        let got = try await run(plugins: [("p", p)], script: ["a", "b", "n", "c", "d", "n", "e", "f", "g", "n", "y", "z", "n", "s", "t", "u"].map { message("!" + $0) }.joined(separator: "\n"))
        let said = got.compactMap { a -> String? in
            if case .error(_, let text) = a.kind { return String(text.split(separator: "\n").first ?? "") }
            return a.sentText
        }
        let tail = " (reached through a tail call, `return f(...)`, whose own line Lua does not keep: this is the line of the call that led to it)"
        #expect(said == [
            "p.lua:4: msg:reply: the text must be a string, got table",
            "msg:reply: the text must be a string, got table (in a tail call, `return f(...)`, whose line Lua does not keep)",
            "5",
            "p.lua:6: bot.every: the interval must be a number of seconds" + tail,
            "p.lua:7: bot.every: the interval must be a number of seconds",
            "5",
            "p.lua:8: bot.after: expected a function, got number",
            "p.lua:9: bot.kick: the room and the user must be non-empty strings",
            "p.lua:10: bot.every: the interval must be a number of seconds",
            "5",
            "p.lua:12: bot.typing: on must be true or false, got string",
            "p.lua:13: bot.cancel: expected a timer's id or name",
            "5",
            "p.lua:14: bot.send: the room must be a string, got nil",
            "p.lua:15: bot.send: the text must be a string, got nil",
            "true",
        ], "\(said)")
    }
}

struct MemoryHistoryStoreTests {
    @Test func boundedRoomKeepsTheNewestAndPagesAcrossTheTrim() throws {
        let store = MemoryHistoryStore(maxPerRoom: 10)
        for i in 0..<35 { _ = try store.append(room: "r", id: "\(i)", user: "u", text: "t\(i)", time: Double(i)) }
        var page = try store.page(room: "r", before: nil, after: nil, limit: 4)
        #expect(page.messages.map(\.text) == ["t31", "t32", "t33", "t34"])
        var all = page.messages.map(\.text)
        while let b = page.before {
            page = try store.page(room: "r", before: b, after: nil, limit: 4)
            all = page.messages.map(\.text) + all
        }
        #expect(all == (25..<35).map { "t\($0)" })
        let forward = try store.page(room: "r", before: nil, after: "m" + String(29, radix: 36), limit: 3)
        #expect(forward.messages.map(\.text) == ["t30", "t31", "t32"])
        #expect(try store.page(room: "nobody", before: nil, after: nil, limit: 5).messages.isEmpty)
        #expect(throws: HistoryError.self) { try store.page(room: "r", before: "zz", after: nil, limit: 5) }
    }

    /// Cursors and send ids are written by `String(prefix:number:radix:)`:
    /// the same text as the plain way, in every radix used.
    @Test func numberedNamesReadAsThePlainWay() {
        for radix in [10, 36, 2, 16] {
            for n in [0, 1, 9, 10, 35, 36, 37, 1_295, 1_296, 123_456_789, Int.max] {
                #expect(String(prefix: "m", number: n, radix: radix) == "m" + String(n, radix: radix))
                #expect(String(prefix: "bot-1234-", number: n, radix: radix) == "bot-1234-" + String(n, radix: radix))
            }
        }
        #expect(String(prefix: "", number: 42) == "42")
        #expect(String(prefix: "ünï-", number: 7) == "ünï-7")
    }
}
