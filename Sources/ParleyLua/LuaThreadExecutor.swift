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
    private var lazy: [@Sendable () -> Void] = []
    /// Lazy actions announced (`expectLazy`) that have not arrived yet.
    private var lazyExpected = 0
    /// When the thread must wake at the latest for lazy actions, arrived or
    /// announced (uptime ns); `.max` when there are none.
    private var lazyDeadline: UInt64 = .max
    /// The thread is waiting on `condition`.
    private var sleeping = false
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
        let deadline = Self.uptime() &+ Self.nanoseconds(seconds)
        condition.lock()
        let id = wakeups.insert(deadline: deadline, action)
        condition.signal()
        condition.unlock()
        return Wakeup(id: id)
    }

    /// Runs `action` on this thread the next time it wakes for anything
    /// else, or within `seconds` if nothing wakes it sooner. For work that
    /// must happen but not at once: a completed write's waiter (the bot's
    /// outbox drain) needs no wake of its own when the next event is about
    /// to wake the thread anyway. Lazy actions run before the jobs and timers
    /// of the wake that runs them, in the order they came.
    ///
    /// Saving the wake takes an announcement: a sleeping thread waits until
    /// its earliest deadline, and a lazy action due before that would have to
    /// signal it awake. `expectLazy(within:)`, called before the action can
    /// arrive, puts the deadline in place before the thread goes to sleep.
    public func runLazily(within seconds: Double, _ action: @escaping @Sendable () -> Void) {
        let deadline = Self.uptime() &+ Self.nanoseconds(seconds)
        condition.lock()
        lazy.append(action)
        if lazyExpected > 0 { lazyExpected -= 1 }
        if deadline < lazyDeadline {
            lazyDeadline = deadline
            // Unannounced (or overdue): the sleeper's wait ends too late.
            if sleeping { condition.signal() }
        }
        condition.unlock()
    }

    /// Announces one `runLazily` to come (a write's completion, from its
    /// event loop): the thread then sleeps no longer than `seconds` from now
    /// while it is outstanding, so the action need not wake it.
    public func expectLazy(within seconds: Double) {
        let deadline = Self.uptime() &+ Self.nanoseconds(seconds)
        condition.lock()
        lazyExpected += 1
        if deadline < lazyDeadline {
            lazyDeadline = deadline
            if sleeping { condition.signal() }
        }
        condition.unlock()
    }

    private static func uptime() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
    private static func nanoseconds(_ seconds: Double) -> UInt64 { UInt64(max(0, min(seconds, 1e9)) * 1e9) }

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
        var lazyBatch: [@Sendable () -> Void] = []
        while true {
            condition.lock()
            var now = Self.uptime()
            var due = wakeups.popDue(now: now)
            while jobs.isEmpty, due.isEmpty, now < lazyDeadline {
                let next = min(wakeups.earliest ?? .max, lazyDeadline)
                sleeping = true
                if next != .max {
                    _ = condition.wait(until: Date(timeIntervalSinceNow: Double(next &- now) / 1e9))
                } else {
                    condition.wait()
                }
                sleeping = false
                now = Self.uptime()
                due = wakeups.popDue(now: now)
            }
            swap(&batch, &jobs)
            swap(&lazyBatch, &lazy)
            // Announced actions still out keep their deadline, unless it has
            // passed: then they count as unannounced and wake the thread
            // when they arrive.
            if now >= lazyDeadline || lazyExpected == 0 {
                lazyExpected = 0
                lazyDeadline = .max
            }
            condition.unlock()
            for action in lazyBatch { action() }
            lazyBatch.removeAll(keepingCapacity: true)
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
