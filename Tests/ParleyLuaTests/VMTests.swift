import Dispatch
import ParleyLua
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
