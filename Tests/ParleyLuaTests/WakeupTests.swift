import CParleyLua
import Foundation
@testable import ParleyLua
import Synchronization
import Testing

/// Timed wake-ups on a Lua thread (a bot's next plugin timer).
struct WakeupTests {
    /// The heap runs what is due in deadline order and skips what was
    /// cancelled, against a plain list as the model, over random steps.
    @Test func theHeapMatchesAListModel() {
        var heap = WakeupHeap()
        var model: [(deadline: UInt64, id: UInt64)] = []
        let ran = Mutex<[UInt64]>([])
        var now: UInt64 = 0
        for _ in 0..<3000 {
            switch Int.random(in: 0..<10) {
            case 0..<6:
                let d = now + UInt64.random(in: 0..<1000)
                let id = heap.insert(deadline: d) { ran.withLock { $0.append(d) } }
                model.append((d, id))
            case 6:
                if let victim = model.randomElement() {
                    heap.cancel(victim.id)
                    model.removeAll { $0.id == victim.id }
                }
            default:
                now += UInt64.random(in: 0..<300)
                let due = model.filter { $0.deadline <= now }.map(\.deadline).sorted()
                model.removeAll { $0.deadline <= now }
                ran.withLock { $0 = [] }
                for action in heap.popDue(now: now) { action() }
                #expect(ran.withLock { $0 } == due)
            }
        }
        now = .max
        let rest = model.map(\.deadline).sorted()
        ran.withLock { $0 = [] }
        for action in heap.popDue(now: now) { action() }
        #expect(ran.withLock { $0 } == rest)
        #expect(heap.isEmpty)
    }

    @Test func wakeupsRunOnTheExecutorsThreadInOrderAndCancelledOnesNever() async {
        let executor = LuaThreadExecutor(name: "lua-wake-test")
        let ran = Mutex<[String]>([])
        func mark(_ s: String) -> @Sendable () -> Void {
            {
                var buf = [CChar](repeating: 0, count: 16)
                _ = parley_thread_name(&buf, buf.count)
                let thread = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                ran.withLock { $0.append("\(s)@\(thread)") }
            }
        }
        _ = executor.schedule(after: 0.15, mark("late"))
        _ = executor.schedule(after: 0.05, mark("early"))
        let cancelled = executor.schedule(after: 0.1, mark("cancelled"))
        executor.cancel(cancelled)
        try? await Task.sleep(for: .milliseconds(600))
        #expect(ran.withLock { $0 } == ["early@lua-wake-test", "late@lua-wake-test"])
    }
}
