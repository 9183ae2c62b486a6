import Foundation
import ParleyCore
@testable import ParleyREST
@testable import ParleySocketIO
import ParleyWire
import Testing
@testable import ParleyRuntime
import ParleyTestSupport

/// Bots on REST channel chat, end to end over loopback against the python
/// fixture (`rest_server.py`): chats sent with HTTP, received over a
/// Socket.IO namespace per channel, caught up after every (re)connect.
///
/// Serialized: each test starts a python server, and ten at once load a
/// small machine enough to upset the timing tests of other suites (the
/// Socket.IO heartbeat) that run alongside.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct RESTScenarioTests {
    /// Logs every message the plugins get, in order, with its replayed flag.
    static let tracer = """
    bot.on("message", function(msg)
      bot.log.info("got " .. msg.user .. ": " .. msg.text .. (msg.replayed and " [replayed]" or ""))
    end)
    """

    struct Bot {
        let runner: BotRunner
        let run: Task<BotOutcome, Never>
    }

    func startBot(_ server: RESTServer, shipped: [String] = ["echo"], plugins: [(String, String)] = [("tracer", tracer)],
                  journal: String? = nil, rooms: [String] = ["acme/general"], recorder: Recorder, port: Int? = nil,
                  configure: (inout RESTOptions) -> Void = { _ in }) throws -> Bot {
        let transport = server.transport(rooms: rooms, port: port, configure: configure, log: { line in
            recorder.observer.log(LogRecord(time: 0, bot: "parley", plugin: nil, level: .info, text: line))
        })
        let spec = try botSpec(name: "parley", port: 0, plugins: plugins, journal: journal, shippedPlugins: shipped,
                               transport: transport)
        let runner = BotRunner(spec: spec, observer: recorder.observer)
        return Bot(runner: runner, run: Task { await runner.run() })
    }

    /// What the tracer logged, in order.
    func got(_ rec: Recorder) -> [String] {
        rec.logs.compactMap { $0.text.hasPrefix("got ") ? String($0.text.dropFirst(4)) : nil }
    }

    func stop(_ bot: Bot) async {
        await bot.runner.stop()
        _ = await bot.run.value
    }

    @Test func greeterAndModeratorWorkOnAChannel() async throws {
        let server = try await RESTServer.start()
        let rec = Recorder()
        let bot = try startBot(server, shipped: ["greeter", "moderator", "echo"], recorder: rec)
        #expect(await eventually { await bot.runner.state == .online })

        // A person's first message in a channel is their arrival: the greeter welcomes them once.
        try await server.post("alice", "hello everyone")
        #expect(await eventually { (try? await server.texts(from: "parley"))?.contains("Welcome, alice!") == true })
        try await server.post("alice", "!ping")
        #expect(await eventually { (try? await server.texts(from: "parley"))?.contains("pong") == true })

        // The moderator warns, escalates, and says so in the channel.
        try await server.post("bob", "oh heck")
        #expect(await eventually { rec.logs(containing: "audit user=bob strike=1").count == 1 }, "\(rec.logs.map(\.text))")
        try await server.post("bob", "darn it")
        #expect(await eventually { rec.logs(containing: "audit user=bob strike=2").count == 1 })
        #expect(await eventually { (try? await server.texts(from: "parley"))?.filter { $0.contains("bob") }.count ?? 0 >= 3 })

        // The bot's own chats come back over the socket and never reach plugins.
        try await Task.sleep(for: .milliseconds(300))
        #expect(!got(rec).contains { $0.hasPrefix("parley:") }, "\(got(rec))")
        let mine = try await server.texts(from: "parley")
        #expect(mine.filter { $0 == "Welcome, alice!" }.count == 1)
        #expect(!mine.contains("Welcome, parley!"))
        #expect(got(rec) == ["alice: hello everyone", "alice: !ping", "bob: oh heck", "bob: darn it"])
        await stop(bot)
        await server.stop()
    }

    /// Chats posted while the socket is down arrive once each, in order,
    /// flagged replayed, before anything live.
    @Test func messagesMissedWhileDisconnectedArriveOnceInOrder() async throws {
        let server = try await RESTServer.start()
        let rec = Recorder()
        let bot = try startBot(server, journal: try temporaryDirectory().path, recorder: rec)
        #expect(await eventually { await bot.runner.state == .online })
        try await server.post("alice", "live 1")
        #expect(await eventually { got(rec) == ["alice: live 1"] })

        try await server.control("sockets", ["refuse": true, "drop": true])
        #expect(await eventually { await bot.runner.state != .online })
        for i in 1...5 { try await server.post(i % 2 == 0 ? "bob" : "alice", "away \(i)") }
        try await server.control("sockets", ["refuse": false])
        #expect(await eventually { let s = await bot.runner.stats; let st = await bot.runner.state; return s.reconnects >= 1 && st == .online })
        try await server.post("alice", "live 2")
        #expect(await eventually { got(rec).count >= 7 }, "\(got(rec))")
        try await Task.sleep(for: .milliseconds(300))
        #expect(got(rec) == ["alice: live 1", "alice: away 1 [replayed]", "bob: away 2 [replayed]", "alice: away 3 [replayed]",
                             "bob: away 4 [replayed]", "alice: away 5 [replayed]", "alice: live 2"])
        // Catch-up asked from just before the last message the bot had handled ("live 1").
        let live1 = try await server.get("chats?room=acme%2Fgeneral").array!.first { $0["content"]?.string == "live 1" }!
        let asked = RESTDate.format(RESTDate.parse(live1["createdAt"]!.string!)! - 0.001)
        #expect(try await server.stats()["cursor_gets"]?.array?.contains(.string(asked)) == true)
        await stop(bot)
        await server.stop()
    }

    /// The cursor is the journal's: a bot started again on the same journal
    /// gets what was said while it was stopped, once, in order, replayed.
    @Test func messagesPostedWhileStoppedArriveAfterARestart() async throws {
        let server = try await RESTServer.start()
        let journal = try temporaryDirectory().path
        let rec1 = Recorder()
        let first = try startBot(server, journal: journal, recorder: rec1)
        #expect(await eventually { await first.runner.state == .online })
        try await server.post("alice", "before")
        try await server.post("alice", "!ping")
        #expect(await eventually { (try? await server.texts(from: "parley")) == ["pong"] })
        #expect(await eventually { got(rec1) == ["alice: before", "alice: !ping"] })
        await stop(first)

        for i in 1...4 { try await server.post("carol", "while stopped \(i)") }
        try await server.post("carol", "!echo catch me")

        let rec2 = Recorder()
        let second = try startBot(server, journal: journal, recorder: rec2)
        #expect(await eventually { got(rec2).count >= 5 }, "\(got(rec2))")
        try await server.post("carol", "live again")
        #expect(await eventually { got(rec2).count >= 6 })
        try await Task.sleep(for: .milliseconds(300))
        #expect(got(rec2) == (1...4).map { "carol: while stopped \($0) [replayed]" } + ["carol: !echo catch me [replayed]", "carol: live again"])
        // Plugins answer replayed commands as any other; nothing was answered twice.
        #expect(await eventually { (try? await server.texts(from: "parley")) == ["pong", "catch me"] })
        await stop(second)
        await server.stop()
    }

    /// The first join backfills the journal (history, not plugins).
    @Test func theFirstJoinBackfillsHistoryWithoutDeliveringIt() async throws {
        let server = try await RESTServer.start()
        try await server.control("seed", ["room": "acme/general", "count": 150, "user": "archivist"])
        let counter = """
        bot.command("count", function(msg)
          local n, page = 0, bot.history(msg.room, {limit = 100})
          while page do
            for _, m in ipairs(page.messages) do
              if m.user == "archivist" then n = n + 1 end
            end
            page = page.before and bot.history(msg.room, {limit = 100, before = page.before})
          end
          msg:reply("archived " .. n)
        end)
        """
        let rec = Recorder()
        let bot = try startBot(server, shipped: [], plugins: [("tracer", Self.tracer), ("counter", counter)],
                               journal: try temporaryDirectory().path, recorder: rec)
        #expect(await eventually { await bot.runner.state == .online })
        try await server.post("alice", "!count")
        #expect(await eventually { (try? await server.texts(from: "parley")) == ["archived 100"] })
        #expect(got(rec) == ["alice: !count"])
        await stop(bot)
        await server.stop()
    }

    /// An access token that expires mid-run is refreshed once and the send
    /// retried; a refresh the server refuses ends the bot as kicked.
    @Test func anExpiredTokenIsRefreshedAndARevokedOneIsAKick() async throws {
        let server = try await RESTServer.start()
        let rec = Recorder()
        let bot = try startBot(server, recorder: rec)
        #expect(await eventually { await bot.runner.state == .online })
        try await server.control("expire_tokens", [:])
        try await server.post("alice", "!echo after expiry")
        #expect(await eventually { (try? await server.texts(from: "parley")) == ["after expiry"] })
        let stats = try await server.stats()
        #expect(stats["refreshes"]?.int == 1 && stats["logins"]?.int == 1, "\(stats)")
        #expect(rec.logs(containing: "access token refreshed").count == 1)

        try await server.control("expire_tokens", ["refresh": true])
        try await server.post("alice", "!echo never")
        #expect(await eventually { await bot.runner.state == .kicked })
        guard case .kicked(let why) = await bot.run.value else {
            Issue.record("the bot should end kicked")
            return
        }
        #expect(why.contains("refresh"), "\(why)")
        #expect(try await server.texts(from: "parley") == ["after expiry"])
        // Neither token nor password is ever logged.
        let all = rec.logs.map(\.text).joined(separator: "\n")
        #expect(!all.contains("access-") && !all.contains("refresh-") && !all.contains(RESTServer.botPassword))
        await server.stop()
    }

    /// The server pinging every 2 s, answered within 2 s (a shorter deadline
    /// lets a loaded machine's late pong end the healthy link before the
    /// test silences it), behind a proxy that can silence the links open
    /// now, and the bot online through it with a 30 s `request_timeout`.
    func startBehindASilenceableProxy(recorder: Recorder) async throws -> (RESTServer, LinkProxy, Bot) {
        let server = try await RESTServer.start(arguments: ["--ping-interval", "2.0", "--ping-timeout", "2.0"])
        let proxy = try await LinkProxy.start(upstreamPort: server.port)
        let bot = try startBot(server, plugins: [], recorder: recorder, port: proxy.port) { $0.requestTimeout = 30 }
        #expect(await eventually { await bot.runner.state == .online })
        return (server, proxy, bot)
    }

    /// A link that goes silent (a dead NAT entry: no FIN, no RST) takes the
    /// pooled HTTP connections on the same path with it. The socket's
    /// heartbeat notices; the reconnect's requests must then go out on fresh
    /// connections instead of waiting `request_timeout` on a dead one.
    @Test func aSilentLinkDoesNotStrandTheReconnectOnDeadPooledConnections() async throws {
        let rec = Recorder()
        let (server, proxy, bot) = try await startBehindASilenceableProxy(recorder: rec)
        let runner = bot.runner
        // A reply puts a keep-alive connection in the pool, through the proxy.
        try await server.post("alice", "!ping")
        #expect(await eventually { (try? await server.texts(from: "parley")) == ["pong"] })

        let silenced = ContinuousClock.now
        proxy.silenceExisting()
        #expect(await eventually(30) { let s = await runner.stats; let st = await runner.state; return s.reconnects >= 1 && st == .online })
        let back = ContinuousClock.now - silenced
        // Half the request timeout: a reconnect stranded on a dead connection takes all of it.
        #expect(back < .seconds(15), "back online after \(back): the reconnect waited on a dead pooled connection")
        #expect(rec.logs(containing: "no answer within").isEmpty, "\(rec.logs.map(\.text))")
        #expect(!rec.logs(containing: "no ping from the server").isEmpty, "the heartbeat noticed, not a close")
        try await server.post("alice", "!ping")
        // At least twice: a loaded machine can miss a ping on the new link too,
        // and a send caught by that is sent again (at-least-once).
        let answered = await eventually { ((try? await server.texts(from: "parley")) ?? []).count >= 2 }
        let sent = (try? await server.texts(from: "parley")) ?? []
        #expect(answered && Set(sent) == ["pong"], "sent \(sent); \(rec.logs.map(\.text))")
        await stop(bot)
        await proxy.stop()
        await server.stop()
    }

    /// A send still waiting for its answer when the path dies silently is
    /// retried on new connections as soon as the heartbeat notices, not after
    /// `request_timeout`; the sends behind it are not held that long either.
    /// The server already stored it, so it arrives twice (at-least-once).
    @Test func aSendCaughtOnADeadPathIsRetriedAtOnce() async throws {
        let rec = Recorder()
        let (server, proxy, bot) = try await startBehindASilenceableProxy(recorder: rec)
        let runner = bot.runner
        try await server.control("hold", ["count": 1, "seconds": 60])
        try await server.post("alice", "!ping")
        // Stored and broadcast: the bot's POST now waits for an answer that comes late.
        #expect(await eventually { (try? await server.texts(from: "parley")) == ["pong"] })
        let silenced = ContinuousClock.now
        proxy.silenceExisting()
        #expect(await eventually(30) { let s = await runner.stats; let st = await runner.state; return s.reconnects >= 1 && st == .online })
        try await server.post("alice", "!echo after")
        let answered = await eventually(30) { (try? await server.texts(from: "parley"))?.last == "after" }
        let waited = ContinuousClock.now - silenced
        let sent = (try? await server.texts(from: "parley")) ?? []
        #expect(answered, "sent \(sent); \(rec.logs.map(\.text))")
        // Well under the 30 s request timeout a stranded send would wait out.
        #expect(waited < .seconds(15), "answered \(waited) after the path died; sent \(sent)")
        #expect(sent == ["pong", "pong", "after"], "the caught send goes out again, before what came after it")
        #expect(!rec.logs(containing: "its connection died with the silent link; retrying").isEmpty, "\(rec.logs.map(\.text))")
        await stop(bot)
        await proxy.stop()
        await server.stop()
    }

    /// A server that confirms a chat with `201` and no body: each send was
    /// delivered, once; the link stays up.
    @Test func aBareTwoHundredOneIsADeliveredSend() async throws {
        let server = try await RESTServer.start()
        let rec = Recorder()
        let bot = try startBot(server, recorder: rec)
        #expect(await eventually { await bot.runner.state == .online })
        try await server.control("bare", ["count": 3])
        for i in 1...3 { try await server.post("alice", "!echo bare \(i)") }
        #expect(await eventually { (try? await server.texts(from: "parley"))?.count == 3 })
        try await Task.sleep(for: .seconds(1))
        #expect(try await server.texts(from: "parley") == ["bare 1", "bare 2", "bare 3"], "each once")
        #expect(await bot.runner.stats.reconnects == 0)
        #expect(rec.logs(containing: "not JSON").isEmpty, "\(rec.logs.map(\.text))")
        await stop(bot)
        await server.stop()
    }

    /// A Retry-After longer than `max_retry_after` ends the session, and the
    /// bot stays away that long instead of reconnecting and posting at once.
    @Test func aRetryAfterBeyondTheLimitIsWaitedOutOffline() async throws {
        let server = try await RESTServer.start()
        let rec = Recorder()
        let bot = try startBot(server, recorder: rec) { $0.maxRetryAfter = 1 }
        #expect(await eventually { await bot.runner.state == .online })
        try await server.control("fail", ["count": 1, "status": 429, "retry_after": 3])
        let asked = ContinuousClock.now
        try await server.post("alice", "!ping")
        #expect(await eventually(15) { (try? await server.texts(from: "parley")) == ["pong"] })
        let waited = ContinuousClock.now - asked
        #expect(waited >= .milliseconds(2900), "answered after \(waited), before the Retry-After: 3 had passed")
        #expect(rec.logs(containing: "Retry-After 3 s is longer than max_retry_after (1 s): reconnecting after it").count == 1,
                "\(rec.logs.map(\.text))")
        #expect(try await server.stats()["injected"]?.int == 1)
        #expect(await bot.runner.stats.reconnects == 1)
        await stop(bot)
        await server.stop()
    }

    /// A 429 is waited out for its Retry-After; the send goes out once.
    @Test func rateLimitsHonourRetryAfter() async throws {
        let server = try await RESTServer.start()
        let rec = Recorder()
        let bot = try startBot(server, recorder: rec)
        #expect(await eventually { await bot.runner.state == .online })
        try await server.control("fail", ["count": 2, "status": 429, "retry_after": 1])
        let asked = ContinuousClock.now
        try await server.post("alice", "!ping")
        #expect(await eventually { (try? await server.texts(from: "parley")) == ["pong"] })
        let waited = ContinuousClock.now - asked
        #expect(waited >= .milliseconds(1900), "answered after \(waited), before two Retry-After: 1 had passed")
        #expect(try await server.stats()["injected"]?.int == 2)
        #expect(rec.logs(containing: "HTTP 429; retrying in 1 s").count == 2, "\(rec.logs.map(\.text))")
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await server.texts(from: "parley") == ["pong"])
        await stop(bot)
        await server.stop()
    }

    /// 5xx bursts: a short one is retried away; one longer than max_retries
    /// ends the session, and the outbox sends again after the reconnect.
    @Test func serverErrorBurstsAreRetriedAndTheOutboxKeepsTheSend() async throws {
        let server = try await RESTServer.start()
        let rec = Recorder()
        let bot = try startBot(server, recorder: rec) { $0.maxRetries = 3 }
        #expect(await eventually { await bot.runner.state == .online })
        try await server.control("fail", ["count": 3, "status": 503])
        try await server.post("alice", "!echo short burst")
        #expect(await eventually { (try? await server.texts(from: "parley")) == ["short burst"] })
        #expect(await bot.runner.stats.reconnects == 0)

        try await server.control("fail", ["count": 6, "status": 500])
        try await server.post("alice", "!echo long burst")
        #expect(await eventually { (try? await server.texts(from: "parley")) == ["short burst", "long burst"] })
        #expect(await bot.runner.stats.reconnects >= 1)
        #expect(try await server.stats()["injected"]?.int == 9)
        // The message that arrived before the burst was not handled again after the reconnect.
        try await Task.sleep(for: .milliseconds(300))
        #expect(got(rec) == ["alice: !echo short burst", "alice: !echo long burst"])
        #expect(try await server.texts(from: "parley") == ["short burst", "long burst"])
        await stop(bot)
        await server.stop()
    }

    /// Broken packets, chat objects that are not chats, broken catch-up
    /// answers and unknown fields: logged and dropped, or ignored; the bot carries on.
    @Test func malformedPayloadsAreDroppedAndUnknownFieldsIgnored() async throws {
        let server = try await RESTServer.start()
        let rec = Recorder()
        let bot = try startBot(server, journal: try temporaryDirectory().path, recorder: rec)
        #expect(await eventually { await bot.runner.state == .online })
        try await server.control("raw", ["room": "acme/general", "packet": "[\"channel\",{\"chat_id\": 1, \"content\": \"cut"])
        try await server.control("emit", ["room": "acme/general", "data": "not a chat"])
        try await server.control("emit", ["room": "acme/general", "data": ["chat_id": 99, "content": "no user, no date"]])
        try await server.control("emit", ["room": "acme/general", "data": nil])
        try await server.post("alice", "with extras", extra: ["mood": "cheerful", "reactions": [1, 2, 3],
                                                               "user": ["user_id": 77, "nickname": "alice", "badge": "gold"]])
        #expect(await eventually { got(rec) == ["alice: with extras"] }, "\(got(rec))")
        #expect(rec.logs(containing: "dropped a malformed packet").count == 1, "\(rec.logs.map(\.text))")
        #expect(rec.logs(containing: "dropped a malformed chat event").count == 3)

        // A catch-up answer that is not JSON fails that connect; the next one works.
        try await server.control("malformed_next", ["count": 1])
        try await server.control("sockets", ["drop": true])
        #expect(await eventually { rec.logs(containing: "not JSON").count >= 1 })
        try await server.post("alice", "!ping")
        #expect(await eventually { (try? await server.texts(from: "parley")) == ["pong"] })
        #expect(await bot.runner.state == .online)
        #expect(got(rec).filter { $0.hasPrefix("alice: !ping") }.count == 1)
        await stop(bot)
        await server.stop()
    }

    /// A configured channel that does not exist is created when asked; else the bot stops with the reason.
    /// A refused login stops the bot with what the status most likely means:
    /// the password, the service key, or a path that is not the login.
    @Test func aRefusedLoginSaysWhatToCheck() async throws {
        let server = try await RESTServer.start()
        let cases: [(String, (inout RESTOptions) -> Void)] = [
            ("HTTP 401 E03 (wrong email or password?)", { $0.password = "not-the-password" }),
            ("HTTP 403 E01 (the service key was refused? check service_key and service_key_header)", { $0.serviceKey = "not-the-key" }),
            ("HTTP 404 (no login at POST /v2/users/login: check server and api_prefix)", { $0.apiPrefix = "/v2" }),
        ]
        for (says, change) in cases {
            let bot = try startBot(server, recorder: Recorder(), configure: change)
            guard case .failed(let why) = await bot.run.value else {
                Issue.record("a refused login must stop the bot (\(says))")
                continue
            }
            #expect(why.hasSuffix("refused: " + says), "\(why)")
        }
        await server.stop()
    }

    /// One channel listed twice (the config refuses a literal repeat; by
    /// name and by workspace id it is only found here): the bot stops and
    /// says so, instead of retrying a namespace the server refuses.
    @Test func oneChannelListedTwiceStopsTheBotWithWhy() async throws {
        let server = try await RESTServer.start()
        let bot = try startBot(server, rooms: ["acme/general", "acme/general"], recorder: Recorder())
        guard case .failed(let why) = await bot.run.value else {
            Issue.record("a channel listed twice must stop the bot")
            await server.stop()
            return
        }
        #expect(why.contains("rooms 'acme/general' and 'acme/general' are the same channel"), "\(why)")
        await server.stop()
    }

    @Test func missingChannelsAreCreatedOnlyWhenConfigured() async throws {
        let server = try await RESTServer.start()
        let rec = Recorder()
        let refused = try startBot(server, rooms: ["acme/new-room"], recorder: rec)
        guard case .failed(let why) = await refused.run.value else {
            Issue.record("a missing channel without create_channels must stop the bot")
            return
        }
        #expect(why.contains("create_channels"), "\(why)")

        let bot = try startBot(server, rooms: ["acme/new-room", "acme/general"], recorder: rec) { $0.createChannels = true }
        #expect(await eventually { await bot.runner.state == .online })
        try await server.post("dave", "!ping", room: "acme/new-room")
        try await server.post("erin", "!echo there", room: "acme/general")
        #expect(await eventually { (try? await server.texts(from: "parley", room: "acme/new-room")) == ["pong"] })
        #expect(await eventually { (try? await server.texts(from: "parley", room: "acme/general")) == ["there"] })
        await stop(bot)
        await server.stop()
    }

    /// A `transport = "rest"` bot from a config file, built by `BotSpecs` like `parley run` does.
    @Test func aConfiguredBotRunsThroughBotSpecs() async throws {
        let server = try await RESTServer.start()
        let dir = try temporaryDirectory()
        let path = dir.appendingPathComponent("bot.toml").path
        try """
        [[bot]]
        name = "parley"
        transport = "rest"
        server = "http://127.0.0.1:\(server.port)"
        rooms = ["acme/general"]
        plugins = ["\(packageRoot.appendingPathComponent("Plugins/echo.lua").path)"]
        journal = "state/parley"
        [bot.rest]
        email = "\(RESTServer.botEmail)"
        password = "\(RESTServer.botPassword)"
        service_key = "\(RESTServer.serviceKey)"
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let specs = try BotSpecs.make(try BotConfigFile.load(path: path), embedded: [:], log: { _, _ in })
        #expect(specs.count == 1 && specs[0].transport.capabilities == .rest)
        let rec = Recorder()
        let runner = BotRunner(spec: specs[0], observer: rec.observer)
        let run = Task { await runner.run() }
        #expect(await eventually { await runner.state == .online })
        try await server.post("alice", "!ping")
        #expect(await eventually { (try? await server.texts(from: "parley")) == ["pong"] })
        await runner.stop()
        _ = await run.value
        await server.stop()
    }

    /// https and wss with a private CA named by `ca_file`; without it, or for
    /// another host name, the certificate is refused with an error naming TLS.
    @Test func tlsWithAPrivateCA() async throws {
        let pki = try await TestPKI.make()
        let server = try await RESTServer.start(pki: pki)
        let rec = Recorder()
        let bot = try startBot(server, recorder: rec)
        #expect(await eventually { await bot.runner.state == .online })
        try await server.post("alice", "!echo over tls")
        #expect(await eventually { (try? await server.texts(from: "parley")) == ["over tls"] })
        await stop(bot)

        var untrusting = RESTOptions()
        untrusting.email = RESTServer.botEmail
        untrusting.password = RESTServer.botPassword
        untrusting.serviceKey = RESTServer.serviceKey
        untrusting.maxRetries = 0
        untrusting.requestTimeout = 2
        let doubter = RESTTransport(endpoint: SocketIOEndpoint(host: "127.0.0.1", port: server.port, tls: true), name: "parley",
                                    rooms: ["acme/general"], options: untrusting, connectTimeout: 2)
        await #expect { _ = try await doubter.connect() } throws: { SocketIOTLSTests.isCertificateError($0) }

        await server.stop()

        // The CA is trusted, but the certificate is made out to another name.
        let elsewhere = try await TestPKI.make(subjectAltName: "DNS:elsewhere.example")
        let misnamedServer = try await RESTServer.start(pki: elsewhere)
        var misnamed = untrusting
        misnamed.caFile = elsewhere.caFile
        let wrongName = RESTTransport(endpoint: SocketIOEndpoint(host: "127.0.0.1", port: misnamedServer.port, tls: true), name: "parley",
                                      rooms: ["acme/general"], options: misnamed, connectTimeout: 2)
        await #expect { _ = try await wrongName.connect() } throws: { SocketIOTLSTests.isCertificateError($0) }
        await misnamedServer.stop()
    }

    /// Multipart sends, the channel addressed by id.
    @Test func multipartSendsWithChannelIds() async throws {
        let server = try await RESTServer.start()
        let rec = Recorder()
        let bot = try startBot(server, recorder: rec) { o in
            o.multipart = true
            o.channelInPath = .id
        }
        #expect(await eventually { await bot.runner.state == .online })
        try await server.post("alice", "!echo über multipart ✓")
        #expect(await eventually { (try? await server.texts(from: "parley")) == ["über multipart ✓"] })
        await stop(bot)
        await server.stop()
    }
}
