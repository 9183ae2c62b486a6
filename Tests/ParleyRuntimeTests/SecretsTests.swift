import Foundation
import NIOCore
import NIOPosix
import ParleyCore
@testable import ParleyREST
@testable import ParleySocketIO
@testable import ParleySTOMP
import ParleyWire
import Synchronization
import Testing
@testable import ParleyRuntime
import ParleyTestSupport

/// Tokens, passwords and passcodes never appear in what a bot prints: its
/// log lines (the runtime observer, and `parley run`'s stdout and stderr),
/// the reasons it stopped, or `parley journal dump` of its journal; and no
/// plugin can see them (a plugin gets its own `[bot.plugin.NAME]` table).
///
/// Every secret-bearing key of every transport gets a distinctive value, and
/// the bots go down the paths that tend to print URLs and headers: connection
/// refused, refused credentials, a refused token refresh, an untrusted
/// certificate, malformed answers, and a server that echoes the whole request
/// (query string and headers) into its error page or its ERROR frame.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct SecretsTests {
    /// One distinctive value per secret-bearing key.
    enum Secret {
        /// `[bot.socketio.headers] Authorization = "Bearer …"`
        static let socketHeader = "SIO-HEADER-7f3a9c"
        /// `[bot.socketio.headers] X-Api-Key`
        static let socketKeyHeader = "SIO-APIKEY-0b5d"
        /// `[bot.socketio.query] token`
        static let socketQuery = "SIO-QUERY-41d2/+="
        /// `[bot.socketio.auth] token`
        static let socketAuth = "SIO-AUTH-8be0"
        /// `[bot.stomp] passcode`
        static let stompPasscode = "STOMP-PASSCODE-c0ffee"
        /// `[bot.stomp.connect_headers] X-Auth-Token`
        static let stompConnectHeader = "STOMP-CONNECT-5e11"
        /// `[bot.stomp.headers] Authorization = "Bearer …"` (the WebSocket upgrade)
        static let stompUpgradeHeader = "STOMP-UPGRADE-77aa"
        /// `server = "ws://…/ws?access_token=…"` and `discovery = "http://…?key=…"`
        static let stompURLToken = "STOMP-URL-9d9d"
        static let stompDiscoveryToken = "STOMP-DISCOVERY-3c3c"
        /// `[bot.rest] password` / `password_env`, `service_key` / `service_key_env`
        static let restWrongPassword = "REST-WRONG-PASSWORD-1337"
        static let restWrongServiceKey = "REST-WRONG-KEY-3579"
        static let restPassword = RESTServer.botPassword
        static let restServiceKey = RESTServer.serviceKey

        static let socketIO = [socketHeader, socketKeyHeader, socketQuery, socketAuth]
        static let stomp = [stompPasscode, stompConnectHeader, stompUpgradeHeader, stompURLToken, stompDiscoveryToken]
        /// The fixture's tokens are `access-N` and `refresh-N`.
        static let rest = [restWrongPassword, restWrongServiceKey, restPassword, restServiceKey, "access-", "refresh-"]
        static let all = socketIO + stomp + rest
    }

    /// Fails naming each secret found in `texts`, raw or percent-encoded.
    static func expectNoSecret(_ texts: [String], _ what: String, secrets: [String] = Secret.all,
                               sourceLocation: SourceLocation = #_sourceLocation) {
        for s in secrets {
            let hits = texts.filter { $0.contains(s) || $0.contains(s.percentEncoded) }
            #expect(hits.isEmpty, "\(what): '\(s)' appears in \(hits)", sourceLocation: sourceLocation)
        }
    }

    /// A loopback port nothing listens on (bound, then closed).
    static func refusedPort() async throws -> Int {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
        let port = channel.localAddress!.port!
        try await channel.close()
        return port
    }

    /// `parley journal dump DIR`, every line.
    static func journalDump(_ dir: String) async throws -> String {
        let out = Pipe()
        let p = try launchParley(["journal", "dump", dir], stdout: out)
        let r = await finish(p, stdout: out)
        #expect(r.status == 0, "journal dump \(dir): \(r.stdout)")
        return r.stdout
    }

    /// Echoes its messages, and logs every message it gets (so a leak into an event would show).
    static let echo = """
    bot.on("message", function(msg) bot.log.info("got " .. msg.user .. ": " .. msg.text) end)
    bot.command("echo", function(msg, args) msg:reply(args.raw) end)
    """

    struct Bot {
        let runner: BotRunner
        let run: Task<BotOutcome, Never>
        func stop() async -> BotOutcome {
            await runner.stop()
            return await run.value
        }
    }

    static func start(_ name: String, _ transport: any Transport, recorder: Recorder, journal: String? = nil) throws -> Bot {
        let spec = try botSpec(name: name, port: 0, plugins: [("echo", echo)], journal: journal, transport: transport)
        let runner = BotRunner(spec: spec, observer: recorder.observer)
        return Bot(runner: runner, run: Task { await runner.run() })
    }

    static func socketOptions(links: [SocketIOOptions.Link] = [.websocket, .polling], caFile: String? = nil) -> SocketIOOptions {
        var o = SocketIOOptions()
        o.transports = links
        o.headers = ["Authorization": "Bearer " + Secret.socketHeader, "X-Api-Key": Secret.socketKeyHeader]
        o.query = ["token": Secret.socketQuery]
        o.auth = ["token": Secret.socketAuth]
        o.caFile = caFile
        return o
    }

    // MARK: Socket.IO

    /// Headers, query and auth on every path: a working session, a refused
    /// port, a server that echoes the request into a 500 page (over polling
    /// and WebSocket), an untrusted certificate, and a refused CONNECT.
    @Test func socketIOSecretsStayOutOfLogsOutcomesAndTheJournal() async throws {
        let rec = Recorder()
        let transportLog: @Sendable (String) -> Void = { line in
            rec.observer.log(LogRecord(time: 0, bot: "transport", plugin: nil, level: .info, text: line))
        }
        var outcomes: [String] = []
        func transport(_ port: Int, tls: Bool = false, _ options: SocketIOOptions = Self.socketOptions()) -> SocketIOTransport {
            SocketIOTransport(endpoint: SocketIOEndpoint(host: "127.0.0.1", port: port, tls: tls), name: "sio",
                              options: options, connectTimeout: 2, log: transportLog)
        }

        // Working: the embedded server, both links.
        let server = try await SocketChatServer.start(.init())
        let journal = try temporaryDirectory().path
        for links in [[SocketIOOptions.Link.websocket], [.polling]] {
            let bot = try Self.start("sio", transport(server.port, Self.socketOptions(links: links)), recorder: rec, journal: journal)
            #expect(await eventually { await bot.runner.state == .online })
            let alice = try await Person("alice", transport: SocketIOTransport(endpoint: SocketIOEndpoint(host: "127.0.0.1", port: server.port), name: "alice"))
            try await alice.say("!echo hello \(links[0].rawValue)")
            #expect(await eventually { alice.texts(from: "sio").contains("hello \(links[0].rawValue)") })
            await alice.leave()
            outcomes.append("\(await bot.stop())")
        }
        await server.shutdown()

        // Refused, and echoed back into error pages: the bot keeps retrying.
        let echo = try await PythonPeer.start(script: "echo_http_server.py", ["--status", "500"])
        for (port, what) in [(try await Self.refusedPort(), "cannot connect"), (echo.port, "HTTP 500")] {
            let bot = try Self.start("sio", transport(port), recorder: rec, journal: journal)
            #expect(await eventually { await bot.runner.stats.connectFailures >= 2 })
            #expect(!rec.logs(containing: what).isEmpty, "\(rec.logs.map(\.text))")
            outcomes.append("\(await bot.stop())")
        }
        // The echo page did reach the log, masked: the value layer caught what the URL layer could not.
        #expect(!rec.logs(containing: "Cannot GET /socket.io/?EIO=4&transport=polling&token=***").isEmpty,
                "\(rec.logs(containing: "HTTP 500").map(\.text))")
        await echo.stop()

        // An untrusted certificate, and a CONNECT refused for a bad token.
        let pki = try await TestPKI.make()
        let tlsServer = try await PythonSocketChat.start(["--certfile", pki.certFile, "--keyfile", pki.keyFile, "--auth-token", "another"])
        let doubter = try Self.start("sio", transport(tlsServer.port, tls: true), recorder: rec, journal: journal)
        #expect(await eventually { await doubter.runner.stats.connectFailures >= 2 })
        outcomes.append("\(await doubter.stop())")
        let refused = try Self.start("sio", transport(tlsServer.port, tls: true, Self.socketOptions(caFile: pki.caFile)), recorder: rec, journal: journal)
        outcomes.append("\(await refused.run.value)")
        #expect(outcomes.last?.contains("bad token") == true, "\(outcomes)")
        await tlsServer.stop()

        #expect(rec.logs.count > 10)
        Self.expectNoSecret(rec.logs.map(\.text), "Socket.IO log")
        Self.expectNoSecret(outcomes, "Socket.IO outcomes")
        Self.expectNoSecret([try await Self.journalDump(journal)], "Socket.IO journal")
    }

    // MARK: REST

    /// Password, service key and both tokens: a working session with an
    /// expired token refreshed, a malformed catch-up answer, 5xx retries and
    /// a refused refresh (kicked); wrong password, wrong service key, a
    /// refused port, an untrusted certificate, and a server that echoes the
    /// request (headers and body, so the login's password) into its answers.
    @Test func restSecretsStayOutOfLogsOutcomesAndTheJournal() async throws {
        let rec = Recorder()
        let transportLog: @Sendable (String) -> Void = { line in
            rec.observer.log(LogRecord(time: 0, bot: "transport", plugin: nil, level: .info, text: line))
        }
        var outcomes: [String] = []
        let journal = try temporaryDirectory().path
        let server = try await RESTServer.start()
        let bot = try Self.start("parley", server.transport(configure: { $0.maxRetries = 2 }, log: transportLog), recorder: rec, journal: journal)
        #expect(await eventually { await bot.runner.state == .online })
        try await server.post("alice", "!echo one")
        #expect(await eventually { (try? await server.texts(from: "parley")) == ["one"] })
        try await server.control("expire_tokens", [:])
        try await server.post("alice", "!echo two")
        #expect(await eventually { (try? await server.texts(from: "parley")) == ["one", "two"] })
        try await server.control("malformed_next", ["count": 1])
        try await server.control("fail", ["count": 4, "status": 503])
        try await server.control("sockets", ["drop": true])
        #expect(await eventually { !rec.logs(containing: "not JSON").isEmpty })
        try await server.post("alice", "!echo three")
        #expect(await eventually { (try? await server.texts(from: "parley")) == ["one", "two", "three"] })
        try await server.control("expire_tokens", ["refresh": true])
        try await server.post("alice", "!echo never")
        outcomes.append("\(await bot.run.value)")
        #expect(outcomes.last?.contains("kicked") == true, "\(outcomes)")

        // Refused credentials stop the bot with the reason.
        for configure: @Sendable (inout RESTOptions) -> Void in [{ $0.password = Secret.restWrongPassword },
                                                                  { $0.serviceKey = Secret.restWrongServiceKey }] {
            let refused = try Self.start("parley", server.transport(configure: configure, log: transportLog), recorder: rec)
            outcomes.append("\(await refused.run.value)")
            #expect(outcomes.last?.contains("refused") == true, "\(outcomes)")
        }
        await server.stop()

        // Nobody there, an echoing server, an untrusted certificate: retried.
        let echo = try await PythonPeer.start(script: "echo_http_server.py", ["--status", "503"])
        let pki = try await TestPKI.make()
        let tlsServer = try await RESTServer.start(pki: pki)
        var options = RESTOptions()
        options.email = RESTServer.botEmail
        options.password = Secret.restPassword
        options.serviceKey = Secret.restServiceKey
        options.maxRetries = 1
        options.retryInitial = 0.05
        options.requestTimeout = 2
        for (port, tls) in [(try await Self.refusedPort(), false), (echo.port, false), (tlsServer.port, true)] {
            let t = RESTTransport(endpoint: SocketIOEndpoint(host: "127.0.0.1", port: port, tls: tls), name: "parley",
                                  rooms: ["acme/general"], options: options, connectTimeout: 2, log: transportLog)
            let failing = try Self.start("parley", t, recorder: rec)
            #expect(await eventually { await failing.runner.stats.connectFailures >= 2 })
            outcomes.append("\(await failing.stop())")
        }
        #expect(!rec.logs(containing: "HTTP 503").isEmpty)
        await echo.stop()
        await tlsServer.stop()

        #expect(rec.logs.count > 10)
        Self.expectNoSecret(rec.logs.map(\.text), "REST log")
        Self.expectNoSecret(outcomes, "REST outcomes")
        Self.expectNoSecret([try await Self.journalDump(journal)], "REST journal")
    }

    // MARK: parley run

    /// Walks everything a plugin can reach (globals, `bot`, `bot.config`,
    /// `bot.transport`, metatables) and says every string it found in the
    /// room, keeps it in `bot.state`, and logs it.
    static let snoop = """
    local seen, found = {}, {}
    local function walk(v, depth)
      local t = type(v)
      if t == "string" then found[#found + 1] = v return end
      if t ~= "table" or seen[v] or depth > 8 then return end
      seen[v] = true
      for k, x in pairs(v) do walk(k, depth + 1) walk(x, depth + 1) end
      walk(getmetatable(v), depth + 1)
    end
    walk(_G, 0)
    walk(getmetatable(""), 0)
    local all = table.concat(found, " ")
    bot.state.set("found", all)
    bot.log.info("snoop found " .. #found .. " strings")
    bot.command("snoop", function(msg)
      for i = 1, #all, 3000 do msg:reply("snoop " .. all:sub(i, i + 2999)) end
    end)
    """

    /// `parley run` with a REST bot reading its password and service key from
    /// the environment, a REST bot with a wrong password, a Socket.IO bot
    /// against an echoing server and a STOMP bot against a refused port:
    /// stdout, stderr and both journals are clean, and the snooping plugin
    /// found its own config but no secret.
    @Test func parleyRunPrintsNoSecretAndPluginsSeeNone() async throws {
        let server = try await RESTServer.start()
        let echo = try await PythonPeer.start(script: "echo_http_server.py", ["--status", "500"])
        let refused = try await Self.refusedPort()
        let dir = try temporaryDirectory()
        try Self.snoop.write(to: dir.appendingPathComponent("snoop.lua"), atomically: true, encoding: .utf8)
        try Self.echo.write(to: dir.appendingPathComponent("echo.lua"), atomically: true, encoding: .utf8)
        /// The secrets hold no quote or backslash: a TOML basic string as is.
        func toml(_ s: String) -> String { "\"\(s)\"" }
        try """
        [[bot]]
        name = "parley"
        transport = "rest"
        server = "http://127.0.0.1:\(server.port)"
        rooms = ["acme/general"]
        plugins = ["snoop.lua", "echo.lua"]
        journal = "state/rest"
        [bot.rest]
        email = "\(RESTServer.botEmail)"
        password_env = "PARLEY_TEST_REST_PASSWORD"
        service_key_env = "PARLEY_TEST_SERVICE_KEY"
        [bot.plugin.snoop]
        marker = "own-config-is-visible"

        [[bot]]
        name = "wrongpass"
        transport = "rest"
        server = "http://127.0.0.1:\(server.port)"
        rooms = ["acme/general"]
        plugins = ["echo.lua"]
        [bot.rest]
        email = "\(RESTServer.botEmail)"
        password = \(toml(Secret.restWrongPassword))
        service_key = \(toml(Secret.restServiceKey))

        [[bot]]
        name = "sio"
        transport = "socketio"
        server = "http://127.0.0.1:\(echo.port)"
        plugins = ["snoop.lua"]
        journal = "state/sio"
        [bot.presence]
        backoff_initial = 0.05
        backoff_max = 0.3
        [bot.socketio]
        transports = ["polling"]
        [bot.socketio.headers]
        Authorization = \(toml("Bearer " + Secret.socketHeader))
        X-Api-Key = \(toml(Secret.socketKeyHeader))
        [bot.socketio.query]
        token = \(toml(Secret.socketQuery))
        [bot.socketio.auth]
        token = \(toml(Secret.socketAuth))

        [[bot]]
        name = "stompbot"
        transport = "stomp"
        server = "ws://127.0.0.1:\(refused)/ws?access_token=\(Secret.stompURLToken)"
        plugins = ["snoop.lua"]
        [bot.presence]
        backoff_initial = 0.05
        backoff_max = 0.3
        [bot.stomp]
        login = "guest"
        passcode = \(toml(Secret.stompPasscode))
        [bot.stomp.connect_headers]
        X-Auth-Token = \(toml(Secret.stompConnectHeader))
        [bot.stomp.headers]
        Authorization = \(toml("Bearer " + Secret.stompUpgradeHeader))
        """.write(to: dir.appendingPathComponent("bot.toml"), atomically: true, encoding: .utf8)

        let out = Pipe(), err = Pipe()
        let errText = Mutex(Data())
        err.fileHandleForReading.readabilityHandler = { h in
            let d = h.availableData
            errText.withLock { $0.append(d) }
        }
        func stderr() -> String { String(decoding: errText.withLock { $0 }, as: UTF8.self) }
        let p = try launchParley(["run", dir.appendingPathComponent("bot.toml").path], stdout: out, stderr: err,
                                 environment: ["PARLEY_TEST_REST_PASSWORD": Secret.restPassword,
                                               "PARLEY_TEST_SERVICE_KEY": Secret.restServiceKey])
        var answered = false
        for _ in 0..<30 where !answered {
            try await server.post("alice", "!echo ping")
            answered = await eventually(1) { ((try? await server.texts(from: "parley")) ?? []).contains("ping") }
        }
        #expect(answered, "\(stderr())")
        try await server.post("alice", "!snoop")
        #expect(await eventually { ((try? await server.texts(from: "parley")) ?? []).contains { $0.hasPrefix("snoop ") } })
        #expect(await eventually {
            let e = stderr()
            return e.contains("wrongpass") && e.contains("refused") && e.contains("sio") && e.contains("HTTP 500")
                && e.contains("stompbot") && e.contains("cannot connect")
        }, "\(stderr())")
        kill(p.processIdentifier, SIGTERM)
        let result = await finish(p, stdout: out)
        err.fileHandleForReading.readabilityHandler = nil
        errText.withLock { $0.append(err.fileHandleForReading.readDataToEndOfFile()) }

        let said = try await server.texts(from: "parley").filter { $0.hasPrefix("snoop ") }.joined()
        #expect(said.contains("own-config-is-visible"), "the plugin walked its own config: \(said.prefix(300))")
        Self.expectNoSecret([said], "what the plugin could see")
        let restJournal = try await Self.journalDump(dir.appendingPathComponent("state/rest").path)
        #expect(restJournal.contains("own-config-is-visible"), "the snoop's state is in the journal")
        Self.expectNoSecret([stderr(), result.stdout], "parley run output")
        Self.expectNoSecret([restJournal, try await Self.journalDump(dir.appendingPathComponent("state/sio").path)], "parley journal dump")
        await echo.stop()
        await server.stop()
    }
}

extension RabbitMQTests {
    /// STOMP's secrets, in the broker's suite: another test there restarts
    /// the broker, which would refuse this one's connections mid-test.
    @Suite struct STOMPSecretsTests {
        /// Passcode, CONNECT and upgrade headers, a token in the server URL and
        /// in the discovery URL: RabbitMQ refusing the passcode, a broker whose
        /// ERROR frame quotes them all, discovery answered by an echoing server,
        /// and a refused port.
        @Test func stompSecretsStayOutOfLogsAndOutcomes() async throws {
            try await RabbitMQ.require()
            let rec = Recorder()
            let transportLog: @Sendable (String) -> Void = { line in
                rec.observer.log(LogRecord(time: 0, bot: "transport", plugin: nil, level: .info, text: line))
            }
            var outcomes: [String] = []
            let options = RabbitMQ.options {
                $0.passcode = SecretsTests.Secret.stompPasscode
                $0.connectHeaders = ["X-Auth-Token": SecretsTests.Secret.stompConnectHeader]
                $0.headers = ["Authorization": "Bearer " + SecretsTests.Secret.stompUpgradeHeader]
            }
            func transport(_ endpoint: STOMPEndpoint?, _ options: STOMPOptions = options) -> STOMPTransport {
                STOMPTransport(endpoint: endpoint, name: "stompbot", rooms: [RabbitMQ.freshRoom()], options: options,
                               connectTimeout: 2, log: transportLog)
            }

            // RabbitMQ refuses the passcode, over WebSocket and TCP: the bot stops, as a retry would send it again.
            for endpoint in [RabbitMQ.webSTOMP, RabbitMQ.tcpSTOMP] {
                let bot = try SecretsTests.start("stompbot", transport(endpoint), recorder: rec)
                let outcome = await bot.run.value
                #expect("\(outcome)".contains("sent ERROR to the login") && "\(outcome)".contains("check [bot.stomp] login, passcode and host"), "\(outcome)")
                outcomes.append("\(outcome)")
            }

            // A broker that quotes everything it was sent in its ERROR frame.
            let peer = try await RawSTOMPPeer.start()
            let url = "ws://127.0.0.1:\(peer.port)/ws?access_token=\(SecretsTests.Secret.stompURLToken)"
            let quoting = try SecretsTests.start("stompbot", transport(STOMPEndpoint.parse(url)!), recorder: rec)
            let connection = try await peer.connection(0)
            let connect = try #require(connection.received.first { $0.command == "CONNECT" })
            #expect(connect[header: "passcode"] == SecretsTests.Secret.stompPasscode)
            let quoted = connect.headers.map { "\($0.name)=\($0.value)" }.joined(separator: " ")
            try await connection.send("ERROR\nmessage:refused \(quoted)\n\nyou sent \(quoted) via \(url)\0")
            #expect(await eventually { !rec.logs(containing: "sent ERROR").isEmpty })
            outcomes.append("\(await quoting.stop())")
            await peer.stop()

            // Discovery: refused, and answered by a server that echoes the request.
            let echo = try await PythonPeer.start(script: "echo_http_server.py", ["--status", "500"])
            for port in [try await SecretsTests.refusedPort(), echo.port] {
                var o = options
                o.discovery = "http://127.0.0.1:\(port)/socket-server?key=\(SecretsTests.Secret.stompDiscoveryToken)"
                let bot = try SecretsTests.start("stompbot", transport(nil, o), recorder: rec)
                #expect(await eventually { await bot.runner.stats.connectFailures >= 2 })
                outcomes.append("\(await bot.stop())")
            }
            await echo.stop()

            #expect(!rec.logs(containing: "discovery").isEmpty, "\(rec.logs.map(\.text))")
            SecretsTests.expectNoSecret(rec.logs.map(\.text), "STOMP log")
            SecretsTests.expectNoSecret(outcomes, "STOMP outcomes")
        }
    }
}
