import Foundation
import ParleyCore

/// Instructions per paced reply of Parley's echo bot, counted by callgrind.
///
/// CPU time per paced reply moves by ±10 µs from run to run on this shared
/// machine, so a cut of a few per cent cannot be seen in it; an instruction
/// count repeats to a few in a million. The bot runs under
/// `valgrind --tool=callgrind` behind the embedded server, and the load
/// generator sends `!echo` at 50 msg/s: each message is its own wake, as at
/// 1,000 msg/s without valgrind's slowdown. After a warm-up the counters are
/// zeroed, `measured` messages are answered, and the counters are dumped.
/// A reply is all the bot does for one message: one frame read (the
/// server sends the bot neither its own reply back nor, as no plugin of
/// the echo bot listens to typing, the room's typing set), one written. The lean Lua bot (`LeanEcho`) is counted beside it
/// for scale.
enum ReplyInstructions {
    static let perSecond = 50
    static let warmup = 40
    static let measured = 200

    struct Figures {
        var perReply: Double
        /// Instructions per reply by where the code lives, largest first.
        var byObject: [(name: String, perReply: Double)]
        /// The lean Lua bot's (`LeanEcho`), for scale: the least a Lua bot on the same codec does.
        var leanPerReply: Double
        /// Calls per reply of the runtime functions in `counted`.
        var calls: [String: Double] = [:]
        /// Instructions per reply of each of `stages` (nil: its function was not in the dump).
        var stages: [Double?] = []
        /// The code a reply runs through, and the lean bot's.
        var footprint = Footprint(), leanFootprint = Footprint()
        /// The binary's functions a reply runs through, in address order: the hot-path order file.
        var hotFunctions: [String] = []
    }

    /// The code a typical reply runs through: the 64-byte lines and 4 KiB
    /// pages holding an instruction that ran in at least half the replies.
    /// A paced reply finds them cold, so what it costs follows how much code
    /// it touches and how many pages that code is spread over, not only how
    /// many instructions run.
    struct Footprint {
        var lines = 0, pages = 0
        /// Lines and pages by object file, most lines first.
        var byObject: [(name: String, lines: Int, pages: Int)] = []

        init() {}

        /// From per-instruction counts (object, address) over `replies` replies.
        init(_ counts: [Dump.Place: Int], replies: Int) {
            var lines: [String: Set<UInt64>] = [:], pages: [String: Set<UInt64>] = [:]
            for (place, n) in counts where Self.ranInMost(n, of: replies) {
                lines[place.object, default: []].insert(place.address >> 6)
                pages[place.object, default: []].insert(place.address >> 12)
            }
            byObject = lines.map { ($0.key, $0.value.count, pages[$0.key]!.count) }.sorted { $0.lines > $1.lines }
            self.lines = byObject.reduce(0) { $0 + $1.lines }
            self.pages = byObject.reduce(0) { $0 + $1.pages }
        }

        /// Code that ran `n` times in `replies` replies runs in a typical one.
        static func ranInMost(_ n: Int, of replies: Int) -> Bool { 2 * n >= replies }

        var text: String {
            "\(lines * 64 / 1024) KiB in \(lines) lines of 64 bytes, on \(pages) pages of 4 KiB ("
                + byObject.filter { $0.lines >= 20 }.map { "\($0.name) \($0.lines) lines on \($0.pages) pages" }.joined(separator: "; ") + ")"
        }
    }

    /// Runtime calls counted per reply: tasks made and jobs queued (none on
    /// the per-message path: a reply is one call on the bot's loop), and
    /// heap allocations.
    static let counted = [("swift_task_create", "tasks made"), ("swift_task_enqueue", "jobs queued"), ("malloc", "malloc calls")]

    /// A reply's stages, each the inclusive cost of the function that is
    /// that stage, nested by `depth`. The symbols are mangled names: a stage
    /// whose function was renamed prints as not found rather than wrong.
    static let stages: [(label: String, depth: Int, symbol: String)] = [
        ("read above the WebSocket frames: Engine.IO, Socket.IO and its JSON, the event, the inbox", 0,
         "$s9ParleyNet26WebSocketConnectionHandlerC11channelRead7context4datay7NIOCore07ChannelF7ContextC_AG6NIOAnyVtF"),
        ("the session's consumer: the event observed and pushed into the inbox", 1,
         "$s13ParleyRuntime9BotRunnerC8consumer4into4name8observery0A4Core15TransportEventsC4ItemOYbcAA5InboxC_SSAA0B8ObserverVtFZyALYbcfU_"),
        ("the pump's turn: the batch taken, routed, handled, its actions taken", 0, "$s13ParleyRuntime9BotRunnerC4turnyyF"),
        ("the plugin host: the event routed, its history, state, the settled effects", 1,
         "$s13ParleyRuntime3BotC5routeySay0A4Core0C6ActionVGAE0C5EventO0A5Store0H5ErrorVYKF"),
        ("the Lua VM: the prelude's dispatch, bot.command's parsing, the command", 2,
         "$s9ParleyLua8PluginVMC15dispatchMessage4room4user4text2id4time8replayed3now5dropsAA0C7FailureVSg_SayAA8VMActionOGtSS_S3SSdSbSdSays5Int64VGtF"),
        ("the outbox drain: the batch taken, written, settled, recorded as delivered", 1, "$s13ParleyRuntime9BotRunnerC7drainOnyyF"),
        ("the session's write: the Socket.IO event, Engine.IO, the frame, NIO's write and flush", 2,
         "$s14ParleySocketIO0B9IOSessionC5write_4thenSbSay0A4Core15OutgoingMessageVG_ySayAF11SendOutcomeOGYbctF"),
    ]

    /// Whole names as the linker knows them (the runtime's C++ ones not
    /// demangled), and a cost per instruction at its absolute address (for
    /// the footprint).
    static let dumpOptions = ["--compress-strings=no", "--demangle=no", "--dump-instr=yes", "--compress-pos=no"]

    /// Replies of the lean bot's two runs: their difference cancels its start-up.
    static let leanReplies = (60, 260)

    /// Nil (with the reason printed) when valgrind is not installed.
    static func run(paths: SocketIOBench.Paths) async throws -> Figures? {
        guard (try? runProcess("callgrind_control", ["--version"], captureErrors: true)) != nil else {
            print("instructions per reply: skipped (valgrind's callgrind_control not found)")
            return nil
        }
        let dir = try BenchProcess.scratchDirectory("parley-reply-instructions")
        // `PARLEY_KEEP_CALLGRIND=1` keeps the dumps for `callgrind_annotate`.
        let keep = ProcessInfo.processInfo.environment["PARLEY_KEEP_CALLGRIND"] == "1"
        defer {
            if keep { print("callgrind dumps kept in \(dir)") } else { try? FileManager.default.removeItem(atPath: dir) }
        }
        // Valgrind 3.19 cannot read the toolchain's DWARF; symbols are enough.
        let binary = dir + "/ParleyBench"
        _ = try runProcess("strip", ["--strip-debug", "-o", binary, paths.bench], captureErrors: true)
        let out = dir + "/callgrind.out"
        // The lean bot in a child under valgrind (`--lean-bot-replies`), its driver here.
        var leanDumps: [Dump] = []
        for (i, n) in [leanReplies.0, leanReplies.1].enumerated() {
            let file = dir + "/lean-\(i).out"
            var child: BenchChild?
            do {
                try WakeFloor.driveLeanResponder(messages: n, perSecond: perSecond) { port in
                    child = try BenchChild(role: "lean Lua bot under callgrind", executable: "/usr/bin/env",
                                           arguments: ["valgrind", "--tool=callgrind"] + dumpOptions + ["--callgrind-out-file=\(file)",
                                                       binary, "--lean-bot-replies", String(n), String(port)])
                }
            } catch {
                child?.stop()
                throw error
            }
            // It exits once it has answered; `stop` waits for that and shows its stderr if it failed.
            child?.stop()
            guard let process = child?.process, process.terminationReason == .exit, process.terminationStatus == 0 else {
                throw BenchError("the lean Lua bot under callgrind did not exit cleanly")
            }
            leanDumps.append(try Dump(file))
        }
        let leanN = leanReplies.1 - leanReplies.0
        let lean = Double(leanDumps[1].total - leanDumps[0].total) / Double(leanN)
        let leanCounts = leanDumps[1].counts.merging(leanDumps[0].counts.mapValues { -$0 }, uniquingKeysWith: +)
        var figures = try await SocketIOBench.Rig.withRig(server: .embedded, bot: .parley, paths: paths, startBot: { port in
            // `env` execs valgrind, which execs the tool: the child's pid is the bot's.
            let child = try BenchChild(role: "Parley echo bot under callgrind", executable: "/usr/bin/env",
                                       arguments: ["valgrind", "--tool=callgrind"] + dumpOptions + ["--callgrind-out-file=\(out)",
                                                   binary, "--socketio-echo-bot", String(port), "--under-valgrind"])
            do { _ = try child.line(startingWith: "READY", timeout: 120) } catch {
                child.stop()
                throw error
            }
            return child
        }) { rig in
            try await paced(rig, base: 1, count: warmup)
            _ = try runProcess("callgrind_control", ["--zero", String(rig.pids.bot)], captureErrors: true)
            try await paced(rig, base: 1_000, count: measured)
            _ = try runProcess("callgrind_control", ["--dump", String(rig.pids.bot)], captureErrors: true)
            return try read(out + ".1", replies: measured)
        }
        figures.leanPerReply = lean
        figures.leanFootprint = Footprint(leanCounts, replies: leanN)
        return figures
    }

    /// The order the release build links in, relative to the package root.
    static let committedOrder = "scripts/hot-path.order"

    /// Measures and prints the figure; with `orderFile`, writes the binary's
    /// functions a reply runs through there: the order the release build
    /// links them in (`scripts/hot-path.order`, see `scripts/release-build.sh`).
    static func report(paths: SocketIOBench.Paths, orderFile: String? = nil) async throws {
        // Before the minute of measuring: a missing tool fails at once.
        let last = try orderFile.map { _ in try placedLast(binary: paths.bench) } ?? []
        guard let f = try await run(paths: paths) else { return }
        let parts = f.byObject.filter { $0.perReply >= 50 }.map { "\($0.name) \(Int($0.perReply.rounded()))" }
        print("\ninstructions per reply, Parley's echo bot under callgrind (\(measured) replies at \(perSecond) msg/s, each its own wake): "
              + "\(Int(f.perReply.rounded()))")
        print("  by where the code lives: " + parts.joined(separator: "; "))
        print("  by stage (inclusive; the rest is NIO's socket reads, frames and event loop):")
        for (stage, cost) in zip(stages, f.stages) {
            let figure = cost.map { String(Int($0.rounded())) } ?? "not found (renamed? see `stages`)"
            print("    " + String(repeating: "  ", count: stage.depth) + "\(stage.label): \(figure)")
        }
        print("  calls per reply: " + counted.map { "\($0.1) \(String(format: "%.2f", f.calls[$0.0] ?? 0))" }.joined(separator: "; "))
        print("  the lean Lua echo bot (the same codec, a plain Lua function, no runtime): "
              + "\(Int(f.leanPerReply.rounded())) (the difference of runs of \(leanReplies.0) and \(leanReplies.1) replies)")
        print("  code a reply runs through (lines with an instruction run in half the replies or more): " + f.footprint.text)
        print("    the lean Lua echo bot's: " + f.leanFootprint.text)
        if orderFile == nil, let listed = try? String(contentsOfFile: committedOrder, encoding: .utf8) {
            // A change to the reply path leaves the order behind silently: the linker skips names it does not find.
            let names = Set(listed.split(separator: "\n").map(String.init))
            let missing = f.hotFunctions.filter { !names.contains($0) }.count
            print("  \(committedOrder) lists \(f.hotFunctions.count - missing) of the \(f.hotFunctions.count) functions a reply runs through"
                  + (20 * missing > f.hotFunctions.count ? "; write it again with --write-order \(committedOrder)" : ""))
        }
        if let orderFile {
            let order = f.hotFunctions.filter { !last.contains($0) } + f.hotFunctions.filter { last.contains($0) }
            try (order.joined(separator: "\n") + "\n").write(toFile: orderFile, atomically: true, encoding: .utf8)
            print("  the binary's \(order.count) functions a reply runs through written to \(orderFile); "
                  + "\(order.filter { last.contains($0) }.count) of them last, as placing one moves more than itself (see `placedLast`)")
        }
    }

    /// Sends `count` messages at `perSecond` and waits up to `seconds` more for every reply.
    static func paced(_ rig: SocketIOBench.Rig, base: Int, count: Int, perSecond: Int = perSecond, within seconds: UInt64 = 30) async throws {
        rig.tracker.start(base: base, count: count)
        let period = UInt64(1_000_000_000 / perSecond)
        let t0 = monoNow()
        for i in 0..<count {
            let due = t0 + UInt64(i) * period
            let now = monoNow()
            if now < due { try await Task.sleep(for: .nanoseconds(Int64(due - now))) }
            try await rig.session.send(OutgoingMessage(id: "", room: "lobby", text: "!echo \(base + i) \(monoNow())"))
        }
        let end = monoNow() + seconds * 1_000_000_000
        while rig.tracker.answered(base..<(base + count)) < count {
            guard monoNow() < end else {
                throw BenchError("the echo bot under valgrind answered \(rig.tracker.answered(base..<(base + count))) of \(count) within \(seconds) s")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The dump's self costs summed by object file, the counted calls, the stages and the footprint, per reply.
    static func read(_ path: String, replies: Int) throws -> Figures {
        let dump = try Dump(path)
        let n = Double(replies)
        return Figures(perReply: Double(dump.total) / n,
                       byObject: dump.byObject.sorted { $0.value > $1.value }.map { ($0.key, Double($0.value) / n) }, leanPerReply: 0,
                       calls: dump.calls.mapValues { Double($0) / n },
                       stages: stages.map { stage in dump.inclusive[stage.symbol].map { Double($0) / n } },
                       footprint: Footprint(dump.counts, replies: replies),
                       hotFunctions: dump.functions(in: binaryLabel, replies: replies))
    }

    /// A callgrind dump made with `dumpOptions`: self costs (instructions)
    /// summed by object file (`ob=`), the calls to each function of
    /// `counted`, the inclusive cost of each function of `stages`, and the
    /// cost of each instruction.
    struct Dump {
        struct Place: Hashable { var object: String, address: UInt64 }
        var byObject: [String: Int] = [:]
        var calls: [String: Int] = [:]
        var inclusive: [String: Int] = [:]
        /// Each instruction's cost: how many times it ran.
        var counts: [Place: Int] = [:]
        /// The function each instruction belongs to.
        var functionAt: [Place: String] = [:]
        var total: Int { byObject.values.reduce(0, +) }

        init(_ path: String) throws {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw BenchError("callgrind wrote no dump at \(path)") }
            let stageSymbols = Set(stages.map(\.symbol))
            var object = "?", function = "", callee = ""
            var afterCalls = false
            for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
                if line.hasPrefix("ob=") { object = label(String(line.dropFirst(3))) }
                else if line.hasPrefix("fn=") { function = String(line.dropFirst(3)) }
                else if line.hasPrefix("cfn=") { callee = String(line.dropFirst(4)) }
                else if line.hasPrefix("calls=") {
                    afterCalls = true
                    if counted.contains(where: { $0.0 == callee }), let n = Int(line.dropFirst(6).prefix { $0 != " " }) {
                        calls[callee, default: 0] += n
                    }
                }
                else if line.hasPrefix("0x") {
                    // `instr line cost`: the instruction's address, its source line (0: no debug info), its cost.
                    let fields = line.split(separator: " ")
                    guard fields.count >= 2, let cost = Int(fields[fields.count - 1]), let address = UInt64(fields[0].dropFirst(2), radix: 16) else {
                        afterCalls = false
                        continue
                    }
                    // A stage's own costs and those of what it calls (a call to itself is counted where it lands).
                    if stageSymbols.contains(function), !(afterCalls && callee == function) { inclusive[function, default: 0] += cost }
                    // The line after `calls=` is the callee's inclusive cost, already counted in its own function.
                    if afterCalls { afterCalls = false; continue }
                    byObject[object, default: 0] += cost
                    let place = Place(object: object, address: address)
                    counts[place, default: 0] += cost
                    functionAt[place] = function
                }
            }
            guard total > 0 else { throw BenchError("callgrind's dump at \(path) has no costs") }
        }

        /// The functions of `object` a typical one of `replies` runs through (as `Footprint` counts), by address.
        func functions(in object: String, replies: Int) -> [String] {
            var first: [String: UInt64] = [:]
            for (place, n) in counts where place.object == object && Footprint.ranInMost(n, of: replies) {
                // Callgrind names a recursive call's frame `name'2`; the symbol is `name`.
                let name = String(functionAt[place]!.prefix { $0 != "'" })
                // Code without a symbol (named by its address) cannot be placed by name.
                if name.hasPrefix("0x") { continue }
                first[name] = min(first[name] ?? .max, place.address)
            }
            return first.sorted { $0.value < $1.value }.map(\.key)
        }
    }

    /// The functions the order file lists after the rest, because placing
    /// one of them moves far more than itself:
    /// - those in the plain `.text` of the toolchain's static libraries,
    ///   which are built without `-function-sections`: the linker moves the
    ///   whole section (the standard library's Swift code is one of about
    ///   1.6 MB, the concurrency runtime's one of about 160 KiB);
    /// - names that more than one function in `binary` has (outlined helpers
    ///   such as `objectdestroyTm`, local to each object file): the linker
    ///   moves every one of them.
    /// An error, not a worse order, where the toolchain's static libraries,
    /// `objdump` or `nm` cannot be found.
    static func placedLast(binary: String) throws -> Set<String> {
        var names: Set<String> = []
        guard let swiftc = try? runProcess("which", ["swiftc"], captureErrors: true).trimmingCharacters(in: .whitespacesAndNewlines) else {
            throw BenchError("--write-order: swiftc is not on PATH (the toolchain's static libraries are found next to it)")
        }
        let lib = URL(fileURLWithPath: swiftc).resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("lib/swift_static/linux").path
        let archives = ((try? FileManager.default.contentsOfDirectory(atPath: lib)) ?? []).filter { $0.hasSuffix(".a") }
        guard !archives.isEmpty else { throw BenchError("--write-order: the toolchain's static libraries are not in \(lib)") }
        for archive in archives {
            // "ADDRESS FLAGS SECTION\tSIZE NAME"
            for line in try runProcess("objdump", ["-t", lib + "/" + archive], captureErrors: true).split(separator: "\n") {
                guard let tab = line.firstIndex(of: "\t"), line[..<tab].split(separator: " ").last == ".text",
                      let name = line[tab...].split(separator: " ").last else { continue }
                names.insert(String(name))
            }
        }
        var seen: Set<Substring> = []
        for line in try runProcess("nm", ["--defined-only", binary], captureErrors: true).split(separator: "\n") {
            guard let name = line.split(separator: " ").last, !seen.insert(name).inserted else { continue }
            names.insert(String(name))
        }
        return names
    }

    /// A short name for an object file: its last path component, and "the
    /// binary" for the bench (Parley, NIO, Lua, and the Swift runtime when
    /// it is linked in, as `scripts/release-build.sh` does).
    static func label(_ object: String) -> String {
        let name = String(object.split(separator: "/").last ?? Substring(object))
        return name == "ParleyBench" ? binaryLabel : name
    }
    static let binaryLabel = "the binary"
}
