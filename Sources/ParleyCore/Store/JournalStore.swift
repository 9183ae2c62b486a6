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
public final class JournalStore: StateStore, HistoryStore {
    /// Journal record types written by this store.
    enum RecordType: UInt8 {
        case stateWrite = 1
        case message = 2
    }

    public let directory: String
    private let journal: Journal
    private let state = MemoryStateStore()
    private let history: MemoryHistoryStore
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
        do {
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

    public func commit(plugin: String, writes: [(key: String, value: LuaValue?)]) throws(StoreError) {
        let records = writes.map { w in
            JournalRecord(type: RecordType.stateWrite.rawValue,
                          payload: LuaValue.record([("p", .string(plugin)), ("k", .string(w.key)), ("v", w.value ?? .nil)]).encoded)
        }
        try append(records)
        try state.commit(plugin: plugin, writes: writes)
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

    private func replay(_ record: JournalRecord) throws {
        let v = try LuaValue(decoding: record.payload)
        switch RecordType(rawValue: record.type) {
        case .stateWrite:
            guard let plugin = v["p"].stringValue, let key = v["k"].stringValue else { throw StoreError("bad state record") }
            let value = v["v"]
            try state.commit(plugin: plugin, writes: [(key, value.isNil ? nil : value)])
        case .message:
            guard let room = v["r"].stringValue, let id = v["i"].stringValue, let user = v["u"].stringValue,
                  let text = v["t"].stringValue, let time = v["s"].numberValue else { throw StoreError("bad message record") }
            _ = try history.append(room: room, id: id, user: user, text: text, time: time)
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
