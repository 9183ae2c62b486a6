import NIOCore
import NIOPosix

/// Runs `body` after `seconds` unless cancelled first: the timeout of a
/// handshake, a CONNECT, an ack or a STOMP receipt (every transport that
/// waits for an answer uses it).
///
/// Scheduled on an event loop, not as a sleeping task: a task needs a free
/// thread of the cooperative pool to wake on, and a pool kept busy (two
/// threads on a two-core machine) once let a 0.5 s handshake timeout fire
/// after 6 s. Event loops run timers on time.
package func afterTimeout(_ seconds: Double, _ body: @escaping @Sendable () -> Void) -> Scheduled<Void> {
    MultiThreadedEventLoopGroup.singleton.any()
        .scheduleTask(in: .nanoseconds(Int64((max(0, seconds) * 1e9).rounded()))) { body() }
}
