import AsyncHTTPClient
import Foundation
import NIOCore
import ParleyCore
import ParleyLua
@testable import ParleyRuntime
import ParleyStreamChat
import ParleyTestSupport
import Testing

/// `bot.http` end to end: a bot on the embedded StreamChat server, a person
/// who asks it, and an aiohttp server (`http_target.py`) that answers, well
/// or with the hostile answers a plugin must survive.
@Suite(.serialized) struct OutboundHTTPTests {
    /// `!get PATH` fetches BASE..PATH, `!url URL` fetches URL; the answer or
    /// the reason is said in the room.
    static let fetcher = """
    local function report(msg)
      return function(res, why)
        if not res then return msg:reply("failed: " .. why) end
        msg:reply(("HTTP %d %s"):format(res.status, res.body:sub(1, 80)))
      end
    end
    bot.command("get", function(msg, args)
      local id, err = bot.http({ url = bot.config.base .. args[1], timeout = tonumber(args[2]) }, report(msg))
      if not id then msg:reply("refused: " .. err) end
    end)
    bot.command("url", function(msg, args)
      local id, err = bot.http({ url = args[1] }, report(msg))
      if not id then msg:reply("refused: " .. err) end
    end)
    bot.command("many", function(msg, args)
      local ok, refused = 0, nil
      for i = 1, tonumber(args[1]) do
        local id, err = bot.http({ url = bot.config.base .. "/drip" }, function() end)
        if id then ok = ok + 1 else refused = err end
      end
      msg:reply(ok .. " made; " .. tostring(refused))
    end)
    bot.command("fail", function(msg)
      bot.http({ url = bot.config.base .. "/echo?from=failed" }, function() end)
      error("the handler fails after asking")
    end)
    bot.command("spin", function(msg)
      local id, err = bot.http({ url = bot.config.base .. "/weather" }, function(res) while true do end end)
      if not id then msg:reply("refused: " .. err) end
    end)
    bot.command("post", function(msg)
      bot.http({ url = bot.config.base .. "/echo", method = "POST", body = bot.json.encode({ n = 1 }),
                 headers = { ["Content-Type"] = "application/json", ["X-Plugin"] = "fetcher" } }, function(res)
        local echo = bot.json.decode(res.body)
        msg:reply(echo.method .. " " .. echo.body .. " " .. echo.headers["X-Plugin"] .. " " .. echo.headers["Content-Type"])
      end)
    end)
    bot.command("auth", function(msg)
      local url = bot.config.base:gsub("//", "//bot:p%%40ss@", 1) .. "/echo"
      bot.http({ url = url }, function(res) msg:reply(bot.json.decode(res.body).headers.Authorization or "none") end)
    end)
    bot.command("ping", function(msg) msg:reply("pong") end)
    """

    struct Setup {
        let server: StreamChatServer
        let target: PythonPeer
        let runner: BotRunner
        let run: Task<BotOutcome, Never>
        let rec: Recorder
        let alice: Person

        /// Says `text` and waits for the bot's next line.
        func ask(_ text: String, timeout: Double = 20) async throws -> String? {
            let before = alice.texts(from: "parley").count
            try await alice.say(text)
            guard await eventually(timeout, { alice.texts(from: "parley").count > before }) else { return nil }
            return alice.texts(from: "parley")[before]
        }

        func requests(to path: String) async throws -> Int {
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(target.port)/count"), timeout: .seconds(5))
            let data = Data(String(buffer: try await response.body.collect(upTo: 1 << 20)).utf8)
            return (try JSONSerialization.jsonObject(with: data) as? [String: Int])?[path] ?? 0
        }

        func stop() async {
            await alice.leave()
            await runner.stop()
            _ = await run.value
            await target.stop()
            await server.shutdown()
        }
    }

    static func start(_ http: (Int) -> HTTPOptions) async throws -> Setup {
        let server = try await StreamChatServer.start(.init())
        let target = try await PythonPeer.start(script: "http_target.py")
        var spec = try botSpec(name: "parley", port: server.port, plugins: [("fetcher", fetcher)],
                               config: ["fetcher": .record([("base", .string("http://127.0.0.1:\(target.port)"))])])
        spec.options.http = http(target.port)
        // Short enough for `!spin`, long enough for a handler preempted on a loaded machine.
        spec.options.limits.timeMilliseconds = 1_000
        let rec = Recorder()
        let runner = BotRunner(spec: spec, observer: rec.observer)
        let run = Task { await runner.run() }
        guard await eventually(20, { await runner.state == .online }) else { throw PeerError("the bot did not come online") }
        // Online is the bot's name written; alice speaks once the server has read it.
        guard await eventually(20, { server.stats.registeredClients >= 1 }) else { throw PeerError("the server did not register the bot") }
        let alice = try await Person("alice", port: server.port)
        return Setup(server: server, target: target, runner: runner, run: run, rec: rec, alice: alice)
    }

    static func allowing(_ entries: [String], _ change: (inout HTTPOptions) -> Void = { _ in }) -> HTTPOptions {
        var o = HTTPOptions()
        o.allow = entries.compactMap(AllowedHost.init)
        change(&o)
        return o
    }

    @Test func fetchesAndPostsThroughTheAllowList() async throws {
        let s = try await Self.start { Self.allowing(["127.0.0.1:\($0)"]) }
        #expect(try await s.ask("!get /weather?city=Paris") == #"HTTP 200 {"city": "Paris", "sky": "sunny", "temp": 21}"#)
        #expect(try await s.ask("!post") == #"POST {"n":1} fetcher application/json"#)
        #expect(try await s.ask("!get /status/503") == "HTTP 503 ")
        // Redirects are followed, each hop checked, five at most.
        #expect(try await s.ask("!get /hops/5") == "HTTP 200 arrived")
        #expect(try await s.ask("!get /hops/6") == "failed: more than 5 redirects")
        await s.stop()
    }

    /// `user:password@` in a URL goes as Basic credentials, as curl sends it.
    @Test func aURLsUserAndPasswordGoAsBasicCredentials() async throws {
        let s = try await Self.start { Self.allowing(["127.0.0.1:\($0)"]) }
        #expect(try await s.ask("!auth") == "Basic " + Data("bot:p@ss".utf8).base64EncodedString())
        await s.stop()
    }

    @Test func internalAddressesAreRefusedUnlessNamed() async throws {
        let s = try await Self.start { Self.allowing(["127.0.0.1:\($0)", "localhost:\($0)"]) }
        let port = s.target.port
        // Not in the allow list at all: refused when asked, nothing sent.
        #expect(try await s.ask("!url http://127.0.0.1:1/") == "refused: bot.http: 127.0.0.1:1 is not in [bot.http] allow")
        #expect(try await s.ask("!url http://[::1]:\(port)/weather") == "refused: bot.http: [::1]:\(port) is not in [bot.http] allow")
        #expect(try await s.ask("!url http://169.254.169.254/latest/meta-data") == "refused: bot.http: 169.254.169.254:80 is not in [bot.http] allow")
        #expect(try await s.ask("!url file:///etc/passwd")?.hasPrefix("refused: bot.http: invalid URL") == true)
        // A name that resolves to loopback: the entry names the name, not the address.
        #expect(try await s.ask("!url http://localhost:\(port)/weather")?.contains("resolves to 127.0.0.1, an internal address") == true)
        // A redirect from an allowed server is checked again, into the cloud's
        // metadata address as into loopback: refused, and never requested.
        let meta = try await s.ask("!get /redirect?to=http://169.254.169.254/latest/meta-data")
        #expect(meta == "failed: 169.254.169.254:80 is not in [bot.http] allow")
        let intoLoopback = try await s.ask("!get /redirect?to=http://localhost:\(port)/weather")
        #expect(intoLoopback?.contains("an internal address") == true)
        #expect(try await s.requests(to: "/weather") == 0)
        #expect(s.rec.logs(containing: "http GET").count >= 2)
        await s.stop()
    }

    /// The connection goes to the checked address whatever the URL's
    /// spelling: a host in upper case is requested as checked (lower case),
    /// and even a spelling that differs is pinned. `pin.invalid` resolves
    /// nowhere, so only the pin can reach the server.
    @Test func theCheckedAddressIsPinnedWhateverTheHostsSpelling() async throws {
        let target = try await PythonPeer.start(script: "http_target.py")
        let url = try HTTPURL("HTTP://PIN.Invalid:\(target.port)/weather?city=Oslo")
        #expect(url.host == "pin.invalid" && url.canonical == "http://pin.invalid:\(target.port)/weather?city=Oslo")
        for spelled in [url.canonical, "http://PIN.INVALID:\(target.port)/weather?city=Oslo"] {
            let pinned = HTTPFetch.Target(url: spelled, host: "pin.invalid", address: IPAddress("127.0.0.1")!,
                                          origin: "http://pin.invalid:\(target.port)")
            let (status, _, body) = try await HTTPFetch.fetch(pinned, method: "GET", headers: [], body: nil,
                                                              deadline: NIODeadline.now() + .seconds(10), maxBytes: 10_000,
                                                              timeout: HTTPFailure("timed out after 10 s"))
            #expect(status == 200 && String(decoding: body, as: UTF8.self).contains("Oslo"), "\(spelled)")
        }
        await target.stop()
    }

    /// A plugin's credentials go to the origin it gave them to: a redirect to
    /// another origin (here another port) drops Authorization, Cookie and
    /// Proxy-Authorization; one to the same origin keeps them.
    @Test func aRedirectToAnotherOriginDropsTheCredentials() async throws {
        let first = try await PythonPeer.start(script: "http_target.py")
        let second = try await PythonPeer.start(script: "http_target.py")
        var options = HTTPOptions()
        options.allow = ["127.0.0.1:\(first.port)", "127.0.0.1:\(second.port)"].compactMap(AllowedHost.init)
        func echoed(_ url: String) async -> [String: String] {
            let call = HTTPCall(id: 1, method: "GET", url: url,
                                headers: [HTTPHeader("Authorization", "Bearer key"), HTTPHeader("Cookie", "sid=1"),
                                          HTTPHeader("Proxy-Authorization", "Basic eA=="), HTTPHeader("X-Plugin", "p")],
                                body: nil, timeout: 10)
            guard case .response(_, _, let body) = await HTTPFetch.run(call, options: options),
                  let echo = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else { return [:] }
            return echo["headers"] as? [String: String] ?? [:]
        }
        let same = await echoed("http://127.0.0.1:\(first.port)/redirect?to=/echo")
        #expect(same["Authorization"] == "Bearer key" && same["Cookie"] == "sid=1" && same["X-Plugin"] == "p", "\(same)")
        let other = await echoed("http://127.0.0.1:\(first.port)/redirect?to=http://127.0.0.1:\(second.port)/echo")
        #expect(other["X-Plugin"] == "p", "the request arrived: \(other)")
        #expect(other["Authorization"] == nil && other["Cookie"] == nil && other["Proxy-Authorization"] == nil, "\(other)")
        await first.stop()
        await second.stop()
    }

    /// A refused connection and TLS to a plain server fail at once with
    /// their cause: not retried until the timeout and called a timeout.
    @Test func aConnectionThatFailsIsSaidAtOnceByItsCause() async throws {
        let plain = try await PythonPeer.start(script: "http_target.py")
        let closed = try freePort()
        var options = HTTPOptions()
        options.allow = ["127.0.0.1:\(closed)", "127.0.0.1:\(plain.port)"].compactMap(AllowedHost.init)
        for (url, says) in [("http://127.0.0.1:\(closed)/", "Connection refused"),
                            ("https://127.0.0.1:\(plain.port)/echo", "the server does not speak TLS")] {
            let start = ContinuousClock.now
            let outcome = await HTTPFetch.run(HTTPCall(id: 1, method: "GET", url: url, headers: [], body: nil, timeout: 20), options: options)
            guard case .failed(let why) = outcome else {
                Issue.record("\(url): \(outcome)")
                continue
            }
            #expect(why.contains(says) && !why.contains("timed out"), "\(url): \(why)")
            #expect(ContinuousClock.now - start < .seconds(10), "\(url) took \(ContinuousClock.now - start)")
        }
        await plain.stop()
    }

    /// A server that takes the connection and never answers: every request
    /// of a crowd fails with the same words, whichever deadline (the
    /// request's, or the HTTP client's for the hop) runs out first.
    @Test func aServerThatNeverAnswersTimesOutInTheSameWords() async throws {
        let silent = try holdPort(backlog: 64)
        defer { close(silent.fd) }
        let options = Self.allowing(["127.0.0.1:\(silent.port)"])
        let outcomes = await withTaskGroup(of: HTTPOutcome.self) { group in
            for i in 0..<8 {
                group.addTask {
                    await HTTPFetch.run(HTTPCall(id: Int64(i), method: "GET", url: "http://127.0.0.1:\(silent.port)/hang",
                                                 headers: [], body: nil, timeout: 1), options: options)
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        for outcome in outcomes {
            guard case .failed(let why) = outcome else { Issue.record("\(outcome)"); continue }
            #expect(why == "timed out after 1 s", "\(why)")
        }
    }

    @Test func slowAndEndlessAnswersAreCut() async throws {
        let s = try await Self.start { Self.allowing(["127.0.0.1:\($0)"]) { $0.timeout = 2; $0.maxBytes = 200_000 } }
        let start = Date()
        #expect(try await s.ask("!get /drip") == "failed: timed out after 2 s")
        #expect(Date().timeIntervalSince(start) < 6)
        #expect(try await s.ask("!get /drip 0.5") == "failed: timed out after 0.5 s")
        #expect(try await s.ask("!get /endless") == "failed: response larger than 200000 bytes ([bot.http] max_bytes)")
        #expect(try await s.ask("!ping") == "pong")
        await s.stop()
    }

    @Test func quotasFailedHandlersAndLoopingCallbacks() async throws {
        // The drips time out after 5 s: both asks below must come while they are in flight.
        let s = try await Self.start { Self.allowing(["127.0.0.1:\($0)"]) { $0.inFlight = 7; $0.timeout = 5 } }
        // Five a handler; the sixth and seventh are refused and reported once.
        #expect(try await s.ask("!many 7") == "5 made; bot.http: more than 5 requests in one event ([bot.http] requests_per_event)")
        #expect(try await s.ask("!many 5") == "2 made; bot.http: 7 requests already in flight ([bot.http] in_flight)")
        #expect(await eventually { s.rec.logs(containing: "requests_per_event").count == 1 })
        // A handler that fails makes no request.
        _ = try? await s.ask("!fail", timeout: 1)
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await s.requests(to: "/echo") == 0)
        // A callback that never returns is stopped by its budget; the bot answers on
        // (once the seven drips have timed out, so the request is not refused).
        #expect(await eventually { s.rec.logs(containing: "/drip failed: timed out after 5 s").count == 7 }, "\(s.rec.logs.map(\.text))")
        _ = try? await s.ask("!spin", timeout: 2)
        #expect(await eventually { !s.rec.logs(containing: "budget").isEmpty })
        #expect(try await s.ask("!ping") == "pong")
        await s.stop()
    }

    /// The shipped `Plugins/weather.lua` against the aiohttp service.
    @Test func theWeatherExampleAsksARealServer() async throws {
        let server = try await StreamChatServer.start(.init())
        let target = try await PythonPeer.start(script: "http_target.py")
        var spec = try botSpec(name: "parley", port: server.port, plugins: [], shippedPlugins: ["weather"])
        spec.options.pluginConfig["weather"] = .record([("url", .string("http://127.0.0.1:\(target.port)/weather?city={city}"))])
        spec.options.http = Self.allowing(["127.0.0.1:\(target.port)"])
        let runner = BotRunner(spec: spec, observer: Recorder().observer)
        let run = Task { await runner.run() }
        #expect(await eventually { await runner.state == .online })
        let alice = try await Person("alice", port: server.port)
        try await alice.say("!weather New York")
        #expect(await eventually { alice.texts(from: "parley") == ["New York: sunny, 21°C"] })
        await alice.leave()
        await runner.stop()
        _ = await run.value
        await target.stop()
        await server.shutdown()
    }
}
