import CParleyLua
import Foundation
@testable import ParleyLua
import Synchronization
import Testing

/// Timed wake-ups on a Lua thread (a bot's next plugin timer).
struct WakeupTests {
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
