import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ParleyCore
import ParleyRuntime
import ParleyStreamChat
import ParleyTestSupport
import Synchronization
import Testing

/// `bot.webhook` end to end: the `--http` server (Hummingbird) in front of a
/// bot on the embedded StreamChat server, driven by a real HTTP client.
@Suite(.serialized) struct WebhookTests {
    static let secret = "a-webhook-secret-of-some-length"

    /// `push` says the body in the room and answers 202; `headers` answers
    /// with the header names it was given; `broken` fails.
    static let hooks = """
    bot.webhook("push", function(req)
      bot.send("lobby", "pushed: " .. req.body .. " (" .. req.method .. " ?" .. req.query .. ")")
      return { status = 202, body = "queued" }
    end)
    bot.webhook("/headers/", function(req)
      local names = {}
      for k in pairs(req.headers) do names[#names + 1] = k end
      table.sort(names)
      return { body = table.concat(names, ",") }
    end)
    bot.webhook("broken", function(req) error("no") end)
    bot.webhook("quiet", function(req) end)
    bot.command("fail", function() error("a chat event that fails") end)
    """

    struct Setup: Sendable {
        let server: StreamChatServer
        let runner: BotRunner?
        let run: Task<BotOutcome, Never>?
        let http: Task<Void, any Error>?
        let port: Int
        let alice: Person

        func post(_ path: String, _ body: String, signed: Bool = true, signature: String? = nil,
                  headers: [(String, String)] = []) async throws -> (status: Int, body: String) {
            let r = try await exchange(path, body, signed: signed, signature: signature, headers: headers)
            return (r.status, r.body)
        }

        /// A POST, with the answer's headers.
        func exchange(_ path: String, _ body: String, signed: Bool = true, signature: String? = nil,
                      headers: [(String, String)] = []) async throws -> (status: Int, body: String, headers: HTTPHeaders) {
            var req = HTTPClientRequest(url: "http://127.0.0.1:\(port)/hooks/\(path)")
            req.method = .POST
            req.body = .bytes(ByteBuffer(string: body))
            if signed {
                let mac = HMAC<SHA256>.authenticationCode(for: Array(body.utf8), using: SymmetricKey(data: Array(WebhookTests.secret.utf8)))
                req.headers.add(name: "X-Hub-Signature-256", value: signature ?? "sha256=" + mac.map { String(format: "%02x", $0) }.joined())
            }
            for (n, v) in headers { req.headers.add(name: n, value: v) }
            let res = try await HTTPClient.shared.execute(req, timeout: .seconds(10))
            return (Int(res.status.code), String(buffer: try await res.body.collect(upTo: 1 << 20)), res.headers)
        }

        func stop() async {
            http?.cancel()
            _ = await http?.result
            await alice.leave()
            await runner?.stop()
            _ = await run?.value
            await server.shutdown()
        }
    }

    static func start(github: Bool = false, limits: HTTPServer.Limits = .init(), logger: Logger? = nil) async throws -> Setup {
        let server = try await StreamChatServer.start(.init())
        var spec = try botSpec(name: "parley", port: server.port, plugins: github ? [] : [("hooks", hooks)],
                               journal: try temporaryDirectory().path, shippedPlugins: github ? ["github"] : [])
        spec.webhookSecrets = [github ? "github" : "hooks": Self.secret]
        if github { spec.options.pluginConfig["github"] = .record([("room", .string("lobby"))]) }
        let runner = BotRunner(spec: spec, observer: Recorder().observer)
        let run = Task { await runner.run() }
        guard await eventually(20, { await runner.state == .online }) else { throw PeerError("the bot did not come online") }
        let bound = Atomic(0)
        var quiet = Logger(label: "test")
        quiet.logLevel = .critical
        let app = HTTPServer.application(host: "127.0.0.1", port: 0, runners: [runner], logger: logger ?? quiet, limits: limits) { bound.store($0, ordering: .relaxed) }
        let http = Task { try await app.run() }
        guard await eventually(10, { bound.load(ordering: .relaxed) != 0 }) else { throw PeerError("the http server did not start") }
        let alice = try await Person("alice", port: server.port)
        return Setup(server: server, runner: runner, run: run, http: http, port: bound.load(ordering: .relaxed), alice: alice)
    }

    @Test func aSignedRequestBecomesAnEventAndItsSends() async throws {
        let s = try await Self.start()
        let r = try await s.post("parley/hooks/push?ref=main", #"{"ref":"main"}"#)
        #expect(r.status == 202 && r.body == "queued")
        #expect(await eventually { s.alice.texts(from: "parley") == [#"pushed: {"ref":"main"} (POST ?ref=main)"#] })
        // Nothing returned: 204. A failing handler: 500, and its sends are not made.
        #expect(try await s.post("parley/hooks/quiet", "").status == 204)
        #expect(try await s.post("parley/hooks/broken", "x").status == 500)
        // Credentials of the caller never reach the plugin.
        let h = try await s.post("parley/hooks/headers", "", headers: [("Authorization", "Bearer t0ken"), ("Cookie", "s=1"), ("Proxy-Authorization", "Basic eA=="), ("X-GitHub-Event", "push")])
        #expect(h.status == 200)
        #expect(h.body.contains("x-github-event") && !h.body.contains("authorization") && !h.body.contains("cookie") && !h.body.contains("proxy-authorization"))
        await s.stop()
    }

    /// The real binary: `[bot.webhooks]` with `secret_env`, `--http`, and
    /// `/metrics` beside the hooks.
    @Test func parleyRunServesHooksAndMetrics() async throws {
        let server = try await StreamChatServer.start(.init())
        defer { Task { await server.shutdown() } }
        let dir = try temporaryDirectory()
        try Self.hooks.write(to: dir.appendingPathComponent("hooks.lua"), atomically: true, encoding: .utf8)
        try """
        [[bot]]
        name = "parley"
        server = "127.0.0.1:\(server.port)"
        plugins = ["hooks.lua"]
        [bot.webhooks.hooks]
        secret_env = "HOOK_SECRET"
        """.write(to: dir.appendingPathComponent("bot.toml"), atomically: true, encoding: .utf8)
        let port = try freePort()
        let alice = try await Person("alice", port: server.port)
        let bot = try launchParley(["run", dir.appendingPathComponent("bot.toml").path, "--http", "127.0.0.1:\(port)"],
                                   environment: ["HOOK_SECRET": Self.secret])
        #expect(await eventually { alice.joins(of: "parley") == 1 })
        let s = Setup(server: server, runner: nil, run: nil, http: nil, port: port, alice: alice)
        #expect(try await s.post("parley/hooks/push", "from the binary").status == 202)
        #expect(await eventually { alice.texts(from: "parley").first?.hasPrefix("pushed: from the binary") == true })
        #expect(try await s.post("parley/hooks/push", "unsigned", signed: false).status == 401)
        func metrics() async throws -> (status: UInt, text: String) {
            let res = try await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/metrics"), timeout: .seconds(5))
            return (res.status.code, String(buffer: try await res.body.collect(upTo: 1 << 20)))
        }
        // The loops' lag probe is due a second after the server starts.
        #expect(await eventually(10) { (try? await metrics().text.contains("parley_loop_lag_seconds_count{loop=\"0\"}")) == true })
        let (status, text) = try await metrics()
        #expect(status == 200)
        #expect(text.contains("parley_events_total{kind=\"join\"}"))
        // Counters are there from the start, at 0, not only after their first event.
        for series in ["parley_reconnects_total 0", "parley_log_lines_dropped_total 0", "parley_plugin_errors_total{kind=\"runtime\"} 0",
                       "parley_bots{state=\"online\"} 1.0", "parley_bots{state=\"backoff\"} 0.0", "parley_loop_bots{loop=\"0\"} 1.0"] {
            #expect(text.contains(series), "\(series) in \(text)")
        }
        kill(bot.processIdentifier, SIGTERM)
        #expect(await finish(bot).status == 0)
        await alice.leave()
    }

    @Test func hostileRequestsAreRefused() async throws {
        let s = try await Self.start()
        #expect(try await s.post("parley/hooks/push", "x", signed: false).status == 401)
        #expect(try await s.post("parley/hooks/push", "x", signature: "sha256=" + String(repeating: "0", count: 64)).status == 401)
        #expect(try await s.post("parley/hooks/push", "x", signature: "sha1=abc").status == 401)
        #expect(try await s.post("parley/hooks/nowhere", "x").status == 404)
        #expect(try await s.post("nobody/hooks/push", "x").status == 404)
        #expect(try await s.post("parley/other/push", "x").status == 404)
        #expect(try await s.post("parley/hooks/push", String(repeating: "a", count: HTTPServer.maxBodyBytes + 1)).status == 413)
        // HEAD included: a link checker's HEAD must not run the handler and its sends.
        for method in [HTTPMethod.DELETE, .HEAD] {
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(s.port)/hooks/parley/hooks/push")
            request.method = method
            let refused = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
            #expect(refused.status.code == 405 && refused.headers["Allow"] == ["GET, POST, PUT"], "\(method)")
        }
        // A flood of 30 at once: a burst of ten passes, and ten more a second
        // while it lasts; the rest are told to slow down.
        let started = ContinuousClock.now
        let answers = try await withThrowingTaskGroup(of: (Int, [String]).self) { group in
            for i in 0..<30 { group.addTask { let r = try await s.exchange("parley/hooks/quiet", "\(i)"); return (r.status, r.headers["Retry-After"]) } }
            return try await group.reduce(into: [(Int, [String])]()) { $0.append($1) }
        }
        let statuses = answers.map(\.0)
        #expect(answers.allSatisfy { $0.0 != 429 || $0.1 == ["1"] }, "a 429 says when to try again: \(answers)")
        let seconds = Double((ContinuousClock.now - started).components.seconds) + 1
        let passed = statuses.filter { $0 == 204 }.count
        #expect(passed >= 10 && passed <= 10 + Int(seconds * 10), "\(statuses) in \(seconds) s")
        #expect(statuses.filter { $0 == 429 }.count == 30 - passed, "\(statuses)")
        // Nothing of that reached the room; the bot still answers.
        #expect(s.alice.texts(from: "parley").isEmpty)
        await s.stop()
    }

    /// A webhook's failures are its caller's doing: each is a 500, and they
    /// never switch the plugin off. A plugin disabled for its own failures
    /// (five chat events in a row) answers its paths 503 and says so, not
    /// "no such webhook".
    @Test func aDisabledPluginsWebhooksSayItIsDisabled() async throws {
        let s = try await Self.start()
        for _ in 0..<7 { #expect(try await s.post("parley/hooks/broken", "x").status == 500) }
        #expect(try await s.post("parley/hooks/push", "still here").status == 202)
        for _ in 0..<5 { try await s.alice.say("!fail") }
        // Polled with the failing hook: a webhook that succeeded before the
        // five failures were handled would break their run of five.
        #expect(await eventually { (try? await s.post("parley/hooks/broken", "x").status) == 503 })
        let after = try await s.post("parley/hooks/push", "x")
        #expect(after.status == 503 && after.body.contains("plugin hooks is disabled"), "\(after)")
        #expect(try await s.post("parley/hooks/nowhere", "x").status == 404)
        await s.stop()
    }

    /// The shipped `Plugins/github.lua`, sent a push as GitHub sends it.
    @Test func theGitHubExampleAnnouncesAPush() async throws {
        let s = try await Self.start(github: true)
        let push = #"{"ref":"refs/heads/main","repository":{"full_name":"parley/parley"},"pusher":{"name":"ann"},"commits":[{"message":"Fix it"}]}"#
        #expect(try await s.post("parley/github/push", push, headers: [("X-GitHub-Event", "push")]).status == 204)
        #expect(await eventually { s.alice.texts(from: "parley") == ["ann pushed 1 commit to main of parley/parley: Fix it"] })
        #expect(try await s.post("parley/github/push", push, signed: false, headers: [("X-GitHub-Event", "push")]).status == 401)
        await s.stop()
    }
}
