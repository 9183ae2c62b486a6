import ArgumentParser
import Foundation

/// `make bench`, or one of its benches. Every figure is a ratio against a
/// peer measured in the same run. The hidden options are the child processes
/// the benches start: servers and bots that must not share the bench's process.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ParleyBench",
        abstract: "Parley's benchmarks, each against a peer measured in the same run.",
        discussion: "With no bench named, runs them all (about 20 minutes; --quick about 6). docs/benchmarks.md has the figures.")

    @Flag(help: "Shorter slices and fewer rounds: a smoke run, not the published figures.")
    var quick = false
    @Flag(help: "Only the Lua plugin path, against a stub bot on stock lua5.4.")
    var lua = false
    @Option(name: .customLong("vm-loop"), help: ArgumentHelp("Only N events through the Parley VM path, and no report: for callgrind.", valueName: "N"))
    var vmLoop: Int?
    @Flag(help: "Only the journal against SQLite, its recovery, and commits during a snapshot.")
    var journal = false
    @Flag(name: .customLong("journal-snapshot"), help: "Only the commits while a snapshot is written.")
    var journalSnapshot = false
    @Flag(help: "Only the JSON codec against Foundation's.")
    var json = false
    @Flag(help: "Only replies a second against offered load, per fsync policy.")
    var burst = false
    @Option(help: ArgumentHelp("Only the flood bench: 10,000 messages a second for this long.", valueName: "seconds"))
    var flood: Double?
    @Flag(name: .customLong("socketio-instructions"), help: "Only the echo bot's instructions a paced reply (callgrind).")
    var socketioInstructions = false
    @Option(name: .customLong("write-order"),
            help: ArgumentHelp("With --socketio-instructions: write the functions a reply runs through, the release build's link order.", valueName: "path"))
    var writeOrder: String?
    @Flag(name: .customLong("socketio-lines"), help: "Only the code and data lines a paced reply touches (valgrind's lackey; about 5 minutes).")
    var socketioLines = false
    @Flag(help: "Only the Socket.IO echo bot against the python bot and the wake floors.")
    var socketio = false
    @Option(help: ArgumentHelp("With --socketio: another build's ParleyBench whose echo bot takes the same slices, to compare two builds.",
                               valueName: "path"))
    var baseline: String?
    @Flag(name: .customLong("without-echo"),
          help: "With --socketio: the load generator does not ask for its own messages back, so no third process wakes with each message; the no-bot floor and the journal bound, which need them, are not measured.")
    var withoutEcho = false
    @Option(help: ArgumentHelp("Only the simulated users bench, for these counts.", valueName: "n,n,..."))
    var users: String?
    @Option(name: .customLong("room-size"), help: "People in a room, for --users.")
    var roomSize: Int = UsersBench.defaultRoomSize

    // The benches' child processes.
    @Option(name: .customLong("serve-shards"), help: .hidden) var serveShards: Int?
    @Option(name: .customLong("users-child"), parsing: .remaining, help: .hidden) var usersChild: [String] = []
    @Flag(name: .customLong("serve-socketio"), help: .hidden) var serveSocketIO = false
    @Option(name: .customLong("socketio-echo-bot"), help: .hidden) var socketioEchoBot: Int?
    @Option(help: .hidden) var durable: String?
    @Flag(name: .customLong("under-valgrind"), help: .hidden) var underValgrind = false
    @Option(name: .customLong("wake-floor-driver"), parsing: .upToNextOption, help: .hidden) var wakeFloorDriver: [String] = []
    @Option(name: .customLong("lean-bot-replies"), parsing: .upToNextOption, help: .hidden) var leanBotReplies: [Int] = []
    @Option(name: .customLong("flood-bot"), parsing: .upToNextOption, help: .hidden) var floodBot: [String] = []
    @Option(name: .customLong("burst-bot"), parsing: .upToNextOption, help: .hidden) var burstBot: [String] = []

    /// The benches named on the command line, and the child role if any.
    private var chosen: [String] {
        let named: [(Bool, String)] = [
            (lua, "--lua"), (vmLoop != nil, "--vm-loop"), (journal, "--journal"), (journalSnapshot, "--journal-snapshot"),
            (json, "--json"), (burst, "--burst"), (flood != nil, "--flood"), (socketioInstructions, "--socketio-instructions"),
            (socketioLines, "--socketio-lines"),
            (socketio, "--socketio"), (users != nil, "--users"), (serveShards != nil, "--serve-shards"),
            (!usersChild.isEmpty, "--users-child"), (serveSocketIO, "--serve-socketio"), (socketioEchoBot != nil, "--socketio-echo-bot"),
            (!wakeFloorDriver.isEmpty, "--wake-floor-driver"), (!leanBotReplies.isEmpty, "--lean-bot-replies"),
            (!floodBot.isEmpty, "--flood-bot"), (!burstBot.isEmpty, "--burst-bot"),
        ]
        return named.filter(\.0).map(\.1)
    }

    func validate() throws {
        let chosen = chosen
        guard chosen.count <= 1 else { throw ValidationError("name one bench at most (got \(chosen.joined(separator: ", ")))") }
        if let users, users.split(separator: ",").contains(where: { Int($0) == nil || Int($0)! < 1 }) {
            throw ValidationError("--users takes counts separated by commas, such as 1000,5000")
        }
        if !wakeFloorDriver.isEmpty, wakeFloorDriver.count != 4 || WakeFloor.Framing(rawValue: wakeFloorDriver[3]) == nil {
            throw ValidationError("--wake-floor-driver PORT COUNT RATE FRAMING: FRAMING is raw, websocket or socketio")
        }
        if socketioEchoBot == nil, durable != nil || underValgrind {
            throw ValidationError("--durable and --under-valgrind go with --socketio-echo-bot")
        }
        if writeOrder != nil, !socketioInstructions { throw ValidationError("--write-order goes with --socketio-instructions") }
        if withoutEcho, !socketio { throw ValidationError("--without-echo goes with --socketio") }
        if let baseline {
            guard socketio else { throw ValidationError("--baseline goes with --socketio") }
            guard FileManager.default.isExecutableFile(atPath: baseline) else { throw ValidationError("--baseline: no executable at \(baseline)") }
        }
        if !leanBotReplies.isEmpty, leanBotReplies.count != 2 { throw ValidationError("--lean-bot-replies N PORT") }
        if !floodBot.isEmpty, floodBot.count != 2 { throw ValidationError("--flood-bot PORT DIR") }
        if !burstBot.isEmpty, burstBot.count != 3 { throw ValidationError("--burst-bot PORT DIR POLICY") }
    }

    func run() throws {
        // A synchronous main that waits for the bench on the cooperative pool.
        // Valgrind cannot run an async main (its main thread parks inside
        // libdispatch's `dispatch_main`, where valgrind 3.19 crashes), and the
        // bench counts the echo bot's instructions under callgrind.
        let me = self
        let finished = DispatchSemaphore(value: 0)
        Task.detached {
            await me.runBench()
            finished.signal()
        }
        finished.wait()
    }

    /// Runs what was chosen; a failure ends the process with status 1. A
    /// child's failure goes to stderr: its stdout is the bench's pipe.
    private func runBench() async {
        func child(_ role: String, _ body: () async throws -> Void) async {
            do { try await body() } catch {
                FileHandle.standardError.write(Data("\(role) failed: \(error)\n".utf8))
                Foundation.exit(1)
            }
        }
        func bench(_ body: () async throws -> Void) async {
            do { try await body() } catch {
                print("bench failed: \(error)")
                Foundation.exit(1)
            }
        }
        let quick = quick
        if let n = vmLoop {
            await bench { try LuaBench.vmLoop(n) }
        } else if lua {
            await bench { try LuaBench.run(quick: quick) }
        } else if let k = serveShards {
            await child("users bench servers") { try await UsersBench.serveShards(k) }
        } else if !usersChild.isEmpty {
            await child("users bench child") { try await UsersBench.runChild(usersChild) }
        } else if serveSocketIO {
            await child("embedded Socket.IO server") { try await SocketIOBench.serve() }
        } else if let port = socketioEchoBot {
            await child("Parley echo bot") { try await SocketIOBench.echoBot(port: port, journal: durable, underValgrind: underValgrind) }
        } else if !wakeFloorDriver.isEmpty {
            let a = wakeFloorDriver
            await child("wake floor driver") {
                guard let port = Int(a[0]), let count = Int(a[1]), let rate = Int(a[2]) else {
                    throw ValidationError("--wake-floor-driver PORT COUNT RATE FRAMING: numbers expected")
                }
                try WakeFloor.driver(port: port, messages: count, perSecond: rate, framing: WakeFloor.Framing(rawValue: a[3])!)
            }
        } else if !leanBotReplies.isEmpty {
            await child("lean bot") { try WakeFloor.leanResponder(port: leanBotReplies[1], replies: leanBotReplies[0]) }
        } else if !floodBot.isEmpty {
            await child("flood bot") { try await FloodBench.bot(port: try Self.port(floodBot[0]), dir: floodBot[1]) }
        } else if !burstBot.isEmpty {
            await child("burst bot") { try await BurstBench.bot(port: try Self.port(burstBot[0]), dir: burstBot[1], policy: burstBot[2]) }
        } else if journalSnapshot {
            BenchProcess.settleDisk()
            await bench { try await JournalBench.snapshotBench(directory: BenchProcess.scratchPath("parley-snapshot-bench")) }
        } else if journal {
            await bench { try await JournalBench.run(quick: quick) }
        } else if json {
            await bench { try JSONBench.run(quick: quick) }
        } else if burst {
            await bench { try await BurstBench.run(quick: quick) }
        } else if let seconds = flood {
            await bench { try await FloodBench.run(seconds: seconds, rate: 10_000) }
        } else if socketioInstructions {
            await bench { try await ReplyInstructions.report(paths: try SocketIOBench.Paths.resolve(), orderFile: writeOrder) }
        } else if socketioLines {
            await bench { try await ReplyLines.report(paths: try SocketIOBench.Paths.resolve()) }
        } else if socketio {
            await bench { try await SocketIOBench.run(quick: quick, baseline: baseline, echo: !withoutEcho) }
        } else if let users {
            let counts = users.split(separator: ",").compactMap { Int($0) }
            await bench { try await UsersBench.run(counts: counts, roomSize: roomSize, steadySeconds: quick ? 5 : 15) }
        } else {
            await bench {
                try LuaBench.run(quick: quick)
                try await JournalBench.run(quick: quick)
                try await UsersBench.run(counts: quick ? [1000] : [1000, 5000, 10_000], steadySeconds: quick ? 5 : 15)
                try await SocketIOBench.run(quick: quick)
                try await FloodBench.run(seconds: quick ? 10 : 60, rate: 10_000)
                try await BurstBench.run(quick: quick)
                try JSONBench.run(quick: quick)
            }
        }
    }

    private static func port(_ text: String) throws -> Int {
        guard let port = Int(text) else { throw ValidationError("not a port: \(text)") }
        return port
    }
}

BenchCommand.main()
