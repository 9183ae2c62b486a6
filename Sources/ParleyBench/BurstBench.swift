import Foundation
import ParleyCore
import ParleyJournal
import ParleyRuntime
import ParleySocketIO
import Synchronization

/// Replies per second against offered load for a bot with a journal, through
/// the embedded SocketChat server: the greeter, echo and moderator plugins,
/// every message `!echo hello N darn` (two replies and a state write each),
/// no rate cap in the way. One curve per fsync policy (`always`, `interval`,
/// no journal), from the same run, so the durable one is judged against the
/// relaxed ones on the same machine at the same time.
///
/// Each point is a fresh server, a fresh bot process (`--burst-bot`) and a
/// fresh journal. Replies per second count what the room received while the
/// load was offered (a bot that holds its replies back until the burst ends
/// scores what it delivered meanwhile); latency is from a message's send to
/// its echo.
enum BurstBench {
    static let policies = ["always", "interval", "none"]
    static let flooders = 4

    struct Point {
        var rate: Int
        var offered: Int
        /// Messages a second the load generator managed (below `rate` when it could not keep up).
        var achieved: Double
        var repliesPerSecond: Double
        var p50: Double
        var p99: Double
        var refused: Int
    }

    static func run(quick: Bool, svgPath: String = ".build/bench/burst.svg") async throws {
        BenchProcess.settleDisk()
        // Past 1,600 to find where each bot saturates: the plateau is what the policies are compared on.
        let rates = quick ? [100, 400, 1600, 6400] : [100, 200, 400, 800, 1200, 1600, 3200, 6400]
        let seconds = quick ? 3.0 : 6.0
        print("\n== burst: replies/s against offered load, greeter + echo + moderator, `!echo hello N darn`, \(Int(seconds)) s a point")
        let sync = try fdatasyncLatency()
        print("  this disk: fdatasync p50 \(JournalBench.fmt(sync.p50 * 1000, 2)) ms, p99 \(JournalBench.fmt(sync.p99 * 1000, 2)) ms (\(sync.count) syncs of 4 KiB)")
        var curves: [String: [Point]] = [:]
        for policy in policies {
            for rate in rates {
                let p = try await measure(policy: policy, rate: rate, seconds: seconds)
                curves[policy, default: []].append(p)
            }
        }
        print("  offered/s (sent/s) " + policies.map { pad($0 == "none" ? "no journal" : $0, 24) }.joined())
        print("                     " + policies.map { _ in pad("replies/s  p99 ms  full", 24) }.joined())
        for (i, rate) in rates.enumerated() {
            let achieved = policies.map { curves[$0]![i].achieved }.min() ?? 0
            var line = pad("\(rate) (\(Int(achieved)))", 19)
            for policy in policies {
                let p = curves[policy]![i]
                line += pad(String(format: "%9.0f  %6.1f  %4d", p.repliesPerSecond, p.p99 * 1000, p.refused), 24)
            }
            print("  " + line)
        }
        // Verdicts.
        func plateau(_ policy: String) -> Double { curves[policy]!.map(\.repliesPerSecond).max() ?? 0 }
        for policy in policies {
            let ys = curves[policy]!.map(\.repliesPerSecond)
            var best = 0.0, fell = false
            for y in ys { if y < best * 0.9 { fell = true }; best = max(best, y) }
            print("  \(policy): plateau \(Int(plateau(policy))) replies/s, \(fell ? "FALLS BACK under overload" : "no collapse (never below 90% of the best so far)")")
        }
        let ratio = plateau("always") / max(1, plateau("interval"))
        print("  always / interval plateau: \(JournalBench.fmt(ratio, 2)) (target ≥ 0.80) \(ratio >= 0.8 ? "met" : "NOT met")")
        if let at400 = curves["always"]!.first(where: { $0.rate == 400 }) {
            print("  always at 400 msg/s: reply p99 \(JournalBench.fmt(at400.p99 * 1000, 1)) ms (target ≤ 20) \(at400.p99 <= 0.020 ? "met" : "NOT met")")
        }
        try FileManager.default.createDirectory(atPath: (svgPath as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try svg(curves: curves, rates: rates).write(toFile: svgPath, atomically: true, encoding: .utf8)
        print("  plot: \(svgPath)")
    }

    static func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s + " " : s + String(repeating: " ", count: n - s.count) }

    /// What one point's load generator saw, from its tasks.
    final class Log: Sendable {
        let sentAt = Mutex<[Int: UInt64]>([:])
        let replies = Mutex<[(n: Int?, at: UInt64)]>([])
    }

    /// One point: a fresh server and bot, `rate` messages a second for `seconds`.
    static func measure(policy: String, rate: Int, seconds: Double) async throws -> Point {
        let server = try await SocketChatServer.start(.init())
        defer { Task { await server.shutdown() } }
        let dir = try BenchProcess.scratchDirectory("parley-burst-\(policy)-\(rate)")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let bot = try BenchChild(role: "burst bot (ParleyBench --burst-bot)", executable: BenchProcess.executable,
                                 arguments: ["--burst-bot", String(server.port), dir, policy])
        var stopped = false
        defer { if !stopped { bot.stop() } }
        _ = try bot.line(startingWith: "READY", timeout: 30)

        let log = Log()
        var sessions: [any TransportSession] = []
        for i in 1...flooders {
            let s = try await SocketIOTransport(endpoint: SocketIOEndpoint(host: "127.0.0.1", port: server.port),
                                                name: "flooder\(i)", connectTimeout: 5).connect()
            let listen = i == 1
            Task {
                do {
                    for try await e in s.events {
                        guard listen, case .chat(.message(let m)) = e, m.user == "bot" else { continue }
                        // The echo is "hello N darn"; the moderator's warnings carry no number.
                        let words = m.text.split(separator: " ")
                        let n = words.count == 3 && words[0] == "hello" ? Int(words[1]) : nil
                        log.replies.withLock { $0.append((n, monoNow())) }
                    }
                } catch {}
            }
            sessions.append(s)
        }
        try await Task.sleep(for: .milliseconds(300))
        log.replies.withLock { $0.removeAll() }

        let start = monoNow()
        let total = Int(Double(rate) * seconds)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (i, s) in sessions.enumerated() {
                group.addTask {
                    // Flooder i sends messages i, i + 4, i + 8, …, each on its schedule.
                    var n = i + 1
                    while n <= total {
                        let due = start + UInt64(Double(n - 1) / Double(rate) * 1e9)
                        let now = monoNow()
                        if due > now { try await Task.sleep(for: .nanoseconds(Int(due - now))) }
                        log.sentAt.withLock { $0[n] = monoNow() }
                        try await s.send(OutgoingMessage(id: "", room: "lobby", text: "!echo hello \(n) darn"))
                        n += flooders
                    }
                }
            }
            try await group.waitForAll()
        }
        let sentFor = Double(monoNow() - start) / 1e9
        let end = start + UInt64(seconds * 1e9)
        // The stragglers, for latency (not counted as throughput).
        try await Task.sleep(for: .seconds(2))
        for s in sessions { await s.leave() }
        let got = log.replies.withLock { $0 }
        let sent = log.sentAt.withLock { $0 }
        let inWindow = got.filter { $0.at <= end }.count
        var latencies: [Double] = []
        for r in got { if let n = r.n, let t = sent[n], r.at >= t { latencies.append(Double(r.at - t) / 1e9) } }
        latencies.sort()
        let missing = total - latencies.count
        let p99 = missing > total / 100 ? Double.infinity : SocketIOBench.percentile(latencies, 0.99)
        bot.stop()
        stopped = true
        let refused = Int((try? String(contentsOfFile: dir + "/refused.txt", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? -1
        return Point(rate: rate, offered: total, achieved: Double(total) / max(seconds, sentFor), repliesPerSecond: Double(inWindow) / seconds,
                     p50: SocketIOBench.percentile(latencies, 0.5), p99: p99, refused: refused)
    }

    /// `--burst-bot PORT DIR POLICY`: greeter, echo and moderator on the
    /// embedded SocketChat server at PORT, journal in DIR with fsync POLICY
    /// (`none`: no journal), no rate cap. READY once online; on stdin EOF
    /// writes the count of `outbox full` refusals to DIR/refused.txt and exits.
    static func bot(port: Int, dir: String, policy: String) async throws {
        SocketIOBench.resetTerminationSignals()
        let root = FileManager.default.currentDirectoryPath + "/Plugins/"
        let plugins = ["greeter", "echo", "moderator"].map { BotSpec.PluginFile(name: $0, path: root + $0 + ".lua") }
        guard plugins.allSatisfy({ FileManager.default.fileExists(atPath: $0.path) }) else {
            throw BenchError("\(root) has no greeter, echo and moderator: run from the package root")
        }
        var flow = FlowOptions()
        flow.sendRate = 100_000
        flow.sendBurst = 100_000
        let fsync: FsyncPolicy = policy == "interval" ? .interval(milliseconds: 1000) : .always
        let spec = BotSpec(options: BotOptions(name: "bot"), plugins: plugins, presence: PresenceOptions(),
                           transport: SocketIOTransport(endpoint: SocketIOEndpoint(host: "127.0.0.1", port: port), name: "bot"),
                           journal: policy == "none" ? nil : dir + "/journal", fsync: fsync, flow: flow)
        let ready = OnceFlag(), refused = Mutex(0)
        var observer = RuntimeObserver { r in
            if r.text.contains("outbox full") { refused.withLock { $0 += 1 } }
            if r.level == .error, r.text.hasPrefix("stopping") { FileHandle.standardError.write(Data("burst bot: \(r.text)\n".utf8)) }
        }
        observer.connection = { _, state in
            if state == .online, ready.set() { FileHandle.standardOutput.write(Data("READY\n".utf8)) }
        }
        let runner = BotRunner(spec: spec, observer: observer)
        let run = Task { await runner.run() }
        await SocketIOBench.stdinClosed()
        await runner.stop(drainTimeout: 0)
        _ = await run.value
        try "\(refused.withLock { $0 })\n".write(toFile: dir + "/refused.txt", atomically: true, encoding: .utf8)
    }

    /// p50 and p99 of `fdatasync` after a 4 KiB write, on the temporary folder's disk.
    static func fdatasyncLatency(count: Int = 400) throws -> (p50: Double, p99: Double, count: Int) {
        let path = BenchProcess.scratchPath("parley-fdatasync")
        defer { unlink(path) }
        let times = try fdatasyncTimes(count: count, appendingTo: path).sorted()
        return (SocketIOBench.percentile(times, 0.5), SocketIOBench.percentile(times, 0.99), count)
    }

    /// Seconds each of `count` `fdatasync`s took, each after a 4 KiB write
    /// appended to `path` (created when missing). The caller removes the
    /// file when nothing is timed any more: on a disk mounted with `discard`
    /// the blocks an unlink frees are discarded in the file system's next
    /// commit, which holds up the syncs of whatever runs then.
    static func fdatasyncTimes(count: Int, appendingTo path: String) throws -> [Double] {
        let fd = open(path, O_CREAT | O_WRONLY | O_APPEND, 0o600)
        guard fd >= 0 else { throw BenchError("cannot create \(path)") }
        defer { close(fd) }
        let block = [UInt8](repeating: 0x2A, count: 4096)
        var times: [Double] = []
        times.reserveCapacity(count)
        for _ in 0..<count {
            // A failed write (a full disk) would leave nothing to sync and make the disk look fast.
            guard block.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == block.count else {
                throw BenchError("cannot write to \(path) (errno \(errno)) to time fdatasync")
            }
            let t = monoNow()
            guard fdatasync(fd) == 0 else { throw BenchError("fdatasync of \(path) failed (errno \(errno))") }
            times.append(Double(monoNow() - t) / 1e9)
        }
        return times
    }

    /// The curves as a small standalone SVG: offered load across, replies per second up.
    static func svg(curves: [String: [Point]], rates: [Int]) -> String {
        let w = 640.0, h = 400.0, left = 60.0, right = 140.0, top = 20.0, bottom = 50.0
        let maxX = Double(rates.max() ?? 1)
        let maxY = max(1, curves.values.flatMap { $0.map(\.repliesPerSecond) }.max() ?? 1) * 1.1
        func x(_ v: Double) -> Double { left + v / maxX * (w - left - right) }
        func y(_ v: Double) -> Double { h - bottom - v / maxY * (h - top - bottom) }
        let colours = ["always": "#c0392b", "interval": "#2471a3", "none": "#229954"]
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(w))\" height=\"\(Int(h))\" font-family=\"sans-serif\" font-size=\"12\">\n"
        out += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        out += "<line x1=\"\(left)\" y1=\"\(y(0))\" x2=\"\(x(maxX))\" y2=\"\(y(0))\" stroke=\"black\"/>\n"
        out += "<line x1=\"\(left)\" y1=\"\(y(0))\" x2=\"\(left)\" y2=\"\(top)\" stroke=\"black\"/>\n"
        for r in rates {
            out += "<text x=\"\(x(Double(r)))\" y=\"\(y(0) + 16)\" text-anchor=\"middle\">\(r)</text>\n"
        }
        let step = max(100, Int((maxY / 5 / 100).rounded(.up)) * 100)
        for v in stride(from: 0, through: Int(maxY), by: step) {
            out += "<text x=\"\(left - 6)\" y=\"\(y(Double(v)) + 4)\" text-anchor=\"end\">\(v)</text>\n"
            out += "<line x1=\"\(left)\" y1=\"\(y(Double(v)))\" x2=\"\(x(maxX))\" y2=\"\(y(Double(v)))\" stroke=\"#ddd\"/>\n"
        }
        out += "<text x=\"\((left + x(maxX)) / 2)\" y=\"\(h - 12)\" text-anchor=\"middle\">offered messages/s (each asks for 2 replies)</text>\n"
        out += "<text x=\"16\" y=\"\((top + y(0)) / 2)\" text-anchor=\"middle\" transform=\"rotate(-90 16 \((top + y(0)) / 2))\">replies/s received</text>\n"
        for (i, policy) in policies.enumerated() {
            guard let points = curves[policy] else { continue }
            let colour = colours[policy] ?? "black"
            let path = points.map { "\(x(Double($0.rate))),\(y($0.repliesPerSecond))" }.joined(separator: " ")
            out += "<polyline fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2\" points=\"\(path)\"/>\n"
            for p in points {
                out += "<circle cx=\"\(x(Double(p.rate)))\" cy=\"\(y(p.repliesPerSecond))\" r=\"3\" fill=\"\(colour)\"/>\n"
            }
            let label = policy == "none" ? "no journal" : "fsync \(policy)"
            out += "<text x=\"\(w - right + 10)\" y=\"\(top + 20 + Double(i) * 18)\" fill=\"\(colour)\">\(label)</text>\n"
        }
        return out + "</svg>\n"
    }
}
