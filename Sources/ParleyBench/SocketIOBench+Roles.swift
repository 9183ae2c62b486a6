import Foundation
import ParleyCore
import ParleyRuntime
import ParleySocketIO
import Synchronization

// The bench's roles besides the load generator, each in its own process so no
// role takes another's threads and each one's CPU can be read from
// /proc/PID/stat: the two servers, the two echo bots, and the plumbing that
// starts them and makes sure none outlives the bench.

extension SocketIOBench {
    /// Child mode `--serve-socketio`: the embedded server; prints its port, runs until stdin closes.
    static func serve() async throws {
        resetTerminationSignals()
        let server = try await SocketChatServer.start(.init())
        FileHandle.standardOutput.write(Data("LISTENING \(server.port)\n".utf8))
        await stdinClosed()
        await server.shutdown()
    }

    /// Child mode `--socketio-echo-bot PORT`: Parley's echo bot (BotRunner,
    /// Plugins/echo.lua, SocketIOTransport, journal off so state is in
    /// memory, the same as the python peer). Prints READY once online; runs
    /// until stdin closes; exits 1 if the bot stops on its own. With
    /// `--durable DIR`, a journal in DIR at `fsync = "always"`.
    static func echoBot(port: Int, journal: String?, underValgrind: Bool = false) async throws {
        resetTerminationSignals()
        let plugin = FileManager.default.currentDirectoryPath + "/Plugins/echo.lua"
        guard FileManager.default.fileExists(atPath: plugin) else {
            throw BenchError("\(plugin) not found: run the bench from the package root")
        }
        // No outgoing rate cap: the bench measures how fast the runtime can
        // answer, the python peer has no cap either. (A deployed bot keeps the
        // default `[bot.flow] send_rate`.)
        var flow = FlowOptions()
        flow.sendRate = 0
        var options = BotOptions(name: botName)
        // Under valgrind the bot runs some fifty times slower (callgrind) to
        // some thousand (lackey): loading the plugin takes seconds there.
        if underValgrind { options.limits.timeMilliseconds = 600_000 }
        let spec = BotSpec(options: options, plugins: [.init(name: "echo", path: plugin)],
                           presence: PresenceOptions(),
                           transport: SocketIOTransport(endpoint: SocketIOEndpoint(host: "127.0.0.1", port: port), name: botName),
                           journal: journal, fsync: .always, flow: flow)
        let ready = OnceFlag(), stopping = OnceFlag()
        // Warnings and errors only: an info line per event would bill the bot for logging.
        var observer = RuntimeObserver { r in
            if r.level != .info { FileHandle.standardError.write(Data("parley echo bot \(r.level.rawValue): \(r.text)\n".utf8)) }
        }
        observer.connection = { _, state in
            if state == .online, ready.set() { FileHandle.standardOutput.write(Data("READY\n".utf8)) }
        }
        // The journal bot's syncs are counted (the bench asks with `SYNCS`).
        if journal != nil { _ = HTTPServer.registry }
        let runner = BotRunner(spec: spec, observer: observer)
        Task {
            let outcome = await runner.run()
            if !stopping.isSet {
                FileHandle.standardError.write(Data("the Parley echo bot stopped by itself: \(outcome)\n".utf8))
                exit(1)
            }
        }
        await stdinClosed { line in
            if line == "SYNCS" { FileHandle.standardOutput.write(Data((journalSyncsLine() + "\n").utf8)) }
        }
        _ = stopping.set()
        await runner.stop(drainTimeout: 0)
    }

    /// Resolves once stdin reaches EOF (the bench closed the pipe, or died);
    /// each line before that goes to `command`. The read blocks a thread of
    /// its own: a blocked cooperative thread would halve the bot's executor
    /// on a 2-core machine.
    static func stdinClosed(command: @escaping @Sendable (String) -> Void = { _ in }) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread {
                while let line = readLine() { command(line) }
                done.resume()
            }.start()
        }
    }

    /// The journal bot's answer to `SYNCS` on stdin: how many syncs its
    /// journal made so far, and how many of them took over 5 ms, read from
    /// `parley_journal_sync_duration_seconds` (the Prometheus registry a
    /// deployed bot serves at `/metrics`).
    static func journalSyncsLine() -> String {
        let name = "parley_journal_sync_duration_seconds"
        var count: Int?, within5ms: Int?
        for line in HTTPServer.registry.emitToString().split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let n = Int(parts[1]) else { continue }
            if parts[0] == "\(name)_count" { count = n }
            if parts[0] == "\(name)_bucket{le=\"0.005\"}" { within5ms = n }
        }
        // Before the first sync the histogram is not printed at all.
        guard let count, let within5ms else { return count == nil ? "SYNCS 0 0" : "SYNCS unreadable: no 5 ms bucket" }
        return "SYNCS \(count) \(count - within5ms)"
    }

    /// The bench ignores SIGINT/SIGTERM while it runs (a signal source kills
    /// the children instead), and a child is spawned from a Dispatch thread,
    /// which blocks them; both survive exec. A child puts the default back
    /// and unblocks them so a plain `kill` still ends it.
    static func resetTerminationSignals() {
        var set = sigset_t()
        sigemptyset(&set)
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            signal(sig, SIG_DFL)
            sigaddset(&set, sig)
        }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    // MARK: starting the roles

    /// Where the peers live, resolved from the current directory (make runs from the package root).
    struct Paths {
        var bench: String
        /// Another build's ParleyBench, whose echo bot runs beside this one's (`--baseline`).
        var baseline: String?
        /// Whether the load generator asks for its own messages back (`--without-echo` says no).
        var echo = true
        var python: String
        var server: String
        var echoPeer: String
        /// Runs a fixture and stops it when our end of its stdin closes (we
        /// closed it, or the bench died by any signal), under the same PID.
        var untilStdinCloses: String

        static func resolve() throws -> Paths {
            let root = FileManager.default.currentDirectoryPath
            let p = Paths(bench: URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path, baseline: nil,
                          python: root + "/.venv/bin/python",
                          server: root + "/Tests/Fixtures/python/socketchat_server.py",
                          echoPeer: root + "/Tests/Fixtures/python/echo_peer.py",
                          untilStdinCloses: root + "/Tests/Fixtures/python/until_stdin_closes.py")
            for f in [root + "/Plugins/echo.lua", p.server, p.echoPeer, p.untilStdinCloses] where !FileManager.default.fileExists(atPath: f) {
                throw BenchError("\(f) not found: run the bench from the package root (make bench does)")
            }
            guard FileManager.default.isExecutableFile(atPath: p.python) else {
                throw BenchError("\(p.python) not found: make the venv with `bash Tests/Fixtures/python/setup-venv.sh` (make bench does)")
            }
            return p
        }
    }


    static func startServer(_ kind: ServerKind, _ paths: Paths) throws -> (BenchChild, Int) {
        let child = switch kind {
        case .python: try BenchChild(role: "python-socketio server (socketchat_server.py)", executable: paths.python,
                                     arguments: [paths.untilStdinCloses, paths.server, "--port", "0"])
        case .embedded: try BenchChild(role: "embedded server (ParleyBench --serve-socketio)", executable: paths.bench,
                                       arguments: ["--serve-socketio"])
        }
        do {
            let line = try child.line(startingWith: "LISTENING", timeout: 30)
            guard let port = Int(line) else { throw BenchError("the \(child.role) printed 'LISTENING \(line)', not a port") }
            return (child, port)
        } catch {
            child.stop()
            throw error
        }
    }

    /// The journal bot's directory's name (`BenchProcess.scratchDirectory`).
    static func journalName(port: Int) -> String { "parley-echo-journal-\(port)" }

    /// Snapshots the journal bot has written so far: its journal keeps only
    /// the newest, whose name holds the sequence it covers, so a change
    /// between two readings is a compaction finished in between.
    static func newestSnapshot(port: Int) -> String? {
        let dir = BenchProcess.scratchPath(journalName(port: port))
        return ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.hasSuffix(".snap") }.max()
    }

    static func startBot(_ kind: BotKind, port: Int, _ paths: Paths) throws -> BenchChild {
        let child = switch kind {
        case .python: try BenchChild(role: "python echo bot (echo_peer.py)", executable: paths.python,
                                     arguments: [paths.untilStdinCloses, paths.echoPeer, "--url", "http://127.0.0.1:\(port)",
                                                 "--name", botName])
        case .parley: try BenchChild(role: "Parley echo bot (ParleyBench --socketio-echo-bot)", executable: paths.bench,
                                     arguments: ["--socketio-echo-bot", String(port)])
        case .baseline: try BenchChild(role: "the baseline build's Parley echo bot (--baseline)", executable: paths.baseline ?? paths.bench,
                                       arguments: ["--socketio-echo-bot", String(port)])
        case .parleyDurable: try BenchChild(role: "Parley echo bot with a journal (ParleyBench --socketio-echo-bot --durable)",
                                            executable: paths.bench,
                                            arguments: ["--socketio-echo-bot", String(port), "--durable",
                                                        try BenchProcess.scratchDirectory(journalName(port: port))])
        }
        do {
            _ = try child.line(startingWith: "READY", timeout: 30)
            return child
        } catch {
            child.stop()
            throw error
        }
    }

    // MARK: CPU and load

    /// A process's CPU time at one moment, read two ways. Its live threads'
    /// run times (/proc/PID/task/*/schedstat) are exact to the nanosecond;
    /// utime + stime (/proc/PID/stat) counts in ticks of 10 ms, a tenth of
    /// what a bot at 6% of a core uses in a 1 s slice, but keeps the time of
    /// threads that exited.
    /// Not a number where the process is gone, so a dead bot shows as
    /// such rather than as a bot that costs nothing.
    struct CPUTime {
        var runTime = Double.nan, ticks = Double.nan
        var threads: Set<String> = []

        /// Seconds from `a` to `b`: the exact run time, unless a thread of `a` exited meanwhile.
        static func seconds(from a: CPUTime, to b: CPUTime) -> Double {
            a.threads.isSubset(of: b.threads) ? b.runTime - a.runTime : b.ticks - a.ticks
        }
    }

    static func cpuTime(_ pid: Int32) -> CPUTime {
        var t = CPUTime()
        let dir = "/proc/\(pid)/task"
        var runTime = 0.0
        for tid in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] {
            // A thread that exited since the listing is left out, as if it had exited before.
            guard let s = try? String(contentsOfFile: "\(dir)/\(tid)/schedstat", encoding: .utf8),
                  let ns = s.split(separator: " ").first.flatMap({ Double($0) }) else { continue }
            runTime += ns / 1e9
            t.threads.insert(tid)
        }
        if !t.threads.isEmpty { t.runTime = runTime }
        if let s = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = s.lastIndex(of: ")") {
            // After "pid (comm)": field 3 (state) is index 0, so utime (14) and stime (15) are 11 and 12.
            let f = s[s.index(after: close)...].split(separator: " ")
            if f.count > 12, let u = Double(f[11]), let k = Double(f[12]) { t.ticks = (u + k) / Double(sysconf(Int32(_SC_CLK_TCK))) }
        }
        return t
    }

    /// Context switches of all of a process's threads, from
    /// /proc/PID/task/*/status: each hop of a message between threads costs
    /// one or two. `preempted` are the involuntary ones: the thread could
    /// have run on, but another task took its core.
    static func contextSwitches(_ pid: Int32) -> (all: Int, preempted: Int) {
        let dir = "/proc/\(pid)/task"
        var total = 0, preempted = 0
        for tid in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] {
            guard let text = try? String(contentsOfFile: "\(dir)/\(tid)/status", encoding: .utf8) else { continue }
            for line in text.split(separator: "\n") where line.contains("ctxt_switches:") {
                let n = Int(line.split(separator: "\t").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "") ?? 0
                total += n
                if line.hasPrefix("nonvoluntary") { preempted += n }
            }
        }
        return (total, preempted)
    }

    /// Microseconds in which some runnable task waited, for `resource` ("io"
    /// or "cpu"), since boot: the kernel's pressure stall information. Over a
    /// phase it says whether the machine, not the bot, made replies late.
    static func stallMicroseconds(_ resource: String) -> Double {
        guard let s = try? String(contentsOfFile: "/proc/pressure/\(resource)", encoding: .utf8),
              let line = s.split(separator: "\n").first(where: { $0.hasPrefix("some") }),
              let total = line.split(separator: " ").first(where: { $0.hasPrefix("total=") }) else { return .nan }
        return Double(total.dropFirst(6)) ?? .nan
    }

    /// Bytes written to the machine's disks since boot (/proc/diskstats; whole
    /// disks, the ones /sys/block lists, so no partition counts twice).
    static func diskBytesWritten() -> Double {
        guard let s = try? String(contentsOfFile: "/proc/diskstats", encoding: .utf8) else { return .nan }
        var sectors = 0.0
        for line in s.split(separator: "\n") {
            // major minor name reads … : field 10 counts 512-byte sectors written.
            let f = line.split(separator: " ")
            guard f.count > 9, FileManager.default.fileExists(atPath: "/sys/block/\(f[2])") else { continue }
            sectors += Double(f[9]) ?? 0
        }
        return sectors * 512
    }

    static func loadAverage() -> String {
        let s = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?"
        return s.split(separator: " ").prefix(3).joined(separator: " ")
    }
}

/// CLOCK_MONOTONIC in ns: the load generator's one clock for send stamps and receipts.
func monoNow() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Set once; `set()` says whether this call was the one that set it.
final class OnceFlag: Sendable {
    private let value = Mutex(false)
    func set() -> Bool { value.withLock { old in defer { old = true }; return !old } }
    var isSet: Bool { value.withLock { $0 } }
}

/// One role in its own process. Its stdin is a pipe only the bench holds:
/// closing it stops the child, and so does the bench's death by any means
/// (the kernel closes the pipe). A signal source kills what is left on
/// SIGINT/SIGTERM/SIGHUP; `stop()` escalates to SIGKILL after a few seconds.
///
/// Its stderr goes to a file, shown when it fails to start or does not exit
/// cleanly: the python peers print aiohttp's shutdown chatter even on a clean
/// exit, which would only clutter the report.
final class BenchChild {
    let role: String
    let process = Process()
    private let input = Pipe(), output = Pipe()
    private let errorFile: String
    private var buffered: [UInt8] = []
    /// Set once a thrown error already carries the stderr, so `stop()` does not repeat it.
    private var stderrShown = false
    var pid: Int32 { process.processIdentifier }

    init(role: String, executable: String, arguments: [String]) throws {
        self.role = role
        BenchChild.installSignalHandlers()
        errorFile = FileManager.default.temporaryDirectory
            .appendingPathComponent("parley-socketio-bench-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).stderr").path
        guard FileManager.default.createFile(atPath: errorFile, contents: nil),
              let errors = FileHandle(forWritingAtPath: errorFile) else { throw BenchError("cannot create \(errorFile)") }
        defer { try? errors.close() }
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        do { try process.run() } catch { throw BenchError("cannot start the \(role): \(error)") }
        BenchChild.live.withLock { _ = $0.insert(process.processIdentifier) }
    }

    /// What the child wrote to stderr, indented for the report.
    private var stderrText: String {
        let text = ((try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? "(nothing on stderr)" : text.split(separator: "\n").suffix(20).map { "    " + $0 }.joined(separator: "\n")
    }

    /// The rest of the first stdout line that starts with `prefix`. Blocks
    /// (only at setup, before any measuring); fails if the child exits or
    /// says nothing in time.
    func line(startingWith prefix: String, timeout: Double) throws -> String {
        let fd = output.fileHandleForReading.fileDescriptor
        let deadline = monoNow() + UInt64(timeout * 1e9)
        while true {
            while let nl = buffered.firstIndex(of: 0x0A) {
                let line = String(decoding: buffered[..<nl], as: UTF8.self)
                buffered.removeSubrange(...nl)
                if line.hasPrefix(prefix) { return String(line.dropFirst(prefix.count)).trimmingCharacters(in: .whitespaces) }
            }
            let now = monoNow()
            guard now < deadline else {
                stderrShown = true
                throw BenchError("the \(role) did not print \(prefix) within \(Int(timeout)) s; its stderr:\n\(stderrText)")
            }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&p, 1, Int32((deadline - now) / 1_000_000) + 1) <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = read(fd, &chunk, chunk.count)
            if n > 0 { buffered += chunk[..<n]; continue }
            if n < 0, errno == EINTR { continue }
            // EOF: the child closed stdout, which means it is exiting.
            let end = monoNow() + 2_000_000_000
            while process.isRunning, monoNow() < end { usleep(10_000) }
            let status = process.isRunning ? "still running" : "exit status \(process.terminationStatus)"
            stderrShown = true
            throw BenchError("the \(role) could not start: it exited before printing \(prefix) (\(status)); its stderr:\n\(stderrText)")
        }
    }

    /// Writes one line to the child's stdin (a command; closing it stops the child).
    func send(line: String) {
        try? input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Closes stdin and waits up to 3 s for a clean exit, then SIGTERM, then SIGKILL.
    func stop() {
        try? input.fileHandleForWriting.close()
        for (wait, sig) in [(3.0, SIGTERM), (1.0, SIGKILL)] {
            let end = monoNow() + UInt64(wait * 1e9)
            while process.isRunning, monoNow() < end { usleep(5_000) }
            if !process.isRunning { break }
            kill(pid, sig)
        }
        process.waitUntilExit()
        BenchChild.live.withLock { _ = $0.remove(pid) }
        if !stderrShown, process.terminationReason != .exit || process.terminationStatus != 0 {
            let how = process.terminationReason == .exit ? "exit status" : "signal"
            print("  note: the \(role) did not stop cleanly (\(how) \(process.terminationStatus)); its stderr:\n\(stderrText)")
        }
        try? FileManager.default.removeItem(atPath: errorFile)
    }

    static let live = Mutex<Set<Int32>>([])
    private static let signalSources = Mutex<[any DispatchSourceSignal]>([])

    /// On SIGINT/SIGTERM/SIGHUP: SIGKILL every live child, then exit 128+signal.
    static func installSignalHandlers() {
        signalSources.withLock { sources in
            guard sources.isEmpty else { return }
            for sig in [SIGINT, SIGTERM, SIGHUP] {
                signal(sig, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
                source.setEventHandler {
                    for pid in live.withLock({ $0 }) { kill(pid, SIGKILL) }
                    FileHandle.standardError.write(Data("bench interrupted by signal \(sig); children killed\n".utf8))
                    exit(128 + sig)
                }
                source.resume()
                sources.append(source)
            }
        }
    }
}
