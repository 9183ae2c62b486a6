import Dispatch
import ParleyJournal
import ParleyLua
import Synchronization

/// `bot.state` and chat history kept in a crash-safe journal directory.
///
/// The in-memory view (the same `MemoryStateStore`/`MemoryHistoryStore` the
/// bot uses without a journal) is rebuilt on open from the journal's
/// snapshot and transactions, so cursors and values are identical across
/// runs. Every write is appended as one journal transaction and the call
/// returns only once the journal acknowledged it under its fsync policy,
/// which is what lets the caller act on it (print a reply, send it).
///
/// The calls block their thread while the journal syncs. That is deliberate:
/// the bot runs on its own Lua thread (`LuaThreadExecutor`), never on the
/// cooperative pool, so blocking it starves nothing.
public final class JournalStore: BotStore {
    /// Journal record types written by this store.
    enum RecordType: UInt8 {
        case stateWrite = 1
        /// A message the bot saw (sent messages enter history through their intent).
        case message = 2
        /// A send committed by a handler: the outbox entry, and the bot's message in history.
        case outboxIntent = 3
        /// The transport has these sends: `{o = {ids...}}`.
        case delivered = 4
    }

    public let directory: String
    /// The journal's last sequence when it was opened (distinguishes runs).
    public private(set) var recoveredSequence: UInt64 = 0
    private let journal: Journal
    private let state = MemoryStateStore()
    private let history: MemoryHistoryStore
    private var outbox: [OutboxEntry] = []
    private var failed: StoreError?

    private init(directory: String, journal: Journal, maxPerRoom: Int) {
        self.directory = directory
        self.journal = journal
        self.history = MemoryHistoryStore(maxPerRoom: maxPerRoom)
    }

    /// Opens (or creates) the journal and replays it.
    public static func open(directory: String, fsync: ParleyJournal.FsyncPolicy = .always,
                            maxMessagesPerRoom: Int = 100_000) throws(StoreError) -> JournalStore {
        let journal: Journal
        let recovery: Recovery
        do {
            (journal, recovery) = try Journal.open(directory: directory, options: JournalOptions(fsync: fsync))
        } catch {
            throw StoreError("journal \(directory): \(error)")
        }
        let store = JournalStore(directory: directory, journal: journal, maxPerRoom: maxMessagesPerRoom)
        store.recoveredSequence = recovery.lastSequence
        do {
            if let snapshot = recovery.snapshot { try store.load(snapshot: snapshot.bytes) }
            try recovery.forEachTransaction { txn in
                for record in txn.records { try store.replay(record) }
            }
        } catch {
            store.close()
            throw StoreError("journal \(directory): cannot replay: \(error)")
        }
        return store
    }

    /// Syncs and closes the journal (idempotent).
    public func close() {
        _ = try? Self.wait { [journal] in try await journal.close() }
    }

    // MARK: StateStore

    public func value(plugin: String, key: String) -> LuaValue? { state.value(plugin: plugin, key: key) }
    public func totalBytes(plugin: String) -> Int { state.totalBytes(plugin: plugin) }


    // MARK: BotStore

    public func commit(_ effects: HandlerEffects) throws(StoreError) {
        var records = effects.writes.map { w in
            JournalRecord(type: RecordType.stateWrite.rawValue,
                          payload: LuaValue.record([("p", .string(effects.plugin)), ("k", .string(w.key)), ("v", w.value ?? .nil)]).encoded)
        }
        for send in effects.sends {
            records.append(JournalRecord(type: RecordType.outboxIntent.rawValue, payload: Self.outboxValue(send, sender: effects.sender).encoded))
        }
        try append(records)
        try apply(.effects(effects))
    }

    public func markDelivered(_ ids: [String]) throws(StoreError) {
        try append([JournalRecord(type: RecordType.delivered.rawValue,
                                  payload: LuaValue.record([("o", .list(ids.map { .string($0) }))]).encoded)])
        try apply(.delivered(ids))
    }

    public func undelivered() -> [OutboxEntry] { outbox }

    /// An outbox entry as stored in intent records and snapshots.
    static func outboxValue(_ s: OutboxEntry, sender: String) -> LuaValue {
        .record([("o", .string(s.id)), ("p", .string(s.plugin)), ("r", .string(s.room)), ("t", .string(s.text)),
                 ("s", .double(s.time)), ("u", .string(sender))])
    }

    /// The inverse of `outboxValue`.
    static func outboxEntry(_ v: LuaValue) -> (entry: OutboxEntry, sender: String)? {
        guard let id = v["o"].stringValue, let plugin = v["p"].stringValue, let room = v["r"].stringValue,
              let text = v["t"].stringValue, let time = v["s"].numberValue else { return nil }
        return (OutboxEntry(id: id, plugin: plugin, room: room, text: text, time: time), v["u"].stringValue ?? "")
    }

    // MARK: HistoryStore

    public func append(room: String, id: String, user: String, text: String, time: Double) throws(StoreError) -> String {
        let payload = LuaValue.record([("r", .string(room)), ("i", .string(id)), ("u", .string(user)),
                                       ("t", .string(text)), ("s", .double(time))]).encoded
        try append([JournalRecord(type: RecordType.message.rawValue, payload: payload)])
        return try history.append(room: room, id: id, user: user, text: text, time: time)
    }

    public func page(room: String, before: String?, after: String?, limit: Int) throws(HistoryError) -> HistoryPage {
        try history.page(room: room, before: before, after: after, limit: limit)
    }

    // MARK: compaction

    /// Writes the current state, history and undelivered outbox as one
    /// snapshot covering every transaction so far; the journal then drops the
    /// segments it covers.
    public func compact() throws(StoreError) {
        if let failed { throw failed }
        let snapshot = Snapshot(state: state.export(), rooms: history.export(),
                                outbox: outbox.map { ($0, "") })
        let bytes = snapshot.value.encoded
        let through = journal.lastSequence
        do {
            try Self.wait { [journal] in try await journal.writeSnapshot(bytes, coveringThrough: through) }
        } catch {
            throw StoreError("journal \(directory): cannot write a snapshot: \(error)")
        }
    }

    private func load(snapshot bytes: [UInt8]) throws {
        let snapshot = try Snapshot(decoding: bytes)
        for e in snapshot.state { state.commit(plugin: e.plugin, writes: [(e.key, e.value)]) }
        for r in snapshot.rooms { history.restore(room: r.room, firstSeq: r.firstSeq, messages: r.messages) }
        outbox += snapshot.outbox.map(\.entry)
    }

    /// A snapshot's contents. One format, read strictly: a snapshot that
    /// passed its CRC but does not have this shape is an error, never
    /// silently partial state.
    struct Snapshot {
        var state: [(plugin: String, key: String, value: LuaValue)]
        var rooms: [(room: String, firstSeq: Int, messages: [StoredMessage])]
        var outbox: [(entry: OutboxEntry, sender: String)]

        init(state: [(plugin: String, key: String, value: LuaValue)],
             rooms: [(room: String, firstSeq: Int, messages: [StoredMessage])],
             outbox: [(entry: OutboxEntry, sender: String)]) {
            self.state = state
            self.rooms = rooms
            self.outbox = outbox
        }

        var value: LuaValue {
            var plugins: [String: [LuaPair]] = [:]
            for e in state { plugins[e.plugin, default: []].append(LuaPair(key: .string(e.key), value: e.value)) }
            let stateTable = LuaValue.table(array: [], hash: plugins.keys.sorted().map {
                LuaPair(key: .string($0), value: .table(array: [], hash: plugins[$0]!))
            })
            let roomTable = LuaValue.table(array: [], hash: rooms.map { r in
                LuaPair(key: .string(r.room), value: .record([
                    ("first", .int(Int64(r.firstSeq))),
                    ("messages", .list(r.messages.map { m in
                        .record([("i", .string(m.id)), ("u", .string(m.user)), ("t", .string(m.text)), ("s", .double(m.time))])
                    })),
                ]))
            })
            return .record([("version", .int(1)), ("state", stateTable), ("history", roomTable),
                            ("outbox", .list(outbox.map { JournalStore.outboxValue($0.entry, sender: $0.sender) }))])
        }

        init(decoding bytes: [UInt8]) throws {
            let v = try LuaValue(decoding: bytes)
            func bad(_ what: String) -> StoreError { StoreError("malformed snapshot: \(what)") }
            guard v["version"] == .int(1) else { throw bad("unknown version \(v["version"])") }
            guard case .table(_, let plugins) = v["state"], case .table(_, let roomPairs) = v["history"],
                  case .table(let pending, _) = v["outbox"] else { throw bad("missing state, history or outbox") }
            state = []
            for p in plugins {
                guard let plugin = p.key.stringValue, case .table(_, let pairs) = p.value else { throw bad("state entry") }
                for kv in pairs {
                    guard let key = kv.key.stringValue else { throw bad("state key of \(plugin)") }
                    state.append((plugin, key, kv.value))
                }
            }
            rooms = []
            for r in roomPairs {
                guard let room = r.key.stringValue, case .int(let first) = r.value["first"],
                      case .table(let list, _) = r.value["messages"] else { throw bad("history entry") }
                var messages: [StoredMessage] = []
                for (i, m) in list.enumerated() {
                    guard let id = m["i"].stringValue, let user = m["u"].stringValue, let text = m["t"].stringValue,
                          let time = m["s"].numberValue else { throw bad("message \(i) of room \(room)") }
                    messages.append(StoredMessage(id: id, room: room, user: user, text: text, time: time,
                                                  cursor: "m" + String(Int(first) + i, radix: 36)))
                }
                rooms.append((room, Int(first), messages))
            }
            outbox = try pending.map { p in
                guard let o = JournalStore.outboxEntry(p) else { throw bad("outbox entry") }
                return o
            }
        }
    }

    // MARK: reading, for `parley journal dump`

    /// One record of a bot journal, decoded.
    public enum Entry: Sendable {
        case state(plugin: String, key: String, value: LuaValue?)
        case message(room: String, id: String, user: String, text: String, time: Double)
        case outbox(OutboxEntry, sender: String)
        case delivered([String])
    }

    /// Decodes a record written by this store (nil for a type it does not know).
    public static func decode(_ record: JournalRecord) throws -> Entry? {
        let v = try LuaValue(decoding: record.payload)
        switch RecordType(rawValue: record.type) {
        case .stateWrite:
            guard let plugin = v["p"].stringValue, let key = v["k"].stringValue else { throw StoreError("bad state record") }
            return .state(plugin: plugin, key: key, value: v["v"].isNil ? nil : v["v"])
        case .message:
            guard let room = v["r"].stringValue, let id = v["i"].stringValue, let user = v["u"].stringValue,
                  let text = v["t"].stringValue, let time = v["s"].numberValue else { throw StoreError("bad message record") }
            return .message(room: room, id: id, user: user, text: text, time: time)
        case .outboxIntent:
            guard let o = outboxEntry(v) else { throw StoreError("bad outbox record") }
            return .outbox(o.entry, sender: o.sender)
        case .delivered:
            guard case .table(let ids, _) = v["o"] else { throw StoreError("bad delivery record") }
            return .delivered(ids.compactMap(\.stringValue))
        case nil:
            return nil
        }
    }

    /// The snapshot's contents as entries: state, undelivered sends, then messages.
    public static func decode(snapshot bytes: [UInt8]) throws -> [Entry] {
        let snapshot = try Snapshot(decoding: bytes)
        return snapshot.state.map { .state(plugin: $0.plugin, key: $0.key, value: $0.value) }
            + snapshot.outbox.map { .outbox($0.entry, sender: $0.sender) }
            + snapshot.rooms.flatMap { r in
                r.messages.map { .message(room: r.room, id: $0.id, user: $0.user, text: $0.text, time: $0.time) }
            }
    }

    // MARK: internals

    private func append(_ records: [JournalRecord]) throws(StoreError) {
        if let failed { throw failed }
        do {
            _ = try Self.wait { [journal] in try await journal.append(records) }
        } catch {
            // Nothing is retried and then acknowledged: the first failure is final.
            let e = StoreError("journal \(directory): \(error)")
            failed = e
            throw e
        }
    }

    private enum Change {
        case effects(HandlerEffects)
        case delivered([String])
    }

    /// The in-memory effect of a committed change (shared by live writes and replay).
    private func apply(_ change: Change) throws(StoreError) {
        switch change {
        case .effects(let e):
            state.commit(plugin: e.plugin, writes: e.writes)
            for send in e.sends {
                _ = try history.append(room: send.room, id: send.id, user: e.sender, text: send.text, time: send.time)
                outbox.append(send)
            }
        case .delivered(let ids):
            let done = Set(ids)
            outbox.removeAll { done.contains($0.id) }
        }
    }

    private func replay(_ record: JournalRecord) throws {
        switch try Self.decode(record) {
        case .state(let plugin, let key, let value)?:
            state.commit(plugin: plugin, writes: [(key, value)])
        case .message(let room, let id, let user, let text, let time)?:
            _ = try history.append(room: room, id: id, user: user, text: text, time: time)
        case .outbox(let entry, let sender)?:
            try apply(.effects(HandlerEffects(plugin: entry.plugin, sender: sender, writes: [], sends: [entry])))
        case .delivered(let ids)?:
            try apply(.delivered(ids))
        case nil:
            throw StoreError("unknown record type \(record.type)")
        }
    }

    /// Runs async journal work to completion from synchronous code on the bot's thread.
    private static func wait<T: Sendable>(_ op: @escaping @Sendable () async throws -> T) throws -> T {
        let result = Mutex<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            do { let v = try await op(); result.withLock { $0 = .success(v) } } catch { result.withLock { $0 = .failure(error) } }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0! }.get()
    }
}
