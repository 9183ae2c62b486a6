import Synchronization

/// A session's events, pushed by its transport straight to one consumer.
///
/// Why not an `AsyncThrowingStream` read by a task: a stream keeps its
/// deque at the size of the largest burst it ever held, and the reading
/// task keeps its async frames for the session's life. At 10,000 bots that
/// was about 6 KiB per bot for a hand-over the bot's bounded `Inbox` does
/// anyway. Here the transport's thread calls the consumer directly, and the
/// consumer (the runner's: observe, drop own echoes, push into the inbox)
/// never waits for plugins.
///
/// - Events yielded before a consumer attaches wait, in order, and go to it
///   first when it does.
/// - The consumer is called for one event at a time, in order: calls are
///   serialised under the lock, so it must be quick and must not call back
///   into this object.
/// - The first `finish` wins; later yields and finishes are ignored.
/// - `detach` is final: later events are dropped, and the link is freed
///   (`onTermination`), as when a stream's reader was cancelled.
///
/// Tests and benches can still write `for try await event in session.events`.
public final class TransportEvents: Sendable {
    /// What the consumer is handed: an event, or the end (nil: a clean one).
    public enum Item: Sendable {
        case event(TransportEvent)
        case end((any Error)?)
    }

    public typealias Consumer = @Sendable (Item) -> Void

    private struct State {
        var consumer: Consumer?
        /// Yielded before anyone attached.
        var early: [TransportEvent] = []
        /// The end, once finished (`.some(nil)`: a clean end).
        var end: (any Error)?? = nil
        var detached = false
        var onTermination: (@Sendable () -> Void)?
        var terminated = false
        /// The view for `for try await`, made at the first iteration.
        var stream: AsyncThrowingStream<TransportEvent, any Error>?

        /// The termination handler, once.
        mutating func takeTermination() -> (@Sendable () -> Void)? {
            guard !terminated else { return nil }
            terminated = true
            defer { onTermination = nil }
            return onTermination
        }
    }

    private let state = Mutex(State())

    public init() {}

    // MARK: the transport's side

    /// Runs once, when the session ends (its `finish`) or its consumer lets
    /// go (`detach`): the transport frees its link there. Set at once when
    /// the end already happened.
    public var onTermination: (@Sendable () -> Void)? {
        get { state.withLock { $0.onTermination } }
        set {
            let runNow = state.withLock { s -> Bool in
                if s.terminated { return true }
                s.onTermination = newValue
                return false
            }
            if runNow { newValue?() }
        }
    }

    public func yield(_ event: TransportEvent) {
        state.withLock { s in
            guard s.end == nil, !s.detached else { return }
            if let consumer = s.consumer { consumer(.event(event)) } else { s.early.append(event) }
        }
    }

    /// Ends the session cleanly (the bot left).
    public func finish() { finish(throwing: nil) }

    /// Ends the session with the reason its link was lost; nil: a clean end
    /// (so a link's `ended(error?)` callback passes its error straight on).
    public func finish(throwing error: (any Error)?) {
        let terminate = state.withLock { s -> (@Sendable () -> Void)? in
            guard s.end == nil, !s.detached else { return nil }
            s.end = .some(error)
            s.consumer?(.end(error))
            return s.takeTermination()
        }
        terminate?()
    }

    // MARK: the consumer's side

    /// Hands every event, then the end, to `consumer`; events that came
    /// before it first, in order. One consumer per session.
    public func attach(_ consumer: @escaping Consumer) {
        state.withLock { s in
            precondition(s.consumer == nil, "a session's events have one consumer")
            guard !s.detached else { return }
            for event in s.early { consumer(.event(event)) }
            s.early = []
            if let end = s.end { consumer(.end(end)) }
            s.consumer = consumer
        }
    }

    /// The consumer lets go for good: later events are dropped and the link
    /// is freed.
    public func detach() {
        let terminate = state.withLock { s -> (@Sendable () -> Void)? in
            guard !s.detached else { return nil }
            s.detached = true
            s.consumer = nil
            s.early = []
            return s.takeTermination()
        }
        terminate?()
    }
}

extension TransportEvents: AsyncSequence {
    public typealias Element = TransportEvent
    public typealias AsyncIterator = AsyncThrowingStream<TransportEvent, any Error>.AsyncIterator

    /// Iterating attaches a consumer that feeds a stream; every iteration
    /// reads the same one, so a loop may stop and a later one go on.
    public func makeAsyncIterator() -> AsyncIterator {
        let (stream, fresh) = state.withLock { s -> (AsyncThrowingStream<TransportEvent, any Error>, AsyncThrowingStream<TransportEvent, any Error>.Continuation?) in
            if let stream = s.stream { return (stream, nil) }
            let (stream, continuation) = AsyncThrowingStream<TransportEvent, any Error>.makeStream()
            s.stream = stream
            return (stream, continuation)
        }
        if let fresh {
            attach { item in
                switch item {
                case .event(let e): fresh.yield(e)
                case .end(let error?): fresh.finish(throwing: error)
                case .end(nil): fresh.finish()
                }
            }
        }
        return stream.makeAsyncIterator()
    }
}
