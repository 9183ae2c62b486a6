import ParleyCore
import ParleyLua
import Testing
@testable import ParleyRuntime

/// `bot.json.encode` and `bot.json.decode`.
@Suite struct JSONAPITests {
    func texts(_ a: [BotAction]) -> [String] { a.compactMap(\.sentText) }

    func say(_ lua: String) async throws -> [String] {
        let p = #"bot.command("t", function(m) \#(lua) end)"#
        return texts(try await run(plugins: [("p", p)], script: message("!t")))
    }

    @Test func valuesBothWays() async throws {
        #expect(try await say(#"m:reply(bot.json.encode({1, 2, "three", true}))"#) == [#"[1,2,"three",true]"#])
        #expect(try await say(#"m:reply(bot.json.encode({name = "ann", n = 1.5}))"#) == [#"{"n":1.5,"name":"ann"}"#])
        #expect(try await say(#"m:reply(bot.json.encode({}))"#) == ["{}"])
        #expect(try await say(#"m:reply(bot.json.encode({[1] = "a", [3] = "c"}))"#).first?.contains(#""3":"c""#) == true)
        let decoded = """
        local v = bot.json.decode('{"a": [1, 2.5, null, "x"], "b": {"c": false}, "1": "one"}')
        m:reply(table.concat({ math.type(v.a[1]), tostring(v.a[2]), tostring(v.a[3]), v.a[4],
                               tostring(v.b.c), v["1"], tostring(v[1]) }, " "))
        """
        #expect(try await say(decoded) == ["integer 2.5 nil x false one nil"])
    }

    /// An object's members come out in one order, whatever order the table
    /// was built in and however Lua seeded its hashes: a golden file can hold them.
    @Test func anObjectsKeysComeOutInOneOrder() async throws {
        let keys = (1...12).map { "k\($0)" } + ["B", "a", "é", "Z"]
        let forward = keys.map { "t[\"\($0)\"] = 1" }.joined(separator: "; ")
        let backward = keys.reversed().map { "t[\"\($0)\"] = 1" }.joined(separator: "; ")
        let mixed = "t[10] = 1; t[2] = 1; t[-1] = 1; t[0.5] = 1"
        let a = try await say("local t = {}; \(forward); \(mixed); m:reply(bot.json.encode(t))")
        let b = try await say("local t = {}; \(mixed); \(backward); m:reply(bot.json.encode(t))")
        let sortedKeys = keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let expected = #"{"-1":1,"0.5":1,"2":1,"10":1,"# + sortedKeys.map { "\"\($0)\":1" }.joined(separator: ",") + "}"
        #expect(a == [expected] && b == [expected], "\(a) \(b)")
    }

    @Test func refusalsAreNilAndAReason() async throws {
        let cases = [
            (#"bot.json.decode("{oops")"#, "invalid JSON"),
            (#"bot.json.encode({f = 0/0})"#, "no JSON form"),
            (#"bot.json.encode({["\xff"] = 1})"#, "not UTF-8"),
            (#"bot.json.encode({[true] = 1})"#, "key must be a string or a number"),
            (#"bot.json.decode(string.rep("[", 31) .. string.rep("]", 31))"#, "deeper than 30"),
            (#"bot.json.decode(string.rep(" ", (1 << 20) + 1))"#, "more than 1048576 bytes"),
        ]
        for (call, says) in cases {
            let got = try await say("local v, err = \(call); m:reply(tostring(v) .. \" / \" .. tostring(err))")
            #expect(got.first?.hasPrefix("nil / bot.json.") == true && got.first?.contains(says) == true, "\(call): \(got)")
        }
        // Nesting as deep as decoding allows encodes back.
        let deep = #"local v = bot.json.decode(string.rep("[", 30) .. "1" .. string.rep("]", 30)); m:reply(tostring(bot.json.encode(v) ~= nil))"#
        #expect(try await say(deep) == ["true"])
    }

    @Test func aFunctionCannotBeEncoded() async throws {
        let got = try await say(#"local v, err = bot.json.encode({f = print}); m:reply(tostring(v) .. " / " .. tostring(err))"#)
        #expect(got.first?.contains("functions cannot be passed") == true, "\(got)")
    }

    @Test func roundTripsInSwift() {
        for text in [#"{"a":[1,2,{"b":null}],"c":"é\n"}"#, "[]", "[null,null]", "1e300", #""x""#, "-0", "9007199254740993"] {
            guard case .success(let v) = LuaJSON.decode(Array(text.utf8)), case .success(let back) = LuaJSON.encode(v),
                  case .success(let again) = LuaJSON.decode(Array(back.utf8)) else { Issue.record("\(text)"); continue }
            #expect(again == v, "\(text) → \(back)")
        }
    }
}
