import NIOCore
import NIOPosix
@testable import ParleyRuntime
import Testing

/// Where the runner's pieces run: the point of issue 5's hop cuts.
@Suite struct ExecutorTests {
    /// A reader task that prefers an event loop runs there, before and after
    /// awaiting a stream another thread feeds: an event resumes it on the
    /// loop, not on a cooperative-pool thread.
    @Test func aReaderPreferringAnEventLoopRunsOnIt() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let (stream, feed) = AsyncStream<Int>.makeStream()
        let reader = Task(executorPreference: EventLoopTaskExecutor(loop)) { () async -> [Bool] in
            var onLoop = [loop.inEventLoop]
            for await _ in stream { onLoop.append(loop.inEventLoop) }
            return onLoop
        }
        for i in 0..<5 {
            try await Task.sleep(for: .milliseconds(5))
            feed.yield(i)
        }
        feed.finish()
        let onLoop = await reader.value
        #expect(onLoop.count == 6)
        #expect(onLoop.allSatisfy { $0 })
    }
}
