import Foundation
@testable import ParleyLua
import Synchronization
import Testing

/// Lazy actions on a Lua thread: a write's completion that waits for the
/// thread's next wake instead of causing one (`runLazily`, `expectLazy`).
struct LazyActionTests {
    /// Seconds since `t0` on the monotonic clock.
    private static func since(_ t0: UInt64) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
    }

    /// Waits up to `seconds` for `done`, polling.
    private static func waitFor(_ seconds: Double, _ done: () -> Bool) async {
        let end = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        while !done(), DispatchTime.now().uptimeNanoseconds < end { try? await Task.sleep(for: .milliseconds(5)) }
    }

    /// Announced, the action does not wake the thread: with nothing else to
    /// do, it runs at the announcement's deadline, not when it arrives.
    @Test func anAnnouncedActionWaitsForTheDeadlineWhenNothingElseWakesTheThread() async {
        let executor = LuaThreadExecutor(name: "lua-lazy-1")
        let ranAt = Mutex<Double?>(nil)
        let t0 = DispatchTime.now().uptimeNanoseconds
        executor.expectLazy(within: 0.4)
        try? await Task.sleep(for: .milliseconds(20))
        executor.runLazily(within: 0.4) { ranAt.withLock { $0 = Self.since(t0) } }
        await Self.waitFor(60) { ranAt.withLock { $0 } != nil }
        let at = ranAt.withLock { $0 }
        #expect(at != nil)
        #expect((at ?? 0) >= 0.3, "ran at \(at ?? -1) s: the action woke the thread")
    }

    /// The next wake for anything else runs the waiting action first (its
    /// deadline is a minute away, so nothing else could have run it).
    @Test func theNextWakeRunsWaitingActionsFirst() async {
        let executor = LuaThreadExecutor(name: "lua-lazy-2")
        let ran = Mutex<[String]>([])
        executor.expectLazy(within: 60)
        executor.runLazily(within: 60) { ran.withLock { $0.append("lazy") } }
        try? await Task.sleep(for: .milliseconds(50))
        #expect(ran.withLock { $0 }.isEmpty, "the lazy action ran without a wake")
        _ = executor.schedule(after: 0) { ran.withLock { $0.append("timer") } }
        await Self.waitFor(60) { ran.withLock { $0.count } == 2 }
        // Had it waited for its deadline, the timer would have run first.
        #expect(ran.withLock { $0 } == ["lazy", "timer"])
    }

    /// Unannounced, or announced but overdue, an action still runs within
    /// its bound on a thread that has nothing else to wake for.
    @Test func anUnannouncedOrOverdueActionStillRunsWithinItsBound() async {
        let executor = LuaThreadExecutor(name: "lua-lazy-3")
        let ran = Mutex<Int>(0)
        executor.runLazily(within: 0.05) { ran.withLock { $0 += 1 } }
        await Self.waitFor(60) { ran.withLock { $0 } == 1 }
        #expect(ran.withLock { $0 } == 1)

        executor.expectLazy(within: 0.02)
        try? await Task.sleep(for: .milliseconds(200))
        executor.runLazily(within: 0.05) { ran.withLock { $0 += 1 } }
        await Self.waitFor(60) { ran.withLock { $0 } == 2 }
        #expect(ran.withLock { $0 } == 2)
    }
}
