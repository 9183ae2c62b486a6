import Foundation
import ParleyCore
import ParleyJournal
import ParleyWire
import Synchronization
import Testing
import ParleyTestSupport

/// One line the room received, from the server's own record (never a
/// person's view: a person reconnecting after a server restart misses what
/// was said meanwhile, and that must not count as a loss).
struct RoomLine: Sendable, Equatable {
    var user: String
    var text: String
}

/// What the chaos runner needs from one transport: the one place that knows
/// how its server starts and restarts, how a person talks there and where
/// the truth about the room lives. Everything else (the bot, the people, the
/// faults, the checks, the table) is `ChaosRunner`'s, the same for all.
protocol ChaosTarget: AnyObject, Sendable {
    /// `streamchat`, `socketio`, `rest`, `stomp`: the table's and the file's name.
    var name: String { get }
    /// Where the bot's `LinkProxy` forwards to (the server, or the broker's Web-STOMP port).
    var upstreamPort: Int { get }
    /// The transport's `[[bot]]` keys (`transport`, `server` at `proxyPort`,
    /// `rooms`) and its own tables (`[bot.streamchat]`, ...) with liveness
    /// checks set low, so a silent link is noticed within `detectionBound`.
    func botConfig(proxyPort: Int) -> (keys: String, tables: String)
    /// The longest the bot's liveness check may take to notice a silent link (seconds).
    var detectionBound: Double { get }
    /// What the config says about it, for the table.
    var detectionRule: String { get }
    /// A person of this chat, who joins by talking for the first time.
    func person(_ name: String) -> any ChaosPerson
    /// Stops the server and starts it again on the same port (the room's
    /// record survives); returns once the new one accepts connections.
    func restartServer() async throws
    /// Everything the room received so far, in order.
    func roomLines() async -> [RoomLine]
    /// When the server saw the bot (re)join the room.
    func botArrivals() async -> [Date]
    func stop() async
}

/// A simulated person. `say` connects first when the person is not (or no
/// longer) linked, so people come back by themselves after a server restart.
protocol ChaosPerson: Sendable {
    /// False when the text could not be handed over (the server is away).
    func say(_ text: String) async -> Bool
    func leave() async
}

/// A person on a transport with client sessions (StreamChat, Socket.IO,
/// STOMP): a test `Person`, made anew when its link has ended.
final class SessionPerson: ChaosPerson {
    let name: String
    let room: String
    private let connect: @Sendable () -> any Transport
    private let current = Mutex<Person?>(nil)

    init(_ name: String, room: String, transport: @escaping @Sendable () -> any Transport) {
        self.name = name
        self.room = room
        self.connect = transport
    }

    func say(_ text: String) async -> Bool {
        var person = current.withLock { $0 }
        if let p = person, !p.isLinked {
            await p.close()
            person = nil
        }
        if person == nil {
            guard let p = try? await Person(name, transport: connect(), room: room) else { return false }
            current.withLock { $0 = p }
            person = p
        }
        guard let person else { return false }
        do {
            try await person.say(text)
            return true
        } catch {
            await person.close()
            current.withLock { $0 = nil }
            return false
        }
    }

    func leave() async {
        if let p = current.withLock({ $0 }) { await p.leave() }
    }
}

/// The chaos scenario, one engine for every transport.
///
/// A real `parley run` child process (greeter and moderator from `Plugins/`,
/// one journal with `fsync = "always"`, backoff 0.05 s doubling to 0.5 s) is
/// connected through a `LinkProxy`, while simulated people join and chat
/// (some swear, so the moderator acts). Meanwhile, in a seeded random order
/// and at random moments: the server restarts 20 times, the bot is killed
/// with `kill -9` 10 times (its journal is verified before it is started
/// again), and its link goes silent 5 times (the proxy stops forwarding on
/// the open connections without closing them: only the transport's liveness
/// check can notice).
///
/// Why a child process and a proxy: kill -9 and a silent link must be real,
/// not simulated in-process, or the journal's recovery and the heartbeat
/// watchdogs would not be what is tested.
///
/// The checks, after a graceful stop at the end:
/// - every fault was recovered from within its bound (see `Bounds`);
/// - no person was greeted twice (the greeter's sends in the journal);
/// - every acknowledged send (a `send` record whose id has a `delivered`
///   record) reached the room: never lost, and at most twice. The README's
///   journal section says a repeat is possible on every transport (a crash
///   after the hand-over but before the delivery record is durable repeats
///   it once), and REST and STOMP add their own at-least-once retries;
///   nothing allows a third copy;
/// - nothing the bot did not journal reached the room under its name;
/// - `parley journal verify` is clean after every kill and at the end.
final class ChaosRunner: Sendable {
    struct Plan: Sendable {
        var restarts = 20
        var kills = 10
        var drops = 5
        var seed: UInt64 = 8
        /// People who join over the run, one after another.
        var people = 40
    }

    /// How long a recovery may take, by fault. `connect` covers one connect
    /// (the bot's connect_timeout is 2 s) plus scheduling on a loaded 2-core
    /// CI machine; `startup` covers exec of the debug binary, journal
    /// recovery, loading two plugins and the first connect.
    struct Bounds: Sendable {
        var backoffMax = 0.5
        var connect = 3.0
        var startup = 6.0
    }

    enum Fault: String, Sendable, CaseIterable {
        case restart, kill, drop
    }

    struct Outcome: Sendable {
        var fault: Fault
        /// From the fault to the bot being back in the room, seconds; nil: never came back.
        var recovery: Double?
        var bound: Double
        var recovered: Bool { recovery.map { $0 <= bound } ?? false }
    }

    struct Report: Sendable {
        var transport: String
        var outcomes: [Outcome]
        var greetedTwice: [String]
        var acknowledged: Int
        var unconfirmedAtEnd: Int
        /// Acknowledged sends seen more than once: text → copies.
        var duplicates: [String: Int]
        var lost: [String]
        var unjournaled: [String]
        var verifyClean: Int
        var verifyRuns: Int
        var verifyFailures: [String]
        var finalExit: Int32
        var people: Int
        var peopleLines: Int
        /// The transport's silent-link detection bound (seconds) and the setting behind it.
        var detectionBound: Double
        var detectionRule: String
        var bounds: Bounds

        var survived: Int { outcomes.filter(\.recovered).count }
        var repeats: Int { duplicates.values.reduce(0) { $0 + $1 - 1 } }

        static func median(_ xs: [Double]) -> Double {
            let s = xs.sorted()
            guard !s.isEmpty else { return .nan }
            return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
        }

        /// The table: one summary line (the issue's columns), then one line per fault kind.
        var table: String {
            func f(_ x: Double) -> String { x.isNaN ? "-" : String(format: "%.2f", x) }
            let times = outcomes.compactMap(\.recovery)
            var lines = ["chaos \(transport) | faults \(survived)/\(outcomes.count) | recover median \(f(Report.median(times))) s max \(f(times.max() ?? .nan)) s | greeted twice \(greetedTwice.count) | duplicates \(repeats) | losses \(lost.count) | journal clean \(verifyClean)/\(verifyRuns)"]
            for kind in Fault.allCases {
                let of = outcomes.filter { $0.fault == kind }
                let t = of.compactMap(\.recovery)
                let bound: String
                switch kind {
                case .restart: bound = "server downtime + \(f(bounds.backoffMax)) s backoff max + \(f(bounds.connect)) s connect"
                case .kill: bound = "journal verify + \(f(bounds.startup)) s startup"
                case .drop: bound = "\(f(detectionBound)) s detection (\(detectionRule)) + \(f(bounds.backoffMax)) s backoff max + \(f(bounds.connect)) s connect"
                }
                lines.append("  \(kind.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)) \(of.filter(\.recovered).count)/\(of.count) within bound | median \(f(Report.median(t))) s max \(f(t.max() ?? .nan)) s | bound: \(bound)")
            }
            lines.append("  \(people) people said \(peopleLines) lines; the bot's acknowledged sends \(acknowledged) (\(unconfirmedAtEnd) unconfirmed at the end), repeats \(repeats), never journaled \(unjournaled.count); clean exit \(finalExit == 0 ? "yes" : "no (\(finalExit))")")
            return lines.joined(separator: "\n")
        }
    }

    let target: any ChaosTarget
    let plan: Plan
    let bounds: Bounds
    let dir: URL

    init(target: any ChaosTarget, plan: Plan = Plan(), bounds: Bounds = Bounds()) throws {
        self.target = target
        self.plan = plan
        self.bounds = bounds
        dir = try temporaryDirectory()
    }

    var journal: String { dir.appendingPathComponent("state/parley").path }

    // MARK: the run

    /// Runs the scenario. The bot child never outlives it: a test that runs
    /// out of time is cancelled, and a fault that throws ends the run; both kill it.
    func run() async throws -> Report {
        let bot = BotProcess(config: dir.appendingPathComponent("bot.toml").path, logs: dir)
        do {
            return try await withTaskCancellationHandler {
                try await scenario(bot)
            } onCancel: {
                bot.killNow()
            }
        } catch {
            bot.killNow()
            throw error
        }
    }

    private func scenario(_ bot: BotProcess) async throws -> Report {
        let proxy = try await LinkProxy.start(upstreamPort: target.upstreamPort)
        try writeConfig(proxyPort: proxy.port)
        var rng = SeededRandom(seed: plan.seed)
        var faults = Array(repeating: Fault.restart, count: plan.restarts) + Array(repeating: .kill, count: plan.kills)
            + Array(repeating: .drop, count: plan.drops)
        faults.shuffle(using: &rng)

        try bot.launch()
        // The first arrival: the bot is up before the chaos starts.
        let firstUp = await eventually(bounds.startup * 3) { await !self.target.botArrivals().isEmpty }
        #expect(firstUp, "\(target.name): the bot never arrived (log: \(bot.logTail()))")

        let people = People(target: target, count: plan.people, seed: plan.seed &+ 1)
        let chatter = Task { await people.chat() }

        var outcomes: [Outcome] = []
        var verifyRuns = 0, verifyClean = 0
        var verifyFailures: [String] = []
        for fault in faults {
            // A random moment: people keep talking meanwhile, so faults land mid-handler too.
            try await Task.sleep(for: .milliseconds(Int.random(in: 150...900, using: &rng)))
            let t0 = Date()
            let bound: Double
            let since: Date
            switch fault {
            case .restart:
                // The bot may be back before restartServer returns (RabbitMQ's await_startup
                // takes its time), so any arrival after the fault counts: the old server's
                // room saw none after the bot's last recovery.
                try await target.restartServer()
                since = t0
                bound = Date().timeIntervalSince(t0) + bounds.backoffMax + bounds.connect
            case .kill:
                await bot.kill()
                verifyRuns += 1
                let v = await verify()
                if v.status == 0 { verifyClean += 1 } else { verifyFailures.append(v.output) }
                since = Date()
                bound = since.timeIntervalSince(t0) + bounds.startup
                try bot.launch()
            case .drop:
                proxy.silenceExisting()
                since = t0
                bound = target.detectionBound + bounds.backoffMax + bounds.connect
            }
            // Wait past the bound (a late recovery is measured, and counted as a failure).
            var back: Date?
            _ = await eventually(bound + 10) {
                back = await self.target.botArrivals().first { $0 > since }
                return back != nil
            }
            let outcome = Outcome(fault: fault, recovery: back.map { $0.timeIntervalSince(t0) }, bound: bound)
            outcomes.append(outcome)
            if !outcome.recovered {
                Issue.record("\(target.name): \(fault) #\(outcomes.count) not recovered within \(bound) s (took \(outcome.recovery.map { "\($0) s" } ?? "forever")); bot log: \(bot.logTail())")
            }
        }

        // Let the last faults' resends settle while people still talk, then stop people and the bot.
        try await Task.sleep(for: .seconds(2))
        people.stop()
        _ = await chatter.value
        try await Task.sleep(for: .seconds(1))
        let exit = await bot.terminate()
        await people.leave()
        verifyRuns += 1
        let v = await verify()
        if v.status == 0 { verifyClean += 1 } else { verifyFailures.append(v.output) }
        await proxy.stop()

        // What the bot acknowledged, from its journal.
        let records = try await dump()
        var intents: [(id: String, text: String)] = []
        var delivered: Set<String> = []
        for r in records {
            switch r["type"]?.string {
            case "send": if let id = r["id"]?.string, let text = r["text"]?.string { intents.append((id, text)) }
            case "delivered": for id in r["ids"]?.array ?? [] { if let s = id.string { delivered.insert(s) } }
            default: break
            }
        }
        let acknowledged = intents.filter { delivered.contains($0.id) }
        // The room's record may lag a moment behind (a recorder reconnecting): wait for it to settle.
        var room: [RoomLine] = []
        func lost() -> [String] {
            let said = Set(room.filter { $0.user == "parley" }.map(\.text))
            return acknowledged.map(\.text).filter { !said.contains($0) }
        }
        _ = await eventually(15) {
            room = await self.target.roomLines()
            return lost().isEmpty
        }
        room = await target.roomLines()
        let copies = Dictionary(room.filter { $0.user == "parley" }.map { ($0.text, 1) }, uniquingKeysWith: +)
        let ackedTexts = Set(acknowledged.map(\.text))
        let duplicates = copies.filter { ackedTexts.contains($0.key) && $0.value > 1 }
        let journaled = Set(intents.map(\.text))
        let unjournaled = copies.keys.filter { !journaled.contains($0) }.sorted()

        // Greetings per person, as the greeter decided them (each its own journaled send).
        var greetings: [String: Int] = [:]
        for i in intents {
            for prefix in ["Welcome, ", "Welcome back, "] where i.text.hasPrefix(prefix) && i.text.hasSuffix("!") {
                greetings[String(i.text.dropFirst(prefix.count).dropLast()), default: 0] += 1
            }
        }

        return Report(
            transport: target.name, outcomes: outcomes, greetedTwice: greetings.filter { $0.value > 1 }.keys.sorted(),
            acknowledged: acknowledged.count, unconfirmedAtEnd: intents.count - acknowledged.count,
            duplicates: duplicates, lost: lost(), unjournaled: unjournaled,
            verifyClean: verifyClean, verifyRuns: verifyRuns, verifyFailures: verifyFailures, finalExit: exit,
            people: people.joined, peopleLines: people.lines, detectionBound: target.detectionBound,
            detectionRule: target.detectionRule, bounds: bounds)
    }

    // MARK: the bot

    private func writeConfig(proxyPort: Int) throws {
        let plugins = ["greeter", "moderator"].map { packageRoot.appendingPathComponent("Plugins/\($0).lua").path }
        let (keys, tables) = target.botConfig(proxyPort: proxyPort)
        let text = """
        [[bot]]
        name = "parley"
        \(keys)
        plugins = [\(plugins.map { "\"\($0)\"" }.joined(separator: ", "))]
        journal = "state/parley"
        fsync = "always"
        [bot.presence]
        connect_timeout = 2
        backoff_initial = 0.05
        backoff_factor = 2
        backoff_max = \(bounds.backoffMax)
        \(tables)
        """
        let path = dir.appendingPathComponent("bot.toml").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// `parley journal verify` on the bot's journal (the bot is not running).
    private func verify() async -> (status: Int32, output: String) {
        let out = Pipe()
        guard let p = try? launchParley(["journal", "verify", journal], stdout: out, stderr: out) else { return (-1, "cannot launch") }
        let r = await finish(p, stdout: out)
        return (r.status, r.stdout)
    }

    /// `parley journal dump`, one JSON object per record.
    private func dump() async throws -> [JSONValue] {
        let out = Pipe()
        let p = try launchParley(["journal", "dump", journal], stdout: out)
        let r = await finish(p, stdout: out)
        #expect(r.status == 0, "journal dump failed")
        return r.stdout.split(separator: "\n").compactMap { try? JSONValue.parse(String($0)) }
    }

    /// Writes the table to stdout and to `.build/chaos/<transport>.txt` (for `make reliability`).
    static func publish(_ report: Report) {
        print(report.table)
        let folder = packageRoot.appendingPathComponent(".build/chaos")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try? (report.table + "\n").write(to: folder.appendingPathComponent("\(report.transport).txt"), atomically: true, encoding: .utf8)
    }

    /// One `#expect` per check, so a failure names the check.
    static func check(_ r: Report) {
        #expect(r.survived == r.outcomes.count, "\(r.transport): faults survived within bound \(r.survived)/\(r.outcomes.count)")
        #expect(r.greetedTwice.isEmpty, "\(r.transport): greeted twice: \(r.greetedTwice)")
        #expect(r.duplicates.values.allSatisfy { $0 <= 2 }, "\(r.transport): an acknowledged send repeated more than once: \(r.duplicates)")
        #expect(r.lost.isEmpty, "\(r.transport): acknowledged sends never seen in the room: \(r.lost)")
        #expect(r.unjournaled.isEmpty, "\(r.transport): bot lines in the room that its journal never held: \(r.unjournaled)")
        #expect(r.verifyClean == r.verifyRuns, "\(r.transport): journal verify failures: \(r.verifyFailures)")
        #expect(r.finalExit == 0, "\(r.transport): the bot's exit status after SIGTERM")
        #expect(r.acknowledged > 0 && r.people > 0, "\(r.transport): the scenario did something")
    }
}

/// The bot as a `parley run` child process: launched, killed with -9,
/// stopped with SIGTERM; each life's stderr goes to its own log file.
final class BotProcess: Sendable {
    let config: String
    let logs: URL
    private let current = Mutex<(process: Process?, lives: Int)>((nil, 0))

    init(config: String, logs: URL) {
        self.config = config
        self.logs = logs
    }

    func launch() throws {
        let life = current.withLock { $0.lives += 1; return $0.lives }
        let path = logs.appendingPathComponent("bot-\(life).log").path
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        let p = try launchParley(["run", config], stderr: FileHandle(forWritingAtPath: path))
        current.withLock { $0.process = p }
    }

    /// SIGKILL without waiting (a cancelled test cannot wait).
    func killNow() {
        if let p = current.withLock({ $0.process }), p.isRunning { Foundation.kill(p.processIdentifier, SIGKILL) }
    }

    func kill() async {
        guard let p = current.withLock({ $0.process }) else { return }
        Foundation.kill(p.processIdentifier, SIGKILL)
        _ = await finish(p)
    }

    /// SIGTERM and the exit status (a clean shutdown is 0).
    func terminate() async -> Int32 {
        guard let p = current.withLock({ $0.process }) else { return -1 }
        Foundation.kill(p.processIdentifier, SIGTERM)
        return await finish(p).status
    }

    /// The end of the current life's log, for failure messages.
    func logTail() -> String {
        let life = current.withLock { $0.lives }
        let text = (try? String(contentsOf: logs.appendingPathComponent("bot-\(life).log"), encoding: .utf8)) ?? ""
        return String(text.suffix(1500))
    }
}

/// The simulated people: they join one after another (each once, under a
/// unique name, so "Welcome, <name>!" is unique) and chat; about one line in
/// seven swears, so the moderator warns (its warnings name the user and the
/// strike, so they are unique too). Every line is unique.
final class People: Sendable {
    let target: any ChaosTarget
    let count: Int
    private let state: Mutex<(people: [any ChaosPerson], names: [String], lines: Int, stopped: Bool, rng: SeededRandom)>

    init(target: any ChaosTarget, count: Int, seed: UInt64) {
        self.target = target
        self.count = count
        state = Mutex(([], [], 0, false, SeededRandom(seed: seed)))
    }

    var joined: Int { state.withLock { $0.people.count } }
    var lines: Int { state.withLock { $0.lines } }
    func stop() { state.withLock { $0.stopped = true } }

    func chat() async {
        var n = 0
        while !state.withLock({ $0.stopped }) {
            n += 1
            let (pause, newcomer, pick, swear) = state.withLock { s in
                (Int.random(in: 80...220, using: &s.rng),
                 s.people.count < count && (s.people.isEmpty || Double.random(in: 0..<1, using: &s.rng) < 0.2),
                 Int.random(in: 0..<max(1, s.people.count), using: &s.rng),
                 Double.random(in: 0..<1, using: &s.rng) < 0.15)
            }
            if newcomer {
                let name = "p\(joined + 1)"
                let person = target.person(name)
                state.withLock { $0.people.append(person); $0.names.append(name) }
                if await person.say("hello, \(name) here (\(n))") { state.withLock { $0.lines += 1 } }
            } else {
                let (person, name) = state.withLock { ($0.people[pick], $0.names[pick]) }
                let text = swear ? "darn, \(name) is stuck again (\(n))" : "\(name) says line \(n)"
                if await person.say(text) { state.withLock { $0.lines += 1 } }
            }
            try? await Task.sleep(for: .milliseconds(pause))
        }
    }

    func leave() async {
        for p in state.withLock({ $0.people }) { await p.leave() }
    }
}
