import Foundation
import Synchronization
import ParleyCore
import ParleyStore
import ParleyLua
import ParleyRuntime
import ParleyStreamChat

/// Simulated users per process: N users, each a full Parley bot (its own
/// plugin VM, presence loop and StreamChat connection), greeted by a greeter
/// bot, each sending a message now and then. Prints RSS per user, messages/s
/// and the greeting latency (join → the user hears its welcome).
///
/// StreamChat is one room per server and every line goes to everyone, so a
/// single room of N users costs N² deliveries; the users are spread over
/// rooms (servers) of `roomSize` users each, a greeter in every room (like
/// the rooms of a real deployment; `--room-size`, 250 by default). The
/// servers run in a child process so the RSS measured is the users' alone.
enum UsersBench {
    static let defaultRoomSize = 250

    static let userPlugin = """
    -- A load-test user: says hello once at a random moment, then every `every` seconds.
    local every = bot.config.every or 60
    bot.after(0.1 + math.random() * every, function()
      bot.send("lobby", "hello from " .. bot.name)
      bot.every(every, function() bot.send("lobby", "still here, " .. bot.name) end)
    end)
    """

    /// Child mode: `--serve-shards K` starts K servers, prints their ports, runs until stdin closes.
    static func serveShards(_ k: Int) async throws {
        var servers: [StreamChatServer] = []
        for _ in 0..<k { servers.append(try await StreamChatServer.start(.init(loginTimeout: nil))) }
        FileHandle.standardOutput.write(Data((servers.map { String($0.port) }.joined(separator: " ") + "\n").utf8))
        _ = FileHandle.standardInput.readDataToEndOfFile()
        for s in servers { await s.shutdown() }
    }

    static func residentKiB(pid: Int32? = nil) -> Int {
        BenchProcess.statusKiB(pid ?? getpid(), "VmRSS:") ?? 0
    }

    struct Result {
        var users: Int
        var rssPerUserKiB: Double
        var messagesPerSecond: Double
        var deliveriesPerSecond: Double
        var greetP50: Double
        var greetP99: Double
        var greeted: Int
        var serverRSSMiB: Double
        /// A person's plugin VM, as the dashboard counts it (the Lua heap):
        /// the part of the RSS that the plugin API's prelude decides.
        var luaHeapKiB: Double
    }

    static func run(counts: [Int], roomSize: Int = defaultRoomSize, steadySeconds: Double) async throws {
        print("\n== Simulated users per process (StreamChat, rooms of \(roomSize) users, a server and a greeter per room, servers in a child process) ==")
        print("peer: the same number of bare StreamChat connections (the transport alone, no bot), same process layout")
        print("users    RSS/user  bare/user  ratio   sends/s  deliveries/s  greet p50   greet p99   greeted  server RSS   Lua heap/user")
        for n in counts {
            let bare = try child(["bare", String(n), String(roomSize)]).first ?? .nan
            let f = try child(["bots", String(n), String(roomSize), String(steadySeconds)])
            guard f.count == 8 else { throw BenchError("the users child printed \(f.count) figures, wanted 8") }
            let r = Result(users: n, rssPerUserKiB: f[0], messagesPerSecond: f[1], deliveriesPerSecond: f[2],
                           greetP50: f[3], greetP99: f[4], greeted: Int(f[5]), serverRSSMiB: f[6], luaHeapKiB: f[7])
            print(String(format: "%6d  %6.1f KiB  %5.1f KiB  %5.1fx  %7.1f  %12.0f  %7.1f ms  %8.1f ms  %7d  %7.1f MiB  %7.2f KiB",
                         r.users, r.rssPerUserKiB, bare, r.rssPerUserKiB / bare, r.messagesPerSecond, r.deliveriesPerSecond,
                         r.greetP50 * 1000, r.greetP99 * 1000, r.greeted, r.serverRSSMiB, r.luaHeapKiB))
        }
        print("targets: 10,000 users in rooms of 100: everyone greeted, greeting p99 <= 2 s, <= 48 KiB RSS each")
    }

    /// One measurement in a fresh process (`--users-child bare N` or `bots N
    /// SECONDS`), so no run inherits the heap an earlier one left behind (the
    /// allocator keeps freed memory, and a later run's baseline would already
    /// hold it, understating its per-user cost). Returns the figures it printed.
    static func child(_ arguments: [String]) throws -> [Double] {
        let out = try runProcess(CommandLine.arguments[0], ["--users-child"] + arguments)
        let last = out.split(separator: "\n").last ?? ""
        return last.split(separator: " ").compactMap { Double($0) }
    }

    /// The child's side of `child`: measures, prints the figures on one line.
    static func runChild(_ arguments: [String]) async throws {
        guard arguments.count >= 3, let n = Int(arguments[1]), let roomSize = Int(arguments[2]) else {
            throw BenchError("--users-child bare N ROOM_SIZE | bots N ROOM_SIZE SECONDS")
        }
        switch arguments[0] {
        case "bare":
            say(String(try await measureBare(users: n, roomSize: roomSize)))
        case "bots":
            let r = try await measure(users: n, roomSize: roomSize, steadySeconds: arguments.count > 3 ? Double(arguments[3]) ?? 5 : 5)
            say([r.rssPerUserKiB, r.messagesPerSecond, r.deliveriesPerSecond, r.greetP50, r.greetP99, Double(r.greeted),
                 r.serverRSSMiB, r.luaHeapKiB].map { String($0) }.joined(separator: " "))
        default:
            throw BenchError("--users-child bare N ROOM_SIZE | bots N ROOM_SIZE SECONDS")
        }
        // Written at once (stdout is a pipe, so `print` would buffer it past `exit`).
        func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    }

    /// The peer: N plain StreamChat sessions that read and discard, RSS per connection.
    static func measureBare(users n: Int, roomSize: Int) async throws -> Double {
        let (child, input, ports) = try startServers(shards: (n + roomSize - 1) / roomSize)
        defer { try? input.fileHandleForWriting.close(); child.waitUntilExit() }
        let rss0 = residentKiB()
        var sessions: [any TransportSession] = []
        var readers: [Task<Void, Never>] = []
        for i in 0..<n {
            let s = try await StreamChatTransport(host: "127.0.0.1", port: ports[i / roomSize], name: "b\(i)").connect()
            sessions.append(s)
            readers.append(Task { do { for try await _ in s.events {} } catch {} })
        }
        try await Task.sleep(for: .seconds(2))
        let perUser = Double(residentKiB() - rss0) / Double(n)
        for s in sessions { await s.close() }
        for r in readers { _ = await r.value }
        return perUser
    }

    /// Starts the child process with the servers; returns it, its stdin (close to stop it) and the ports.
    static func startServers(shards: Int) throws -> (Process, Pipe, [Int]) {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = ["--serve-shards", String(shards)]
        let out = Pipe(), input = Pipe()
        child.standardOutput = out
        child.standardInput = input
        try child.run()
        var line = Data()
        while !line.contains(0x0A) {
            let d = out.fileHandleForReading.availableData
            if d.isEmpty { break }
            line.append(d)
        }
        let ports = String(decoding: line, as: UTF8.self).split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        guard ports.count == shards else { throw BenchError("the server child printed \(ports.count) ports, wanted \(shards)") }
        return (child, input, ports)
    }

    static func measure(users n: Int, roomSize: Int, steadySeconds: Double) async throws -> Result {
        let shards = (n + roomSize - 1) / roomSize
        let (child, input, ports) = try startServers(shards: shards)
        defer { try? input.fileHandleForWriting.close(); child.waitUntilExit() }

        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-users-bench-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let userFile = dir.appendingPathComponent("loaduser.lua").path
        try userPlugin.write(toFile: userFile, atomically: true, encoding: .utf8)
        let greeterFile = FileManager.default.currentDirectoryPath + "/Plugins/greeter.lua"

        let clock = Tally()
        var observer = RuntimeObserver { _ in }
        observer.connection = { bot, state in if state == .online { clock.online(bot) } }
        observer.event = { bot, event in
            clock.delivery()
            if case .message(let m) = event, m.user.hasPrefix("greeter"), m.text.hasSuffix(" \(bot)!") { clock.greeted(bot) }
        }
        observer.sent = { bot, _, _, _ in if !bot.hasPrefix("greeter") { clock.sent() } }

        func spec(_ name: String, port: Int, plugin: (String, String), config: [(String, LuaValue)]) -> BotSpec {
            var o = BotOptions(name: name)
            o.pluginConfig[plugin.0] = .record(config)
            o.randomSeed = Int64(name.hashValue)
            // Load users keep no history to speak of: the bench measures connections, not archives.
            o.history = HistoryRetention(maxMessagesPerRoom: 1)
            // No outgoing rate cap: one greeter per shard welcomes thousands of
            // arrivals, and the bench times the runtime, not a polite bot.
            var flow = FlowOptions()
            flow.sendRate = 0
            return BotSpec(options: o, plugins: [.init(name: plugin.0, path: plugin.1)], presence: PresenceOptions(),
                           transport: StreamChatTransport(host: "127.0.0.1", port: port, name: name), flow: flow)
        }
        let greeters = ports.enumerated().map { i, port in
            BotRunner(spec: spec("greeter\(i)", port: port, plugin: ("greeter", greeterFile), config: []), observer: observer)
        }
        var tasks = greeters.map { g in Task { await g.run() } }
        for g in greeters { while await g.state != .online { try await Task.sleep(for: .milliseconds(5)) } }
        let rss0 = residentKiB()

        let users = (0..<n).map { i in
            BotRunner(spec: spec("u\(i)", port: ports[i / roomSize], plugin: ("loaduser", userFile), config: [("every", .int(30))]),
                      observer: observer)
        }
        let connectStart = Date()
        for batch in stride(from: 0, to: n, by: 100) {
            for u in users[batch..<min(n, batch + 100)] { tasks.append(Task { await u.run() }) }
            while clock.onlineCount < greeters.count + min(n, batch + 100), Date().timeIntervalSince(connectStart) < 300 {
                try await Task.sleep(for: .milliseconds(5))
            }
        }
        let steadyStart = Date()
        let sent0 = clock.sentCount, deliveries0 = clock.deliveryCount
        try await Task.sleep(for: .milliseconds(Int(steadySeconds * 1000)))
        let elapsed = Date().timeIntervalSince(steadyStart)
        let rss1 = residentKiB()
        // `PARLEY_EXIT_AT_MEASURE=1`: stop right here, everything still live, so
        // heaptrack reports by allocation site exactly what the figure counts.
        if ProcessInfo.processInfo.environment["PARLEY_EXIT_AT_MEASURE"] == "1" { exit(0) }
        let serverRSS = residentKiB(pid: child.processIdentifier)
        // The dashboard's report holds up to 100 bots: enough for a mean of identical people.
        let heaps = await FleetWatch().report(users).bots.flatMap(\.plugins).map(\.memoryBytes)
        let result = Result(
            users: n, rssPerUserKiB: Double(rss1 - rss0) / Double(n),
            messagesPerSecond: Double(clock.sentCount - sent0) / elapsed,
            deliveriesPerSecond: Double(clock.deliveryCount - deliveries0) / elapsed,
            greetP50: clock.latency(0.5), greetP99: clock.latency(0.99), greeted: clock.greetedCount,
            serverRSSMiB: Double(serverRSS) / 1024,
            luaHeapKiB: heaps.isEmpty ? .nan : Double(heaps.reduce(0, +)) / Double(heaps.count) / 1024)
        await withTaskGroup(of: Void.self) { group in
            for u in users { group.addTask { await u.stop(drainTimeout: 0) } }
            for g in greeters { group.addTask { await g.stop(drainTimeout: 0) } }
        }
        for t in tasks { _ = await t.value }
        try? FileManager.default.removeItem(at: dir)
        return result
    }

    /// Counters the observer updates from many threads. The two per-line
    /// counts are atomics: under one lock, every loop's every delivery would
    /// contend for it, and the bench would time its own lock.
    final class Tally: @unchecked Sendable {
        private let lock = NSLock()
        private var onlineAt: [String: Date] = [:]
        private var latencies: [Double] = []
        private var greetedUsers: Set<String> = []
        private let sends = Atomic<Int>(0)
        private let deliveries = Atomic<Int>(0)

        func online(_ bot: String) { lock.withLock { if onlineAt[bot] == nil { onlineAt[bot] = Date() } } }
        var onlineCount: Int { lock.withLock { onlineAt.count } }
        func sent() { sends.add(1, ordering: .relaxed) }
        func delivery() { deliveries.add(1, ordering: .relaxed) }
        var sentCount: Int { sends.load(ordering: .relaxed) }
        var deliveryCount: Int { deliveries.load(ordering: .relaxed) }
        func greeted(_ bot: String) {
            lock.withLock {
                guard greetedUsers.insert(bot).inserted, let t = onlineAt[bot] else { return }
                latencies.append(Date().timeIntervalSince(t))
            }
        }
        var greetedCount: Int { lock.withLock { greetedUsers.count } }
        func latency(_ q: Double) -> Double {
            lock.withLock {
                guard !latencies.isEmpty else { return .nan }
                let s = latencies.sorted()
                return s[min(s.count - 1, Int(Double(s.count) * q))]
            }
        }
    }
}
