import CParleyJournal
import CoreMetrics
import Foundation
import NIOCore
import NIOPosix
import ParleyCore
import Synchronization

/// The threads bots live on: a few NIO event loops, by default one per core
/// (`[runtime] loops`, `--loops`).
///
/// A bot is given the least-loaded loop when its runner is made and keeps it
/// for life: its link is opened on it, and its plugins, timers, outbox and
/// presence run on it. An incoming frame is read, handed to the plugins and
/// answered on that one thread, so a reply costs one wake of one thread.
///
/// The price: while a plugin runs (at most its budget's deadline, 250 ms by
/// default) the other bots of its loop wait, their sockets unread. The runner
/// gives its loop back after every few milliseconds of plugin work (see
/// `BotRunner.handle`), so heart-beats are answered between two events however
/// busy a plugin is, and the bots of other loops never wait at all.
public final class BotLoops: Sendable {
    public let loops: [BotLoop]
    /// Bots on each loop, for least-loaded assignment.
    private let bots: Mutex<[Int]>

    /// Whether `watchLag` started the probes.
    private let watching = Atomic(false)

    /// - Parameter count: loops to start (at least one).
    public init(count: Int = ProcessInfo.processInfo.activeProcessorCount, name: String = "parley-bot") {
        loops = (0..<max(1, count)).map { BotLoop(name: "\(name)-\($0)") }
        bots = Mutex([Int](repeating: 0, count: max(1, count)))
    }

    /// The loops of a process that does not choose their number: one per core.
    public static let shared = BotLoops()

    /// The loop with the fewest bots (the first of those tied).
    func assign() -> BotLoop {
        bots.withLock { counts in
            let i = counts.indices.min { counts[$0] < counts[$1] }!
            counts[i] += 1
            return loops[i]
        }
    }

    /// A bot is done with its loop.
    func release(_ loop: BotLoop) {
        guard let i = number(of: loop) else { return }
        bots.withLock { $0[i] = max(0, $0[i] - 1) }
    }

    /// The loop's index in `loops`.
    func number(of loop: BotLoop) -> Int? { loops.firstIndex { $0 === loop } }

    /// Bots on each loop now.
    public var load: [Int] { bots.withLock { $0 } }

    /// Starts measuring how late each loop runs what is due (`LoopLag`),
    /// into `parley_loop_lag_seconds{loop}` and `parley_loop_bots{loop}`:
    /// a plugin that holds its loop shows there, on its loop alone. Started
    /// by the HTTP server, as nothing else reads it; once is enough.
    public func watchLag() {
        guard !watching.exchange(true, ordering: .relaxed) else { return }
        for (i, loop) in loops.enumerated() {
            let bots: @Sendable () -> Void = { [self] in
                Gauge(label: "parley_loop_bots", dimensions: [("loop", String(i))]).record(load[i])
            }
            bots()
            loop.probeLag(number: String(i), bots)
        }
    }

    /// Each loop's bots and lateness, for the dashboard.
    public var report: [LoopReport] {
        zip(load, loops).map { bots, loop in
            let lag = loop.lag
            return LoopReport(bots: bots, lagMilliseconds: Double(lag.last.wholeNanoseconds) / 1e6,
                              lagMaxMilliseconds: Double(lag.max.wholeNanoseconds) / 1e6)
        }
    }
}

/// How late a loop ran its lag probes: the last one, and the most of the
/// last minute's (a ring of the last 60). A probe is due every second and
/// runs once the loop gets to it, so lateness is how long the loop's work
/// (a plugin's handler, a join storm) kept it from what was due: its
/// timers, its links' reads.
struct LoopLag {
    static let window = 60
    private var recent: [Duration] = []
    private var next = 0
    private(set) var last = Duration.zero

    var max: Duration { recent.max() ?? .zero }

    mutating func record(_ late: Duration) {
        last = late
        if recent.count < Self.window { recent.append(late) } else { recent[next] = late }
        next = (next + 1) % Self.window
    }
}

/// One bot loop: a NIO event loop on a thread of its own, with a stack big
/// enough for Lua's C recursion inside the sandbox (64 MiB), that is also the
/// executor of the actors of its bots (their runners and plugin hosts).
///
/// Jobs of either kind run as both: this thread is the serial executor's
/// only one, and the preferred one of the tasks here. From the loop's own
/// thread (an event read, a write completed) queueing a job costs no wake.
public final class BotLoop: SerialExecutor, TaskExecutor, @unchecked Sendable {
    /// How long a bot's pump waits after a slice of plugin work: long enough
    /// that the loop finishes its current round of tasks and polls its
    /// sockets first.
    static let linkTurn = TimeAmount.milliseconds(1)
    /// Plugin work the loop's bots may do together before the loop polls its
    /// sockets again. A bot's own slice (`BotRunner.slice`) keeps one bot
    /// from holding the loop; this keeps a thousand busy bots, each taking
    /// its slice in turn, from holding it for seconds: pings, probes and
    /// timers are served every few tens of milliseconds however many are busy.
    static let roundLimit = TimeAmount.milliseconds(20)

    /// Plugin work since the loop last polled, as far as the loop can tell:
    /// work that starts within a millisecond of the last ending counts as
    /// the same round. Touched only on the loop's thread.
    private var roundWork = TimeAmount.zero
    private var lastWorkEnd = NIODeadline.now()
    /// The round is over, and a timer (run after the next poll) starts the next.
    private var roundEnding = false

    /// The event loop; the links of this loop's bots are opened on it.
    public let loop: any EventLoop

    private let lateness = Mutex(LoopLag())
    /// How late this loop ran its lag probes (none until `BotLoops.watchLag`).
    var lag: LoopLag { lateness.withLock { $0 } }

    public init(name: String, stackSize: Int = 64 << 20) {
        let started = Handoff()
        let thread = Thread {
            MultiThreadedEventLoopGroup.withCurrentThreadAsEventLoop { loop in
                // An OS name, for `top -H` and perf.
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

    /// Whether this loop's bots used up the round: a pump then waits for the
    /// next one, after the loop has read its sockets.
    var roundIsOver: Bool { roundEnding }

    /// Counts `took` of plugin work that ended at `now`; past the limit, the
    /// round ends and the next starts after the loop's next poll.
    func spent(_ took: TimeAmount, endedAt now: NIODeadline) {
        if !roundEnding, now - took - lastWorkEnd > .milliseconds(1) { roundWork = .zero }
        roundWork += took
        lastWorkEnd = now
        guard roundWork >= Self.roundLimit, !roundEnding else { return }
        roundEnding = true
        // A timer, not an `execute`: NIO runs every task queued in a round of
        // tasks before it polls; a task due in the future waits for the poll.
        loop.scheduleTask(in: Self.linkTurn) { [self] in
            roundWork = .zero
            roundEnding = false
        }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { [self] in
            job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
        }
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }

    /// Isolated when on the loop's thread, job or not: so a plain loop
    /// callback (a scheduled task, an `execute`) may `assumeIsolated` to the
    /// loop's actors instead of starting a task to reach them.
    public func checkIsolated() {
        precondition(loop.inEventLoop, "not on the bot loop's thread")
    }

    public func asUnownedTaskExecutor() -> UnownedTaskExecutor { UnownedTaskExecutor(ordinary: self) }

    /// Runs `action` on this loop once `seconds` have passed, unless the
    /// returned task is cancelled first (a bot's next plugin timer).
    func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) -> Scheduled<Void> {
        loop.scheduleTask(in: .nanoseconds(Int64(max(0, min(seconds, 1e9)) * 1e9)), action)
    }

    /// A probe due every second: how long after its deadline it ran goes to
    /// `lag` and `parley_loop_lag_seconds{loop="number"}`; `each` runs beside
    /// it. Handles are made at each probe, as the metrics may be bootstrapped later.
    func probeLag(number: String, _ each: @escaping @Sendable () -> Void) {
        let due = NIODeadline.now() + .seconds(1)
        loop.scheduleTask(deadline: due) { [self] in
            let late = Swift.max(0, Int64(NIODeadline.now().uptimeNanoseconds) - Int64(due.uptimeNanoseconds))
            lateness.withLock { $0.record(.nanoseconds(late)) }
            CoreMetrics.Timer(label: "parley_loop_lag_seconds", dimensions: [("loop", number)]).recordNanoseconds(late)
            each()
            probeLag(number: number, each)
        }
    }

    /// The new thread's loop, handed to the initializer: written once
    /// before `ready` is signalled, read after the wait.
    private final class Handoff: @unchecked Sendable {
        var loop: (any EventLoop)?
        let ready = DispatchSemaphore(value: 0)
    }
}

/// An actor whose executor is a bot loop: a bot's runner and its plugin host.
protocol BotLoopActor: Actor {
    nonisolated var executor: BotLoop { get }
}

extension BotLoopActor {
    /// `assumeIsolated`, checked by the loop's own thread test alone. The
    /// runtime's check asks first whether the executor is the main one, a
    /// walk through witness tables of about 400 instructions and their cold
    /// cache lines, and a reply passes three such checks. The closure is
    /// escaping so that it is called as it is: a non-escaping one would be
    /// wrapped (`withoutActuallyEscaping`) at every call, an allocation or two.
    nonisolated func onLoopThread<T, E: Error>(_ body: @escaping (isolated Self) throws(E) -> T) throws(E) -> T {
        precondition(executor.loop.inEventLoop, "not on the bot loop's thread")
        // As `assumeIsolated` does once its check passed: the isolated
        // parameter is only a promise to the type checker, made good above.
        return try unsafeBitCast(body, to: ((Self) throws(E) -> T).self)(self)
    }
}
