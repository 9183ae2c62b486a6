import ParleyCore
import ParleyJournal
import ParleyLua

/// A store could not make a write durable. The bot must stop: carrying on
/// would acknowledge effects that are not on disk.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public var message: String
    /// The disk was full: the bot's line says to free space and start again.
    public var outOfSpace = false
    public init(_ message: String) { self.message = message }
    /// A journal's failure, said as `message: cause`, keeping whether it was a full disk.
    public init(_ message: String, journal cause: any Error) {
        self.message = "\(message): \(cause)"
        if case .noSpace? = cause as? JournalError { outOfSpace = true }
    }
    public var description: String { message }
}

/// Reading plugins' `bot.state`. Writes go through `BotStore.commit`, one
/// batch per successful handler, together with that handler's sends.
public protocol StateStore: AnyObject {
    func value(plugin: String, key: String) -> LuaValue?
    /// The plugin's keys, in no order.
    func keys(plugin: String) -> [String]
    /// Bytes the plugin's state takes (keys plus encoded values): what the 1 MiB quota counts.
    func totalBytes(plugin: String) -> Int
}

/// `bot.state` kept in memory (the default without a journal).
public final class MemoryStateStore: StateStore {
    private var values: [String: [String: (value: LuaValue, size: Int)]] = [:]
    private var totals: [String: Int] = [:]

    public init() {}

    public func value(plugin: String, key: String) -> LuaValue? { values[plugin]?[key]?.value }

    public func keys(plugin: String) -> [String] { values[plugin].map { Array($0.keys) } ?? [] }

    public func totalBytes(plugin: String) -> Int { totals[plugin] ?? 0 }

    /// Every plugin's values, sorted by plugin then key (for snapshots and dumps).
    public func export() -> [(plugin: String, key: String, value: LuaValue)] {
        values.keys.sorted().flatMap { p in
            (values[p] ?? [:]).keys.sorted().map { k in (p, k, values[p]![k]!.value) }
        }
    }

    /// Applies writes in order; a nil value deletes the key.
    public func commit(plugin: String, writes: [(key: String, value: LuaValue?)]) {
        // Most handlers write no state: nothing to look up or copy back.
        guard !writes.isEmpty else { return }
        var table = values[plugin] ?? [:]
        var total = totals[plugin] ?? 0
        for (key, value) in writes {
            if let old = table[key] { total -= key.utf8.count + old.size }
            if let value {
                let size = value.encoded.count
                table[key] = (value, size)
                total += key.utf8.count + size
            } else {
                table[key] = nil
            }
        }
        values[plugin] = table
        totals[plugin] = total
    }
}

/// A message in a room's history, as `bot.history` returns it.
public struct StoredMessage: Sendable, Equatable {
    public var id: String
    public var room: String
    public var user: String
    public var text: String
    public var time: Double
    public var cursor: String
}

public struct HistoryPage: Sendable, Equatable {
    /// Oldest first.
    public var messages: [StoredMessage]
    /// Pass as `before` for the previous (older) page; nil when there is nothing older.
    public var before: String?
    /// Pass as `after` for newer messages; the newest cursor seen, so polling works.
    public var after: String?
}

public enum HistoryError: Error, Equatable {
    case invalidCursor(String)
}

/// Chat history per room: every message the bot saw or sent.
public protocol HistoryStore: AnyObject {
    /// Records a message and returns its cursor.
    @discardableResult
    func append(room: String, id: String, user: String, text: String, time: Double) throws(StoreError) -> String
    /// A page of at most `limit` messages, oldest first (see `HistoryPage`).
    func page(room: String, before: String?, after: String?, limit: Int) throws(HistoryError) -> HistoryPage
}

extension HistoryStore {
    /// Whether the room's history holds a message with this id at `time` or
    /// later. Scans back from the newest message and stops at the first one
    /// older than `time`, so asking about a message newer than everything
    /// stored (the usual case for catch-up, which runs oldest first) reads
    /// one short page.
    public func contains(room: String, id: String, since time: Double) -> Bool {
        var before: String? = nil
        while true {
            guard let page = try? page(room: room, before: before, after: nil, limit: 32) else { return false }
            for m in page.messages.reversed() {
                if m.id == id { return true }
                if m.time < time { return false }
            }
            guard let older = page.before else { return false }
            before = older
        }
    }
}

/// How much history each room keeps. Both bounds apply, so whichever
/// removes more wins: by default a room keeps at most 100,000 messages and
/// none older than 30 days.
///
/// Age is measured against the newest time the store has seen (a message's
/// server time, or the bot's clock for its own sends), not the wall clock, so
/// a harness on a virtual clock keeps what it wrote, and replaying a journal
/// gives the same result whenever it runs.
public struct HistoryRetention: Sendable, Equatable {
    /// Messages kept per room (at least 1).
    public var maxMessagesPerRoom: Int
    /// Seconds a message is kept (`history_days` × 86,400).
    public var maxAge: Double

    /// What `history_days` and `history_max` (and `journal compact`'s options) may be.
    public static let days: ClosedRange<Double> = 0.001...36_500
    public static let messages: ClosedRange<Int> = 1...100_000_000

    public init(maxMessagesPerRoom: Int = 100_000, maxAge: Double = 30 * 86_400) {
        self.maxMessagesPerRoom = max(1, maxMessagesPerRoom)
        self.maxAge = maxAge
    }
}

/// History in memory, bounded per room by `HistoryRetention` (oldest dropped first).
public final class MemoryHistoryStore: HistoryStore {
    private struct Room {
        var firstSeq = 0          // sequence number of messages[head]
        var head = 0              // index of the oldest kept message
        var messages: [StoredMessage] = []
        var count: Int { messages.count - head }

        /// Drops the `n` oldest kept messages.
        mutating func drop(_ n: Int) {
            guard n > 0 else { return }
            head += n
            firstSeq += n
            // Compact once the dropped prefix is as large as what is kept.
            if head >= count {
                messages.removeFirst(head)
                head = 0
            }
        }

        /// Drops the oldest messages that are older than `cutoff` (a message
        /// that arrived out of time order stops the scan; it goes later).
        mutating func drop(before cutoff: Double) {
            var n = 0
            while head + n < messages.count, messages[head + n].time < cutoff { n += 1 }
            drop(n)
        }
    }
    private var rooms: [String: Room] = [:]
    public let retention: HistoryRetention
    /// The newest message time seen so far: what `maxAge` is measured against.
    public private(set) var newestTime: Double = -.infinity
    /// Messages retention has dropped so far (a journal's snapshot then
    /// takes them off the disk).
    public private(set) var trimmed = 0

    public init(retention: HistoryRetention = HistoryRetention()) { self.retention = retention }

    public convenience init(maxPerRoom: Int) { self.init(retention: HistoryRetention(maxMessagesPerRoom: maxPerRoom)) }

    @discardableResult
    public func append(room: String, id: String, user: String, text: String, time: Double) throws(StoreError) -> String {
        // Mutated in place (through the dictionary's default subscript) so the
        // array is never copied: appends stay O(1) amortised.
        let maxPerRoom = retention.maxMessagesPerRoom
        newestTime = max(newestTime, time)
        let cutoff = newestTime - retention.maxAge
        return withRoom(room) { r in
            let seq = r.firstSeq + r.count
            let cursor = String(prefix: "m", number: seq, radix: 36)
            r.messages.append(StoredMessage(id: id, room: room, user: user, text: text, time: time, cursor: cursor))
            let kept = r.count
            if r.count > maxPerRoom { r.drop(r.count - maxPerRoom) }
            if let oldest = r.messages[r.head...].first, oldest.time < cutoff { r.drop(before: cutoff) }
            trimmed += kept - r.count
            return cursor
        }
    }

    /// Applies both bounds to every room, also those nobody wrote to lately
    /// (appends only trim their own room) and those restored under a lower
    /// bound than they were kept with. Returns the messages dropped.
    @discardableResult
    public func applyRetention() -> Int {
        let cutoff = newestTime - retention.maxAge
        let maxPerRoom = retention.maxMessagesPerRoom
        var dropped = 0
        for name in Array(rooms.keys) {
            let before = rooms[name]!.count
            if before > maxPerRoom { rooms[name]!.drop(before - maxPerRoom) }
            if let first = rooms[name]!.messages[rooms[name]!.head...].first, first.time < cutoff { rooms[name]!.drop(before: cutoff) }
            dropped += before - rooms[name]!.count
        }
        trimmed += dropped
        return dropped
    }

    /// Messages kept in a room.
    public func count(room: String) -> Int { rooms[room]?.count ?? 0 }

    /// Every room's kept messages with the sequence number of the first, so a
    /// snapshot restores the same cursors.
    public func export() -> [(room: String, firstSeq: Int, messages: [StoredMessage])] {
        rooms.keys.sorted().map { name in
            let r = rooms[name]!
            return (name, r.firstSeq, Array(r.messages[r.head...]))
        }
    }

    /// Replaces a room with exported contents.
    public func restore(room: String, firstSeq: Int, messages: [StoredMessage]) {
        rooms[room] = Room(firstSeq: firstSeq, head: 0, messages: messages)
        for m in messages { newestTime = max(newestTime, m.time) }
    }

    private func withRoom<T>(_ name: String, _ body: (inout Room) -> T) -> T {
        body(&rooms[name, default: Room()])
    }

    /// `m` and base-36 digits. More digits than an Int holds is a place past
    /// every end, as the docs promise for any such string.
    private func seq(of cursor: String) throws(HistoryError) -> Int {
        let digits = cursor.utf8.dropFirst()
        guard cursor.utf8.first == UInt8(ascii: "m"), !digits.isEmpty,
              digits.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) || (0x41...0x5A).contains($0) }) else {
            throw .invalidCursor(cursor)
        }
        return Int(Substring(digits), radix: 36) ?? Int.max
    }

    public func page(room: String, before: String?, after: String?, limit: Int) throws(HistoryError) -> HistoryPage {
        var upper = Int.max       // exclusive
        var lower = Int.min       // inclusive
        if let before { upper = try seq(of: before) }
        // A cursor is any number a plugin passes on (a chat user can type one): the largest has no next.
        if let after { let n = try seq(of: after); lower = n == Int.max ? n : n + 1 }
        guard let r = rooms[room] else { return HistoryPage(messages: [], before: nil, after: after) }
        let end = r.firstSeq + r.count
        let lo = max(lower, r.firstSeq), hi = min(upper, end)
        guard lo < hi else {
            return HistoryPage(messages: [], before: nil, after: after)
        }
        // Paging forward from `after` takes the oldest; otherwise the newest.
        let range = after != nil ? lo..<min(hi, lo + limit) : max(lo, hi - limit)..<hi
        let base = r.head - r.firstSeq
        let page = Array(r.messages[(range.lowerBound + base)..<(range.upperBound + base)])
        return HistoryPage(
            messages: page,
            before: range.lowerBound > r.firstSeq ? page.first?.cursor : nil,
            after: page.last?.cursor ?? after)
    }
}

/// The sends a bot committed and its transport has not taken yet, in commit
/// order, with a count per plugin (what the plugin's `outbox_sends` quota
/// reads), and its moderation steps not yet answered. The one record of
/// pending sends and steps: each store keeps it, the
/// journal's rebuilt from intent and delivery records on open, and the plugin
/// host asks the store rather than counting again.
public struct OutboxLedger: Sendable {
    private var entries: [OutgoingMessage] = []
    private var perPlugin: [String: Int] = [:]
    /// Committed moderation steps not yet answered, oldest first. Marked
    /// done by id like sends; not counted against `outbox_sends`.
    public private(set) var steps: [ModerationStep] = []

    public init() {}

    /// Every pending send, oldest first.
    public var all: [OutgoingMessage] { entries }

    public func count(plugin: String) -> Int { perPlugin[plugin] ?? 0 }

    public mutating func add(_ sends: [OutgoingMessage], steps: [ModerationStep] = []) {
        entries += sends
        for s in sends { perPlugin[s.plugin, default: 0] += 1 }
        if !steps.isEmpty { self.steps += steps }
    }

    /// The transport took these sends or steps (or they were dropped for good).
    public mutating func remove(_ ids: [String]) {
        if !steps.isEmpty {
            let before = steps.count
            steps.removeAll { ids.contains($0.id) }
            // Steps are marked on their own: the sends need no pass.
            if steps.count < before, steps.count + ids.count == before { return }
        }
        // Sends are mostly taken in the order they were added, so they are the
        // oldest entries: those come off without a set or a pass over the rest.
        if ids.count <= entries.count, zip(entries, ids).allSatisfy({ $0.id == $1 }) {
            for e in entries[..<ids.count] { perPlugin[e.plugin, default: 1] -= 1 }
            entries.removeFirst(ids.count)
            return
        }
        let done = Set(ids)
        entries.removeAll { e in
            guard done.contains(e.id) else { return false }
            perPlugin[e.plugin, default: 1] -= 1
            return true
        }
    }
}

/// A timer that outlives the process: one with a name (`bot.after(s, fn,
/// {name = ...})`), or one created while its plugin loaded, which is named by
/// its order (`#1`, `#2`, ...). Unnamed timers made by handlers are not saved.
public struct SavedTimer: Sendable, Equatable {
    /// Unique within the plugin.
    public var name: String
    /// When it fires next, in seconds since 1970 on the bot's clock.
    public var due: Double
    /// The interval it was created with (`bot.every`'s period).
    public var seconds: Double
    public var repeats: Bool
    /// The plugin's `data` option (a state value), handed back in the timer event.
    public var data: LuaValue?
    /// A `bot.cron` schedule's spec: it sets `due` after each firing.
    public var cron: String?
    /// Made while the plugin loaded (named or not): a version that no longer
    /// makes it drops it, as it would an unnamed one.
    public var atLoad: Bool

    public init(name: String, due: Double, seconds: Double, repeats: Bool, data: LuaValue? = nil, cron: String? = nil,
                atLoad: Bool = false) {
        self.atLoad = atLoad
        self.name = name
        self.due = due
        self.seconds = seconds
        self.repeats = repeats
        self.data = data
        self.cron = cron
    }
}

/// A change to a plugin's saved timers, part of a handler's transaction.
public enum TimerChange: Sendable, Equatable {
    /// Creates or replaces the timer with this name.
    case set(SavedTimer)
    /// Removes it (cancelled, or fired for good).
    case drop(name: String)
}

/// Everything one successful handler did that must persist, committed as one unit.
public struct HandlerEffects: Sendable {
    public var plugin: String
    /// Who the sends are from in the history: the bot.
    public var sender: String
    public var writes: [(key: String, value: LuaValue?)]
    public var sends: [OutgoingMessage]
    /// Saved-timer changes, applied in order after the writes.
    public var timers: [TimerChange]
    /// Moderation steps, taken after the sends.
    public var steps: [ModerationStep]

    public init(plugin: String, sender: String, writes: [(key: String, value: LuaValue?)], sends: [OutgoingMessage],
                timers: [TimerChange] = [], steps: [ModerationStep] = []) {
        self.plugin = plugin
        self.sender = sender
        self.writes = writes
        self.sends = sends
        self.timers = timers
        self.steps = steps
    }

    package var isEmpty: Bool { writes.isEmpty && sends.isEmpty && timers.isEmpty && steps.isEmpty }
}

/// Saved timers per plugin, in memory (shared by both stores).
final class TimerTable {
    private var timers: [String: [String: SavedTimer]] = [:]

    func apply(plugin: String, _ changes: [TimerChange]) {
        for c in changes {
            switch c {
            case .set(let t): timers[plugin, default: [:]][t.name] = t
            case .drop(let name): timers[plugin]?[name] = nil
            }
        }
    }

    /// A plugin's timers, soonest first (then by name).
    func timers(plugin: String) -> [SavedTimer] {
        (timers[plugin] ?? [:]).values.sorted { ($0.due, $0.name) < ($1.due, $1.name) }
    }

    /// Every plugin's timers, by plugin then name (for snapshots).
    func export() -> [(plugin: String, timer: SavedTimer)] {
        timers.keys.sorted().flatMap { p in (timers[p] ?? [:]).keys.sorted().map { (p, timers[p]![$0]!) } }
    }
}

/// Last-seen cursors per room, in memory (shared by both stores).
struct CursorTable {
    private(set) var rooms: [String: RoomCursor] = [:]

    /// A message the bot handled: moves the cursor unless it is older than the current one.
    mutating func advance(room: String, to c: RoomCursor) {
        if let old = rooms[room], old.time > c.time { return }
        rooms[room] = c
    }

    mutating func set(room: String, to c: RoomCursor) { rooms[room] = c }

    func export() -> [(room: String, cursor: RoomCursor)] {
        rooms.keys.sorted().map { ($0, rooms[$0]!) }
    }
}

/// All of a bot's persistent data: plugin state, room history, the outbox,
/// saved timers and each room's last-seen cursor.
///
/// `commit` makes one handler's state writes, sends and timer changes durable
/// together (the sends also enter the history as the bot's own messages);
/// only then may the sends be handed to the transport, after which
/// `markDelivered` records it. `undelivered` is what a restart must send again.
public protocol BotStore: StateStore, HistoryStore {
    func commit(_ effects: HandlerEffects) throws(StoreError)
    /// Starts an event: until `endEvent` its writes (the message received,
    /// each handler's effects) are held, then written as one transaction. So
    /// an event costs one sync, and the message and what the handlers made of
    /// it are durable together or not at all.
    func beginEvent()
    /// Writes what the event held (see `beginEvent`).
    func endEvent() throws(StoreError)
    /// Sends the transport took and moderation steps the server answered
    /// (or either dropped for good), by id.
    func markDelivered(_ ids: [String]) throws(StoreError)
    func undelivered() -> [OutgoingMessage]
    /// Committed moderation steps not yet marked done: what a restart takes.
    func pendingSteps() -> [ModerationStep]
    /// The plugin's committed sends the transport has not taken yet.
    func undeliveredCount(plugin: String) -> Int

    /// Records a message the bot received, like `append`. With `lastSeen`, the
    /// message's server id and time also become the room's last-seen cursor
    /// (unless the current one is newer), in the same transaction.
    @discardableResult
    func appendReceived(room: String, id: String, user: String, text: String, time: Double,
                        lastSeen: Bool) throws(StoreError) -> String
    /// Records a batch of received messages as one write (a backfill of
    /// thousands would otherwise cost a journal sync each); each moves its
    /// room's last-seen cursor like `appendReceived(..., lastSeen: true)`.
    /// Only messages with a server id and a time are recorded (a backfill's).
    func appendReceived(_ messages: [ChatMessage]) throws(StoreError)
    /// The room's last-seen cursor, nil before the bot handled a message with a server id there.
    func lastSeen(room: String) -> RoomCursor?
    /// Every room's last-seen cursor: what a transport that catches up after
    /// a (re)connect resumes from, also after a restart.
    func lastSeenCursors() -> [String: RoomCursor]
    /// Sets the room's last-seen cursor (a transport that caught up some other way).
    func setLastSeen(room: String, cursor: String, time: Double) throws(StoreError)
    /// The plugin's saved timers, soonest first.
    func savedTimers(plugin: String) -> [SavedTimer]
}

/// The bot's data in memory (no journal): lost when the process ends.
public final class MemoryBotStore: BotStore {
    public let state = MemoryStateStore()
    public let history: MemoryHistoryStore
    private var outbox = OutboxLedger()
    private let timers = TimerTable()
    private var cursors = CursorTable()

    public init(history retention: HistoryRetention = HistoryRetention()) { history = MemoryHistoryStore(retention: retention) }

    public convenience init(maxMessagesPerRoom: Int) { self.init(history: HistoryRetention(maxMessagesPerRoom: maxMessagesPerRoom)) }

    public func value(plugin: String, key: String) -> LuaValue? { state.value(plugin: plugin, key: key) }
    public func keys(plugin: String) -> [String] { state.keys(plugin: plugin) }
    public func totalBytes(plugin: String) -> Int { state.totalBytes(plugin: plugin) }
    public func append(room: String, id: String, user: String, text: String, time: Double) throws(StoreError) -> String {
        try history.append(room: room, id: id, user: user, text: text, time: time)
    }
    public func page(room: String, before: String?, after: String?, limit: Int) throws(HistoryError) -> HistoryPage {
        try history.page(room: room, before: before, after: after, limit: limit)
    }

    @discardableResult
    public func appendReceived(room: String, id: String, user: String, text: String, time: Double,
                               lastSeen: Bool) throws(StoreError) -> String {
        if lastSeen { cursors.advance(room: room, to: RoomCursor(cursor: id, time: time)) }
        return try history.append(room: room, id: id, user: user, text: text, time: time)
    }
    public func appendReceived(_ messages: [ChatMessage]) throws(StoreError) {
        for m in messages {
            guard let id = m.id, let time = m.time else { continue }
            try appendReceived(room: m.room, id: id, user: m.user, text: m.text, time: time, lastSeen: true)
        }
    }
    public func lastSeen(room: String) -> RoomCursor? { cursors.rooms[room] }
    public func lastSeenCursors() -> [String: RoomCursor] { cursors.rooms }
    public func setLastSeen(room: String, cursor: String, time: Double) throws(StoreError) {
        cursors.set(room: room, to: RoomCursor(cursor: cursor, time: time))
    }
    public func savedTimers(plugin: String) -> [SavedTimer] { timers.timers(plugin: plugin) }

    public func commit(_ effects: HandlerEffects) throws(StoreError) {
        state.commit(plugin: effects.plugin, writes: effects.writes)
        for s in effects.sends {
            _ = try history.append(room: s.room, id: s.id, user: effects.sender, text: s.text, time: s.time)
        }
        outbox.add(effects.sends, steps: effects.steps)
        timers.apply(plugin: effects.plugin, effects.timers)
    }

    /// Nothing to hold: every write is in memory already.
    public func beginEvent() {}
    public func endEvent() {}
    public func markDelivered(_ ids: [String]) throws(StoreError) { outbox.remove(ids) }

    public func undelivered() -> [OutgoingMessage] { outbox.all }
    public func pendingSteps() -> [ModerationStep] { outbox.steps }
    public func undeliveredCount(plugin: String) -> Int { outbox.count(plugin: plugin) }
}
