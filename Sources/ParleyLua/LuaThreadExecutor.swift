import CParleyLua
import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// A serial executor on one dedicated thread with a large stack, which is
/// also a NIO event loop.
///
/// Plugin VMs run here rather than on the cooperative pool because Lua's C
/// recursion (nested pcall, gsub callbacks, the pattern matcher, deep
/// coroutines) needs more stack than pool threads guarantee, and because a
/// `lua_State` must be touched by one thread at a time: every VM bound to an
/// executor lives on exactly one thread for its whole life.
///
/// Why an event loop: a bot connects from this thread, so its link lives on
/// this loop too (`ClientBootstrap.forChat` takes the caller's loop). An
/// event read from the socket then reaches the plugins, and their replies
/// reach the socket, without waking another thread: on the shared 2-core machine
/// of issue 5's bench, the wakes between a separate event loop and this
/// thread, not Lua, were most of an echo bot's CPU. The price: while a
/// plugin runs (at most its budget's deadline), this thread's sockets wait.
///
/// It is a task executor too: a bot's runner task prefers it
/// (`withTaskExecutorPreference`), so the work that task does outside its
/// actor also stays on this thread. That matters most for continuations:
/// one resumed from an event loop (an event arrived, a write completed)
/// would otherwise go to the cooperative pool first and only then hop back
/// here, waking two threads where one will do.
public final class LuaThreadExecutor: SerialExecutor, TaskExecutor, @unchecked Sendable {
    /// The event loop this thread runs: jobs, wake-ups, and the sockets of
    /// links opened from this thread.
    private let eventLoop: any EventLoop
    // Touched only on the loop's thread (`onLoop`, the loop's timer).
    private var timers = WakeupHeap()
    private var armed: (deadline: UInt64, task: Scheduled<Void>)?
    private let nextWakeup = Atomic<UInt64>(0)

    /// - Parameter stackSize: bytes of stack for the thread (virtual; pages are committed as used).
    public init(name: String = "parley-lua", stackSize: Int = 64 << 20) {
        let started = Started()
        let thread = Thread {
            // The loop runs for the life of the process, like the shared one.
            MultiThreadedEventLoopGroup.withCurrentThreadAsEventLoop { loop in
                _ = parley_set_thread_name(name)
                started.set(loop)
            }
        }
        thread.name = name
        thread.stackSize = stackSize
        thread.start()
        eventLoop = started.wait()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        // Jobs of either kind run as both: this thread is the serial
        // executor's only one, and the preferred one of the tasks here.
        eventLoop.execute { [self] in
            job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
        }
    }

    /// A timed wake-up, for `cancel`.
    public struct Wakeup: Sendable, Hashable {
        fileprivate let id: UInt64
    }

    /// Runs `action` on this thread once `seconds` have passed, unless
    /// cancelled first (a bot's next plugin timer). Thousands of bots share
    /// a thread: their wake-ups wait in one heap, and the loop holds one
    /// timer, for the soonest.
    public func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) -> Wakeup {
        let delay = UInt64(max(0, min(seconds, 1e9)) * 1e9)
        let deadline = NIODeadline.now().uptimeNanoseconds &+ delay
        let id = nextWakeup.wrappingAdd(1, ordering: .relaxed).newValue
        onLoop { [self] in
            timers.insert(id: id, deadline: deadline, action)
            arm()
        }
        return Wakeup(id: id)
    }

    /// Forgets a wake-up; harmless when it already ran.
    public func cancel(_ wakeup: Wakeup) {
        onLoop { [self] in timers.cancel(wakeup.id) }
    }

    /// Runs `body` on the loop: at once when called there (the runner's case), else as a task.
    private func onLoop(_ body: @escaping @Sendable () -> Void) {
        if eventLoop.inEventLoop { body() } else { eventLoop.execute(body) }
    }

    /// Keeps the loop's one timer at the soonest wake-up. Loop only.
    private func arm() {
        guard let next = timers.earliest else { return }
        if let a = armed, a.deadline <= next { return }
        armed?.task.cancel()
        armed = (next, eventLoop.scheduleTask(deadline: .uptimeNanoseconds(next)) { [self] in
            armed = nil
            for action in timers.popDue(now: NIODeadline.now().uptimeNanoseconds) { action() }
            arm()
        })
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    public func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }

    /// The new thread's loop, handed to the initializer.
    private final class Started: @unchecked Sendable {
        private let condition = NSCondition()
        private var loop: (any EventLoop)?

        func set(_ l: any EventLoop) {
            condition.lock()
            loop = l
            condition.signal()
            condition.unlock()
        }

        func wait() -> any EventLoop {
            condition.lock()
            defer { condition.unlock() }
            while loop == nil { condition.wait() }
            return loop!
        }
    }
}
