import DequeModule
import ParleyCore
import Synchronization

/// Events a session delivered that the bot's plugins have not handled yet:
/// one bounded FIFO per room, filled on the transport's thread (the session's
/// `TransportEvents` consumer, which never waits for the plugins), emptied in
/// batches by the bot's pump.
///
/// Why a bound: without one, a flood the plugins cannot keep up with piles
/// up until the process runs out of memory. A bounded queue turns the flood
/// into a policy (`FlowOptions`): past the bound a room sheds its oldest
/// message or typing event (messages that speak to the bot last), counts it
/// and carries on, so memory stays flat and the newest message (a canary, a
/// moderator's next case) is still answered promptly. A full room sheds in
/// constant time (see `Lane`), so it takes events in as fast as an empty one.
///
/// Why batches: one turn of the bot's pump per batch instead of per event;
/// under load the batch grows and that cost is shared.
///
/// Why a wake and not a wait: the pump is a plain function on the bot's
/// loop, not a task parked in the inbox. When it finds the inbox empty it
/// asks to be woken (`take` arms `wake`); the next push calls `wake` once.
final class Inbox: Sendable {
    /// What the pump gets: events in per-room order, or the end of the session.
    enum Item: Sendable {
        case events([TransportEvent])
        /// The session ended; `error` is why the link was lost (nil: a clean end).
        case end(error: (any Error)?)
    }

    private struct State {
        var lanes: [String: Lane] = [:]
        /// Rooms with waiting events, in the order they became non-empty (round robin).
        var ready: [String] = []
        var count = 0
        var ended = false
        var error: (any Error)?
        /// The pump found nothing and waits for `wake`.
        var armed = false
        var shedTotal = 0
    }

    private let state = Mutex(State())
    private let bound: Int
    private let addressed: @Sendable (String) -> Bool
    private let wake: @Sendable () -> Void

    /// `addressed`: whether a message's text speaks to the bot (a command,
    /// its name); those are shed after other messages, so a person who asks
    /// the bot something in a flood is still heard. `wake`: called on the
    /// pushing thread, outside the lock, at the first push or the end after
    /// a `take` found nothing.
    init(bound: Int, addressed: @escaping @Sendable (String) -> Bool = { _ in false },
         wake: @escaping @Sendable () -> Void) {
        self.bound = max(1, bound)
        self.addressed = addressed
        self.wake = wake
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
        let woken = state.withLock { s in
            // One lookup, the lane mutated in place: a copy would copy its queues.
            let (wasEmpty, shed) = s.lanes[key, default: Lane()].push(event, bound: bound, addressed: addressed)
            if wasEmpty { s.ready.append(key) }
            if shed { s.shedTotal += 1 } else { s.count += 1 }
            defer { s.armed = false }
            return s.armed
        }
        if woken { wake() }
    }

    /// The session ended; the pump takes what is queued, then sees `.end`.
    func finish(error: (any Error)?) {
        let woken = state.withLock { s in
            s.ended = true
            s.error = error
            defer { s.armed = false }
            return s.armed
        }
        if woken { wake() }
    }

    /// Up to `limit` events, taken round robin over the rooms (each room's
    /// events stay in order); `.end` once the session ended and everything
    /// before it was taken; nil when nothing waits, and then the next push
    /// (or the end) calls `wake`.
    func take(limit: Int) -> Item? {
        state.withLock { s in
            if s.count > 0 { return .events(Self.take(&s, limit: limit)) }
            if s.ended { return .end(error: s.error) }
            s.armed = true
            return nil
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
                if s.lanes[key]!.count == 0 { s.lanes[key] = nil }
            }
            return out
        }
    }

    /// Rooms whose worth of storage an empty inbox keeps.
    private static let keptCapacity = 8

    private static func take(_ s: inout State, limit: Int) -> [TransportEvent] {
        var out: [TransportEvent] = []
        out.reserveCapacity(min(limit, s.count))
        var next: [String] = []
        // One event per room per turn until the batch is full or every room
        // is empty. Every room in `ready` has an event: shedding never empties one.
        while out.count < limit, !s.ready.isEmpty {
            next.removeAll(keepingCapacity: true)
            for key in s.ready {
                guard out.count < limit else {
                    next.append(key)
                    continue
                }
                // One lookup: the index reaches the lane again to remove it.
                guard let i = s.lanes.index(forKey: key), let (event, left, shed) = s.lanes.values[i].popFirst() else { continue }
                out.append(event)
                s.count -= 1
                if left > 0 {
                    next.append(key)
                } else if shed == 0 {
                    // A drained lane gives its burst's memory back: a quiet
                    // room (most of them, across thousands of bots) would keep
                    // the queue capacity of its largest burst for good.
                    s.lanes.remove(at: i)
                }
            }
            swap(&s.ready, &next)
        }
        // A bot answering now and then finds its inbox empty at every take:
        // the list of ready rooms and a small table keep their storage, so
        // the next event allocates neither. A table grown by a burst of
        // rooms gives its storage back.
        if s.ready.isEmpty, next.capacity <= Self.keptCapacity {
            swap(&s.ready, &next)
            s.ready.removeAll(keepingCapacity: true)
        }
        if s.lanes.isEmpty, s.lanes.capacity > Self.keptCapacity { s.lanes = [:] }
        return out
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

extension Inbox {
    /// One room's waiting events, held in four queues by the order the
    /// policy sheds them in, each in arrival order; a sequence number puts
    /// the room's order back together when they are taken.
    ///
    /// Why four: a full room sheds on every event it takes in, so finding
    /// the victim must not mean walking the room's queue. Each queue's
    /// oldest is its first, so pushing, shedding and taking are O(1) (a
    /// message is checked for being addressed at most once).
    fileprivate struct Lane {
        typealias Entry = (seq: Int, event: TransportEvent)
        /// Typing and messages not yet found to speak to the bot: shed first.
        private var chatter: Deque<Entry>?
        /// Messages that speak to the bot, moved here from `chatter` when a shed met them.
        private var addressed: Deque<Entry>?
        /// Joins, leaves and rosters: shed when no message is left to shed.
        private var presence: Deque<Entry>?
        /// Connection changes, history catch-up and kicks: never shed.
        private var kept: Deque<Entry>?
        private var nextSeq = 0
        /// Events waiting.
        private(set) var count = 0
        /// Events shed since the last `takeShed()`.
        var shed = 0

        /// Appends `event`, first shedding one per the policy when the room
        /// holds `bound`; whether the lane was empty, and whether it shed.
        mutating func push(_ event: TransportEvent, bound: Int, addressed isAddressed: (String) -> Bool) -> (wasEmpty: Bool, shed: Bool) {
            let wasEmpty = count == 0
            let part = Self.part(of: event)
            var didShed = false
            // An event that is never shed itself makes no room either: the lane grows past the bound.
            if count >= bound, part != .kept, shedOne(isAddressed) {
                shed += 1
                didShed = true
            }
            let entry = (nextSeq, event)
            nextSeq += 1
            count += 1
            switch part {
            case .chatter: Self.append(entry, to: &chatter)
            case .presence: Self.append(entry, to: &presence)
            case .kept: Self.append(entry, to: &kept)
            }
            return (wasEmpty, didShed)
        }

        /// The room's oldest event, with how many are left and the shed count.
        mutating func popFirst() -> (event: TransportEvent, left: Int, shed: Int)? {
            var oldest = Int.max
            var from = -1
            func consider(_ seq: Int?, _ i: Int) {
                if let seq, seq < oldest { (oldest, from) = (seq, i) }
            }
            consider(chatter?.first?.seq, 0)
            consider(addressed?.first?.seq, 1)
            consider(presence?.first?.seq, 2)
            consider(kept?.first?.seq, 3)
            let entry: Entry?
            switch from {
            case 0: entry = chatter?.popFirst()
            case 1: entry = addressed?.popFirst()
            case 2: entry = presence?.popFirst()
            case 3: entry = kept?.popFirst()
            default: entry = nil
            }
            guard let entry else { return nil }
            count -= 1
            return (entry.event, count, shed)
        }

        /// Removes the oldest typing event or message not addressed to the bot;
        /// failing that, the oldest addressed message; failing that, the oldest
        /// join/leave/roster. History catch-up and kicks are never shed.
        private mutating func shedOne(_ isAddressed: (String) -> Bool) -> Bool {
            while let entry = chatter?.popFirst() {
                if case .chat(.message(let m)) = entry.event, isAddressed(m.text) {
                    // Older than everything left in `chatter`, newer than all in `addressed`: the order holds.
                    Self.append(entry, to: &addressed)
                    continue
                }
                count -= 1
                return true
            }
            if addressed?.popFirst() != nil || presence?.popFirst() != nil {
                count -= 1
                return true
            }
            return false
        }

        private static func append(_ entry: Entry, to queue: inout Deque<Entry>?) {
            // Created on first use: most rooms only ever hold one kind at a time.
            if queue == nil { queue = Deque(minimumCapacity: 2) }
            queue!.append(entry)
        }

        /// The queue an event joins (`addressed` is reached only through `chatter`).
        private enum Part { case chatter, presence, kept }

        private static func part(of e: TransportEvent) -> Part {
            switch e {
            case .chat(.typing), .chat(.message): .chatter
            case .chat(.join), .chat(.leave), .chat(.roster): .presence
            case .chat(.connection), .backfill, .kicked: .kept
            }
        }
    }
}
