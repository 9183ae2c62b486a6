import CParleyLua
import Foundation

/// A serial executor on one dedicated thread with a large stack.
///
/// Plugin VMs run here rather than on the cooperative pool because Lua's C
/// recursion (nested pcall, gsub callbacks, the pattern matcher, deep
/// coroutines) needs more stack than pool threads guarantee, and because a
/// `lua_State` must be touched by one thread at a time: every VM bound to an
/// executor lives on exactly one thread for its whole life.
///
/// It is a task executor too: a bot's runner task prefers it
/// (`withTaskExecutorPreference`), so the work that task does outside its
/// actor also stays on this thread. That matters most for continuations:
/// one resumed from an event loop (an event arrived, a write completed)
/// would otherwise go to the cooperative pool first and only then hop back
/// here, waking two threads where one will do.
public final class LuaThreadExecutor: SerialExecutor, TaskExecutor, @unchecked Sendable {
    // Guarded by `condition`.
    private var jobs: [UnownedJob] = []
    private var wakeups = WakeupHeap()
    private let condition = NSCondition()

    /// - Parameter stackSize: bytes of stack for the thread (virtual; pages are committed as used).
    public init(name: String = "parley-lua", stackSize: Int = 64 << 20) {
        let thread = Thread { [self] in
            _ = parley_set_thread_name(name)
            self.runLoop()
        }
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

    /// A timed wake-up, for `cancel`.
    public struct Wakeup: Sendable, Hashable {
        fileprivate let id: UInt64
    }

    /// Runs `action` on this thread once `seconds` have passed, unless
    /// cancelled first. For timers that may wait long (a bot's next plugin
    /// timer): an entry here costs a few dozen bytes, a sleeping task its
    /// object and async frames for the whole wait.
    public func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) -> Wakeup {
        let delay = UInt64(max(0, min(seconds, 1e9)) * 1e9)
        let deadline = DispatchTime.now().uptimeNanoseconds &+ delay
        condition.lock()
        let id = wakeups.insert(deadline: deadline, action)
        condition.signal()
        condition.unlock()
        return Wakeup(id: id)
    }

    /// Forgets a wake-up; harmless when it already ran.
    public func cancel(_ wakeup: Wakeup) {
        condition.lock()
        wakeups.cancel(wakeup.id)
        condition.unlock()
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    public func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }

    private func runLoop() {
        var batch: [UnownedJob] = []
        while true {
            condition.lock()
            var now = DispatchTime.now().uptimeNanoseconds
            var due = wakeups.popDue(now: now)
            while jobs.isEmpty, due.isEmpty {
                if let next = wakeups.earliest {
                    _ = condition.wait(until: Date(timeIntervalSinceNow: Double(next &- now) / 1e9))
                } else {
                    condition.wait()
                }
                now = DispatchTime.now().uptimeNanoseconds
                due = wakeups.popDue(now: now)
            }
            swap(&batch, &jobs)
            condition.unlock()
            for action in due { action() }
            // Jobs of either kind run as both: this thread is the serial
            // executor's only one, and the preferred one of the tasks here.
            for job in batch {
                job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
            }
            batch.removeAll(keepingCapacity: true)
        }
    }
}
