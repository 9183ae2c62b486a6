import NIOCore

extension EventLoopFuture where Value: Sendable {
    /// The future's value, resumed on the caller's executor.
    ///
    /// NIO's `get()` is a plain `async` function: awaited from a bot's runner
    /// (which lives on its Lua thread) it hops to the cooperative pool, waits
    /// there, then hops back, waking two threads for every message sent.
    /// This one resumes the caller directly from the event loop: one wake.
    nonisolated(nonsending) func valueOnCaller() async throws -> Value {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Value, Error>) in
            whenComplete { c.resume(with: $0) }
        }
    }
}
