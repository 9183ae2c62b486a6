import Foundation

// A synchronous main that waits for the bench on the cooperative pool.
// Valgrind cannot run an async main (its main thread parks inside
// libdispatch's `dispatch_main`, where valgrind 3.19 crashes), and the bench
// counts the echo bot's instructions under callgrind.
let finished = DispatchSemaphore(value: 0)
Task.detached {
    await benchMain()
    finished.signal()
}
finished.wait()

func benchMain() async {
    // `make bench`: every figure is a ratio against a peer measured in the same run.
    let quick = CommandLine.arguments.contains("--quick")
    // `--vm-loop N`: only the Parley VM path, N events (for instruction counting
    // under callgrind, which is repeatable where timings on a busy machine are not).
    if let i = CommandLine.arguments.firstIndex(of: "--vm-loop"), i + 1 < CommandLine.arguments.count,
       let n = Int(CommandLine.arguments[i + 1]) {
        do { try LuaBench.vmLoop(n) } catch { print("bench failed: \(error)"); exit(1) }
        exit(0)
    }
    // `--lua`: only the Lua plugin path bench.
    if CommandLine.arguments.contains("--lua") {
        do { try LuaBench.run(quick: quick) } catch { print("bench failed: \(error)"); exit(1) }
        exit(0)
    }
    // Child mode of the users bench: the StreamChat servers, in their own process.
    if let i = CommandLine.arguments.firstIndex(of: "--serve-shards"), i + 1 < CommandLine.arguments.count,
       let k = Int(CommandLine.arguments[i + 1]) {
        do { try await UsersBench.serveShards(k) } catch {
            FileHandle.standardError.write(Data("users bench servers failed: \(error)\n".utf8)); exit(1)
        }
        exit(0)
    }
    // Child mode of the users bench: one measurement in a fresh process.
    if let i = CommandLine.arguments.firstIndex(of: "--users-child") {
        do { try await UsersBench.runChild(Array(CommandLine.arguments[(i + 1)...])) } catch {
            FileHandle.standardError.write(Data("users bench child failed: \(error)\n".utf8)); exit(1)
        }
        exit(0)
    }
    // Child modes of the Socket.IO bench: the embedded server, and Parley's echo
    // bot on port PORT, each in its own process; both run until stdin closes.
    // Their stdout is the bench's pipe for LISTENING/READY, so failures go to stderr.
    if CommandLine.arguments.contains("--serve-socketio") {
        do { try await SocketIOBench.serve() } catch {
            FileHandle.standardError.write(Data("embedded Socket.IO server failed: \(error)\n".utf8)); exit(1)
        }
        exit(0)
    }
    if let i = CommandLine.arguments.firstIndex(of: "--socketio-echo-bot") {
        guard i + 1 < CommandLine.arguments.count, let port = Int(CommandLine.arguments[i + 1]) else {
            FileHandle.standardError.write(Data("--socketio-echo-bot needs a port\n".utf8)); exit(2)
        }
        let durable = CommandLine.arguments.firstIndex(of: "--durable").flatMap { $0 + 1 < CommandLine.arguments.count ? CommandLine.arguments[$0 + 1] : nil }
        let underValgrind = CommandLine.arguments.contains("--under-valgrind")
        do { try await SocketIOBench.echoBot(port: port, journal: durable, underValgrind: underValgrind) } catch {
            FileHandle.standardError.write(Data("Parley echo bot failed: \(error)\n".utf8)); exit(1)
        }
        exit(0)
    }
    // Child mode of the Socket.IO bench's wake floors: the server's side, against the responder on PORT.
    if let i = CommandLine.arguments.firstIndex(of: "--wake-floor-driver"), i + 3 < CommandLine.arguments.count,
       let port = Int(CommandLine.arguments[i + 1]), let count = Int(CommandLine.arguments[i + 2]), let rate = Int(CommandLine.arguments[i + 3]) {
        guard let framing = CommandLine.arguments.dropFirst(i + 4).first.flatMap(WakeFloor.Framing.init(rawValue:)) else {
            FileHandle.standardError.write(Data("--wake-floor-driver PORT COUNT RATE FRAMING: FRAMING is raw, websocket or socketio\n".utf8)); exit(2)
        }
        do { try WakeFloor.driver(port: port, messages: count, perSecond: rate, framing: framing) } catch {
            FileHandle.standardError.write(Data("wake floor driver failed: \(error)\n".utf8)); exit(1)
        }
        exit(0)
    }
    // Child mode of the instruction count: the lean Lua bot answers N messages from the driver on PORT, then exits.
    if let i = CommandLine.arguments.firstIndex(of: "--lean-bot-replies"), i + 2 < CommandLine.arguments.count,
       let n = Int(CommandLine.arguments[i + 1]), let port = Int(CommandLine.arguments[i + 2]) {
        do { try WakeFloor.leanResponder(port: port, replies: n) } catch {
            FileHandle.standardError.write(Data("lean bot failed: \(error)\n".utf8)); exit(1)
        }
        exit(0)
    }
    // Child mode of the flood bench: the moderator bot on port PORT, journal in DIR.
    if let i = CommandLine.arguments.firstIndex(of: "--flood-bot"), i + 2 < CommandLine.arguments.count,
       let port = Int(CommandLine.arguments[i + 1]) {
        do { try await FloodBench.bot(port: port, dir: CommandLine.arguments[i + 2]) } catch {
            FileHandle.standardError.write(Data("flood bot failed: \(error)\n".utf8)); exit(1)
        }
        exit(0)
    }
    // Child mode of the burst bench: greeter, echo and moderator on port PORT, journal in DIR, fsync POLICY.
    if let i = CommandLine.arguments.firstIndex(of: "--burst-bot"), i + 3 < CommandLine.arguments.count,
       let port = Int(CommandLine.arguments[i + 1]) {
        do { try await BurstBench.bot(port: port, dir: CommandLine.arguments[i + 2], policy: CommandLine.arguments[i + 3]) } catch {
            FileHandle.standardError.write(Data("burst bot failed: \(error)\n".utf8)); exit(1)
        }
        exit(0)
    }
    // `--journal-snapshot`: only the commits-while-a-snapshot-is-written part of `--journal`.
    if CommandLine.arguments.contains("--journal-snapshot") {
        BenchProcess.settleDisk()
        do { try await JournalBench.snapshotBench(directory: BenchProcess.scratchPath("parley-snapshot-bench")) } catch { print("bench failed: \(error)"); exit(1) }
        exit(0)
    }
    // `--journal`: only the journal against SQLite.
    if CommandLine.arguments.contains("--journal") {
        do { try await JournalBench.run(quick: quick) } catch { print("bench failed: \(error)"); exit(1) }
        exit(0)
    }
    // `--json`: only the JSON codec against Foundation's.
    if CommandLine.arguments.contains("--json") {
        do { try JSONBench.run(quick: quick) } catch { print("bench failed: \(error)"); exit(1) }
        exit(0)
    }
    // `--burst`: only the burst bench (replies/s against offered load, per fsync policy).
    if CommandLine.arguments.contains("--burst") {
        do { try await BurstBench.run(quick: quick) } catch { print("bench failed: \(error)"); exit(1) }
        exit(0)
    }
    // `--flood [SECONDS]`: only the flood bench, 10,000 messages/s for SECONDS (default 60).
    if let i = CommandLine.arguments.firstIndex(of: "--flood") {
        let seconds = i + 1 < CommandLine.arguments.count ? Double(CommandLine.arguments[i + 1]) ?? 60 : 60
        do { try await FloodBench.run(seconds: seconds, rate: 10_000) } catch { print("bench failed: \(error)"); exit(1) }
        exit(0)
    }
    // `--socketio-instructions`: only the echo bot's instructions per paced reply (callgrind).
    if CommandLine.arguments.contains("--socketio-instructions") {
        do { try await ReplyInstructions.report(paths: try SocketIOBench.Paths.resolve()) } catch { print("bench failed: \(error)"); exit(1) }
        exit(0)
    }
    // `--socketio`: only the Socket.IO echo bot bench.
    if CommandLine.arguments.contains("--socketio") {
        do { try await SocketIOBench.run(quick: quick) } catch { print("bench failed: \(error)"); exit(1) }
        exit(0)
    }
    // `--users 1000,5000`: only the users bench, for these counts.
    if let i = CommandLine.arguments.firstIndex(of: "--users"), i + 1 < CommandLine.arguments.count {
        let counts = CommandLine.arguments[i + 1].split(separator: ",").compactMap { Int($0) }
        var roomSize = UsersBench.defaultRoomSize
        if let r = CommandLine.arguments.firstIndex(of: "--room-size"), r + 1 < CommandLine.arguments.count, let size = Int(CommandLine.arguments[r + 1]) {
            roomSize = size
        }
        do { try await UsersBench.run(counts: counts, roomSize: roomSize, steadySeconds: quick ? 5 : 15) } catch { print("bench failed: \(error)"); exit(1) }
        exit(0)
    }
    do {
        try LuaBench.run(quick: quick)
        try await JournalBench.run(quick: quick)
        try await UsersBench.run(counts: quick ? [1000] : [1000, 5000, 10_000], steadySeconds: quick ? 5 : 15)
        try await SocketIOBench.run(quick: quick)
        try await FloodBench.run(seconds: quick ? 10 : 60, rate: 10_000)
        try await BurstBench.run(quick: quick)
        try JSONBench.run(quick: quick)
    } catch {
        print("bench failed: \(error)")
        exit(1)
    }
}
