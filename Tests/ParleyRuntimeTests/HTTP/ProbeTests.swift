import Foundation
import Logging
import ParleyRuntime
import ParleyTestSupport
import ParleyStreamChat
import Synchronization
import Testing

/// The probes and the dashboard's snapshot while a plugin holds the only
/// bot loop for seconds: `/readyz` and `/api/fleet` answer at once from what
/// the bots published, and `/healthz` says the loop is held.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct ProbeTests {
    @Test func probesAndTheDashboardAnswerWhileAPluginHoldsTheLoop() async throws {
        let server = try await StreamChatServer.start(.init())
        defer { Task { await server.shutdown() } }
        let dir = try temporaryDirectory()
        try """
        bot.command("slow", function(msg)
          -- hold the loop for 6 s of CPU, well inside this plugin's 60 s budget
          local stop = os.clock() + 6
          while os.clock() < stop do end
          bot.send(msg.room, "done")
        end)
        """.write(to: dir.appendingPathComponent("slow.lua"), atomically: true, encoding: .utf8)
        let (parley, port) = try await Self.runReady("""
        [runtime]
        loops = 1

        [[bot]]
        name = "busy"
        server = "127.0.0.1:\(server.port)"
        plugins = ["\(dir.appendingPathComponent("slow.lua").path)"]
        [bot.plugin_limits.slow]
        time_ms = 60000
        instructions = 100000000000

        [[bot]]
        name = "calm"
        server = "127.0.0.1:\(server.port)"
        plugins = ["\(packageRoot.appendingPathComponent("Plugins/greeter.lua").path)"]
        """, in: dir)
        defer { if parley.isRunning { parley.terminate() } }

        // The dashboard was open before the loop was held: it got the plugin figures then.
        #expect(await Self.get(port, "/api/fleet").text.contains("\"loopBusy\":false"))
        let alice = try await Person("alice", port: server.port)
        try await alice.say("!slow")
        // The loop is inside the handler once /healthz stops answering 200.
        #expect(await eventually(10) { await Self.get(port, "/healthz").text.hasPrefix("HTTP/1.1 503") })

        let ready = await Self.get(port, "/readyz")
        #expect(ready.text.hasPrefix("HTTP/1.1 200") && ready.text.contains("ready: 2 bots"), "\(ready.text)")
        // Well under the loop's 6 s hold, with room for a loaded machine.
        #expect(ready.seconds < 3, "/readyz took \(ready.seconds) s behind a held loop")

        let fleet = await Self.get(port, "/api/fleet")
        #expect(fleet.seconds < 3, "/api/fleet took \(fleet.seconds) s behind a held loop")
        let body = fleet.text.components(separatedBy: "\r\n\r\n").dropFirst().joined()
        let report = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
        let bots = report?["bots"] as? [[String: Any]] ?? []
        #expect(bots.map { $0["name"] as? String } == ["busy", "calm"], "\(body.prefix(300))")
        #expect(bots.allSatisfy { $0["loopBusy"] as? Bool == true && $0["state"] as? String == "online" }, "\(body.prefix(600))")
        // The plugin figures come from the snapshot before the loop was held.
        #expect(bots.first?["plugins"].map { ($0 as? [[String: Any]])?.first?["name"] as? String } == "slow")

        // Once the handler is done the loop answers again, and the snapshot is live.
        #expect(await eventually(60) { alice.texts(from: "busy") == ["done"] })
        #expect(await eventually(10) { await Self.get(port, "/healthz").text.hasPrefix("HTTP/1.1 200") })
        #expect(await Self.get(port, "/api/fleet").text.contains("\"loopBusy\":false"))
        kill(parley.processIdentifier, SIGTERM)
        #expect(await finish(parley).status == 0)
        await alice.leave()
    }

    /// A dashboard left open (its `/events` stream never ends by itself)
    /// does not hold up a SIGTERM: the stream ends with the server's
    /// graceful shutdown, not at the group's 20 s cap.
    @Test func anOpenDashboardDoesNotHoldUpTheShutdown() async throws {
        let server = try await StreamChatServer.start(.init())
        defer { Task { await server.shutdown() } }
        let dir = try temporaryDirectory()
        let (parley, port) = try await Self.runReady("""
        [[bot]]
        name = "calm"
        server = "127.0.0.1:\(server.port)"
        plugins = ["\(packageRoot.appendingPathComponent("Plugins/greeter.lua").path)"]
        """, in: dir)
        defer { if parley.isRunning { parley.terminate() } }
        let page = try #require(RawHTTP.connected(port: port))
        defer { close(page) }
        let request = "GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        #expect(request.withCString { send(page, $0, strlen($0), 0) } == request.utf8.count)
        try await Task.sleep(for: .milliseconds(1500))
        let start = ContinuousClock.now
        kill(parley.processIdentifier, SIGTERM)
        #expect(await finish(parley).status == 0)
        let took = ContinuousClock.now - start
        #expect(took < .seconds(10), "the shutdown took \(took) with /events open")
    }

    /// A bot that could not start (its journal is damaged) while the others
    /// run: `/readyz` says it failed and why, not `offline`, and so does the
    /// dashboard's state. The process runs on for the others.
    @Test func aBotThatCouldNotStartIsNamedFailedWithItsReason() async throws {
        let server = try await StreamChatServer.start(.init())
        defer { Task { await server.shutdown() } }
        let dir = try temporaryDirectory()
        let taken = dir.appendingPathComponent("taken")
        try FileManager.default.createDirectory(at: taken, withIntermediateDirectories: true)
        try Data(repeating: 0x78, count: 8192).write(to: taken.appendingPathComponent("00000000000000000001.seg"))
        try """
        [[bot]]
        name = "good"
        server = "127.0.0.1:\(server.port)"
        [[bot]]
        name = "bad"
        server = "127.0.0.1:\(server.port)"
        journal = "\(dir.appendingPathComponent("taken").path)"
        """.write(to: dir.appendingPathComponent("bot.toml"), atomically: true, encoding: .utf8)
        let port = try freePort()
        let parley = try launchParley(["run", dir.appendingPathComponent("bot.toml").path, "--http", "\(port)"], stderr: FileHandle.nullDevice)
        defer { parley.terminate() }
        let failed = await eventually(20) { await Self.get(port, "/readyz").text.contains("bad: failed: cannot start:") }
        let ready = await Self.get(port, "/readyz").text
        #expect(failed, "\(ready)")
        #expect(ready.hasPrefix("HTTP/1.1 503") && !ready.contains("good:"), "\(ready)")
        // Failed since it failed: the dashboard's "failed for" does not restart with each snapshot.
        func failedSince() async -> Double? {
            let raw = await Self.get(port, "/api/fleet").text
            guard let body = raw.range(of: "\r\n\r\n").map({ raw[$0.upperBound...] }),
                  let json = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
                  let bots = json["bots"] as? [[String: Any]], let bad = bots.first(where: { $0["name"] as? String == "bad" }),
                  bad["state"] as? String == "failed" else { return nil }
            return bad["stateSince"] as? Double
        }
        let first = await failedSince()
        try await Task.sleep(for: .seconds(1.2))
        let second = await failedSince()
        #expect(first != nil && first == second, "\(String(describing: first)) then \(String(describing: second))")
        kill(parley.processIdentifier, SIGTERM)
        #expect(await finish(parley).status == 1)
    }

    /// A bot whose server went away stays ready while it has been offline
    /// for less than `ready_backoff` (a blip), then is not (an outage, however
    /// short each backoff wait), and is ready again once back.
    @Test func anOutageLongerThanReadyBackoffIsNotReady() async throws {
        let server = try await StreamChatServer.start(.init())
        let serverPort = server.port
        let dir = try temporaryDirectory()
        try """
        [runtime]
        ready_backoff = 2
        [[bot]]
        name = "steady"
        server = "127.0.0.1:\(serverPort)"
        """.write(to: dir.appendingPathComponent("bot.toml"), atomically: true, encoding: .utf8)
        let port = try freePort()
        let parley = try launchParley(["run", dir.appendingPathComponent("bot.toml").path, "--http", "\(port)"], stderr: FileHandle.nullDevice)
        defer { parley.terminate() }
        #expect(await eventually(20) { await Self.get(port, "/readyz").text.hasPrefix("HTTP/1.1 200") })
        await server.shutdown()
        let out = await eventually(20) { await Self.get(port, "/readyz").text.contains("over ready_backoff 2 s") }
        let text = await Self.get(port, "/readyz").text
        #expect(out && text.hasPrefix("HTTP/1.1 503") && text.contains("steady: ") && text.contains("offline for"), "\(text)")
        let back = try await StreamChatServer.start(.init(port: serverPort))
        defer { Task { await back.shutdown() } }
        #expect(await eventually(40) { await Self.get(port, "/readyz").text.hasPrefix("HTTP/1.1 200") })
        kill(parley.processIdentifier, SIGTERM)
        #expect(await finish(parley).status == 0)
    }

    /// The read-only routes answer HEAD as GET without a body, another
    /// method with 405 and `Allow`; the token's scheme is case-insensitive.
    @Test func readOnlyRoutesAnswerHEADAndRefuseOtherMethods() async throws {
        let bound = Atomic(0)
        var quiet = Logger(label: "test")
        quiet.logLevel = .critical
        let app = HTTPServer.application(host: "127.0.0.1", port: 0, runners: [], logger: quiet, watch: FleetWatch(), token: "t0ken") {
            bound.store($0, ordering: .relaxed)
        }
        let http = Task { try await app.run() }
        defer { http.cancel() }
        #expect(await eventually(10) { bound.load(ordering: .relaxed) != 0 })
        let port = bound.load(ordering: .relaxed)
        for path in ["/", "/api/fleet", "/metrics", "/events"] {
            let head = try await RawHTTP.request("HEAD", port: port, path: path, headers: ["Authorization: Bearer t0ken"])
            #expect(head.hasPrefix("HTTP/1.1 200"), "HEAD \(path): \(head)")
            #expect(head.hasSuffix("\r\n\r\n"), "HEAD \(path) has no body: \(head)")
        }
        #expect(try await RawHTTP.request("HEAD", port: port, path: "/healthz").hasPrefix("HTTP/1.1 200"))
        for (method, path) in [("POST", "/healthz"), ("DELETE", "/api/fleet"), ("PUT", "/metrics")] {
            let refused = try await RawHTTP.request(method, port: port, path: path, headers: ["Authorization: Bearer t0ken"])
            #expect(refused.hasPrefix("HTTP/1.1 405") && refused.lowercased().contains("allow: get, head"), "\(method) \(path): \(refused)")
        }
        #expect(try await RawHTTP.request("GET", port: port, path: "/api/fleet", headers: ["Authorization: bearer t0ken"]).hasPrefix("HTTP/1.1 200"))
        #expect(try await RawHTTP.request("GET", port: port, path: "/api/fleet", headers: ["Authorization: Bearer wrong"]).hasPrefix("HTTP/1.1 401"))
        #expect(try await RawHTTP.get(port: port, path: "/nowhere").contains("HTTP/1.1 40"))
    }

    /// `parley run` of `config` (written into `dir`) with `--http` on a free
    /// port, once `/readyz` says every bot is online.
    static func runReady(_ config: String, in dir: URL) async throws -> (parley: Process, port: Int) {
        try config.write(to: dir.appendingPathComponent("bot.toml"), atomically: true, encoding: .utf8)
        let port = try freePort()
        let parley = try launchParley(["run", dir.appendingPathComponent("bot.toml").path, "--http", "\(port)"])
        guard await eventually(20, { await Self.get(port, "/readyz").text.hasPrefix("HTTP/1.1 200") }) else {
            parley.terminate()
            throw PeerError("parley run did not get ready within 20 s")
        }
        return (parley, port)
    }

    /// One GET and how long its whole answer took.
    static func get(_ port: Int, _ path: String) async -> (text: String, seconds: Double) {
        let start = ContinuousClock.now
        let text = (try? await RawHTTP.get(port: port, path: path)) ?? "no answer"
        let d = ContinuousClock.now - start
        return (text, Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)
    }
}
