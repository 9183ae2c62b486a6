import NIOCore

/// Resumes a completed write's waiter later, on the waiter's own thread.
///
/// A bot's outbox drain hands a reply to the event loop and waits for the
/// write to complete. Resumed at once, that completion wakes the bot's Lua
/// thread only to record the delivery, just before the next event wakes it
/// again. A runner that can run the resumption at its thread's next wake
/// (`LuaThreadExecutor.runLazily`) binds `LazyCompletion.resumer` around its
/// sends, and the write saves that wake.
public protocol LazyResumer: Sendable {
    /// Called on the waiter's thread before it waits: one `resumeLazily` will follow.
    func expectResumption()
    /// Runs `resume` at the owner thread's next wake, and in any case within a short bound.
    func resumeLazily(_ resume: @escaping @Sendable () -> Void)
}

public enum LazyCompletion {
    /// Set around sends whose completions may wait for the caller's next wake.
    @TaskLocal public static var resumer: (any LazyResumer)?
}

extension EventLoopFuture where Value: Sendable {
    /// The future's value, resumed on the caller's executor.
    ///
    /// NIO's `get()` is a plain `async` function: awaited from a bot's runner
    /// (which lives on its Lua thread) it hops to the cooperative pool, waits
    /// there, then hops back, waking two threads for every message sent.
    /// This one resumes the caller directly from the event loop: one wake,
    /// or none when the caller bound a `LazyCompletion.resumer`.
    package nonisolated(nonsending) func valueOnCaller() async throws -> Value {
        let lazy = LazyCompletion.resumer
        return try await withCheckedThrowingContinuation { (c: CheckedContinuation<Value, Error>) in
            lazy?.expectResumption()
            whenComplete { result in
                if let lazy { lazy.resumeLazily { c.resume(with: result) } } else { c.resume(with: result) }
            }
        }
    }
}
