import Foundation
import ParleyCore
import ParleyRuntime
import ParleyLua

/// Swift → Lua handler → Swift, against the same handler run by the
/// standalone `lua5.4` interpreter with a stub `bot`, in the same run.
///
/// The handler is a `bot.hear` match plus one `bot.send`. The stub does the
/// work the real path does inside Lua (build the message table, set its
/// metatable, run the hear patterns, record the send with its checks), so
/// the ratio is what Parley's boundary (encoding, C trampolines, budget hook,
/// action buffer, Swift decoding) costs on top of plain Lua.
enum LuaBench {
    static let plugin = #"""
    bot.hear("^hello (%w+)", function(msg, who)
      bot.send(msg.room, "hi " .. who)
    end)
    """#

    static let stub = #"""
    local N, ROUNDS = tonumber(arg[1]), tonumber(arg[2] or "5")
    local outbox, nout = {}, 0
    local hears = {}
    local Message = { __index = { reply = function(self, t) return bot.send(self.room, t) end }, __metatable = "locked" }
    bot = {}
    function bot.hear(p, fn) hears[#hears + 1] = { p, fn } end
    function bot.send(room, text)
      if type(room) ~= "string" or type(text) ~= "string" then error("bad args") end
      if #text == 0 or #text > 4096 then return nil, "length" end
      nout = nout + 1
      outbox[nout] = room
      outbox[nout + 1] = text
      nout = nout + 1
      return true
    end
    local find = string.find
    local function fire(fn, msg, s, e, ...) if s then fn(msg, ...) end end
    local function dispatch(ev)
      setmetatable(ev, Message)
      local text = ev.text
      for i = 1, #hears do local h = hears[i]; fire(h[2], ev, find(text, h[1])) end
    end
    PLUGIN
    local best = math.huge
    for round = 1, ROUNDS do
      nout = 0
      local t0 = os.clock()
      for i = 1, N do
        dispatch({ room = "lobby", user = "alice", text = "hello world", id = "m1", time = 1767225600.0 })
        if nout > 2000 then nout = 0 end
      end
      local t = (os.clock() - t0) / N * 1e9
      if t < best then best = t end
    end
    io.write(string.format("%.1f\n", best))
    """#

    static func makeVM() throws -> PluginVM {
        let vm = try PluginVM(
            setup: VMSetup(prelude: PreludeAccess.source, botName: "parley", hostFunctions: PreludeAccess.hostFunctions,
                           commonStrings: PreludeAccess.commonStrings),
            limits: PluginLimits())
        let (loadFailure, _) = vm.load(source: Array(plugin.utf8), chunkName: "bench", now: 0)
        if let loadFailure { throw loadFailure }
        return vm
    }

    /// One event through the VM path; true when the plugin sent.
    @inline(__always)
    static func oneEvent(_ vm: PluginVM) -> Bool {
        let (failure, actions) = vm.dispatchMessage(room: "lobby", user: "alice", text: "hello world", id: "m1",
                                                    time: 1_767_225_600, now: 1_767_225_600)
        if failure == nil, case .send? = actions.first { return true }
        return false
    }

    static func vmLoop(_ n: Int) throws {
        let vm = try makeVM()
        var sent = 0
        for _ in 0..<n where oneEvent(vm) { sent += 1 }
        print(sent)
    }

    static func run(quick: Bool) throws {
        // Many short rounds rather than a few long ones: on a shared machine
        // a busy spell lasts seconds and inflates whatever round it hits, so
        // the best of many rounds is the stable estimate of each side's own
        // cost. The median of the rounds' ratios is printed beside it.
        let n = quick ? 20_000 : 200_000
        let rounds = quick ? 5 : 15
        print("== Lua plugin path: a hear match plus one bot.send, ns per event (best of \(rounds) rounds of \(n), the two sides taking turns)")

        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-bench-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = dir.appendingPathComponent("stub.lua")
        try stub.replacingOccurrences(of: "PLUGIN", with: plugin).write(to: script, atomically: true, encoding: .utf8)

        // Parley's VM path as the bot drives it, and stock lua5.4 with the
        // stub bot, one round each in turn: a busy spell on the machine then
        // hits both sides, not one.
        let vm = try makeVM()
        var sent = 0
        var parleyRounds: [Double] = [], luaRounds: [Double] = []
        for _ in 0..<rounds {
            let t0 = cpuNow()
            for _ in 0..<n where oneEvent(vm) { sent += 1 }
            parleyRounds.append((cpuNow() - t0) / Double(n))
            let out = try runProcess("lua5.4", [script.path, String(n), "1"])
            guard let lua = Double(out.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw BenchError("lua5.4 printed \(out)")
            }
            luaRounds.append(lua)
        }
        guard sent == rounds * n else { throw BenchError("the plugin did not send on every event (\(sent) of \(rounds * n))") }
        let parleyBest = parleyRounds.min()!, luaBest = luaRounds.min()!
        let ratios = zip(parleyRounds, luaRounds).map { $0 / $1 }.sorted()
        let medianRatio = ratios[ratios.count / 2]

        // The whole bot: routing, history recording, action attribution.
        let bot = Bot(options: BotOptions(name: "parley"), now: 1_767_225_600)
        _ = try bot.loadPlugin(name: "bench", source: Array(plugin.utf8))
        var botBest = Double.infinity
        let message = BotEvent.message(ChatMessage(room: "lobby", user: "alice", text: "hello world", id: "m1", time: 1_767_225_600))
        for _ in 0..<3 {
            let t0 = cpuNow()
            for _ in 0..<n { _ = try bot.handle(message) }
            botBest = min(botBest, (cpuNow() - t0) / Double(n))
        }

        print(String(format: "  parley VM path (Swift -> Lua -> Swift)   %8.1f ns/event", parleyBest))
        print(String(format: "  stock lua5.4, stub bot                   %8.1f ns/event", luaBest))
        print(String(format: "  ratio parley/lua5.4                      %8.2fx   (target <= 1.30x)", parleyBest / luaBest))
        print(String(format: "  median of the rounds' ratios             %8.2fx   (rounds %.2fx to %.2fx)", medianRatio, ratios.first!, ratios.last!))
        print(String(format: "  whole Bot.handle (routing + history)     %8.1f ns/event  (%.2fx lua5.4)", botBest, botBest / luaBest))
    }
}

/// CPU time of this thread in ns: the same measure as the stub's `os.clock`,
/// and robust to other work on the machine.
func cpuNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) * 1e9 + Double(ts.tv_nsec)
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// Runs `tool` (found on PATH) and returns its stdout. With `captureErrors`
/// its stderr is kept out of the report, and quoted when the tool fails.
func runProcess(_ tool: String, _ args: [String], captureErrors: Bool = false) throws -> String {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = [tool] + args
    let out = Pipe()
    p.standardOutput = out
    // A file, not a pipe: read after the exit, it cannot fill up and stall the tool.
    let errors = FileManager.default.temporaryDirectory.appendingPathComponent("parley-bench-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).stderr")
    var errorHandle: FileHandle?
    if captureErrors {
        guard FileManager.default.createFile(atPath: errors.path, contents: nil) else { throw BenchError("cannot create \(errors.path)") }
        errorHandle = try FileHandle(forWritingTo: errors)
        p.standardError = errorHandle
    }
    defer {
        try? errorHandle?.close()
        if captureErrors { try? FileManager.default.removeItem(at: errors) }
    }
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else {
        let said = captureErrors ? (try? String(contentsOf: errors, encoding: .utf8)) ?? "" : ""
        throw BenchError("\(tool) exited with \(p.terminationStatus)" + (said.isEmpty ? "" : ": \(said.trimmingCharacters(in: .whitespacesAndNewlines))"))
    }
    return String(decoding: data, as: UTF8.self)
}
