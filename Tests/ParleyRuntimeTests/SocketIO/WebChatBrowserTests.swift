import Foundation
import Logging
import Synchronization
import ParleyCore
import ParleyRuntime
import ParleySocketIO
import ParleyTestSupport
import Testing

/// The embedded server's web chat in a real browser: headless Chromium driven
/// by selenium (`Tests/Fixtures/python/browser_chat.py`), against the server,
/// an echo bot, a greeter and a simulated person who keeps typing. Each
/// scenario saves screenshots under `.build/screenshots/`.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct WebChatBrowserTests {
    static let screenshots = packageRoot.appendingPathComponent(".build/screenshots").path

    @Test func aPersonChatsWithTheBotsFromABrowser() async throws {
        try await withChat { url in
            let out = try await Self.browser(url: url, scenario: "chat")
            #expect(out.status == 0, "\(out.text)")
            for step in ["greeted", "!ping answered pong", "typing shown: typist is typing", "a second window sees",
                         "left, and the other window saw it", "usable at 360 px wide"] {
                #expect(out.text.contains(step), "\(out.text)")
            }
        }
    }

    @Test func hostileNamesAndMessagesStayText() async throws {
        try await withChat { url in
            let out = try await Self.browser(url: url, scenario: "hostile")
            #expect(out.status == 0, "\(out.text)")
            #expect(out.text.contains("nothing ran") && out.text.contains("over-long message is refused"), "\(out.text)")
        }
    }

    /// One command: `parley demo --web` prints the page's address, and a
    /// person in a browser joins the demo room beside its bots and people.
    @Test func aPersonJoinsTheDemoFromABrowser() async throws {
        let out = Pipe()
        let seen = Mutex("")
        out.fileHandleForReading.readabilityHandler = { h in
            let d = h.availableData
            seen.withLock { $0 += String(decoding: d, as: UTF8.self) }
        }
        let demo = try launchParley(["demo", "--web", "--users", "3", "--seconds", "60", "--ramp", "2"], stdout: out)
        defer { if demo.isRunning { demo.terminate() } }
        func address() -> String? {
            seen.withLock { text in
                text.split(separator: "\n").first { $0.contains("web chat: open ") }
                    .flatMap { $0.split(separator: " ").first { $0.hasPrefix("http://") } }.map(String.init)
            }
        }
        #expect(await eventually(20) { address() != nil }, "\(seen.withLock { $0 })")
        let url = try #require(address())
        let run = try await Self.browser(url: url, scenario: "demo")
        #expect(run.status == 0, "\(run.text)")
        // The demo serves the dashboard too: its bots, live.
        let dashboard = seen.withLock { text in
            text.split(separator: "\n").first { $0.contains("dashboard: http://") }
                .flatMap { $0.split(separator: ":").last }.flatMap { Int($0.filter(\.isNumber)) }
        }
        let port = try #require(dashboard, "\(seen.withLock { $0 })")
        let fleet = try await RawHTTP.get(port: port, path: "/api/fleet")
        #expect(fleet.contains(#""name":"greeter""#) && fleet.contains(#""state":"online""#), "\(fleet)")
        kill(demo.processIdentifier, SIGINT)
        out.fileHandleForReading.readabilityHandler = nil
        #expect(await finish(demo).status == 0)
        // The demo's transcript shows the visitor among the people.
        #expect(seen.withLock { $0 }.contains("Visitor"), "\(seen.withLock { $0 })")
    }

    /// `--http`'s dashboard in the browser: the bot online, its counters
    /// rising while a person talks to it, a failing plugin's errors, the
    /// token required.
    @Test func theDashboardShowsTheFleetLive() async throws {
        let server = try await SocketChatServer.start(.init())
        defer { Task { await server.shutdown() } }
        let watch = FleetWatch()
        let transport = SocketIOTransport(endpoint: SocketIOEndpoint(host: "127.0.0.1", port: server.port), name: "parley", connectTimeout: 5)
        let broken = #"bot.command("boom", function() error("it broke") end)"#
        let bot = BotRunner(spec: try botSpec(name: "parley", port: server.port, plugins: [("broken", broken)], shippedPlugins: ["echo"],
                                              transport: transport), observer: watch.observing(Recorder().observer))
        let run = Task { await bot.run() }
        #expect(await eventually { await bot.state == .online })
        let bound = Atomic(0)
        var quiet = Logger(label: "test")
        quiet.logLevel = .critical
        let app = HTTPServer.application(host: "127.0.0.1", port: 0, runners: [bot], logger: quiet, watch: watch, token: "t0ken-for-the-test") {
            bound.store($0, ordering: .relaxed)
        }
        let http = Task { try await app.run() }
        #expect(await eventually(10) { bound.load(ordering: .relaxed) != 0 })
        let port = bound.load(ordering: .relaxed)
        let out = try await Self.browser(url: "http://127.0.0.1:\(port)/?token=t0ken-for-the-test", scenario: "dashboard",
                                         extra: ["--chat-url", "http://127.0.0.1:\(server.port)/"])
        #expect(out.status == 0, "\(out.text)")
        for step in ["refused (401)", "shown online", "loop is listed", "events counter rose", "errors are counted", "among the last log lines, newest first",
                     "at 1280 px every card's table fits"] {
            #expect(out.text.contains(step), "\(out.text)")
        }
        http.cancel()
        _ = await http.result
        await bot.stop()
        _ = await run.value
    }

    /// A person muted and then kicked by a bot: one notice per dropped
    /// message, and a closed message box once removed. The server has a
    /// moderator token, which the bot connects with: a visitor who picks the
    /// bot's name is refused and told why.
    @Test func aMutedThenKickedPersonSeesItOnThePage() async throws {
        let server = try await SocketChatServer.start(.init(moderators: ["mod"], moderatorToken: "t0ken-of-the-mods"))
        defer { Task { await server.shutdown() } }
        var options = SocketIOOptions()
        options.auth = ["token": "t0ken-of-the-mods"]
        let transport = SocketIOTransport(endpoint: SocketIOEndpoint(host: "127.0.0.1", port: server.port), name: "mod", options: options,
                                          connectTimeout: 5)
        let rules = """
        bot.hear("^mute me$", function(msg) bot.mute(msg.room, msg.user, 5, "asked") end)
        bot.hear("^kick me$", function(msg) bot.kick(msg.room, msg.user, "asked") end)
        """
        let bot = BotRunner(spec: try botSpec(name: "mod", port: server.port, plugins: [("rules", rules)], transport: transport),
                            observer: Recorder().observer)
        let run = Task { await bot.run() }
        #expect(await eventually { await bot.state == .online })
        let out = try await Self.browser(url: "http://127.0.0.1:\(server.port)/", scenario: "moderated")
        #expect(out.status == 0, "\(out.text)")
        for step in ["a moderator's name is refused", "picks another name", "taken over from another window", "one notice",
                     "message box is closed", "Leave says so"] {
            #expect(out.text.contains(step), "\(out.text)")
        }
        await bot.stop()
        _ = await run.value
    }

    /// The server goes away under a joined page: its message box closes,
    /// keeping what was typed, and the people list empties. Back on the same
    /// port, the page reconnects by itself and rejoins under its name.
    @Test func aLostConnectionClosesTheMessageBoxAndThePageComesBack() async throws {
        let server = try await SocketChatServer.start(.init())
        let port = server.port
        let watcher = try await Person("watcher", transport: SocketIOTransport(endpoint: SocketIOEndpoint(host: "127.0.0.1", port: port),
                                                                            name: "watcher", connectTimeout: 5))
        let page = Task { try await Self.browser(url: "http://127.0.0.1:\(port)/", scenario: "lost") }
        #expect(await eventually(60) { watcher.joins(of: "Lou") >= 1 })
        try await Task.sleep(for: .seconds(1.5))   // the page types into its box
        await watcher.leave()
        await server.shutdown()
        // Down long enough for the page to see it and fail a reconnect or two.
        try await Task.sleep(for: .seconds(4))
        var again = SocketChatServer.Configuration()
        again.port = port
        let restarted = try await SocketChatServer.start(again)
        defer { Task { await restarted.shutdown() } }
        let out = try await page.value
        #expect(out.status == 0, "\(out.text)")
        #expect(out.text.contains("the box is closed, what was typed stays, the people list is empty"), "\(out.text)")
        #expect(out.text.contains("reconnected by itself as Lou, and what was typed went out"), "\(out.text)")
    }

    @Test func thePageShipsInTheBinaryWithItsSecurityHeaders() async throws {
        let server = try await SocketChatServer.start(.init())
        defer { Task { await server.shutdown() } }
        let raw = try await RawHTTP.get(port: server.port, path: "/?room=dev")
        #expect(raw.hasPrefix("HTTP/1.1 200"))
        #expect(raw.contains("Content-Security-Policy: default-src 'none'; script-src 'self'"))
        #expect(raw.contains("<script src=\"/chat.js\" defer></script>"))
        let js = try await RawHTTP.get(port: server.port, path: "/chat.js")
        #expect(js.contains("text/javascript") && js.contains("EIO=4&transport=websocket"))
        // Engine.IO still answers beside it.
        let eio = try await RawHTTP.get(port: server.port, path: "/socket.io/?EIO=4&transport=polling")
        #expect(eio.contains("\"sid\""))
    }

    /// The server, the bots and the typist; `body` gets the page's URL.
    private func withChat(_ body: (String) async throws -> Void) async throws {
        let server = try await SocketChatServer.start(.init())
        defer { Task { await server.shutdown() } }
        func transport(_ name: String) -> SocketIOTransport {
            SocketIOTransport(endpoint: SocketIOEndpoint(host: "127.0.0.1", port: server.port), name: name, connectTimeout: 5)
        }
        let bot = BotRunner(spec: try botSpec(name: "parley", port: server.port, plugins: [], shippedPlugins: ["echo"],
                                              transport: transport("parley")), observer: Recorder().observer)
        let greeter = BotRunner(spec: try botSpec(name: "greeter", port: server.port, plugins: [], shippedPlugins: ["greeter"],
                                                  transport: transport("greeter")), observer: Recorder().observer)
        let runs = [Task { await bot.run() }, Task { await greeter.run() }]
        #expect(await eventually { await bot.state == .online })
        #expect(await eventually { await greeter.state == .online })
        let typist = try await Person("typist", transport: transport("typist"))
        let typing = Task {
            while !Task.isCancelled {
                try? typist.typing(true)
                try? await Task.sleep(for: .milliseconds(700))
            }
        }
        try await body("http://127.0.0.1:\(server.port)/")
        typing.cancel()
        await typist.leave()
        await bot.stop()
        await greeter.stop()
        for r in runs { _ = await r.value }
    }

    private static func browser(url: String, scenario: String, extra: [String] = []) async throws -> (status: Int32, text: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: PythonPeer.python)
        p.arguments = [packageRoot.appendingPathComponent("Tests/Fixtures/python/browser_chat.py").path,
                       "--url", url, "--scenario", scenario, "--screenshots", screenshots] + extra
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        try p.run()
        let r = await finish(p, stdout: out)
        return (r.status, r.stdout)
    }
}

/// One GET over a plain socket, the whole answer as text.
enum RawHTTP {
    /// A blocking TCP socket connected to 127.0.0.1:`port`, or nil; the caller closes it.
    static func connected(port: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let ok = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 } }
        if ok { return fd }
        close(fd)
        return nil
    }

    static func get(port: Int, path: String) async throws -> String {
        try await request("GET", port: port, path: path)
    }

    /// `headers`: whole lines, such as `"Authorization: Bearer x"`.
    static func request(_ method: String, port: Int, path: String, headers: [String] = []) async throws -> String {
        // A blocking read, so on a thread of its own: on the pool, two of them
        // would hold both its threads while the server's handler waits for one.
        try await onOwnThread {
            guard let fd = connected(port: port) else { throw PeerError("cannot connect to \(port)") }
            defer { close(fd) }
            // A server that never answers fails the request instead of holding a thread for ever.
            var wait = timeval(tv_sec: 30, tv_usec: 0)
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
            let request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                + headers.map { $0 + "\r\n" }.joined() + "Content-Length: 0\r\n\r\n"
            _ = request.withCString { send(fd, $0, strlen($0), 0) }
            var data = [UInt8]()
            var buf = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = recv(fd, &buf, buf.count, 0)
                if n <= 0 { break }
                data += buf[0..<n]
            }
            return String(decoding: data, as: UTF8.self)
        }
    }
}
