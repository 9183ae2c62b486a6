import NIOCore

/// Runs a task's nonisolated code on one NIO event loop.
///
/// A session's reader task prefers the loop that yields its events: each
/// event then resumes the reader on the thread that is already awake, and
/// the only cross-thread wake on the way in is the one to the bot's Lua
/// thread. Without it every event woke a cooperative-pool thread first.
/// The reader only moves events into the inbox, so it never holds the loop.
final class EventLoopTaskExecutor: TaskExecutor {
    private let loop: any EventLoop

    init(_ loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        loop.execute { job.runSynchronously(on: executor) }
    }
}
