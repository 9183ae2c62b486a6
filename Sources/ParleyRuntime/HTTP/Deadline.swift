import Synchronization

/// Runs `body`, or throws `timeout` once `limit` has passed and cancels it.
/// Unstructured on purpose: the answer comes on time even when the work is
/// slow to notice its cancellation (a body stream that drips forever, a bot
/// loop held by a plugin), where a task group would wait for it.
func withDeadline<T: Sendable>(_ limit: Duration, timeout: any Error,
                               _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let once = Mutex(false)
    return try await withCheckedThrowingContinuation { (c: CheckedContinuation<T, any Error>) in
        let finish: @Sendable (Result<T, any Error>) -> Bool = { r in
            guard once.withLock({ done in defer { done = true }; return !done }) else { return false }
            c.resume(with: r)
            return true
        }
        let work = Task {
            do { _ = finish(.success(try await body())) } catch { _ = finish(.failure(error is CancellationError ? timeout : error)) }
        }
        Task {
            try? await Task.sleep(for: limit)
            if finish(.failure(timeout)) { work.cancel() }
        }
    }
}
