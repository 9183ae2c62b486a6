import Foundation
import NIOCore
import NIOPosix
import ParleyCore
import ParleyNet
import ParleyRuntime
import ParleySocketIO
import Synchronization

/// Parley's echo bot against the same bot on python-socketio's `AsyncClient`
/// (Tests/Fixtures/python/echo_peer.py), both behind the python-socketio
/// SocketChat server and then behind the embedded one, driven by the same
/// load generator (this process, one Socket.IO session named "load").
///
/// Every role runs in its own process (see SocketIOBench+Roles.swift), so the
/// bot's CPU per reply is its own and not the server's or the load
/// generator's. Per server kind, each bot behind its own server process of
/// that kind, all up at once (see `measure`), and two phases:
/// - latency: `!echo <seq> <ns>` on a fixed 1,000 msg/s schedule, in slices
///   the bots take in turns (a busy spell on this shared machine then
///   lands on all of them, not on whichever one it caught); 1 s of warm-up before a
///   bot's first slice, 0.25 s before the others; p50/p99 of reply latency
///   over all of a bot's slices, and replies still missing 2 s after a
///   slice's last send (a missing reply counts as infinitely late, so a bot
///   that falls behind cannot hide in the percentile);
/// - throughput: a closed loop keeping 100 messages in flight, one bot after
///   the other; replies/s, and the bot's CPU per 1,000 replies (every reply
///   counted there is a message the bot fully handled).
/// A second table shows each process's CPU and the bot's context switches
/// per reply in both phases: what caps the figures on the machine at hand.
enum SocketIOBench {
    static let botName = "echo"
    static let loadName = "load"
    static let offeredPerSecond = 1_000
    static let warmupSeconds = 1.0
    static let inFlight = 100
    static let graceSeconds = 2.0
    /// Unmeasured sends before every latency slice after a bot's first.
    static let sliceWarmupSeconds = 0.25
    /// Latency slices per bot: 1 s each in `--quick` runs, 2 s in full ones.
    static func slices(quick: Bool) -> Int { quick ? 3 : 5 }
    /// `fdatasync`s sampled after each of the journal bot's slices (30 to 60 ms of this disk's time).
    static let syncsPerSlice = 200

    enum ServerKind: String { case python, embedded }
    /// `parley-journal`: Parley's echo bot with a journal at `fsync = "always"`,
    /// every reply sent after its commit is on disk (embedded server only).
    /// `parley-baseline`: the same echo bot from another build (`--baseline`), in the same slices.
    enum BotKind: String { case python, parley, parleyDurable = "parley-journal", baseline = "parley-baseline" }
    static let botWidth = 15

    /// CPU seconds of each process over a phase, the bot's context switches, and the replies.
    struct Usage {
        var seconds: Double
        var replies: Int
        var bot: Double, server: Double, load: Double
        var botSwitches: Int
        /// Of those, the involuntary ones: the bot could have run on, another process took its core.
        var botPreempted: Int
        /// The whole machine meanwhile: seconds in which some task waited for
        /// the disk and for a CPU, and bytes written to disk.
        var ioStall: Double, cpuStall: Double, diskBytes: Double

        init(seconds: Double, replies: Int, from a: Sample, to b: Sample) {
            self.seconds = seconds
            self.replies = replies
            bot = CPUTime.seconds(from: a.bot, to: b.bot)
            server = CPUTime.seconds(from: a.server, to: b.server)
            load = CPUTime.seconds(from: a.load, to: b.load)
            botSwitches = b.botSwitches - a.botSwitches
            botPreempted = b.botPreempted - a.botPreempted
            ioStall = (b.ioStall - a.ioStall) / 1e6
            cpuStall = (b.cpuStall - a.cpuStall) / 1e6
            diskBytes = b.diskBytes - a.diskBytes
        }

        /// CPU ms per 1,000 replies.
        func perThousand(_ cpu: Double) -> Double { replies > 0 ? cpu * 1e6 / Double(replies) : .nan }
        /// Share of one core, in percent.
        func busy(_ cpu: Double) -> Double { cpu / seconds * 100 }

        /// Adds another stretch of the same phase (the latency slices).
        mutating func add(_ u: Usage) {
            seconds += u.seconds
            replies += u.replies
            bot += u.bot
            server += u.server
            load += u.load
            botSwitches += u.botSwitches
            botPreempted += u.botPreempted
            ioStall += u.ioStall
            cpuStall += u.cpuStall
            diskBytes += u.diskBytes
        }
    }

    struct Result {
        var server: ServerKind
        var bot: BotKind
        var repliesPerSecond: Double
        /// Reply latency in ms over every measured send; infinity where the percentile lands on a missing reply.
        var p50: Double, p99: Double
        /// p99 counted from each message's scheduled send time instead of its actual one.
        var p99FromSchedule: Double
        var missing: Int, measured: Int
        /// How late the load generator started sends behind schedule, ms.
        var lagP99: Double, lagMax: Double
        /// The load generator's own messages back from the server (no bot in the path), ms.
        var echoP50: Double, echoP99: Double
        /// This disk's `fdatasync` p99 in seconds, sampled after each of this bot's slices (the journal bot's only, else 0).
        var syncP99: Double, syncCount: Int
        var paced: Usage, closed: Usage
        /// Closed-loop messages never answered within the grace.
        var closedLost: Int
        /// The journal bot's slices (see `PacedSamples.slices`).
        var slices: [DurableSlice] = []
    }

    /// CPU time of the three processes and the bot's context switches, at one moment.
    struct Sample {
        var bot = CPUTime(), server = CPUTime(), load = CPUTime()
        var botSwitches = 0, botPreempted = 0
        var ioStall = 0.0, cpuStall = 0.0, diskBytes = 0.0
    }

    /// The processes of one pair, for CPU readings.
    struct Pids {
        var bot: Int32, server: Int32
        func sample() -> Sample {
            let switches = contextSwitches(bot)
            return Sample(bot: cpuTime(bot), server: cpuTime(server), load: cpuTime(getpid()),
                          botSwitches: switches.all, botPreempted: switches.preempted,
                          ioStall: stallMicroseconds("io"), cpuStall: stallMicroseconds("cpu"), diskBytes: diskBytesWritten())
        }
    }

    static func run(quick: Bool, baseline: String? = nil, echo: Bool = true) async throws {
        BenchProcess.settleDisk()
        let seconds = quick ? 3.0 : 10.0
        let slices = slices(quick: quick)
        var paths = try Paths.resolve()
        paths.baseline = baseline
        paths.echo = echo
        let loadBefore = loadAverage()
        print("\n== Socket.IO echo bot: Parley vs python-socketio AsyncClient (same server, same load generator) ==")
        print("parley bot: BotRunner + Plugins/echo.lua, journal off (state in memory); python bot: echo_peer.py; every role its own process")
        // Bot CPU from the closed loop: there every counted reply is a message
        // the bot fully handled. At 1,000 msg/s a saturated server leaves
        // replies unanswered whose work the bot already did (both are in the
        // breakdown below).
        print(String(format: "latency: %d msg/s on a fixed schedule, %d slices of %.0f s per bot, the bots taking turns (each behind its own server of the kind), %.0f s warm-up before a bot's first slice and %.2f s before the others; from each actual send",
                     offeredPerSecond, slices, seconds / Double(slices), warmupSeconds, sliceWarmupSeconds))
        print(String(format: "throughput and bot CPU: %d in flight for %.0f s, one bot after the other", inFlight, seconds))
        print("server     bot        replies/s  p50 ms  p99 ms  missing  bot CPU ms/1k")
        var results: [Result] = []
        // The paced targets' floor on this machine: a thread doing only a reply's system calls.
        let floor = try WakeFloor.measure(seconds: seconds)
        let nioFloor = try WakeFloor.measure(seconds: seconds, through: .nio)
        let webSocketFloor = try WakeFloor.measure(seconds: seconds, through: .webSocket)
        let leanBot = try WakeFloor.measure(seconds: seconds, through: .leanBot)
        for server in [ServerKind.python, .embedded] {
            for r in try await measure(server: server, seconds: seconds, slices: slices, paths: paths) {
                results.append(r)
                print(pad(r.server.rawValue, 10) + " " + pad(r.bot.rawValue, botWidth)
                      + String(format: " %9.0f  ", r.repliesPerSecond) + pad(ms(r.p50), 6, right: true) + "  "
                      + pad(ms(r.p99), 6, right: true) + String(format: "  %7d  %13.1f", r.missing, r.closed.perThousand(r.closed.bot)))
            }
        }
        var ratios: [String] = [], verdicts: [String] = [], notes: [String] = []
        // Each Parley bot against the python bot behind the same kind of server.
        for (server, kind) in [(ServerKind.python, BotKind.parley), (.embedded, .parley)] {
            guard let py = results.first(where: { $0.server == server && $0.bot == .python }),
                  let pa = results.first(where: { $0.server == server && $0.bot == kind }) else { continue }
            let who = "\(server.rawValue) server"
            let tput = pa.repliesPerSecond / py.repliesPerSecond
            // Both p99s lost: neither bot got 99% of its replies back, so there is no ratio to take.
            let p99 = pa.p99.isInfinite && py.p99.isInfinite ? Double.nan : pa.p99 / py.p99
            let cpu = pa.closed.perThousand(pa.closed.bot) / py.closed.perThousand(py.closed.bot)
            let p99Text = p99.isNaN ? "? (both lost)" : py.p99.isInfinite ? "0 (the python bot's lost)" : x(p99)
            ratios.append("\(who): throughput ×\(x(tput)), p99 ×\(p99Text), CPU ×\(x(cpu))")
            var short: [String] = []
            if !(tput >= 5) { short.append("throughput ×\(x(tput)) < 5") }
            if !(p99 <= 0.2) { short.append("p99 ×\(p99Text) > 0.2") }
            verdicts.append(who + " " + (short.isEmpty ? "met" : "not met (\(short.joined(separator: ", ")))"))
            // The busiest process of Parley's closed loop is what caps its replies/s.
            let c = pa.closed
            let busiest = [("the server", c.busy(c.server)), ("the Parley bot", c.busy(c.bot)), ("the load generator", c.busy(c.load))]
                .max { $0.1 < $1.1 }!
            // The ceiling a bot that cost nothing would hit on this machine,
            // from the others' CPU per reply: the python server runs on one
            // thread, so one core bounds it; otherwise the cores shared by
            // the server and the load generator do.
            let perReply = (c.server + c.load) / Double(max(1, c.replies))
            let ceiling = server == .python ? Double(c.replies) / c.server
                : Double(ProcessInfo.processInfo.activeProcessorCount) / perReply
            notes.append("\(who): busiest in Parley's closed loop is \(busiest.0) ("
                         + String(format: "%.0f%% of a core); a bot costing nothing would top out near %.0f replies/s here",
                                  busiest.1, ceiling) + " (×\(x(ceiling / py.repliesPerSecond)) the python bot's)")
            // The same trip without a bot: what no bot can get under here.
            if paths.echo {
                notes.append("\(who): the load generator's own message back from the server (no bot in the path) took p50 "
                             + "\(ms(py.echoP50))/\(ms(pa.echoP50)) ms and p99 \(ms(py.echoP99))/\(ms(pa.echoP99)) ms in the python/Parley bot's slices")
            }
        }
        print("ratios (parley/python): " + ratios.joined(separator: "; "))
        for n in notes { print("  " + n) }
        // The targets, behind the embedded server (the python server caps both bots).
        if let py = results.first(where: { $0.server == .embedded && $0.bot == .python }),
           let pa = results.first(where: { $0.server == .embedded && $0.bot == .parley }) {
            let cpu = pa.paced.perThousand(pa.paced.bot), switches = Double(pa.paced.botSwitches) / Double(max(1, pa.paced.replies))
            let closed = pa.closed.perThousand(pa.closed.bot)
            func verdict(_ ok: Bool) -> String { ok ? "met" : "NOT met" }
            print("targets, embedded server:")
            print("  CPU per reply at 1,000 msg/s ≤ 60 µs: " + String(format: "%.0f µs ", cpu) + verdict(cpu <= 60))
            print("  context switches per reply at 1,000 msg/s ≤ 1.2: " + String(format: "%.2f ", switches) + verdict(switches <= 1.2))
            // The split says whose switches they are: a wait is the bot's own
            // (its one wake a reply), a preemption is the machine's (the server
            // and the load generator share its two cores).
            for (name, u) in [("Parley", pa.paced), ("python", py.paced)] {
                let all = Double(u.botSwitches), preempted = Double(u.botPreempted), n = Double(max(1, u.replies))
                print("    the \(name) bot's: " + String(format: "%.2f waits (voluntary) and %.2f preemptions (involuntary) a reply", (all - preempted) / n, preempted / n))
            }
            // What no bot gets under: one wake, one read and one write a reply.
            print("  the floor under both (a thread making only a reply's system calls: one wake, one read, one write): "
                  + String(format: "%.0f µs and %.2f switches a reply", floor.cpuPerReply, floor.switchesPerReply))
            print("  the same through a NIO channel on one event loop (epoll, the loop, a one-handler pipeline): "
                  + String(format: "%.0f µs and %.2f switches a reply", nioFloor.cpuPerReply, nioFloor.switchesPerReply))
            print("  the same in WebSocket frames through NIOWebSocket's codec (no Engine.IO, Socket.IO or bot): "
                  + String(format: "%.0f µs and %.2f switches a reply", webSocketFloor.cpuPerReply, webSocketFloor.switchesPerReply))
            print("  a lean Lua echo bot on the same codec (Socket.IO JSON parsed, a plain Lua function, no runtime): "
                  + String(format: "%.0f µs and %.2f switches a reply", leanBot.cpuPerReply, leanBot.switchesPerReply))
            print("  every message answered, p99 ≤ the python bot's: \(pa.missing) missing, p99 \(ms(pa.p99)) against \(ms(py.p99)) ms "
                  + verdict(pa.missing == 0 && pa.p99 <= py.p99))
            print("  CPU per reply, closed loop ≤ 25 µs: " + String(format: "%.1f µs ", closed) + verdict(closed <= 25))
            if let base = results.first(where: { $0.server == .embedded && $0.bot == .baseline }) {
                let baseCPU = base.paced.perThousand(base.paced.bot), baseClosed = base.closed.perThousand(base.closed.bot)
                print("  the baseline build's echo bot in the same slices (--baseline): "
                      + String(format: "%.0f µs and %.2f switches a reply at 1,000 msg/s, %.1f µs closed loop; this build against it: ×%.2f paced, ×%.2f closed",
                               baseCPU, Double(base.paced.botSwitches) / Double(max(1, base.paced.replies)), baseClosed, cpu / baseCPU, closed / baseClosed))
            }
            if let du = results.first(where: { $0.server == .embedded && $0.bot == .parleyDurable }) {
                let bound = du.echoP99 + 3 * du.syncP99 * 1000
                if paths.echo {
                    print("  with a journal at always, every message answered, p99 ≤ the no-bot floor's p99 + 3 × fdatasync p99: "
                          + "\(du.missing) missing, p99 \(ms(du.p99)) against \(ms(du.echoP99)) + 3 × \(ms(du.syncP99 * 1000)) = \(ms(bound)) ms "
                          + verdict(du.missing == 0 && du.p99 <= bound)
                          + " (fdatasync: \(du.syncCount) syncs of 4 KiB, taken after each of the journal bot's slices)")
                } else {
                    print("  with a journal at always, every message answered: \(du.missing) missing, p99 \(ms(du.p99)) ms; "
                          + "its bound not judged (--without-echo measures no no-bot floor)")
                }
                let compacted = du.slices.indices.filter { du.slices[$0].compacted }.map { String($0 + 1) }
                print("    its slices: p99 " + du.slices.map { ms($0.p99) }.joined(separator: " / ") + " ms; replies over 5 ms "
                      + du.slices.map { String($0.slow) }.joined(separator: " / ") + "; "
                      + (compacted.isEmpty ? "no compaction finished during them" : "a compaction finished during slice " + compacted.joined(separator: ", ")))
                print("    its journal's syncs a reply: " + du.slices.map { String(format: "%.2f", $0.syncsPerReply) }.joined(separator: " / ")
                      + "; syncs over 5 ms: " + du.slices.map { String($0.slowSyncs) }.joined(separator: " / "))
                // A view beside the verdict, not a second one: the bound without the
                // slices in which the disk held one of the journal's own syncs.
                // (Without the echoes there is no floor, so no bound.)
                let calm = du.slices.filter { $0.slowSyncs == 0 }
                if paths.echo, calm.isEmpty {
                    print("    without the slices in which a journal sync took over 5 ms: none left")
                } else if paths.echo, calm.count < du.slices.count {
                    let p99 = percentile(calm.flatMap(\.latencies).sorted(), 0.99)
                    print("    without the \(du.slices.count - calm.count) of \(du.slices.count) slices in which a journal sync took over 5 ms: "
                          + "p99 \(ms(p99)) against \(ms(bound)) ms " + verdict(du.missing == 0 && p99 <= bound))
                }
            }
        }

        // Where the time goes: which process is busy in each phase. A process
        // near 100% of a core in the closed loop is the one capping replies/s.
        print("\nwhere the time goes: CPU ms per 1,000 replies (share of one core); load average \(loadBefore) before, \(loadAverage()) after")
        print("server     bot        phase        bot              server           load generator   bot cs/reply  send lag p99/max  p99 from schedule  closed-loop lost")
        for r in results {
            for (phase, u) in [("1k msg/s", r.paced), ("closed loop", r.closed)] {
                let cells = [u.bot, u.server, u.load].map { String(format: "%6.1f (%3.0f%%)", u.perThousand($0), u.busy($0)) }
                let switches = u.replies > 0 ? String(format: "%8.1f", Double(u.botSwitches) / Double(u.replies)) : "       -"
                let lag = phase == "1k msg/s" ? String(format: "%6.2f/%-6.1f ms", r.lagP99, r.lagMax) : ""
                let scheduled = phase == "1k msg/s" ? pad(ms(r.p99FromSchedule) + (r.p99FromSchedule.isFinite ? " ms" : ""), 11, right: true) : ""
                let lost = phase == "closed loop" ? String(r.closedLost) : ""
                print([pad(r.server.rawValue, 10), pad(r.bot.rawValue, botWidth), pad(phase, 12), pad(cells[0], 16), pad(cells[1], 16),
                       pad(cells[2], 16), pad(switches, 13), pad(lag, 17), pad(scheduled, 18), lost].joined(separator: " "))
            }
        }
        // Whether the machine, not the bot, made replies late: a slow reply that
        // coincides with other tasks waiting on the disk or a CPU is the machine's.
        print("\nthe machine during each bot's paced slices (pressure: share of the time some task waited)")
        print("server     bot              IO pressure   CPU pressure   the machine's disk writes")
        for r in results {
            let u = r.paced
            print([pad(r.server.rawValue, 10), pad(r.bot.rawValue, botWidth),
                   pad(String(format: "%5.1f%%", u.ioStall / u.seconds * 100), 13, right: true),
                   pad(String(format: "%5.1f%%", u.cpuStall / u.seconds * 100), 14, right: true),
                   String(format: "   %7.1f MiB", u.diskBytes / 1_048_576)].joined(separator: " "))
        }
        // The same reply in instructions, which repeat where the CPU times above do not.
        try await ReplyInstructions.report(paths: paths)
    }

    static func pad(_ s: String, _ width: Int, right: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, width - s.count))
        return right ? fill + s : s + fill
    }

    static func ms(_ v: Double) -> String { v.isFinite ? String(format: "%.2f", v) : "lost" }
    static func x(_ v: Double) -> String {
        if v.isNaN { return "?" }
        if v.isInfinite { return "∞" }
        return String(format: v < 0.1 ? "%.3f" : "%.2f", v)
    }

    // MARK: one server kind, both bots

    /// One bot with its own server process and the load generator's session to that server.
    struct Rig {
        var bot: BotKind
        var server: BenchChild, botChild: BenchChild
        var session: any TransportSession
        var tracker: Tracker
        var pids: Pids
        var port: Int

        /// `startBot` starts the bot some other way than `startBot(_:port:_:)` (under callgrind, say).
        static func open(server kind: ServerKind, bot: BotKind, paths: Paths,
                         startBot start: ((Int) throws -> BenchChild)? = nil) async throws -> Rig {
            let (serverChild, port) = try startServer(kind, paths)
            let botChild: BenchChild
            do { botChild = try start?(port) ?? startBot(bot, port: port, paths) } catch {
                serverChild.stop()
                throw error
            }
            // The load generator's link and its senders share one thread, as a
            // Parley bot's do: a reply read off the socket hands its credit to
            // the sender without waking another thread, so the harness takes as
            // little of the shared cores as it can from either bot.
            // It asks for its own messages back (`echo=true`, where a bot asks
            // not to be sent them): their round trip is the no-bot floor. Each
            // wakes it as the bot works on the same message, on the same cores.
            var loadOptions = SocketIOOptions()
            loadOptions.query = ["echo": paths.echo ? "true" : "false"]
            let session: any TransportSession
            do {
                session = try await SocketIOTransport(endpoint: SocketIOEndpoint(host: "127.0.0.1", port: port), name: loadName,
                                                      options: loadOptions)
                    .connect(resumingAfter: [:], on: loadThread.loop)
            } catch {
                botChild.stop()
                serverChild.stop()
                throw error
            }
            let tracker = Tracker()
            session.events.attach { item in
                guard case .event(.chat(.message(let m))) = item else { return }
                if m.user == botName { tracker.reply(m.text, at: monoNow()) } else if m.user == loadName { tracker.echo(m.text, at: monoNow()) }
            }
            return Rig(bot: bot, server: serverChild, botChild: botChild, session: session, tracker: tracker,
                       pids: Pids(bot: botChild.pid, server: serverChild.pid), port: port)
        }

        func close() async {
            await session.close()
            session.events.detach()
            botChild.stop()
            server.stop()
        }

        /// Opens a rig, runs `body` on the load generator's thread, and closes the rig however `body` ends.
        static func withRig<T>(server kind: ServerKind, bot: BotKind, paths: Paths, startBot: ((Int) throws -> BenchChild)? = nil,
                               _ body: (Rig) async throws -> T) async throws -> T {
            let rig = try await open(server: kind, bot: bot, paths: paths, startBot: startBot)
            do {
                let result = try await withTaskExecutorPreference(loadThread) { try await body(rig) }
                await rig.close()
                return result
            } catch {
                await rig.close()
                throw error
            }
        }
    }

    /// The bots behind one kind of server: python and Parley, and behind the
    /// embedded server also Parley with a journal and, with `--baseline`,
    /// another build's Parley. Each bot gets its own server process of that
    /// kind, and all of them stay up for the whole measurement: the latency
    /// phase runs in slices, the bots taking turns (python first in even
    /// rounds, last in odd ones), so a busy spell on the shared machine lands
    /// on all of them rather than on whichever bot it happened to catch. The
    /// pairs not being measured sit idle. Then each bot's closed loop, one after the other.
    static func measure(server: ServerKind, seconds: Double, slices: Int, paths: Paths) async throws -> [Result] {
        var rigs: [Rig] = []
        // One file for the disk's samples, removed once the bots are measured (see `fdatasyncTimes`).
        let probe = BenchProcess.scratchPath("parley-fdatasync")
        defer { unlink(probe) }
        do {
            let bots: [BotKind] = server == .python ? [.python, .parley] : [.python, .parley, .parleyDurable] + (paths.baseline == nil ? [] : [.baseline])
            for bot in bots { rigs.append(try await Rig.open(server: server, bot: bot, paths: paths)) }
            let results = try await withTaskExecutorPreference(loadThread) { () async throws -> [Result] in
                for rig in rigs { try await handshake(rig.session, rig.tracker, bot: rig.bot) }
                var paced = Array(repeating: PacedSamples(), count: rigs.count)
                let measured = Int(seconds / Double(slices) * Double(offeredPerSecond))
                for round in 0..<slices {
                    let order = round % 2 == 0 ? Array(rigs.indices) : rigs.indices.reversed()
                    for i in order {
                        // The first slice warms a bot up fully; later ones only
                        // refill the pipeline after the bot sat idle.
                        let warmup = Int((round == 0 ? warmupSeconds : sliceWarmupSeconds) * Double(offeredPerSecond))
                        try await pacedSlice(rigs[i], base: 1 + round * 100_000, warmup: warmup, measured: measured, into: &paced[i])
                        // The disk as the journal bot met it: sampled beside each of its
                        // slices, so the bound follows the machine's load through the run.
                        if rigs[i].bot == .parleyDurable { paced[i].syncs += try BurstBench.fdatasyncTimes(count: syncsPerSlice, appendingTo: probe) }
                    }
                }
                var results: [Result] = []
                for (rig, p) in zip(rigs, paced) {
                    var r = p.result(server: server, bot: rig.bot)
                    let (closed, lost) = try await closedLoop(rig.session, rig.tracker, seconds: seconds, pids: rig.pids)
                    r.closed = closed
                    r.closedLost = lost
                    r.repliesPerSecond = Double(closed.replies) / closed.seconds
                    results.append(r)
                }
                return results
            }
            for rig in rigs { await rig.close() }
            return results
        } catch {
            for rig in rigs { await rig.close() }
            throw error
        }
    }

    /// The load generator's one thread: an event loop its link is opened on
    /// that is also the task executor its senders prefer, so a reply read off
    /// the socket resumes the sender without waking another thread. The same
    /// kind of thread a bot lives on (a `BotLoop`).
    static let loadThread = BotLoop(name: "parley-load")

    /// One `!echo` answered before any timing: a bot that is up but not
    /// answering fails here with a clear message, not as a table of zeros.
    static func handshake(_ session: any TransportSession, _ tracker: Tracker, bot: BotKind) async throws {
        tracker.start(base: 0, count: 1)
        try await session.send(OutgoingMessage(id: "", room: "lobby", text: "!echo 0 \(monoNow())"))
        let end = monoNow() + 10_000_000_000
        while tracker.answered(0..<1) == 0 {
            guard monoNow() < end else { throw BenchError("the \(bot.rawValue) echo bot did not answer !echo within 10 s") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// One of the journal bot's slices: its p99, its replies over 5 ms,
    /// whether a compaction finished during it, and its journal's syncs.
    struct DurableSlice {
        /// Reply latency of each measured send, ms (infinity: no reply).
        var latencies: [Double]
        var compacted: Bool
        var syncsPerReply: Double
        /// Syncs that took over 5 ms.
        var slowSyncs: Int

        var p99: Double { percentile(latencies.sorted(), 0.99) }
        /// Replies over 5 ms.
        var slow: Int { latencies.filter { $0 > 5 }.count }
    }

    /// One bot's latency samples over all its slices.
    struct PacedSamples {
        /// Reply latency of each measured send, ms (infinity: no reply).
        var latencies: [Double] = []
        /// How late each measured send left behind its schedule, ms.
        var lags: [Double] = []
        /// The load generator's own message back from the server, ms: the
        /// same path without a bot, so the floor under any bot's latency.
        var echoes: [Double] = []
        /// `fdatasync` times in seconds, sampled after each slice (the journal bot's only).
        var syncs: [Double] = []
        /// The journal bot's slices one by one.
        var slices: [DurableSlice] = []
        var usage: Usage?

        func result(server: ServerKind, bot: BotKind) -> Result {
            let sorted = latencies.sorted()
            let fromSchedule = zip(latencies, lags).map { $0 + $1 }.sorted()
            let answered = latencies.filter(\.isFinite).count
            let echoes = echoes.sorted()
            let syncs = syncs.sorted()
            return Result(
                server: server, bot: bot, repliesPerSecond: 0,
                p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), p99FromSchedule: percentile(fromSchedule, 0.99),
                missing: latencies.count - answered, measured: latencies.count,
                lagP99: percentile(lags.sorted(), 0.99), lagMax: lags.max() ?? 0,
                echoP50: percentile(echoes, 0.5), echoP99: percentile(echoes, 0.99),
                syncP99: syncs.isEmpty ? 0 : percentile(syncs, 0.99), syncCount: syncs.count,
                paced: usage ?? Usage(seconds: 1, replies: 0, from: Sample(), to: Sample()),
                closed: Usage(seconds: 1, replies: 0, from: Sample(), to: Sample()), closedLost: 0, slices: slices)
        }
    }

    /// One slice of the latency phase: sends on a fixed schedule (message i
    /// at t0 + i ms, late ones sent at once to catch up, so a slow moment
    /// cannot lower the offered load), `warmup` unmeasured then `measured`
    /// measured. Reply latency counts from the actual send; the latency from
    /// the scheduled time (which adds the load generator's own lag, mostly
    /// CPU starvation on a busy machine) is kept too, so neither view is
    /// hidden. `base` must be above every seq of earlier slices: the tracker
    /// ignores replies below it.
    static func pacedSlice(_ rig: Rig, base: Int, warmup: Int, measured: Int, into acc: inout PacedSamples) async throws {
        let (session, tracker, pids) = (rig.session, rig.tracker, rig.pids)
        let total = warmup + measured
        tracker.start(base: base, count: total)
        let period = UInt64(1_000_000_000 / offeredPerSecond)
        // Read before the schedule starts: the journal bot's answer is a round trip on this thread.
        let snapshot0 = rig.bot == .parleyDurable ? newestSnapshot(port: rig.port) : nil
        let syncs0 = rig.bot == .parleyDurable ? try journalSyncs(rig.botChild) : (count: 0, slow: 0)
        let t0 = monoNow() + 5_000_000
        var lags: [Double] = []
        lags.reserveCapacity(measured)
        var cpu0 = pids.sample(), start = t0
        var i = 0
        while i < total {
            let due = t0 + UInt64(i) * period
            let now = monoNow()
            if now < due {
                try await Task.sleep(for: .nanoseconds(Int64(due - now)))
                continue
            }
            if i == warmup { cpu0 = pids.sample(); start = now }
            let stamp = monoNow()
            if i >= warmup { lags.append(Double(stamp - due) / 1e6) }
            try await session.send(OutgoingMessage(id: "", room: "lobby", text: "!echo \(base + i) \(stamp)"))
            i += 1
        }
        let measuredSeqs = (base + warmup)..<(base + total)
        let graceEnd = monoNow() + UInt64(graceSeconds * 1e9)
        while tracker.answered(measuredSeqs) < measured, monoNow() < graceEnd {
            try await Task.sleep(for: .milliseconds(10))
        }
        let cpu1 = pids.sample(), stop = monoNow()
        let latencies = tracker.latencies(measuredSeqs)
        let usage = Usage(seconds: Double(stop - start) / 1e9, replies: latencies.filter(\.isFinite).count, from: cpu0, to: cpu1)
        acc.latencies += latencies
        acc.lags += lags
        acc.echoes += tracker.echoes(measuredSeqs)
        if acc.usage == nil { acc.usage = usage } else { acc.usage!.add(usage) }
        // Late replies still queued in a saturated server would eat into the
        // next slice: let them drain (until none arrives for 1 s, at most
        // 60 s) so it starts from an empty pipeline.
        var count = tracker.answered(base..<(base + total)), lastProgress = monoNow()
        while count < total, monoNow() - lastProgress < 1_000_000_000, monoNow() - graceEnd < 60_000_000_000 {
            try await Task.sleep(for: .milliseconds(50))
            let now = tracker.answered(base..<(base + total))
            if now > count { count = now; lastProgress = monoNow() }
        }
        if rig.bot == .parleyDurable {
            // The syncs of the whole slice (warm-up too), against its replies.
            let syncs1 = try journalSyncs(rig.botChild)
            acc.slices.append(DurableSlice(latencies: latencies, compacted: newestSnapshot(port: rig.port) != snapshot0,
                                           syncsPerReply: Double(syncs1.count - syncs0.count) / Double(max(1, count)),
                                           slowSyncs: syncs1.slow - syncs0.slow))
        }
    }

    /// The journal bot's syncs so far, and how many took over 5 ms (it answers `SYNCS` on stdin).
    static func journalSyncs(_ child: BenchChild) throws -> (count: Int, slow: Int) {
        child.send(line: "SYNCS")
        let fields = try child.line(startingWith: "SYNCS", timeout: 10).split(separator: " ").compactMap { Int($0) }
        guard fields.count == 2 else { throw BenchError("the journal bot's SYNCS line has no two numbers") }
        return (fields[0], fields[1])
    }

    /// `inFlight` messages out; each reply sends the next. Replies that
    /// arrive together are answered with one write (`send(_:)` with a batch),
    /// so there are always `inFlight` messages out.
    static func closedLoop(_ session: any TransportSession, _ tracker: Tracker, seconds: Double,
                           pids: Pids) async throws -> (Usage, Int) {
        let base = 10_000_000
        let cpu0 = pids.sample()
        let start = monoNow(), end = start + UInt64(seconds * 1e9)
        tracker.startClosedLoop(base: base, windowEnd: end)
        let sender = Task(executorPreference: loadThread) { () throws -> Int in
            var seq = base
            var credits = inFlight
            while credits > 0 {
                let batch = (0..<credits).map { i in OutgoingMessage(id: "", room: "lobby", text: "!echo \(seq + i) \(monoNow())") }
                for case .failed(let error) in await session.send(batch) { throw error }
                seq += credits
                credits = await tracker.takeCredits()
                if monoNow() >= end { break }
            }
            return seq - base
        }
        let now = monoNow()
        if now < end { try await Task.sleep(for: .nanoseconds(Int64(end - now))) }
        let cpu1 = pids.sample()
        let inWindow = tracker.closedLoopReplies
        tracker.closeCredits()
        let sent: Int
        do { sent = try await sender.value } catch {
            sender.cancel()
            throw error
        }
        let graceEnd = monoNow() + UInt64(graceSeconds * 1e9)
        while tracker.closedLoopAnswered < sent, monoNow() < graceEnd { try await Task.sleep(for: .milliseconds(10)) }
        let usage = Usage(seconds: Double(end - start) / 1e9, replies: inWindow, from: cpu0, to: cpu1)
        return (usage, sent - tracker.closedLoopAnswered)
    }

    /// The value at quantile `q` of sorted values (the same rule as the users bench).
    static func percentile(_ sorted: [Double], _ q: Double) -> Double {
        sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))]
    }
}

/// What the load generator's reader learns from the replies, shared with the
/// senders. A reply is `<seq> <send-ns>`; seqs below the current phase's base
/// are stragglers of an earlier phase and are ignored.
final class Tracker: Sendable {
    private struct State {
        var base = 0
        /// Paced phase: latency in ns by seq - base; 0 = no reply yet.
        var latency: [UInt64] = []
        /// Paced phase: the load generator's own message coming back from the
        /// server (no bot in the path), ns by seq - base; 0 = not yet.
        var echo: [UInt64] = []
        var closedLoop = false
        var windowEnd: UInt64 = 0
        var inWindow = 0
        var answered = 0
        /// Closed loop: replies not yet answered with a send, and the sender waiting for one.
        var credits = 0
        var creditWaiter: CheckedContinuation<Int, Never>?
        var creditsClosed = false
    }
    private let state = Mutex(State())

    func start(base: Int, count: Int) {
        state.withLock { $0 = State(base: base, latency: Array(repeating: 0, count: count), echo: Array(repeating: 0, count: count)) }
    }

    func startClosedLoop(base: Int, windowEnd: UInt64) {
        state.withLock { $0 = State(base: base, closedLoop: true, windowEnd: windowEnd) }
    }

    /// Waits for at least one credit and takes all there are; 0 once closed.
    func takeCredits() async -> Int {
        await withCheckedContinuation { (c: CheckedContinuation<Int, Never>) in
            let ready = state.withLock { s -> Int? in
                if s.credits > 0 || s.creditsClosed {
                    defer { s.credits = 0 }
                    return s.creditsClosed ? 0 : s.credits
                }
                s.creditWaiter = c
                return nil
            }
            if let ready { c.resume(returning: ready) }
        }
    }

    /// Ends the closed loop: a waiting sender gets 0.
    func closeCredits() {
        let waiter = state.withLock { s in
            s.creditsClosed = true
            defer { s.creditWaiter = nil }
            return s.creditWaiter
        }
        waiter?.resume(returning: 0)
    }

    /// The load generator's own `!echo <seq> <ns>` as the server relayed it back.
    func echo(_ text: String, at now: UInt64) {
        guard text.hasPrefix("!echo "), let (seq, sent) = Self.parse(text.dropFirst(6)) else { return }
        state.withLock { s in
            let i = seq - s.base
            if !s.closedLoop, i >= 0, i < s.echo.count, s.echo[i] == 0 { s.echo[i] = max(1, now &- sent) }
        }
    }

    private static func parse(_ text: Substring) -> (Int, UInt64)? {
        guard let space = text.firstIndex(of: " "), let seq = Int(text[..<space]),
              let sent = UInt64(text[text.index(after: space)...]) else { return nil }
        return (seq, sent)
    }

    func reply(_ text: String, at now: UInt64) {
        guard let (seq, sent) = Self.parse(text[...]) else { return }
        let waiter = state.withLock { s -> (CheckedContinuation<Int, Never>, Int)? in
            let i = seq - s.base
            guard i >= 0 else { return nil }
            if s.closedLoop {
                s.answered += 1
                if now <= s.windowEnd { s.inWindow += 1 }
                guard !s.creditsClosed else { return nil }
                s.credits += 1
                guard let w = s.creditWaiter else { return nil }
                s.creditWaiter = nil
                defer { s.credits = 0 }
                return (w, s.credits)
            } else if i < s.latency.count, s.latency[i] == 0 {
                s.latency[i] = max(1, now &- sent)
            }
            return nil
        }
        if let (w, n) = waiter { w.resume(returning: n) }
    }

    /// How many of these paced seqs have a reply.
    func answered(_ seqs: Range<Int>) -> Int {
        state.withLock { s in seqs.reduce(0) { $0 + (s.latency[$1 - s.base] > 0 ? 1 : 0) } }
    }

    /// Latency in ms of each of these seqs; infinity for a missing reply.
    func latencies(_ seqs: Range<Int>) -> [Double] {
        state.withLock { s in seqs.map { let l = s.latency[$0 - s.base]; return l > 0 ? Double(l) / 1e6 : .infinity } }
    }

    /// Round trip in ms of each of these seqs' own echo from the server; infinity when it never came back.
    func echoes(_ seqs: Range<Int>) -> [Double] {
        state.withLock { s in seqs.map { let l = s.echo[$0 - s.base]; return l > 0 ? Double(l) / 1e6 : .infinity } }
    }

    var closedLoopReplies: Int { state.withLock { $0.inWindow } }
    var closedLoopAnswered: Int { state.withLock { $0.answered } }
}
