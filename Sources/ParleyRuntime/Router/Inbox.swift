import NIOCore
import ParleyCore
import Synchronization

/// Events a session delivered that the bot's plugins have not handled yet:
/// one bounded FIFO per room, filled on the transport's thread (the session's
/// `TransportEvents` consumer, which never waits for the plugins), emptied in
/// batches by the bot's handler loop.
///
/// Why a bound: a flood the plugins cannot keep up with used to pile up in an
/// unbounded stream until the process ran out of memory. A bounded queue
/// turns the flood into a policy (`FlowOptions`): past the
/// bound a room sheds its oldest message or typing event (messages that
/// speak to the bot last), counts it and
/// carries on, so memory stays flat and the newest message (a canary, a
/// moderator's next case) is still answered promptly.
///
/// Why batches: one resumption of the bot's runner per batch instead of per
/// event; under load the batch grows and that cost is shared.
final class Inbox: Sendable {
    /// What the handler loop gets: events in per-room order, or the end of the session.
    enum Item: Sendable {
        case events([TransportEvent])
        /// The session ended; `error` is why the link was lost (nil: a clean end).
        case end(error: (any Error)?)
    }

    private struct Lane {
        var queue = CircularBuffer<TransportEvent>()
        /// Events shed since the last `takeShed()`.
        var shed = 0
    }

    private struct State {
        var lanes: [String: Lane] = [:]
        /// Rooms with waiting events, in the order they became non-empty (round robin).
        var ready: [String] = []
        var count = 0
        var ended = false
        var error: (any Error)?
        var waiter: CheckedContinuation<Void, Never>?
        var shedTotal = 0
    }

    private let state = Mutex(State())
    private let bound: Int
    private let addressed: @Sendable (String) -> Bool

    /// `addressed`: whether a message's text speaks to the bot (a command,
    /// its name); those are shed after other messages, so a person who asks
    /// the bot something in a flood is still heard.
    init(bound: Int, addressed: @escaping @Sendable (String) -> Bool = { _ in false }) {
        self.bound = max(1, bound)
        self.addressed = addressed
    }

    /// Total events shed over this inbox's life.
    var shedTotal: Int { state.withLock { $0.shedTotal } }

    /// Whether events wait to be taken.
    var hasEvents: Bool { state.withLock { $0.count > 0 } }

    /// Rooms holding a queue now (drained ones are let go; see `take`).
    var lanesHeld: Int { state.withLock { $0.lanes.count } }

    /// Takes one event from the session; sheds per the policy when its room is full.
    func push(_ event: TransportEvent) {
        let key = Self.room(of: event)
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { s in
            // Mutated in place through the dictionary: a copy of the lane would copy its queue.
            if s.lanes[key] == nil { s.lanes[key] = Lane() }
            if s.lanes[key]!.queue.isEmpty { s.ready.append(key) }
            if s.lanes[key]!.queue.count >= bound, Self.sheddable(event), shedOne(&s.lanes[key]!.queue) {
                s.lanes[key]!.shed += 1
                s.shedTotal += 1
                s.count -= 1
            }
            s.lanes[key]!.queue.append(event)
            s.count += 1
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume()
    }

    /// The session ended; the handler loop drains what is queued, then sees `.end`.
    func finish(error: (any Error)?) {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { s in
            s.ended = true
            s.error = error
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume()
    }

    /// Up to `limit` events, taken round robin over the rooms (each room's
    /// events stay in order), waiting for at least one; `.end` once the
    /// session ended and everything before it was taken. Runs on the
    /// caller's actor, so waking it costs no extra thread hop.
    func next(limit: Int, isolation: isolated (any Actor)? = #isolation) async -> Item {
        while true {
            let item: Item? = state.withLock { s in
                if s.count > 0 { return .events(Self.take(&s, limit: limit)) }
                return s.ended ? .end(error: s.error) : nil
            }
            if let item { return item }
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { s in
                    if s.count > 0 || s.ended { return true }
                    s.waiter = c
                    return false
                }
                if ready { c.resume() }
            }
        }
    }

    /// Events shed per room since the last call (rooms with none are left out).
    func takeShed() -> [(room: String, count: Int)] {
        state.withLock { s in
            var out: [(String, Int)] = []
            for key in Array(s.lanes.keys) where s.lanes[key]!.shed > 0 {
                out.append((key, s.lanes[key]!.shed))
                s.lanes[key]!.shed = 0
                // Kept only to report its count: a drained lane goes now.
                if s.lanes[key]!.queue.isEmpty { s.lanes[key] = nil }
            }
            return out
        }
    }

    private static func take(_ s: inout State, limit: Int) -> [TransportEvent] {
        var out: [TransportEvent] = []
        out.reserveCapacity(min(limit, s.count))
        // One event per room per turn until the batch is full or every room is empty.
        while out.count < limit, !s.ready.isEmpty {
            var next: [String] = []
            for key in s.ready {
                // In place through the dictionary: a copy of the lane would copy its whole queue.
                guard out.count < limit, let e = s.lanes[key]?.queue.popFirst() else {
                    if s.lanes[key]?.queue.isEmpty == false { next.append(key) }
                    continue
                }
                out.append(e)
                s.count -= 1
                if s.lanes[key]?.queue.isEmpty == false {
                    next.append(key)
                } else if s.lanes[key]?.shed == 0 {
                    // A drained lane gives its burst's memory back: a quiet
                    // room (most of them, across thousands of bots) would keep
                    // the queue capacity of its largest burst for good.
                    s.lanes[key] = nil
                }
            }
            s.ready = next
        }
        // Every lane drained: the table's storage goes too.
        if s.lanes.isEmpty { s.lanes = [:] }
        return out
    }

    /// Removes the oldest typing event or message not addressed to the bot;
    /// failing that, the oldest addressed message; failing that, the oldest
    /// join/leave/roster. History catch-up and kicks are never shed.
    private func shedOne(_ q: inout CircularBuffer<TransportEvent>) -> Bool {
        var second: CircularBuffer<TransportEvent>.Index?
        var third: CircularBuffer<TransportEvent>.Index?
        var i = q.startIndex
        while i != q.endIndex {
            if case .chat(let e) = q[i] {
                switch e {
                case .typing:
                    q.remove(at: i)
                    return true
                case .message(let m):
                    if !addressed(m.text) {
                        q.remove(at: i)
                        return true
                    }
                    if second == nil { second = i }
                case .connection: break
                default: if third == nil { third = i }
                }
            }
            i = q.index(after: i)
        }
        guard let victim = second ?? third else { return false }
        q.remove(at: victim)
        return true
    }

    private static func sheddable(_ e: TransportEvent) -> Bool {
        if case .chat(let c) = e, case .connection = c { return false }
        if case .chat = e { return true }
        return false
    }

    /// The lane an event queues in: its room, or "" for what concerns the whole session.
    private static func room(of e: TransportEvent) -> String {
        switch e {
        case .kicked: ""
        case .backfill(let room, _, _): room
        case .chat(let c):
            switch c {
            case .message(let m): m.room
            case .join(let room, _, _), .leave(let room, _, _), .typing(let room, _, _), .roster(let room, _): room
            case .connection: ""
            }
        }
    }
}
