import Foundation
import ParleyCore
import ParleyStore
import ParleyLua
import ParleyRuntime
import ParleyStreamChat
import Synchronization

/// The flood figures: 10,000 incoming messages a second for 60 s
/// against the shipped moderator (journal with `fsync = "always"`, default
/// `[bot.flow]`), over the embedded StreamChat server.
///
/// The bot runs in its own process (`--flood-bot`) so its peak RSS is its
/// own, read from /proc. Four flooders and a watcher run here. The watcher
/// times every message the bot sends (the rate cap must hold in every
/// one-second window) and sends the canary: once mid-flood, once as the
/// flood ends; the canary plugin answers "tweet". The figures are absolute:
/// the issue sets bounds (bounded memory, cap held, canary within 1 s), not a
/// ratio against a peer.
enum FloodBench {
    static let botName = "moderator"
    static let flooders = 4
    static let historyMax = 10_000

    /// A stand-in for a person's second plugin: answers "!canary" at once.
    static let canaryPlugin = """
    -- Answers "!canary" with "tweet": proof the bot still listens in a flood.
    bot.command("canary", function(msg) msg:reply("tweet") end)
    """

    static func run(seconds: Double, rate: Int) async throws {
        print("\n== flood: \(rate) messages/s for \(Int(seconds)) s against the moderator (fsync always, default [bot.flow])")
        let server = try await StreamChatServer.start(.init(host: "127.0.0.1", port: 0, loginTimeout: nil))
        let dir = try BenchProcess.scratchDirectory("parley-flood")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let bot = try BenchChild(role: "flood bot (ParleyBench --flood-bot)", executable: BenchProcess.executable,
                                 arguments: ["--flood-bot", String(server.port), dir])
        _ = try bot.line(startingWith: "READY", timeout: 30)

        let watcher = try await Watcher.join(port: server.port)
        var senders: [any TransportSession] = []
        for i in 1...flooders {
            let s = try await StreamChatTransport(host: "127.0.0.1", port: server.port, name: "flooder\(i)").connect()
            // Flooders hear the room too; drain it so nothing piles up here.
            Task { do { for try await _ in s.events {} } catch {} }
            senders.append(s)
        }
        try await Task.sleep(for: .milliseconds(300))

        let rss = RSSSampler(pid: bot.pid)
        let sampling = Task { await rss.run() }
        let start = ContinuousClock.now
        let midCanary = Task {
            try? await Task.sleep(for: .seconds(seconds / 2))
            return await watcher.canary()
        }
        let sent = try await withThrowingTaskGroup(of: Int.self) { group in
            for (i, s) in senders.enumerated() {
                group.addTask { [start] in
                    let perFlooder = Double(rate) / Double(flooders)
                    var n = 0
                    while true {
                        let elapsed = (ContinuousClock.now - start) / .seconds(1)
                        if elapsed >= seconds { break }
                        // Catch up to the schedule, then wait a tick: paced, not bursty.
                        let due = Int(elapsed * perFlooder)
                        while n < due {
                            n += 1
                            // One in twenty swears, so the moderator has real work too.
                            let text = n % 20 == 0 ? "darn it, message \(n)" : "flood \(i) message \(n)"
                            try await s.send(OutgoingMessage(id: "", room: "lobby", text: text))
                        }
                        try await Task.sleep(for: .milliseconds(5))
                    }
                    return n
                }
            }
            return try await group.reduce(0, +)
        }
        let floodSeconds = (ContinuousClock.now - start) / .seconds(1)
        let endCanary = await watcher.canary()
        let mid = await midCanary.value
        try await Task.sleep(for: .seconds(1))
        sampling.cancel()
        let peak = rss.peakKiB, hwm = BenchProcess.highWaterKiB(bot.pid)
        let curve = [0.25, 0.5, 0.75, 1.0].map { f in "\(Int(seconds * f)) s: \(rss.peak(before: seconds * f + 0.5) / 1024)" }
        let relayed = server.stats.messagesRelayed
        bot.stop()
        for s in senders { await s.leave() }
        await watcher.leave()
        await server.shutdown()
        let stats = ((try? String(contentsOfFile: dir + "/stats.txt", encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let shed = Int(stats.split(separator: " ").first { $0.hasPrefix("shed=") }?.dropFirst(5) ?? "") ?? -1
        let events = Int(stats.split(separator: " ").first { $0.hasPrefix("messages=") }?.dropFirst(9) ?? "") ?? -1

        let window = watcher.maxInOneSecond()
        let flow = FlowOptions()
        print("  offered        \(sent) messages in \(JournalBench.fmt(floodSeconds, 1)) s = \(sent / max(1, Int(floodSeconds))) /s (server relayed \(relayed) lines)")
        print("  bot received   \(events) messages; shed \(shed) (room_queue \(flow.roomQueue), drop-oldest), handled \(events - shed)")
        print("  bot RSS        peak \(peak / 1024) MiB (VmHWM \(hwm / 1024) MiB); peak so far at \(curve.joined(separator: ", ")) MiB")
        print("                 (bounded by room_queue \(flow.roomQueue) events + history_max \(historyMax) messages + outbox_sends \(PluginLimits().outboxSends) per plugin)")
        print("  bot sends      most in any 1 s: \(window) (cap: send_rate \(Int(flow.sendRate))/s, burst \(flow.sendBurst)) \(window <= flow.sendBurst + Int(flow.sendRate) ? "held" : "EXCEEDED")")
        print("  canary         mid-flood \(ms(mid)) ms, at the end \(ms(endCanary)) ms \(endCanary < 1 ? "(within 1 s)" : "(OVER 1 s)")")
    }

    static func ms(_ seconds: Double) -> String { seconds.isFinite ? String(format: "%.0f", seconds * 1000) : "never" }

    // MARK: the bot's process

    /// `--flood-bot PORT DIR`: the moderator and the canary plugin, journal in
    /// DIR, default flow options. READY once online; on stdin EOF writes
    /// `DIR/stats.txt` and exits.
    static func bot(port: Int, dir: String) async throws {
        SocketIOBench.resetTerminationSignals()
        let root = FileManager.default.currentDirectoryPath
        let moderator = root + "/Plugins/moderator.lua"
        guard FileManager.default.fileExists(atPath: moderator) else { throw BenchError("\(moderator) not found: run from the package root") }
        let canary = dir + "/canary.lua"
        try canaryPlugin.write(toFile: canary, atomically: true, encoding: .utf8)
        // History is kept in memory up to history_max per room (100,000 by
        // default): a 10,000 cap lets the run reach every bound it has
        // (queue, history, outbox), so a flat RSS curve shows they hold.
        var options = BotOptions(name: botName)
        options.history = HistoryRetention(maxMessagesPerRoom: historyMax)
        let spec = BotSpec(options: options,
                           plugins: [.init(name: "moderator", path: moderator), .init(name: "canary", path: canary)],
                           presence: PresenceOptions(),
                           transport: StreamChatTransport(host: "127.0.0.1", port: port, name: botName),
                           journal: dir + "/journal", fsync: .always)
        let ready = OnceFlag(), messages = Mutex(0)
        var observer = RuntimeObserver { r in
            // Shedding and quota lines are the point; print the first few, not thousands.
            if r.level == .error, r.text.hasPrefix("stopping") { FileHandle.standardError.write(Data("flood bot: \(r.text)\n".utf8)) }
        }
        observer.connection = { _, state in
            if state == .online, ready.set() { FileHandle.standardOutput.write(Data("READY\n".utf8)) }
        }
        observer.event = { _, e in if case .message = e { messages.withLock { $0 += 1 } } }
        let runner = BotRunner(spec: spec, observer: observer)
        let run = Task { await runner.run() }
        await SocketIOBench.stdinClosed()
        // Read after the stop: the runner reports shedding once a second and
        // when the session ends, so only then is the count complete.
        await runner.stop(drainTimeout: 0)
        _ = await run.value
        let shed = await runner.stats.eventsShed
        try "shed=\(shed) messages=\(messages.withLock { $0 })\n".write(toFile: dir + "/stats.txt", atomically: true, encoding: .utf8)
    }
}

/// The person who watches the bot: times its sends and sends canaries.
final class Watcher: Sendable {
    private let session: any TransportSession
    private let times = Mutex<[Double]>([])
    private let tweets = Mutex<[Double]>([])

    private init(session: any TransportSession) { self.session = session }

    static func join(port: Int) async throws -> Watcher {
        let s = try await StreamChatTransport(host: "127.0.0.1", port: port, name: "watcher").connect()
        let w = Watcher(session: s)
        Task {
            do {
                for try await e in s.events {
                    guard case .chat(.message(let m)) = e, m.user == FloodBench.botName else { continue }
                    let t = Double(monoNow()) / 1e9
                    w.times.withLock { $0.append(t) }
                    if m.text == "tweet" { w.tweets.withLock { $0.append(t) } }
                }
            } catch {}
        }
        return w
    }

    /// Sends "!canary" and returns the seconds until the bot's "tweet" (infinity after 10 s).
    func canary() async -> Double {
        let before = tweets.withLock { $0.count }
        let sent = Double(monoNow()) / 1e9
        do { try await session.send(OutgoingMessage(id: "", room: "lobby", text: "!canary")) } catch { return .infinity }
        while Double(monoNow()) / 1e9 - sent < 10 {
            if let t = tweets.withLock({ $0.count > before ? $0[before] : nil }) { return t - sent }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return .infinity
    }

    /// The most messages the bot sent in any one-second window.
    func maxInOneSecond() -> Int {
        let t = times.withLock { $0 }
        var best = 0, lo = 0
        for hi in t.indices {
            while t[hi] - t[lo] >= 1 { lo += 1 }
            best = max(best, hi - lo + 1)
        }
        return best
    }

    func leave() async { await session.leave() }
}

/// The bot process's resident memory, sampled every 250 ms.
final class RSSSampler: Sendable {
    private let pid: Int32
    private let samples = Mutex<[(t: Double, kib: Int)]>([])
    private let start = Double(monoNow()) / 1e9

    init(pid: Int32) { self.pid = pid }

    func run() async {
        while !Task.isCancelled {
            if let kib = BenchProcess.statusKiB(pid, "VmRSS:") {
                let t = Double(monoNow()) / 1e9 - start
                samples.withLock { $0.append((t, kib)) }
            }
            try? await Task.sleep(for: .milliseconds(250))
        }
    }

    var peakKiB: Int { samples.withLock { $0.map(\.kib).max() ?? 0 } }
    func peak(before t: Double) -> Int { samples.withLock { $0.filter { $0.t < t }.map(\.kib).max() ?? 0 } }
}
