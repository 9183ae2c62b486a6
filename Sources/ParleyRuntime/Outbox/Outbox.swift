import DequeModule
import ParleyCore

/// Where each of this run's sends is on its trip from its handler's commit
/// to the transport's confirmation. The journal's `OutboxLedger` says which
/// sends are pending (it survives a restart); this says what each is waiting
/// for:
///
/// - **committing**: its transaction is written but not yet durable (a
///   pipelined journal is syncing it). Sends leave this state in commit order.
/// - **queued**: durable, waiting for its turn, the link and the rate cap.
/// - **in flight**: handed to the transport, not yet confirmed.
///
/// Queued sends take turns by plugin: the rate cap (`[bot.flow] send_rate`)
/// makes sends wait here, and one plugin with hundreds queued (a moderator in
/// a flood) must not hold up another's single reply for minutes. Each
/// plugin's own sends keep their order; between plugins, one send each in
/// rotation.
struct Outbox {
    /// A queued send and since when it waits (for the offline expiry): its
    /// handler's time, so a send a previous run committed and never delivered
    /// counts its age from then, not from this run's start.
    private struct Queued {
        var message: OutgoingMessage
        var since: Double
    }

    /// A handler batch's sends whose transaction is not yet durable.
    private struct Commit {
        var request: UInt64
        var sends: [OutgoingMessage]
        /// Events that batch handled, for the pump's hold-back bound.
        var events: Int
    }

    private var committing: [Commit] = []
    private var lastRequest: UInt64 = 0
    /// Each plugin's queued sends. A plugin keeps its entry once it has
    /// sent (a bot has a handful of plugins): a drained queue is emptied, not
    /// removed, so the next send finds its queue with the same lookup.
    private var queues: [String: Deque<Queued>] = [:]
    /// Plugins with queued sends; the first one's turn is next.
    private var turns: [String] = []
    /// Sends queued (not committing, not in flight).
    private(set) var queuedCount = 0
    /// Sends handed to the transport and not yet confirmed.
    private var inFlight: [Queued] = []
    /// Events handled whose commit is not yet durable.
    private(set) var uncommittedEvents = 0
    /// How long a queued send may wait (while the bot is offline) before it is dropped.
    let expiry: Double

    init(expiry: Double) { self.expiry = expiry }

    /// Nothing committing, queued or in flight.
    var isSettled: Bool { committing.isEmpty && queuedCount == 0 && inFlight.isEmpty }

    /// Sends committing, queued or in flight: what a stop leaves undelivered.
    var unsettledCount: Int { committing.reduce(0) { $0 + $1.sends.count } + queuedCount + inFlight.count }

    // MARK: committing

    /// Records a handler batch's committed sends; returns the commit request
    /// that `release(through:)` later names.
    mutating func commit(_ sends: [OutgoingMessage], events: Int) -> UInt64 {
        lastRequest += 1
        committing.append(Commit(request: lastRequest, sends: sends, events: events))
        uncommittedEvents += events
        return lastRequest
    }

    /// Every commit up to `request` is durable: its sends join the queue, in commit order.
    mutating func release(through request: UInt64, now: Double) {
        var released = 0
        for c in committing {
            guard c.request <= request else { break }
            for m in c.sends { enqueue(Queued(message: m, since: m.time > 0 ? min(now, m.time) : now)) }
            uncommittedEvents -= c.events
            released += 1
        }
        // Emptied, a short list keeps its storage for the next commit; a long one lets it go.
        if released == committing.count {
            committing.removeAll(keepingCapacity: committing.capacity <= 8)
        } else {
            committing.removeFirst(released)
        }
    }

    // MARK: queued

    private mutating func enqueue(_ q: Queued) {
        // One lookup: the queue is appended to in place.
        if Self.append(q, to: &queues[q.message.plugin, default: Deque()]) { turns.append(q.message.plugin) }
        queuedCount += 1
    }

    /// Appends `q`; whether the queue was empty (its plugin then takes a turn).
    private static func append(_ q: Queued, to queue: inout Deque<Queued>) -> Bool {
        defer { queue.append(q) }
        return queue.isEmpty
    }

    /// Takes up to `limit` queued sends in turn order into flight, while
    /// `admit` (the rate cap) allows; sends that waited past the expiry are
    /// taken out on the way and returned apart.
    mutating func takeBatch(limit: Int, now: Double,
                            admit: (OutgoingMessage) -> Bool) -> (batch: [OutgoingMessage], expired: [OutgoingMessage]) {
        var batch: [Queued] = [], messages: [OutgoingMessage] = [], expired: [OutgoingMessage] = []
        // One lookup of a plugin's queue per send: the index reaches it after.
        while batch.count < limit, let plugin = turns.first, let i = queues.index(forKey: plugin),
              let q = queues.values[i].first {
            let isExpired = now - q.since > expiry
            if !isExpired, !admit(q.message) { break }
            turns.removeFirst()
            queuedCount -= 1
            if queues.values[i].count > 1 {
                queues.values[i].removeFirst()
                turns.append(plugin)
            } else {
                // A drained queue lets its storage go (an empty `Deque`
                // holds none): every bot would otherwise keep the capacity
                // of its largest burst for good.
                queues.values[i] = Deque()
            }
            if isExpired {
                expired.append(q.message)
            } else {
                batch.append(q)
                messages.append(q.message)
            }
        }
        if inFlight.isEmpty { inFlight = batch } else { inFlight += batch }
        return (messages, expired)
    }

    // MARK: in flight

    /// The transport settled the first `count` sends in flight (delivered or
    /// refused for good); the rest of the batch goes back to the front of the
    /// queue, in its order, with its plugins' turns first, so a reconnect
    /// sends them first (their expiry still counts from when they were queued).
    mutating func settle(_ count: Int) {
        let unsent = inFlight.dropFirst(count)
        inFlight.removeAll()
        for q in unsent.reversed() {
            queues[q.message.plugin, default: []].prepend(q)
            queuedCount += 1
        }
        var order: [String] = []
        for q in unsent where !order.contains(q.message.plugin) { order.append(q.message.plugin) }
        turns.removeAll { order.contains($0) }
        turns.insert(contentsOf: order, at: 0)
    }
}
