import CParleyLua
import Foundation
import NIOCore
import NIOPosix
import ParleyLua
import ParleyNet

/// The thread a bot's plugins and its runner live on.
///
/// Two kinds, chosen per bot by `[[bot]] own_thread`:
/// - a `LuaThreadExecutor` shared round-robin with other bots (the default):
///   links stay on the process's shared event loops, so no plugin can hold
///   up any link's reads, writes or heartbeats;
/// - a `LoopLuaThread` of the bot's own, which is also the event loop its
///   link is opened on: an event and its reply never cross threads, which
///   saves two thread wakes per reply (lower latency at moderate rates), at
///   the price that a busy plugin delays its own bot's I/O.
public protocol BotThread: SerialExecutor, TaskExecutor, LazyResumer {
    /// Runs `action` on this thread once `seconds` have passed, unless the
    /// returned wake-up is cancelled first (a bot's next plugin timer).
    func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) -> BotWakeup
    /// The event loop the bot's link is opened on; nil for the shared loops.
    var linkLoop: (any EventLoop)? { get }
    /// Returns once the link has had a turn at its socket, when the link
    /// lives on this thread (at once otherwise).
    func letTheLinkIn() async
}

/// A scheduled wake-up of a `BotThread`; cancelling is harmless once it ran.
public struct BotWakeup: Sendable {
    private let cancelAction: @Sendable () -> Void

    init(cancel: @escaping @Sendable () -> Void) { cancelAction = cancel }

    public func cancel() { cancelAction() }
}

extension LuaThreadExecutor: BotThread {
    public func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) -> BotWakeup {
        let w: Wakeup = schedule(after: seconds, action)
        return BotWakeup { [self] in cancel(w) }
    }

    public var linkLoop: (any EventLoop)? { nil }
    public func letTheLinkIn() async {}
}

/// A bot's own thread that is both its Lua thread and the NIO event loop of
/// its link (`[[bot]] own_thread = true`).
///
/// Why: with the shared threads a reply crosses three of them (the event
/// loop reads the message, the Lua thread answers, the event loop writes),
/// and on a loaded machine each wake can wait a millisecond or more for a
/// core; here the read, the plugins and the write are one thread's work.
///
/// The price, and why it is not the default: while a plugin runs (at most
/// its budget's deadline, 250 ms by default) this bot's socket is not read
/// or written and its heartbeat timers wait; the runner takes at most 8
/// events at a time and lets the link in after a batch that took more than
/// a few milliseconds, so a slow plugin cannot starve the link. No
/// other bot is affected: the thread is this bot's alone. Like every Lua
/// thread it has a 64 MiB stack for Lua's C recursion.
public final class LoopLuaThread: BotThread, @unchecked Sendable {
    /// How long `letTheLinkIn` parks the runner: long enough that the loop
    /// finishes its current round of tasks and polls its sockets first.
    static let linkTurn = TimeAmount.milliseconds(1)

    /// The event loop this thread runs; the bot's link is opened on it.
    public let loop: any EventLoop

    public init(name: String, stackSize: Int = 64 << 20) {
        let started = Handoff()
        let thread = Thread {
            MultiThreadedEventLoopGroup.withCurrentThreadAsEventLoop { loop in
                // An OS name, as the shared Lua threads have, for `top -H` and perf.
                _ = parley_set_thread_name(name)
                started.loop = loop
                started.ready.signal()
            }
        }
        thread.name = name
        thread.stackSize = stackSize
        thread.start()
        started.ready.wait()
        loop = started.loop!
    }

    /// Stops the loop once the bot is done with it; the thread then ends.
    public func shutdown() {
        loop.shutdownGracefully { _ in }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        // Jobs of either kind run as both: this thread is the serial
        // executor's only one, and the preferred one of the tasks here. From
        // the loop's own thread (an event read, a write completed) `execute`
        // only queues: no wake.
        loop.execute { [self] in
            job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
        }
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }
    public func asUnownedTaskExecutor() -> UnownedTaskExecutor { UnownedTaskExecutor(ordinary: self) }

    public func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) -> BotWakeup {
        let task = loop.scheduleTask(in: .nanoseconds(Int64(max(0, min(seconds, 1e9)) * 1e9)), action)
        return BotWakeup { task.cancel() }
    }

    public var linkLoop: (any EventLoop)? { loop }

    /// Why a timer and not `Task.yield()`: NIO runs every task queued during
    /// a round of tasks in that same round, before it polls its sockets, so a
    /// yielded runner would come straight back. A task due in the future
    /// waits for the next round, which starts with the poll.
    public func letTheLinkIn() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            _ = loop.scheduleTask(in: Self.linkTurn) { c.resume() }
        }
    }

    // Completed writes complete on this same loop: resuming them costs no
    // wake, so there is nothing to defer.
    public func expectResumption() {}
    public func resumeLazily(_ resume: @escaping @Sendable () -> Void) { loop.execute(resume) }

    /// The new thread's loop, handed to the initializer: written once
    /// before `ready` is signalled, read after the wait.
    private final class Handoff: @unchecked Sendable {
        var loop: (any EventLoop)?
        let ready = DispatchSemaphore(value: 0)
    }
}
