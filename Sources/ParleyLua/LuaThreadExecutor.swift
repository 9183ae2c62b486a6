import Foundation

/// A serial executor on one dedicated thread with a large stack.
///
/// Plugin VMs run here rather than on the cooperative pool because Lua's C
/// recursion (nested pcall, gsub callbacks, the pattern matcher, deep
/// coroutines) needs more stack than pool threads guarantee, and because a
/// `lua_State` must be touched by one thread at a time: every VM bound to an
/// executor lives on exactly one thread for its whole life.
public final class LuaThreadExecutor: SerialExecutor, @unchecked Sendable {
    // Guarded by `condition`.
    private var jobs: [UnownedJob] = []
    private let condition = NSCondition()

    /// - Parameter stackSize: bytes of stack for the thread (virtual; pages are committed as used).
    public init(name: String = "parley-lua", stackSize: Int = 64 << 20) {
        let thread = Thread { [self] in self.runLoop() }
        thread.name = name
        thread.stackSize = stackSize
        thread.start()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    private func runLoop() {
        var batch: [UnownedJob] = []
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            swap(&batch, &jobs)
            condition.unlock()
            for job in batch { job.runSynchronously(on: asUnownedSerialExecutor()) }
            batch.removeAll(keepingCapacity: true)
        }
    }
}
