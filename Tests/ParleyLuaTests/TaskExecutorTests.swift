import Foundation
import ParleyLua
import Synchronization
import Testing

/// A Lua thread as a task's preferred executor: what a bot's runner relies on
/// so that a continuation resumed from an event loop wakes the Lua thread,
/// not a cooperative-pool thread that then hops back.
struct TaskExecutorTests {
    /// The Lua thread's pthread, read on the thread itself.
    static func threadOf(_ executor: LuaThreadExecutor) async -> pthread_t {
        await withCheckedContinuation { c in
            _ = executor.schedule(after: 0) { c.resume(returning: pthread_self()) }
        }
    }

    /// Nonisolated code of a task that prefers the executor runs on its
    /// thread, before and after a continuation resumed from another thread.
    @Test func aPreferringTaskResumesOnTheLuaThread() async {
        let executor = LuaThreadExecutor(name: "parley-test-pref")
        let lua = await Self.threadOf(executor)
        let seen = await Task(executorPreference: executor) { () async -> [Bool] in
            var onLua: [Bool] = []
            for _ in 0..<50 {
                onLua.append(pthread_equal(pthread_self(), lua) != 0)
                await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                    // Resumed from a thread that is neither the Lua thread nor the pool's.
                    Thread { c.resume() }.start()
                }
                onLua.append(pthread_equal(pthread_self(), lua) != 0)
            }
            return onLua
        }.value
        #expect(seen.count == 100)
        #expect(seen.allSatisfy { $0 })
    }

    /// Without the preference the same code runs on the pool: the test above
    /// proves the preference, not an accident of scheduling.
    @Test func withoutThePreferenceTheTaskRunsElsewhere() async {
        let executor = LuaThreadExecutor(name: "parley-test-nopref")
        let lua = await Self.threadOf(executor)
        let onLua = await Task.detached { pthread_equal(pthread_self(), lua) != 0 }.value
        #expect(!onLua)
    }
}
