import Foundation
import ParleyCore
import Synchronization

/// The code and data a paced reply touches, counted from a memory trace.
///
/// A paced reply finds its caches cold, so what it costs follows how many
/// 64-byte lines it touches, data as well as code. Callgrind sees only the
/// code; valgrind's `lackey` prints every instruction and every load and
/// store. The bot runs under it behind the embedded server, a message every
/// half second (lackey runs it some thousand times slower), and the trace,
/// read here through a FIFO, is cut into replies at the first `epoll_wait`
/// after each write. The lean Lua bot is traced the same way, for scale.
enum ReplyLines {
    static let perSecond = 2
    static let warmup = 10
    static let measured = 40
    static let leanMessages = 50
    /// A reply runs more instructions than this; a pong or a lone tick fewer.
    static let replyInstructions = 15_000
    /// A stretch between two waits that wrote nothing and ran fewer is a timer's tick.
    static let tickInstructions = 2_000

    /// One reply: the stretches of the trace from the wait after the last
    /// reply's write to the wait after its own, timers' ticks left out. When
    /// the message and the room's typing frame arrive in two reads, both are in.
    struct Reply {
        var instructions = 0
        var codeLines = 0, codePages = 0
        var dataLines = 0, dataPages = 0
        /// Data lines in the bot's binary: its constants, type metadata, and globals.
        var binaryDataLines = 0
    }

    /// Reads a lackey trace (`--trace-mem=yes --trace-syscalls=yes`) from a
    /// FIFO on a thread of its own and keeps each reply's counts.
    final class TraceReader: Sendable {
        private let state = Mutex<(replies: [Reply], binary: [ClosedRange<UInt64>], touches: [UInt64: Int])>(([], [], [:]))

        init(fifo: String) {
            Thread { [self] in consume(fifo) }.start()
        }

        var count: Int { state.withLock { $0.replies.count } }

        func replies(_ range: Range<Int>) -> [Reply] {
            state.withLock { s in Array(s.replies[min(range.lowerBound, s.replies.count)..<min(range.upperBound, s.replies.count)]) }
        }

        /// The address ranges of the traced binary's mappings, for the replies to come
        /// (read once the bot runs: before, they are not mapped yet). From then
        /// on each data line a reply touches is put down to the instruction that touched it first.
        func setBinary(_ ranges: [ClosedRange<UInt64>]) { state.withLock { $0.binary = ranges } }

        /// Data lines first touched by each instruction address, since `setBinary`.
        var touches: [UInt64: Int] { state.withLock { $0.touches } }

        private func consume(_ fifo: String) {
            let fd = open(fifo, O_RDONLY)
            guard fd >= 0 else { return }
            defer { close(fd) }
            // What the stretch since the last wait touched, and what the reply so far did.
            var code = Set<UInt64>(), data = Set<UInt64>(), instructions = 0, wrote = false
            var lastInstruction: UInt64 = 0, touches: [UInt64: Int] = [:]
            var reply = (code: Set<UInt64>(), data: Set<UInt64>(), instructions: 0, wrote: false)
            var line = [UInt8]()
            line.reserveCapacity(512)
            var chunk = [UInt8](repeating: 0, count: 1 << 20)
            func hex(_ l: [UInt8], from start: Int) -> (value: UInt64, end: Int) {
                var v: UInt64 = 0, i = start
                while i < l.count {
                    let c = l[i]
                    if c >= 48 && c <= 57 { v = v << 4 | UInt64(c - 48) } else if c >= 65 && c <= 70 { v = v << 4 | UInt64(c - 55) }
                    else if c >= 97 && c <= 102 { v = v << 4 | UInt64(c - 87) } else { break }
                    i += 1
                }
                return (v, i)
            }
            /// At a wait: a stretch that wrote nothing and ran a few instructions is
            /// a timer's tick, left out; a reply ends at the first wait after its write.
            func waited() {
                if wrote || instructions >= tickInstructions {
                    reply.code.formUnion(code)
                    reply.data.formUnion(data)
                    reply.instructions += instructions
                    reply.wrote = reply.wrote || wrote
                }
                code.removeAll(keepingCapacity: true); data.removeAll(keepingCapacity: true)
                instructions = 0; wrote = false
                guard reply.wrote else { return }
                state.withLock { s in
                    let binary = s.binary
                    if !binary.isEmpty { s.touches.merge(touches, uniquingKeysWith: +) }
                    s.replies.append(Reply(
                        instructions: reply.instructions,
                        codeLines: reply.code.count, codePages: Set(reply.code.lazy.map { $0 >> 6 }).count,
                        dataLines: reply.data.count, dataPages: Set(reply.data.lazy.map { $0 >> 6 }).count,
                        binaryDataLines: reply.data.filter { l in binary.contains { $0.contains(l << 6) } }.count))
                }
                reply.code.removeAll(keepingCapacity: true); reply.data.removeAll(keepingCapacity: true)
                reply.instructions = 0; reply.wrote = false
                touches.removeAll(keepingCapacity: true)
            }
            func handle(_ l: [UInt8]) {
                guard l.count > 3 else { return }
                if l[0] == 73, l[1] == 32 {  // "I  addr,size"
                    instructions += 1
                    lastInstruction = hex(l, from: 3).value
                    code.insert(lastInstruction >> 6)
                } else if l[0] == 32, l[1] == 76 || l[1] == 83 || l[1] == 77 {  // " L", " S", " M addr,size"
                    let (a, comma) = hex(l, from: 3)
                    var size: UInt64 = 0
                    for c in l[(comma + 1)...] where c >= 48 && c <= 57 { size = size * 10 + UInt64(c - 48) }
                    for lineAddress in (a >> 6)...((a + max(size, 1) - 1) >> 6)
                    where data.insert(lineAddress).inserted && !reply.data.contains(lineAddress) {
                        touches[lastInstruction, default: 0] += 1
                    }
                } else if l[0] == 83, let call = Self.syscall(l) {
                    if call == "sys_epoll_wait" || call == "sys_epoll_pwait" { waited() }
                    if call == "sys_write" || call == "sys_writev" || call == "sys_sendmsg" || call == "sys_sendto" { wrote = true }
                }
            }
            while true {
                let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return }
                var start = 0
                for i in 0..<n where chunk[i] == 10 {
                    line.append(contentsOf: chunk[start..<i])
                    handle(line)
                    line.removeAll(keepingCapacity: true)
                    start = i + 1
                }
                line.append(contentsOf: chunk[start..<n])
            }
        }

        /// `SYSCALL[pid,tid](n) sys_name ( ...`: the call's name; nil for its `[async]` completion line.
        private static func syscall(_ l: [UInt8]) -> String? {
            guard l.starts(with: Array("SYSCALL".utf8)), let close = l.firstIndex(of: 41) else { return nil }
            let rest = l[(close + 1)...].drop { $0 == 32 }
            let name = rest.prefix { $0 != 32 }
            return name.starts(with: Array("sys_".utf8)) ? String(decoding: name, as: UTF8.self) : nil
        }
    }

    /// Valgrind's arguments for a traced child whose log is `fifo`.
    static func lackey(_ fifo: String) -> [String] {
        ["valgrind", "--tool=lackey", "--trace-mem=yes", "--trace-syscalls=yes", "--log-file=\(fifo)"]
    }

    /// The executable's mappings in a running process (valgrind maps the
    /// guest's files at the guest's addresses in its own).
    static func mappings(pid: Int32, of path: String) -> [ClosedRange<UInt64>] {
        guard let maps = try? String(contentsOfFile: "/proc/\(pid)/maps", encoding: .utf8) else { return [] }
        return maps.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[5] == path else { return nil }
            let bounds = fields[0].split(separator: "-").compactMap { UInt64($0, radix: 16) }
            return bounds.count == 2 ? bounds[0]...(bounds[1] - 1) : nil
        }
    }

    /// The median of each count over the replies in `traced` (pongs left out).
    static func median(_ traced: [Reply]) -> (Reply, replies: Int) {
        let replies = traced.filter { $0.instructions >= replyInstructions }
        func mid(_ key: (Reply) -> Int) -> Int {
            let sorted = replies.map(key).sorted()
            return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
        }
        return (Reply(instructions: mid(\.instructions), codeLines: mid(\.codeLines), codePages: mid(\.codePages),
                         dataLines: mid(\.dataLines), dataPages: mid(\.dataPages), binaryDataLines: mid(\.binaryDataLines)),
                replies.count)
    }

    /// `touches` (instruction address: data lines) summed by the binary's
    /// function holding the address, most first; demangled when `swift-demangle` is at hand.
    /// `mapped`: the binary's mappings in the traced process, lowest first.
    static func functions(_ touches: [UInt64: Int], binary: String, mapped: [ClosedRange<UInt64>]) throws -> [(name: String, lines: Int)] {
        var symbols: [(address: UInt64, name: String)] = []
        for line in try runProcess("nm", ["-n", "--defined-only", binary], captureErrors: true).split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 3, "tTwW".contains(fields[1]), let address = UInt64(fields[0], radix: 16) else { continue }
            symbols.append((address, String(fields[2])))
        }
        let elsewhere = "(outside the binary: libc's malloc, free, memcpy)"
        let base = mapped.first?.lowerBound ?? 0
        var sums: [String: Int] = [:]
        for (pc, n) in touches {
            var name = elsewhere
            if mapped.contains(where: { $0.contains(pc) }) {
                let address = pc - base
                var low = 0, high = symbols.count
                while low < high {
                    let mid = (low + high) / 2
                    if symbols[mid].address <= address { low = mid + 1 } else { high = mid }
                }
                if low > 0 { name = symbols[low - 1].name }
            }
            sums[name, default: 0] += n
        }
        let sorted = sums.sorted { $0.value > $1.value }
        // Swift's mangled names start with "$s"; the runtime's C and C++ names stay as they are.
        let top = sorted.prefix(15).map(\.key).filter { $0.hasPrefix("$s") }
        let demangled = (try? runProcess("swift-demangle", ["--simplified", "--compact"] + top, captureErrors: true))?
            .split(separator: "\n").map(String.init) ?? []
        let names = demangled.count == top.count ? Dictionary(uniqueKeysWithValues: zip(top, demangled)) : [:]
        return sorted.map { (names[$0.key] ?? $0.key, $0.value) }
    }

    static func report(paths: SocketIOBench.Paths) async throws {
        guard (try? runProcess("valgrind", ["--version"], captureErrors: true)) != nil else {
            print("lines per reply: skipped (valgrind not found)")
            return
        }
        let dir = try BenchProcess.scratchDirectory("parley-reply-lines")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let binary = dir + "/ParleyBench"
        _ = try runProcess("strip", ["--strip-debug", "-o", binary, paths.bench], captureErrors: true)
        print("tracing the lean Lua bot, then Parley's echo bot, under valgrind's lackey (some minutes each)")

        // The lean bot: its last replies (it exits after its last).
        let leanFifo = dir + "/lean.fifo"
        guard mkfifo(leanFifo, 0o600) == 0 else { throw BenchError("cannot make \(leanFifo)") }
        let leanTrace = TraceReader(fifo: leanFifo)
        var leanChild: BenchChild?
        do {
            try WakeFloor.driveLeanResponder(messages: leanMessages, perSecond: perSecond, within: 1_200) { port in
                leanChild = try BenchChild(role: "lean Lua bot under lackey", executable: "/usr/bin/env",
                                           arguments: lackey(leanFifo) + [binary, "--lean-bot-replies", String(leanMessages), String(port)])
            }
        } catch {
            leanChild?.stop()
            throw error
        }
        leanChild?.stop()
        let leanReplies = leanTrace.replies(0..<leanTrace.count).filter { $0.instructions >= replyInstructions }.suffix(leanMessages - 10)
        let (lean, leanCount) = median(Array(leanReplies))

        // Parley's echo bot: the replies after the warm-up.
        let fifo = dir + "/parley.fifo"
        guard mkfifo(fifo, 0o600) == 0 else { throw BenchError("cannot make \(fifo)") }
        let trace = TraceReader(fifo: fifo)
        let (measuredReplies, touches, mapped) = try await SocketIOBench.Rig.withRig(server: .embedded, bot: .parley, paths: paths, startBot: { port in
            let child = try BenchChild(role: "Parley echo bot under lackey", executable: "/usr/bin/env",
                                       arguments: lackey(fifo) + [binary, "--socketio-echo-bot", String(port), "--under-valgrind"])
            do { _ = try child.line(startingWith: "READY", timeout: 1_200) } catch {
                child.stop()
                throw error
            }
            return child
        }) { rig in
            try await ReplyInstructions.paced(rig, base: 1, count: warmup, perSecond: perSecond, within: 600)
            let ranges = mappings(pid: rig.pids.bot, of: binary)
            guard !ranges.isEmpty else { throw BenchError("\(binary) is not mapped in the bot under lackey") }
            trace.setBinary(ranges)
            let first = trace.count
            try await ReplyInstructions.paced(rig, base: 1_000, count: measured, perSecond: perSecond, within: 600)
            try await Task.sleep(for: .seconds(2))  // the last reply ends at the wait after its write
            // Taken before the rig closes: the bot's shutdown is no reply.
            return (trace.replies(first..<trace.count), trace.touches, ranges)
        }
        let (parley, count) = median(measuredReplies)
        let byFunction = try functions(touches, binary: binary, mapped: mapped)
        print("\nlines a reply touches, median of \(count) replies (Parley's echo bot) and \(leanCount) (the lean Lua bot), "
              + "one message every \(1_000 / perSecond) ms under lackey:")
        for (name, f) in [("Parley's echo bot", parley), ("the lean Lua bot", lean)] {
            print("  \(name): \(f.instructions) instructions; code \(f.codeLines) lines on \(f.codePages) pages; "
                  + "data \(f.dataLines) lines on \(f.dataPages) pages")
        }
        print("  of Parley's data lines, in the binary's own mappings (constants, type metadata, globals): \(parley.binaryDataLines); "
              + "the rest are the heap and the stacks")
        let all = Double(byFunction.reduce(0) { $0 + $1.lines })
        print("  Parley's data lines a reply by the function that touched each first (mean of \(count) replies; the top 15 of \(byFunction.count)):")
        for (name, lines) in byFunction.prefix(15) {
            print("    \(String(format: "%5.1f", Double(lines) / Double(count)))  \(String(format: "%4.1f%%", 100 * Double(lines) / all))  \(name.prefix(100))")
        }
    }
}
