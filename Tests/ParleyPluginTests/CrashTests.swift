import Foundation
import Synchronization
import ParleyJournal
import Testing
#if canImport(Glibc)
import Glibc
import ParleyTestSupport
#endif

/// The journal's promise, tested on the real binary: with `--journal`, a
/// printed send means its handler's state is durable. `kill -9` at random
/// moments must never lose a printed count, and a failing disk (fiu-run
/// injecting EIO into fdatasync, ENOSPC into pwrite) must stop the run before
/// anything is printed for the event whose write failed.
struct CrashTests {
    /// `parley` next to the test bundle (so `--scratch-path` builds find their
    /// own), `$PARLEY_BINARY` to override, else the default `.build/debug/parley`.
    static let binary: String = {
        if let path = ProcessInfo.processInfo.environment["PARLEY_BINARY"] { return path }
        if let bundle = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            let sibling = bundle.deletingLastPathComponent().appendingPathComponent("parley").path
            if FileManager.default.isExecutableFile(atPath: sibling) { return sibling }
        }
        return CLITests.binary
    }()

    static let fiuRun: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        return (path.split(separator: ":").map(String.init) + ["/usr/bin"])
            .map { $0 + "/fiu-run" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    static func harness(journal: String?) -> [String] {
        [binary, "plugin", "test", fixture("Crash/counter.lua").path, "--events", "-"] + (journal.map { ["--journal", $0] } ?? [])
    }

    static func count(_ tag: Int) -> String { message("!count \(tag)", user: "u", room: "r") }
    static func join(_ tag: Int) -> String { #"{"type":"join","room":"r","user":"\#(tag)"}"# }

    // MARK: kill -9

    /// 100 runs take about 7 s on an idle 2-core machine, 18 s with both cores
    /// busy and a disk writer alongside. `PARLEY_CRASH_ITERATIONS` for a soak.
    static let iterations = Int(ProcessInfo.processInfo.environment["PARLEY_CRASH_ITERATIONS"] ?? "") ?? 100

    @Test func killNineNeverLosesAPrintedCount() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["PARLEY_CRASH_SEED"] ?? "") ?? 2026
        var rng = SeededRandom(seed: seed)   // replayable with PARLEY_CRASH_SEED
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let command = Self.harness(journal: dir.appendingPathComponent("journal").path)
        let stderr = dir.appendingPathComponent("stderr")
        let started = Date()
        var ledger = Ledger()
        var tag = 0 // every !count carries a new tag, across all runs
        for i in 0..<Self.iterations {
            let child = try Child(command, stderr: stderr)
            let firstTag = tag + 1
            // Feeds !count messages at a steady 1 per ms until `done`, at most 4
            // unanswered: enough to have messages queued behind the one being
            // handled, without a backlog that grows the journal (and every
            // restart's replay of it) run after run.
            func feed(until done: () -> Bool) throws {
                let deadline = Date() + 30
                while !done() {
                    try #require(Date() < deadline, "no progress; stderr: \(child.stderr)")
                    if tag + 1 - firstTag - child.lines.count < 4 {
                        tag += 1
                        child.send(Self.count(tag))
                    }
                    usleep(1000)
                }
            }
            let mode: String
            switch i % 3 {
            case 0:
                // Right after start: during startup, while it recovers the last
                // kill's tail, or while it re-sends that kill's undelivered ack.
                mode = "after start"
                let deadline = Date() + Double.random(in: 0..<0.06, using: &rng)
                try feed { Date() >= deadline }
            case 1:
                // Mid-stream: acks coming back while more messages queue behind them.
                mode = "mid-stream"
                let target = Int.random(in: 1...12, using: &rng)
                try feed { child.lines.count >= target }
                usleep(UInt32.random(in: 0..<2000, using: &rng))
            default:
                // While a write is in flight: all answered, then one message and
                // the kill 0-4 ms later, landing in its history write, its
                // handler's transaction, the print or the delivery record.
                mode = "write in flight"
                let target = Int.random(in: 1...6, using: &rng)
                try feed { child.lines.count >= target }
                child.waitUntilQuiet()
                tag += 1
                child.send(Self.count(tag))
                usleep(UInt32.random(in: 0..<4000, using: &rng))
            }
            let lines = child.kill()
            let context = "seed \(seed), iteration \(i) (\(mode)); stderr: \(child.stderr)"
            // It died of our SIGKILL, not on its own (say, refusing to open a
            // journal an earlier kill left behind).
            try #require(child.process.terminationReason == .uncaughtSignal && child.process.terminationStatus == SIGKILL,
                         "exited with \(child.process.terminationStatus); \(context)")
            try ledger.record(lines, firstTag: firstTag, context: context)
        }
        // A fresh child, run to completion, counts on from the last printed ack.
        tag += 1
        let final = try Child.run(command, stdin: Self.count(tag), stderr: stderr)
        #expect(final.status == 0, "\(final.stderr)")
        let before = ledger.last?.n ?? 0
        try ledger.record(final.lines, firstTag: tag, context: "final run, seed \(seed)")
        #expect(ledger.last?.tag == tag && ledger.last!.n > before, "final run printed \(final.lines)")
        let seconds = String(format: "%.1f", Date().timeIntervalSince(started))
        print("CrashTests: kill -9 loop (\(Self.binary)), seed \(seed): \(Self.iterations) iterations, \(Self.iterations) kills, \(ledger.total) acks "
              + "(last ack \(ledger.last?.n ?? 0)), \(ledger.repeats) repeats and \(ledger.resends) re-sends after restarts, \(seconds) s")
    }

    // MARK: fiu-run

    /// (libfiu failure point, errno it returns, what stderr must say).
    /// `posix/io/rw/pwrite` covers the journal's pwrite but not the write(2)
    /// that prints to stdout.
    static let faults: [(point: String, errno: Int32, says: String)] = [
        ("posix/io/sync/fdatasync", EIO, "failed: Input/output error (EIO)"),
        ("posix/io/rw/pwrite", ENOSPC, "No space left on device (ENOSPC)"),
    ]

    /// A message is journaled as history before the plugin runs, so its fault
    /// hits the history record; a join's first write is the handler's own
    /// transaction (state and send together).
    @Test(arguments: faults, ["message", "join"])
    func aFailingJournalStopsBeforeTheAck(fault: (point: String, errno: Int32, says: String), event: String) throws {
        let fiuRun = try #require(Self.fiuRun, "fiu-run not found: install fiu-utils (apt-get install fiu-utils; .ci/run does)")
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let journal = dir.appendingPathComponent("journal").path
        let stderr = dir.appendingPathComponent("stderr")
        let healthy = Self.harness(journal: journal)
        let failing = [fiuRun, "-x", "-f", "", "-c", "enable name=\(fault.point),failinfo=\(fault.errno)"] + healthy
        let line = event == "join" ? Self.join : Self.count
        var ledger = Ledger()

        let first = try Child.run(healthy, stdin: (1...3).map(line).joined(separator: "\n"), stderr: stderr)
        #expect(first.status == 0, "\(first.stderr)")
        try ledger.record(first.lines, firstTag: 1, context: "before the fault")
        #expect(ledger.last?.n == 3)

        // The fault: the run stops with exit 1, naming the journal and the
        // cause, and prints nothing for the event whose write failed (or after).
        let faulted = try Child.run(failing, stdin: line(4) + "\n" + line(5), stderr: stderr, timeout: 30, hangsAtStartup: 2)
        #expect(faulted.status == 1)
        #expect(faulted.stderr.hasPrefix("parley: journal \(journal): ") && faulted.stderr.contains(fault.says)
                && faulted.stderr.hasSuffix("; stopping\n"), "\(faulted.stderr)")
        #expect(faulted.lines.isEmpty, "printed although the journal failed: \(faulted.lines)")

        // A restart while the disk still fails must not print either: whatever
        // the failed run left in the page cache was never made durable, so
        // handing out its send (a re-send from the outbox) would acknowledge
        // state that a power loss can still take back.
        let again = try Child.run(failing, stdin: line(6), stderr: stderr, timeout: 30, hangsAtStartup: 2)
        #expect(again.status == 1, "\(again.stderr)")
        #expect(again.lines.isEmpty, "printed while every \(fault.point) fails: \(again.lines)")

        // Control: the same fault without a journal answers normally, so the
        // missing acks above are the journal refusing, not stdout failing.
        let control = try Child.run(Array(failing.dropLast(2)), stdin: line(7), stderr: stderr, timeout: 30, hangsAtStartup: 2)
        #expect(control.status == 0 && control.lines.map(Ledger.parse) == [Ledger.Ack(n: 1, tag: 7)], "\(control.lines) \(control.stderr)")

        // The failed runs left a sound journal: no damage, no half transaction.
        let verify = try Child.run([Self.binary, "journal", "verify", journal], stdin: "", stderr: stderr)
        #expect(verify.status == 0, "\(verify.lines) \(verify.stderr)")

        // Healthy again: it runs and counts on from every ack printed so far.
        let after = try Child.run(healthy, stdin: line(8), stderr: stderr)
        #expect(after.status == 0, "\(after.stderr)")
        try ledger.record(faulted.lines, firstTag: 4, context: "under the fault")
        try ledger.record(again.lines, firstTag: 6, context: "restarted under the fault")
        try ledger.record(after.lines, firstTag: 8, context: "after the fault")
        #expect(ledger.last?.tag == 8, "\(after.lines)")
    }
}

/// Everything printed so far, and the rules every run's acks must follow.
struct Ledger {
    struct Ack: Equatable { var n: Int; var tag: Int }
    private(set) var last: Ack?
    private(set) var total = 0, repeats = 0, resends = 0

    /// Checks the lines one run printed. `firstTag` is the tag of the first
    /// event sent to that run; an ack with an older tag answers an earlier
    /// run's event, so it can only be a re-send from the journal's outbox.
    mutating func record(_ lines: [String], firstTag: Int, context: String) throws {
        // Every line is a whole ack: a plugin error or a torn print fails here.
        var acks = try lines.map { line in try #require(Self.parse(line), "not an ack: \(line); \(context)") }[...]
        total += acks.count
        if let a = acks.first, a.tag < firstTag {
            if a == last {
                // README: a send printed just before a crash, whose delivery
                // record was not yet durable, goes out once more.
                repeats += 1
            } else {
                // A handler whose transaction was durable when the crash came
                // before the print: its ack is the next count, and the event
                // came after the last one answered.
                #expect(a.n == (last?.n ?? 0) + 1 && a.tag > (last?.tag ?? 0), "bad re-send \(a) after \(String(describing: last)); \(context)")
                resends += 1
            }
            last = a
            acks = acks.dropFirst()
        }
        for (i, a) in acks.enumerated() {
            // The run's own events are answered in order, each once...
            try #require(a.tag == firstTag + i, "answered \(a.tag), expected \(firstTag + i); \(context)")
            // ...and count on from the last ack ever printed: nothing printed
            // was lost (lower), no counted event went unanswered (higher).
            try #require(a.n == (last?.n ?? 0) + 1, "ack \(a.n) for \(a.tag) after ack \(last?.n ?? 0); \(context)")
            last = a
        }
    }

    /// `{"plugin":"counter","action":"send","room":"r","text":"ack N for TAG"}`
    static func parse(_ line: String) -> Ack? {
        guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              o["action"] as? String == "send", let text = o["text"] as? String else { return nil }
        let words = text.split(separator: " ")
        guard words.count == 4, words[0] == "ack", words[2] == "for", let n = Int(words[1]), let tag = Int(words[3]) else { return nil }
        return Ack(n: n, tag: tag)
    }
}

/// A running `parley`: we write its stdin; a thread of its own reads its
/// stdout, so neither side ever blocks the other on a full pipe. Stderr goes
/// to a file.
final class Child: @unchecked Sendable { // set up once in init; `output` is behind a Mutex
    let process = Process()
    private let inputPipe = Pipe(), outputPipe = Pipe()
    private let output = Mutex<[String]>([])
    private let eof = DispatchSemaphore(value: 0)
    private let stderrFile: URL

    init(_ command: [String], stderr: URL) throws {
        signal(SIGPIPE, SIG_IGN) // writing to a child we killed must not kill us
        stderrFile = stderr
        _ = FileManager.default.createFile(atPath: stderr.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.standardInput = inputPipe
        process.standardOutput = outputPipe
        process.standardError = try FileHandle(forWritingTo: stderr)
        try process.run()
        let fd = outputPipe.fileHandleForReading.fileDescriptor
        Thread.detachNewThread { [self] in
            var pending: [UInt8] = [], buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = read(fd, &buffer, buffer.count)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                pending += buffer[..<n]
                while let nl = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[..<nl], as: UTF8.self)
                    pending.removeSubrange(...nl)
                    output.withLock { $0.append(line) }
                }
            }
            // A line cut off by the kill is kept, so the checks see it.
            if !pending.isEmpty { output.withLock { $0.append(String(decoding: pending, as: UTF8.self)) } }
            eof.signal()
        }
    }

    var lines: [String] { output.withLock { $0 } }
    var stderr: String { (try? String(contentsOf: stderrFile, encoding: .utf8)) ?? "" }

    /// One event line. A dead child's EPIPE is ignored.
    func send(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(inputPipe.fileHandleForWriting.fileDescriptor, $0.baseAddress, $0.count) }
    }

    /// Waits until nothing new was printed for 20 ms: everything sent is answered.
    func waitUntilQuiet() {
        var seen = -1
        while lines.count != seen {
            seen = lines.count
            usleep(20_000)
        }
    }

    /// SIGKILL, then everything it printed.
    func kill() -> [String] {
        if process.isRunning { _ = Glibc.kill(process.processIdentifier, SIGKILL) }
        return finish()
    }

    /// Closes stdin; waits for the exit and the end of stdout.
    func finish() -> [String] {
        try? inputPipe.fileHandleForWriting.close()
        eof.wait()
        process.waitUntilExit()
        return lines
    }

    /// `finish()`, but SIGKILLed after `seconds`: nil then.
    func finish(within seconds: Double) -> [String]? {
        try? inputPipe.fileHandleForWriting.close()
        if eof.wait(timeout: .now() + seconds) == .timedOut {
            _ = kill()
            return nil
        }
        process.waitUntilExit()
        return lines
    }

    /// Runs to completion on `stdin`, killed after `timeout` seconds.
    ///
    /// `hangsAtStartup` retries a run that hung without printing anything:
    /// for runs under fiu-run, whose `fiu_posix_preload.so` can deadlock a
    /// process on its own (seen once: glibc's dlopen of libgcc_s holding the
    /// loader's lock while fiu's malloc wrapper waited for fiu's rwlock,
    /// held by a dispatch thread whose fiu-wrapped `open` waited in `dlsym`
    /// for the loader's lock). Any other hang fails the test with the
    /// child's stderr instead of stalling the whole run.
    static func run(_ command: [String], stdin: String, stderr: URL, timeout: Double = 120,
                    hangsAtStartup retries: Int = 0) throws -> (status: Int32, lines: [String], stderr: String) {
        var attempt = 0
        while true {
            let child = try Child(command, stderr: stderr)
            child.send(stdin)
            if let lines = child.finish(within: timeout) {
                return (child.process.terminationStatus, lines, child.stderr)
            }
            let printed = child.lines
            guard printed.isEmpty, attempt < retries else {
                throw ChildTimeout(command: command, seconds: timeout, lines: printed, stderr: child.stderr)
            }
            attempt += 1
        }
    }
}

struct ChildTimeout: Error, CustomStringConvertible {
    var command: [String], seconds: Double, lines: [String], stderr: String
    var description: String {
        "\(command.joined(separator: " ")) did not finish within \(seconds) s and was killed; stdout: \(lines); stderr: \(stderr)"
    }
}
