import NIOCore

extension EventLoopFuture where Value: Sendable {
    /// The future's value, resumed on the caller's executor.
    ///
    /// NIO's `get()` is a plain `async` function: awaited from a bot's runner
    /// (which lives on its bot loop) it hops to the cooperative pool, waits
    /// there, then hops back, waking two threads for every message sent.
    /// This one resumes the caller directly from the event loop: on the bot's
    /// own loop that is a job queued on the same thread, no wake at all.
    package nonisolated(nonsending) func valueOnCaller() async throws -> Value {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Value, Error>) in
            whenComplete { c.resume(with: $0) }
        }
    }
}
