import Dispatch
import Foundation
import ParleyLua
import Synchronization
import Testing

/// The VM on its own, with a minimal prelude: creation, limits and actions.
private let minimalPrelude = """
local native, setup = ...
send = native.send
log = native.log_info
return function(kind, ev) local f = _G["on_" .. kind]; if f then native.call(f, ev) end end
"""

private func makeVM(_ source: String, limits: PluginLimits = PluginLimits()) throws -> PluginVM {
    let vm = try PluginVM(setup: VMSetup(prelude: minimalPrelude, botName: "b"), limits: limits)
    let (failure, _) = vm.load(source: Array(source.utf8), chunkName: "t", now: 0)
    if let failure { throw failure }
    return vm
}

@Test func sendAndLogActionsComeBackInOrder() throws {
    let vm = try makeVM(#"function on_x(ev) send("r", "one") log("mid", 2) send(ev.room, ev.text) end"#)
    let (failure, actions) = vm.dispatch(kind: "x", now: 0) { w in
        w.beginTable(array: 0, pairs: 2); w.field("room", "lobby"); w.field("text", "two")
    }
    #expect(failure == nil)
    #expect(actions == [.send(room: "r", text: "one"), .log(.info, "mid 2"), .send(room: "lobby", text: "two")])
}

@Test func instructionLimitIsConfigurable() throws {
    var limits = PluginLimits()
    limits.instructions = 100_000
    let vm = try makeVM("function on_x() for i = 1, 1e6 do end end", limits: limits)
    let (failure, _) = vm.dispatch(kind: "x", now: 0) { $0.beginTable(array: 0, pairs: 0) }
    #expect(failure?.kind == .budget)
    #expect(failure?.message.contains("100000 instructions") == true)
}

@Test func wallClockLimitIsConfigurable() throws {
    var limits = PluginLimits()
    limits.timeMilliseconds = 20
    limits.instructions = Int.max / 4
    let vm = try makeVM("function on_x() while true do end end", limits: limits)
    let (failure, _) = vm.dispatch(kind: "x", now: 0) { $0.beginTable(array: 0, pairs: 0) }
    #expect(failure?.kind == .budget)
    #expect(failure?.message.contains("time budget") == true)
}

/// A deadline 16 ticks or more of the coarse clock away runs on that clock
/// (budget.c): it may fire up to a tick, 1/16 of the budget, early, never
/// more. 160 ms is on the coarse clock wherever a tick is 10 ms or less.
@Test func aCoarseClockDeadlineIsNotCutShort() throws {
    var limits = PluginLimits()
    limits.timeMilliseconds = 160
    limits.instructions = Int.max / 4
    let vm = try makeVM("function on_x() while true do end end", limits: limits)
    let start = DispatchTime.now().uptimeNanoseconds
    let (failure, _) = vm.dispatch(kind: "x", now: 0) { $0.beginTable(array: 0, pairs: 0) }
    let elapsedMs = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
    #expect(failure?.kind == .budget)
    #expect(failure?.message.contains("time budget") == true)
    #expect(elapsedMs >= 160 - 10, "tripped after \(elapsedMs) ms")
}

@Test func memoryCapIsConfigurableAndTheVMRecovers() throws {
    var limits = PluginLimits()
    limits.memoryBytes = 2 << 20
    let vm = try makeVM("function on_x() local s = ('x'):rep(4 << 20) end function on_y() send('r', 'ok') end", limits: limits)
    let (f1, _) = vm.dispatch(kind: "x", now: 0) { $0.beginTable(array: 0, pairs: 0) }
    #expect(f1?.kind == .memory)
    #expect(vm.memoryUsed < 2 << 20)
    let (f2, a2) = vm.dispatch(kind: "y", now: 0) { $0.beginTable(array: 0, pairs: 0) }
    #expect(f2 == nil)
    #expect(a2 == [.send(room: "r", text: "ok")])
}

@Test func errorValuesAreReportedWithoutRunningMetamethodsAndCut() throws {
    let vm = try makeVM("""
    function on_t() error(setmetatable({}, { __tostring = function() error("boom") end })) end
    function on_n() error(nil) end
    function on_h() error(("é"):rep(5000)) end
    """)
    let (t, _) = vm.dispatch(kind: "t", now: 0) { $0.beginTable(array: 0, pairs: 0) }
    #expect(t?.message.hasPrefix("(error object is a table value)") == true)
    let (n, _) = vm.dispatch(kind: "n", now: 0) { $0.beginTable(array: 0, pairs: 0) }
    #expect(n?.message.hasPrefix("(error object is a nil value)") == true)
    let (h, _) = vm.dispatch(kind: "h", now: 0) { $0.beginTable(array: 0, pairs: 0) }
    #expect((h?.message.utf8.count ?? 0) <= 1024)
    #expect(h?.message.contains("\u{FFFD}") == false)   // cut on a character boundary
}

@Test func syntaxErrorsAreReportedAsSyntax() throws {
    let vm = try PluginVM(setup: VMSetup(prelude: minimalPrelude, botName: "b"), limits: PluginLimits())
    let (failure, _) = vm.load(source: Array("function (".utf8), chunkName: "bad", now: 0)
    #expect(failure?.kind == .syntax)
    #expect(failure?.message.hasPrefix("bad:1:") == true)
}

@Test func bytecodeIsRefusedAtLoad() throws {
    let vm = try PluginVM(setup: VMSetup(prelude: minimalPrelude, botName: "b"), limits: PluginLimits())
    let (failure, _) = vm.load(source: [0x1B] + Array("LuaT".utf8), chunkName: "bin", now: 0)
    #expect(failure?.kind == .syntax)
    #expect(failure?.message.contains("binary") == true)
}

/// A round's garbage of every small size (strings of 1 to 300 bytes, a
/// table's parts grown and shrunk through every size class), and a check that
/// what the previous round kept is intact; the reply is `0 3230` when it is.
private let churnSource = #"""
    local keep = {}
    function on_x(ev)
      local bad = 0
      for n, s in pairs(keep) do
        if s ~= string.rep(string.char(97 + n % 26), n) then bad = bad + 1 end
      end
      keep = {}
      for n = 1, 300 do keep[n] = string.rep(string.char(97 + n % 26), n) end
      local t = {}
      for i = 1, 200 do t[i] = i end        -- the array part grows through every class
      for i = 1, 190 do t[i] = nil end
      for i = 1, 50 do t["k" .. i] = i end  -- a rehash shrinks it again
      local sum = 0
      for _, v in pairs(t) do sum = sum + v end
      send("r", bad .. " " .. sum)
    end
    """#

/// Freed small blocks wait on per-thread lists for the next allocation
/// (blocks.c). Two VMs on two threads that swap every round, each freeing a
/// round's garbage that the other thread may then hand out: nothing a plugin
/// keeps may change under it.
@Test func pooledBlocksMoveBetweenThreadsWithoutCorruption() throws {
    nonisolated(unsafe) let vms = [try makeVM(churnSource), try makeVM(churnSource)]
    let queues = [DispatchQueue(label: "blocks-a"), DispatchQueue(label: "blocks-b")]
    // Both queues record at once: the replies are behind a lock.
    let replies = Mutex<[[VMAction]]>([[], []])
    for round in 0..<40 {
        let group = DispatchGroup()
        for v in 0..<2 {
            queues[(v + round) % 2].async(group: group) {
                let (failure, actions) = vms[v].dispatch(kind: "x", now: 0) { $0.beginTable(array: 0, pairs: 0) }
                let got = failure.map { [VMAction.log(.error, "\($0)")] } ?? actions
                replies.withLock { $0[v] += got }
                vms[v].collectGarbage()
            }
        }
        group.wait()
    }
    for got in replies.withLock({ $0 }) {
        #expect(got.count == 40)
        #expect(got.allSatisfy { $0 == .send(room: "r", text: "0 3230") }, "\(got.prefix(3))")
    }
}

/// A thread that exits hands its free blocks (and the rest of its chunk) to
/// the shared pool, where the next thread short of a class takes them: a VM
/// whose every event runs on a thread of its own, and one VM on a long-lived
/// queue, keep their data intact while they reuse each other's blocks.
@Test func blocksOfExitedThreadsAreReusedWithoutCorruption() throws {
    nonisolated(unsafe) let vms = [try makeVM(churnSource), try makeVM(churnSource)]
    let replies = Mutex<[[VMAction]]>([[], []])
    @Sendable func run(_ v: Int) {
        let (failure, actions) = vms[v].dispatch(kind: "x", now: 0) { $0.beginTable(array: 0, pairs: 0) }
        replies.withLock { $0[v] += failure.map { [VMAction.log(.error, "\($0)")] } ?? actions }
        vms[v].collectGarbage()
    }
    let queue = DispatchQueue(label: "blocks-kept")
    for _ in 0..<30 {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread { run(0); done.signal() }
        thread.start()
        done.wait()
        queue.sync { run(1) }
    }
    for got in replies.withLock({ $0 }) {
        #expect(got.count == 30)
        #expect(got.allSatisfy { $0 == .send(room: "r", text: "0 3230") }, "\(got.prefix(3))")
    }
}

/// `table`, `utf8`, `coroutine` and `os` open on first use: absent from the
/// globals until named, then there for good, hardened as ever; the
/// metatable that opens them is invisible, and one of the plugin's own on
/// `_G` opens the rest first.
@Test func lazyLibrariesOpenOnFirstUse() throws {
    let vm = try makeVM(#"""
    function on_x(ev)
      local before = tostring(rawget(_G, "os")) .. " " .. tostring(rawget(_G, "table"))
      local used = table.concat({ "a", "b" }, "-") .. " " .. utf8.char(72, 105) .. " " ..
                   tostring(os.getenv) .. " " .. type(os.time()) .. " " ..
                   coroutine.wrap(function() return "co" end)()
      local after = type(rawget(_G, "os")) .. " " .. type(rawget(_G, "table"))
      send("r", before .. " | " .. used .. " | " .. after)
    end
    """#)
    let (f1, a1) = vm.dispatch(kind: "x", now: 0) { $0.beginTable(array: 0, pairs: 0) }
    #expect(f1 == nil)
    #expect(a1 == [.send(room: "r", text: "nil nil | a-b Hi nil number co | table table")])
    let own = try makeVM(#"""
    function on_y(ev)
      local before = tostring(rawget(_G, "utf8")) .. " " .. tostring(getmetatable(_G))
      setmetatable(_G, { __index = function(_, k) return "missing " .. k end })
      send("r", before .. " " .. type(rawget(_G, "utf8")) .. " " .. type(rawget(_G, "coroutine")) .. " " .. nothere)
    end
    """#)
    let (f2, a2) = own.dispatch(kind: "y", now: 0) { $0.beginTable(array: 0, pairs: 0) }
    #expect(f2 == nil)
    #expect(a2 == [.send(room: "r", text: "nil nil table table missing nothere")])
}

/// A plugin that sets a library to nil keeps it nil: a library opens once.
@Test func aLibraryOpensOnlyOnce() throws {
    let vm = try makeVM(#"""
    function on_x(ev)
      local first = type(os)
      os = nil
      send("r", first .. " " .. tostring(os) .. " " .. tostring(rawget(_G, "os")))
    end
    """#)
    let (failure, actions) = vm.dispatch(kind: "x", now: 0) { $0.beginTable(array: 0, pairs: 0) }
    #expect(failure == nil)
    #expect(actions == [.send(room: "r", text: "table nil nil")])
}

/// A thread that frees what another allocates hands the blocks back: the
/// plugin's kept strings are made on one thread and collected on another,
/// round after round, and the freeing thread never keeps more than its bound
/// (64 KiB a size class, 32 classes); the rest goes to the shared pool.
@Test func aThreadThatFreesWhatAnotherAllocatesHandsTheBlocksBack() throws {
    nonisolated(unsafe) let vm = try makeVM(churnSource)
    let held = Mutex<[Int]>([])
    let finished = DispatchSemaphore(value: 0)
    let collect = DispatchSemaphore(value: 0), collected = DispatchSemaphore(value: 0)
    let freer = Thread {
        for _ in 1...300 {
            collect.wait()
            vm.collectGarbage()
            held.withLock { $0.append(PluginVM.pooledFreeBytesOfThisThread) }
            collected.signal()
        }
    }
    let allocator = Thread {
        for _ in 1...300 {
            _ = vm.dispatch(kind: "x", now: 0) { $0.beginTable(array: 0, pairs: 0) }
            collect.signal()
            collected.wait()
        }
        finished.signal()
    }
    freer.start()
    allocator.start()
    finished.wait()
    let most = held.withLock { $0.max() ?? 0 }
    // Hoarded, the freed strings (about 45 KB a round) would pile up there: 13 MB.
    #expect(most > 0 && most <= 32 * 64 * 1024 + 256, "the freeing thread held up to \(most) bytes")
}
