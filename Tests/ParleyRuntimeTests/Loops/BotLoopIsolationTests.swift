import Foundation
import NIOCore
import ParleyRuntime
import Synchronization
import Testing

/// A bot loop is the executor of its bots' actors, and a plain loop callback
/// (a scheduled task, an `execute` from the journal's thread) may claim that
/// isolation without starting a task: the runner's timers and commit
/// completions rely on it.
@Suite struct BotLoopIsolationTests {
    /// An actor that lives on a bot loop, as a runner does.
    actor OnLoop {
        let executor: BotLoop
        var calls: [Bool] = []
        init(_ executor: BotLoop) { self.executor = executor }
        nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
        func record(onLoop: Bool) { calls.append(onLoop) }
    }

    @Test func aLoopCallbackRunsIsolatedToTheLoopsActors() async throws {
        let loop = BotLoop(name: "isolation-test")
        let actor = OnLoop(loop)
        let done = Mutex(0)
        // From another thread through `execute` (the journal's completions),
        // and from a timer of the loop's own (the plugins' timers).
        DispatchQueue.global().async {
            loop.loop.execute {
                actor.assumeIsolated { $0.record(onLoop: loop.loop.inEventLoop) }
                done.withLock { $0 += 1 }
            }
        }
        _ = loop.loop.scheduleTask(in: .milliseconds(5)) {
            actor.assumeIsolated { $0.record(onLoop: loop.loop.inEventLoop) }
            done.withLock { $0 += 1 }
        }
        let deadline = ContinuousClock.now + .seconds(5)
        while done.withLock({ $0 }) < 2, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(await actor.calls == [true, true])
    }
}
