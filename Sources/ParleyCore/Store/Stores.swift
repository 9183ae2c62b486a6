import ParleyLua

/// A store could not make a write durable. The bot must stop: carrying on
/// would acknowledge effects that are not on disk.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Reading plugins' `bot.state`. Writes go through `BotStore.commit`, one
/// batch per successful handler, together with that handler's sends.
public protocol StateStore: AnyObject {
    func value(plugin: String, key: String) -> LuaValue?
    /// Bytes the plugin's state takes (keys plus encoded values): what the 1 MiB quota counts.
    func totalBytes(plugin: String) -> Int
}

/// `bot.state` kept in memory (the default without a journal).
public final class MemoryStateStore: StateStore {
    private var values: [String: [String: (value: LuaValue, size: Int)]] = [:]
    private var totals: [String: Int] = [:]

    public init() {}

    public func value(plugin: String, key: String) -> LuaValue? { values[plugin]?[key]?.value }

    public func totalBytes(plugin: String) -> Int { totals[plugin] ?? 0 }

    /// Every plugin's values, sorted by plugin then key (for snapshots and dumps).
    public func export() -> [(plugin: String, key: String, value: LuaValue)] {
        values.keys.sorted().flatMap { p in
            (values[p] ?? [:]).keys.sorted().map { k in (p, k, values[p]![k]!.value) }
        }
    }

    /// Applies writes in order; a nil value deletes the key.
    public func commit(plugin: String, writes: [(key: String, value: LuaValue?)]) {
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

/// History in memory, with a per-room bound (oldest dropped first).
public final class MemoryHistoryStore: HistoryStore {
    private struct Room {
        var firstSeq = 0          // sequence number of messages[head]
        var head = 0              // index of the oldest kept message
        var messages: [StoredMessage] = []
        var count: Int { messages.count - head }
    }
    private var rooms: [String: Room] = [:]
    private let maxPerRoom: Int

    public init(maxPerRoom: Int = 100_000) { self.maxPerRoom = max(1, maxPerRoom) }

    public func append(room: String, id: String, user: String, text: String, time: Double) throws(StoreError) -> String {
        // Mutated in place (through the dictionary's default subscript) so the
        // array is never copied: appends stay O(1) amortised.
        let maxPerRoom = self.maxPerRoom
        return withRoom(room) { r in
            let seq = r.firstSeq + r.count
            let cursor = "m" + String(seq, radix: 36)
            r.messages.append(StoredMessage(id: id, room: room, user: user, text: text, time: time, cursor: cursor))
            if r.count > maxPerRoom {
                r.head += 1
                r.firstSeq += 1
                // Compact once the dropped prefix is as large as what is kept.
                if r.head >= maxPerRoom {
                    r.messages.removeFirst(r.head)
                    r.head = 0
                }
            }
            return cursor
        }
    }

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
    }

    private func withRoom<T>(_ name: String, _ body: (inout Room) -> T) -> T {
        body(&rooms[name, default: Room()])
    }

    private func seq(of cursor: String) throws(HistoryError) -> Int {
        guard cursor.first == "m", let n = Int(cursor.dropFirst(), radix: 36), n >= 0 else {
            throw .invalidCursor(cursor)
        }
        return n
    }

    public func page(room: String, before: String?, after: String?, limit: Int) throws(HistoryError) -> HistoryPage {
        var upper = Int.max       // exclusive
        var lower = Int.min       // inclusive
        if let before { upper = try seq(of: before) }
        if let after { lower = try seq(of: after) + 1 }
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

/// A message a handler sent, from the moment its transaction commits until the
/// transport has it (the outbox).
public struct OutboxEntry: Sendable, Equatable {
    /// Stable across restarts: a re-send after a crash carries the same id.
    public var id: String
    public var plugin: String
    public var room: String
    public var text: String
    public var time: Double

    public init(id: String, plugin: String, room: String, text: String, time: Double) {
        self.id = id
        self.plugin = plugin
        self.room = room
        self.text = text
        self.time = time
    }
}

/// Everything one successful handler did that must persist, committed as one unit.
public struct HandlerEffects: Sendable {
    public var plugin: String
    /// Who the sends are from in the history: the bot.
    public var sender: String
    public var writes: [(key: String, value: LuaValue?)]
    public var sends: [OutboxEntry]

    public init(plugin: String, sender: String, writes: [(key: String, value: LuaValue?)], sends: [OutboxEntry]) {
        self.plugin = plugin
        self.sender = sender
        self.writes = writes
        self.sends = sends
    }
}

/// All of a bot's persistent data: plugin state, room history and the outbox.
///
/// `commit` makes one handler's state writes and sends durable together (the
/// sends also enter the history as the bot's own messages); only then may
/// they be handed to the transport, after which `markDelivered` records it.
/// `undelivered` is what a restart must send again.
public protocol BotStore: StateStore, HistoryStore {
    func commit(_ effects: HandlerEffects) throws(StoreError)
    func markDelivered(_ ids: [String]) throws(StoreError)
    func undelivered() -> [OutboxEntry]
}

/// The bot's data in memory (no journal): lost when the process ends.
public final class MemoryBotStore: BotStore {
    public let state = MemoryStateStore()
    public let history: MemoryHistoryStore
    private var outbox: [OutboxEntry] = []

    public init(maxMessagesPerRoom: Int = 100_000) { history = MemoryHistoryStore(maxPerRoom: maxMessagesPerRoom) }

    public func value(plugin: String, key: String) -> LuaValue? { state.value(plugin: plugin, key: key) }
    public func totalBytes(plugin: String) -> Int { state.totalBytes(plugin: plugin) }
    public func append(room: String, id: String, user: String, text: String, time: Double) throws(StoreError) -> String {
        try history.append(room: room, id: id, user: user, text: text, time: time)
    }
    public func page(room: String, before: String?, after: String?, limit: Int) throws(HistoryError) -> HistoryPage {
        try history.page(room: room, before: before, after: after, limit: limit)
    }

    public func commit(_ effects: HandlerEffects) throws(StoreError) {
        state.commit(plugin: effects.plugin, writes: effects.writes)
        for s in effects.sends {
            _ = try history.append(room: s.room, id: s.id, user: effects.sender, text: s.text, time: s.time)
        }
        outbox += effects.sends
    }

    public func markDelivered(_ ids: [String]) throws(StoreError) {
        let done = Set(ids)
        outbox.removeAll { done.contains($0.id) }
    }

    public func undelivered() -> [OutboxEntry] { outbox }
}
