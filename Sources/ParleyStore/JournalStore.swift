import ParleyCore
import Dispatch
import ParleyJournal
import ParleyLua
import Synchronization

/// When a `JournalStore` compacts by itself: once the journal holds more
/// bytes since the last snapshot than `max(minBytes, liveFactor × the last
/// snapshot's size)`. Disk use then stays within about that much plus two
/// snapshots, however long the bot runs.
public struct AutoCompaction: Sendable, Equatable {
    public var minBytes: Int
    public var liveFactor: Double

    public init(minBytes: Int = 8 << 20, liveFactor: Double = 4) {
        self.minBytes = max(0, minBytes)
        self.liveFactor = max(0, liveFactor)
    }

    /// Never compacts by itself (`parley journal compact` still does).
    public static let off = AutoCompaction(minBytes: .max, liveFactor: 0)

    func threshold(liveBytes: Int) -> Int {
        let scaled = Double(liveBytes) * liveFactor
        return max(minBytes, scaled >= Double(Int.max) ? .max : Int(scaled))
    }
}

/// `bot.state`, chat history, the outbox, saved timers and last-seen cursors
/// kept in a crash-safe journal directory.
///
/// The in-memory view (the same `MemoryStateStore`/`MemoryHistoryStore` the
/// bot uses without a journal) is rebuilt on open from the journal's
/// snapshot and transactions, so cursors and values are identical across
/// runs. Every write is appended as one journal transaction and the call
/// returns only once the journal acknowledged it under its fsync policy,
/// which is what lets the caller act on it (print a reply, send it).
///
/// By default the calls block their thread while the journal syncs (the
/// plugin-test harness prints a send as soon as its commit returns). A
/// running bot with `fsync = "always"` opens it `pipelined`: a write moves
/// the in-memory view and returns at once, the next event is handled while
/// the journal syncs (one `fdatasync` then covers many events), and
/// `whenDurable` says when everything written so far is on disk. The bot
/// holds its sends until then, so nothing leaves before its transaction is
/// durable. The first failure is final either way: every later call throws it.
///
/// Compaction is automatic (`AutoCompaction`). The bot's thread only copies
/// the in-memory view and queues a segment seal behind the last record (so
/// later appends go to a fresh segment); encoding and writing the snapshot
/// (temp file, fsync, rename, fsync the directory) and deleting the segments
/// it covers happen on a background queue while the bot carries on.
public final class JournalStore: BotStore {
    /// Journal record types written by this store.
    enum RecordType: UInt8 {
        case stateWrite = 1
        /// A message the bot saw (sent messages enter history through their
        /// intent); `l = true` also moves the room's last-seen cursor.
        case message = 2
        /// A send committed by a handler: the outbox entry, and the bot's message in history.
        case outboxIntent = 3
        /// The transport has these sends: `{o = {ids...}}`.
        case delivered = 4
        /// A saved timer created or moved (`TimerChange.set`).
        case timer = 5
        /// A saved timer removed (`TimerChange.drop`).
        case timerDrop = 6
        /// A room's last-seen cursor set explicitly.
        case lastSeen = 7
        /// A moderation step committed by a handler; done with a `delivered` record of its id.
        case moderationStep = 8
    }

    public let directory: String
    /// The journal's last sequence when it was opened (distinguishes runs).
    public private(set) var recoveredSequence: UInt64 = 0
    /// What opening it worked around (a torn tail cut, a bad newest snapshot
    /// passed over), for the bot's log.
    public private(set) var recoveryNotes: [String] = []
    public let compaction: AutoCompaction
    private let journal: Journal
    private let state = MemoryStateStore()
    private let history: MemoryHistoryStore
    private var outbox = OutboxLedger()
    /// The name the bot's sends go out under (one bot per journal), for the
    /// snapshot's pending sends: the ledger keeps only the messages.
    private var sender = ""
    private let timers = TimerTable()
    private var cursors = CursorTable()
    /// The first write failure of a blocking append; a pipelined one's is in `commits`.
    private var appendFailure: StoreError?
    /// Pipelined writes in flight (nil: every write blocks until acknowledged).
    private let commits: CommitTracker?
    private var failed: StoreError? { appendFailure ?? commits?.failure }

    /// Bytes appended since the snapshot the journal opened with or the last compaction.
    public private(set) var bytesSinceSnapshot = 0
    /// Size of the last snapshot (the live data).
    public private(set) var snapshotBytes = 0
    /// Automatic compactions finished since open.
    public private(set) var compactions = 0
    /// Why the last automatic compaction failed, if it did. Nothing is lost:
    /// the journal still holds every record, and a later one tries again.
    public private(set) var compactionError: StoreError?
    /// Whether a compaction is running in the background.
    public var isCompacting: Bool { running != nil }
    private var compactAt: Int
    private var running: (job: CompactionJob, bytesAtStart: Int, trimmedAtStart: Int)?
    /// `history.trimmed` as the last snapshot left it: more since means
    /// trimmed messages are still in the segments.
    private var trimmedAtSnapshot = 0
    /// Whether `open` replayed the whole journal: only then is the view whole enough to snapshot on close.
    private var replayed = false
    /// The records of the event being handled (`beginEvent`), written at its
    /// end as one transaction; nil outside an event.
    private var held: [JournalRecord]?
    private static let compactionQueue = DispatchQueue(label: "parley.journal-store.compaction")

    private init(directory: String, journal: Journal, history: HistoryRetention, compaction: AutoCompaction, pipelined: Bool) {
        self.directory = directory
        self.journal = journal
        self.commits = pipelined ? CommitTracker(directory: directory) : nil
        self.history = MemoryHistoryStore(retention: history)
        self.compaction = compaction
        self.compactAt = compaction.threshold(liveBytes: 0)
    }

    /// Opens (or creates) the journal and replays it. History retention is
    /// applied as it loads; when the journal already holds more than the
    /// compaction threshold, a compaction starts right away.
    public static func open(directory: String, fsync: ParleyJournal.FsyncPolicy = .always,
                            history: HistoryRetention = HistoryRetention(),
                            compaction: AutoCompaction = AutoCompaction(),
                            fileLayer: any FileLayer = PosixFileLayer(),
                            pipelined: Bool = false) throws(StoreError) -> JournalStore {
        let journal: Journal
        let recovery: Recovery
        do {
            (journal, recovery) = try Journal.open(directory: directory, options: JournalOptions(fsync: fsync, fileLayer: fileLayer))
        } catch {
            throw StoreError("journal \(directory)", journal: error)
        }
        let store = JournalStore(directory: directory, journal: journal, history: history, compaction: compaction,
                                 pipelined: pipelined)
        store.recoveredSequence = recovery.lastSequence
        store.recoveryNotes = recovery.warnings
        if recovery.truncatedBytes > 0 {
            store.recoveryNotes.append("cut a torn tail of \(recovery.truncatedBytes) bytes off the last segment: "
                + "a write a crash interrupted (a record damaged at the very end reads the same way)")
        }
        do {
            if let snapshot = recovery.snapshot {
                try store.load(snapshot: snapshot.bytes)
                store.snapshotBytes = snapshot.bytes.count
                store.compactAt = compaction.threshold(liveBytes: snapshot.bytes.count)
            }
            try recovery.forEachTransaction { txn in
                for record in txn.records {
                    try store.replay(record)
                    store.bytesSinceSnapshot += record.framedSize
                }
            }
        } catch {
            store.close()
            throw StoreError("journal \(directory): cannot replay: \(error)")
        }
        store.history.applyRetention()
        store.replayed = true
        store.compactIfDue()
        return store
    }

    /// Waits for a compaction in progress, then syncs and closes the journal
    /// (idempotent). Messages retention dropped since the last snapshot are
    /// still in the segments, and a wider retention at the next open would
    /// bring them back: a close after a whole replay compacts them away first.
    public func close() {
        finishCompaction(wait: true)
        if replayed, held == nil, failed == nil {
            history.applyRetention()
            if history.trimmed > trimmedAtSnapshot {
                startCompaction()
                finishCompaction(wait: true)
            }
        }
        replayed = false
        _ = try? Self.wait { [journal] in try await journal.close() }
    }

    // MARK: StateStore

    public func value(plugin: String, key: String) -> LuaValue? { state.value(plugin: plugin, key: key) }
    public func keys(plugin: String) -> [String] { state.keys(plugin: plugin) }
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
        for step in effects.steps {
            records.append(JournalRecord(type: RecordType.moderationStep.rawValue, payload: Self.stepValue(step).encoded))
        }
        for change in effects.timers {
            switch change {
            case .set(let t):
                records.append(JournalRecord(type: RecordType.timer.rawValue, payload: Self.timerValue(t, plugin: effects.plugin).encoded))
            case .drop(let name):
                records.append(JournalRecord(type: RecordType.timerDrop.rawValue,
                                             payload: LuaValue.record([("p", .string(effects.plugin)), ("n", .string(name))]).encoded))
            }
        }
        if records.isEmpty { return }
        try append(records)
        try apply(.effects(effects))
        compactIfDue()
    }

    public func beginEvent() {
        if held == nil { held = [] }
    }

    public func endEvent() throws(StoreError) {
        guard let records = held else { return }
        held = nil
        if !records.isEmpty { try append(records) }
        compactIfDue()
    }

    public func markDelivered(_ ids: [String]) throws(StoreError) {
        // Nothing waits for a delivery record: pipelined, it costs no sync of
        // its own (see `append(_:waited:)`). Lost to a power cut, its sends
        // go out once more.
        try append([JournalRecord(type: RecordType.delivered.rawValue,
                                  payload: LuaValue.record([("o", .list(ids.map { .string($0) }))]).encoded)],
                   waited: false)
        try apply(.delivered(ids))
        compactIfDue()
    }

    public func undelivered() -> [OutgoingMessage] { outbox.all }
    public func pendingSteps() -> [ModerationStep] { outbox.steps }
    public func undeliveredCount(plugin: String) -> Int { outbox.count(plugin: plugin) }

    public func savedTimers(plugin: String) -> [SavedTimer] { timers.timers(plugin: plugin) }

    public func lastSeen(room: String) -> RoomCursor? { cursors.rooms[room] }

    public func lastSeenCursors() -> [String: RoomCursor] { cursors.rooms }

    public func setLastSeen(room: String, cursor: String, time: Double) throws(StoreError) {
        try append([JournalRecord(type: RecordType.lastSeen.rawValue,
                                  payload: LuaValue.record([("r", .string(room)), ("c", .string(cursor)), ("s", .double(time))]).encoded)])
        cursors.set(room: room, to: RoomCursor(cursor: cursor, time: time))
        compactIfDue()
    }

    /// An outbox entry as stored in intent records and snapshots.
    static func outboxValue(_ s: OutgoingMessage, sender: String) -> LuaValue {
        .record([("o", .string(s.id)), ("p", .string(s.plugin)), ("r", .string(s.room)), ("t", .string(s.text)),
                 ("s", .double(s.time)), ("u", .string(sender))])
    }

    /// The inverse of `outboxValue`.
    static func outboxEntry(_ v: LuaValue) -> (entry: OutgoingMessage, sender: String)? {
        guard let id = v["o"].stringValue, let plugin = v["p"].stringValue, let room = v["r"].stringValue,
              let text = v["t"].stringValue, let time = v["s"].numberValue else { return nil }
        return (OutgoingMessage(id: id, room: room, text: text, plugin: plugin, time: time), v["u"].stringValue ?? "")
    }

    /// A moderation step as stored in step records and snapshots.
    static func stepValue(_ s: ModerationStep) -> LuaValue {
        var fields: [(String, LuaValue)] = [("i", .string(s.id)), ("p", .string(s.plugin)), ("s", .double(s.time))]
        switch s.action {
        case .kick(let room, let user, let reason):
            fields += [("v", .string("kick")), ("r", .string(room)), ("u", .string(user)), ("w", .string(reason))]
        case .mute(let room, let user, let seconds, let reason):
            fields += [("v", .string("mute")), ("r", .string(room)), ("u", .string(user)), ("d", .double(seconds)), ("w", .string(reason))]
        case .delete(let room, let id):
            fields += [("v", .string("delete")), ("r", .string(room)), ("m", .string(id))]
        }
        if let after = s.after { fields.append(("a", .string(after))) }
        return .record(fields)
    }

    /// The inverse of `stepValue`.
    static func step(_ v: LuaValue) -> ModerationStep? {
        guard let id = v["i"].stringValue, let plugin = v["p"].stringValue, let time = v["s"].numberValue,
              let room = v["r"].stringValue else { return nil }
        let action: ModerationAction
        switch v["v"].stringValue {
        case "kick":
            guard let user = v["u"].stringValue, let reason = v["w"].stringValue else { return nil }
            action = .kick(room: room, user: user, reason: reason)
        case "mute":
            guard let user = v["u"].stringValue, let seconds = v["d"].numberValue, let reason = v["w"].stringValue else { return nil }
            action = .mute(room: room, user: user, seconds: seconds, reason: reason)
        case "delete":
            guard let message = v["m"].stringValue else { return nil }
            action = .delete(room: room, messageId: message)
        default:
            return nil
        }
        return ModerationStep(id: id, plugin: plugin, action: action, after: v["a"].stringValue, time: time)
    }

    /// A saved timer as stored in timer records (with `p`) and snapshots (without).
    static func timerValue(_ t: SavedTimer, plugin: String?) -> LuaValue {
        var fields: [(String, LuaValue)] = plugin.map { [("p", .string($0))] } ?? []
        fields += [("n", .string(t.name)), ("d", .double(t.due)), ("s", .double(t.seconds)), ("e", .bool(t.repeats))]
        if let data = t.data { fields.append(("x", data)) }
        if let cron = t.cron { fields.append(("c", .string(cron))) }
        if t.atLoad { fields.append(("l", .bool(true))) }
        return .record(fields)
    }

    /// The inverse of `timerValue`.
    static func savedTimer(_ v: LuaValue) -> SavedTimer? {
        guard let name = v["n"].stringValue, let due = v["d"].numberValue, let seconds = v["s"].numberValue,
              case .bool(let repeats) = v["e"] else { return nil }
        return SavedTimer(name: name, due: due, seconds: seconds, repeats: repeats, data: v["x"].isNil ? nil : v["x"],
                          cron: v["c"].stringValue, atLoad: v["l"] == .bool(true))
    }

    // MARK: HistoryStore

    @discardableResult
    public func append(room: String, id: String, user: String, text: String, time: Double) throws(StoreError) -> String {
        try appendReceived(room: room, id: id, user: user, text: text, time: time, lastSeen: false)
    }

    @discardableResult
    public func appendReceived(room: String, id: String, user: String, text: String, time: Double,
                               lastSeen: Bool) throws(StoreError) -> String {
        try append([Self.messageRecord(room: room, id: id, user: user, text: text, time: time, lastSeen: lastSeen)])
        if lastSeen { cursors.advance(room: room, to: RoomCursor(cursor: id, time: time)) }
        let cursor = try history.append(room: room, id: id, user: user, text: text, time: time)
        compactIfDue()
        return cursor
    }

    /// A received message as a journal record; `l` marks one that moves its room's last-seen cursor.
    private static func messageRecord(room: String, id: String, user: String, text: String, time: Double,
                                      lastSeen: Bool) -> JournalRecord {
        var fields: [(String, LuaValue)] = [("r", .string(room)), ("i", .string(id)), ("u", .string(user)),
                                            ("t", .string(text)), ("s", .double(time))]
        if lastSeen { fields.append(("l", .bool(true))) }
        return JournalRecord(type: RecordType.message.rawValue, payload: LuaValue.record(fields).encoded)
    }

    /// One journal transaction per 1,000 messages: a backfill of thousands
    /// costs a few syncs, and no transaction grows without bound.
    public func appendReceived(_ messages: [ChatMessage]) throws(StoreError) {
        let received = messages.compactMap { m in m.id.flatMap { id in m.time.map { (m, id, $0) } } }
        var start = 0
        while start < received.count {
            let chunk = received[start..<min(received.count, start + 1000)]
            start += chunk.count
            try append(chunk.map { m, id, time in
                Self.messageRecord(room: m.room, id: id, user: m.user, text: m.text, time: time, lastSeen: true)
            })
            for (m, id, time) in chunk {
                cursors.advance(room: m.room, to: RoomCursor(cursor: id, time: time))
                _ = try history.append(room: m.room, id: id, user: m.user, text: m.text, time: time)
            }
            compactIfDue()
        }
    }

    public func page(room: String, before: String?, after: String?, limit: Int) throws(HistoryError) -> HistoryPage {
        try history.page(room: room, before: before, after: after, limit: limit)
    }

    /// Messages kept in a room (after retention).
    public func messageCount(room: String) -> Int { history.count(room: room) }

    // MARK: compaction

    /// Writes the current state, history (after retention), undelivered
    /// outbox, saved timers and cursors as one snapshot covering every
    /// transaction so far, and waits for it; the journal then drops every
    /// segment it covers.
    public func compact() throws(StoreError) {
        finishCompaction(wait: true)
        if let failed { throw failed }
        startCompaction()
        finishCompaction(wait: true)
        if let e = compactionError { throw e }
    }

    /// Starts an automatic compaction when enough was appended since the last
    /// one. Called after a write's in-memory effect is applied: the snapshot
    /// must hold everything up to the journal's last record.
    private func compactIfDue() {
        // A snapshot copies the in-memory view, which an event's held records
        // are already in: its seal must come after them.
        guard held == nil, bytesSinceSnapshot >= compactAt || running != nil else { return }
        finishCompaction(wait: false)
        if running == nil, failed == nil, bytesSinceSnapshot >= compactAt { startCompaction() }
    }

    /// Starts a compaction when retention has dropped messages the segments
    /// still hold, so they leave the disk without waiting for the next 8 MiB
    /// of appends (a running bot asks hourly). Never waits.
    public func compactIfTrimmed() {
        guard held == nil else { return }
        finishCompaction(wait: false)
        guard running == nil, failed == nil else { return }
        history.applyRetention()
        if history.trimmed > trimmedAtSnapshot { startCompaction() }
    }

    /// The part on the bot's thread: apply retention, copy the in-memory view,
    /// queue the seal. Everything else runs on the compaction queue.
    private func startCompaction() {
        history.applyRetention()
        let snapshot = Snapshot(state: state.export(), rooms: history.export(), outbox: outbox.all.map { ($0, sender) },
                                timers: timers.export(), cursors: cursors.export(), steps: outbox.steps)
        let job = CompactionJob()
        running = (job, bytesSinceSnapshot, history.trimmed)
        compactionError = nil
        // Queued behind every record appended so far (pipelined ones still
        // waiting to be written included), ahead of any later one: the seal's
        // sequence is exactly what this copy of the view covers.
        journal.sealSegment { result in job.sealed(result) }
        let journal = self.journal
        let directory = self.directory
        Self.compactionQueue.async {
            let bytes = snapshot.value.encoded
            let outcome: Result<Int, StoreError>
            switch job.waitForSeal() {
            case .failure(let e):
                outcome = .failure(StoreError("journal \(directory): cannot seal the segment for a snapshot: \(e)"))
            case .success(let through):
                do {
                    try Self.wait { try await journal.writeSnapshot(bytes, coveringThrough: through) }
                    outcome = .success(bytes.count)
                } catch {
                    outcome = .failure(StoreError("journal \(directory): cannot write a snapshot", journal: error))
                }
            }
            job.finish(outcome)
        }
    }

    /// Takes in the result of a finished compaction (waiting for it when asked).
    private func finishCompaction(wait: Bool) {
        guard let (job, bytesAtStart, trimmedAtStart) = running, let outcome = job.outcome(wait: wait) else { return }
        running = nil
        switch outcome {
        case .success(let size):
            compactions += 1
            trimmedAtSnapshot = trimmedAtStart
            snapshotBytes = size
            bytesSinceSnapshot -= bytesAtStart
            compactAt = compaction.threshold(liveBytes: size)
        case .failure(let e):
            compactionError = e
            // Try again once as much again was appended (never, when compaction is off:
            // its threshold is Int.max).
            let (again, overflow) = bytesSinceSnapshot.addingReportingOverflow(compaction.threshold(liveBytes: snapshotBytes))
            compactAt = overflow ? .max : again
        }
    }

    /// One background compaction: the seal's result, then the snapshot's.
    private final class CompactionJob: Sendable {
        private let seal = Mutex<Result<UInt64, JournalError>?>(nil)
        private let sealDone = DispatchSemaphore(value: 0)
        private let result = Mutex<Result<Int, StoreError>?>(nil)
        private let done = DispatchSemaphore(value: 0)

        func sealed(_ r: Result<UInt64, JournalError>) {
            seal.withLock { $0 = r }
            sealDone.signal()
        }

        func waitForSeal() -> Result<UInt64, JournalError> {
            sealDone.wait()
            return seal.withLock { $0! }
        }

        func finish(_ r: Result<Int, StoreError>) {
            result.withLock { $0 = r }
            done.signal()
        }

        func outcome(wait: Bool) -> Result<Int, StoreError>? {
            if wait { done.wait(); done.signal() }
            return result.withLock { $0 }
        }
    }

    private func load(snapshot bytes: [UInt8]) throws {
        let snapshot = try Snapshot(decoding: bytes)
        for e in snapshot.state { state.commit(plugin: e.plugin, writes: [(e.key, e.value)]) }
        for r in snapshot.rooms { history.restore(room: r.room, firstSeq: r.firstSeq, messages: r.messages) }
        outbox.add(snapshot.outbox.map(\.entry), steps: snapshot.steps)
        if let named = snapshot.outbox.first(where: { !$0.sender.isEmpty }) { sender = named.sender }
        for t in snapshot.timers { timers.apply(plugin: t.plugin, [.set(t.timer)]) }
        for c in snapshot.cursors { cursors.set(room: c.room, to: c.cursor) }
    }

    /// A snapshot's contents. One format, read strictly: a snapshot that
    /// passed its CRC but does not have this shape is an error, never
    /// silently partial state. Version 2 added timers and cursors, version 3
    /// moderation steps; versions 1 and 2 still read.
    struct Snapshot: Sendable {
        var state: [(plugin: String, key: String, value: LuaValue)]
        var rooms: [(room: String, firstSeq: Int, messages: [StoredMessage])]
        var outbox: [(entry: OutgoingMessage, sender: String)]
        var timers: [(plugin: String, timer: SavedTimer)]
        var cursors: [(room: String, cursor: RoomCursor)]
        var steps: [ModerationStep]

        init(state: [(plugin: String, key: String, value: LuaValue)],
             rooms: [(room: String, firstSeq: Int, messages: [StoredMessage])],
             outbox: [(entry: OutgoingMessage, sender: String)],
             timers: [(plugin: String, timer: SavedTimer)],
             cursors: [(room: String, cursor: RoomCursor)],
             steps: [ModerationStep]) {
            self.state = state
            self.rooms = rooms
            self.outbox = outbox
            self.timers = timers
            self.cursors = cursors
            self.steps = steps
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
            var timerPlugins: [String: [LuaValue]] = [:]
            for t in timers { timerPlugins[t.plugin, default: []].append(JournalStore.timerValue(t.timer, plugin: nil)) }
            let timerTable = LuaValue.table(array: [], hash: timerPlugins.keys.sorted().map {
                LuaPair(key: .string($0), value: .list(timerPlugins[$0]!))
            })
            let cursorTable = LuaValue.table(array: [], hash: cursors.map {
                LuaPair(key: .string($0.room), value: .record([("c", .string($0.cursor.cursor)), ("s", .double($0.cursor.time))]))
            })
            return .record([("version", .int(3)), ("state", stateTable), ("history", roomTable),
                            ("outbox", .list(outbox.map { JournalStore.outboxValue($0.entry, sender: $0.sender) })),
                            ("timers", timerTable), ("seen", cursorTable), ("steps", .list(steps.map(JournalStore.stepValue)))])
        }

        init(decoding bytes: [UInt8]) throws {
            let v = try LuaValue(decoding: bytes)
            func bad(_ what: String) -> StoreError { StoreError("malformed snapshot: \(what)") }
            let version = v["version"]
            guard version == .int(1) || version == .int(2) || version == .int(3) else { throw bad("unknown version \(version)") }
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
                guard let room = r.key.stringValue, case .int(let first) = r.value["first"], first >= 0,
                      case .table(let list, _) = r.value["messages"] else { throw bad("history entry") }
                var messages: [StoredMessage] = []
                for (i, m) in list.enumerated() {
                    guard let id = m["i"].stringValue, let user = m["u"].stringValue, let text = m["t"].stringValue,
                          let time = m["s"].numberValue else { throw bad("message \(i) of room \(room)") }
                    messages.append(StoredMessage(id: id, room: room, user: user, text: text, time: time,
                                                  cursor: String(prefix: "m", number: Int(first) + i, radix: 36)))
                }
                rooms.append((room, Int(first), messages))
            }
            outbox = try pending.map { p in
                guard let o = JournalStore.outboxEntry(p) else { throw bad("outbox entry") }
                return o
            }
            timers = []
            cursors = []
            steps = []
            guard version != .int(1) else { return }
            // An empty Lua table has no array part and no hash part, so `{}` reads either way.
            guard case .table(_, let timerPlugins) = v["timers"], case .table(_, let seen) = v["seen"] else {
                throw bad("missing timers or seen")
            }
            for p in timerPlugins {
                guard let plugin = p.key.stringValue, case .table(let list, _) = p.value else { throw bad("timers entry") }
                for t in list {
                    guard let timer = JournalStore.savedTimer(t) else { throw bad("timer of \(plugin)") }
                    timers.append((plugin, timer))
                }
            }
            for c in seen {
                guard let room = c.key.stringValue, let cursor = c.value["c"].stringValue,
                      let time = c.value["s"].numberValue else { throw bad("last-seen entry") }
                cursors.append((room, RoomCursor(cursor: cursor, time: time)))
            }
            guard version == .int(3) else { return }
            guard case .table(let list, _) = v["steps"] else { throw bad("missing steps") }
            steps = try list.map { s in
                guard let step = JournalStore.step(s) else { throw bad("moderation step") }
                return step
            }
        }
    }

    // MARK: reading, for `parley journal dump`

    /// One record of a bot journal, decoded.
    public enum Entry: Sendable {
        case state(plugin: String, key: String, value: LuaValue?)
        /// `lastSeen`: the message also moved the room's last-seen cursor.
        case message(room: String, id: String, user: String, text: String, time: Double, lastSeen: Bool)
        case outbox(OutgoingMessage, sender: String)
        case delivered([String])
        case timer(plugin: String, SavedTimer)
        case timerDrop(plugin: String, name: String)
        case lastSeen(room: String, RoomCursor)
        case step(ModerationStep)
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
            return .message(room: room, id: id, user: user, text: text, time: time, lastSeen: v["l"] == .bool(true))
        case .outboxIntent:
            guard let o = outboxEntry(v) else { throw StoreError("bad outbox record") }
            return .outbox(o.entry, sender: o.sender)
        case .delivered:
            guard case .table(let ids, _) = v["o"] else { throw StoreError("bad delivery record") }
            return .delivered(ids.compactMap(\.stringValue))
        case .timer:
            guard let plugin = v["p"].stringValue, let t = savedTimer(v) else { throw StoreError("bad timer record") }
            return .timer(plugin: plugin, t)
        case .timerDrop:
            guard let plugin = v["p"].stringValue, let name = v["n"].stringValue else { throw StoreError("bad timer drop record") }
            return .timerDrop(plugin: plugin, name: name)
        case .lastSeen:
            guard let room = v["r"].stringValue, let cursor = v["c"].stringValue, let time = v["s"].numberValue else {
                throw StoreError("bad last-seen record")
            }
            return .lastSeen(room: room, RoomCursor(cursor: cursor, time: time))
        case .moderationStep:
            guard let step = step(v) else { throw StoreError("bad moderation step record") }
            return .step(step)
        case nil:
            return nil
        }
    }

    /// The snapshot's contents as entries: state, undelivered sends, pending
    /// moderation steps, timers, cursors, then messages.
    public static func decode(snapshot bytes: [UInt8]) throws -> [Entry] {
        let snapshot = try Snapshot(decoding: bytes)
        return snapshot.state.map { .state(plugin: $0.plugin, key: $0.key, value: $0.value) }
            + snapshot.outbox.map { .outbox($0.entry, sender: $0.sender) }
            + snapshot.steps.map { .step($0) }
            + snapshot.timers.map { .timer(plugin: $0.plugin, $0.timer) }
            + snapshot.cursors.map { .lastSeen(room: $0.room, $0.cursor) }
            + snapshot.rooms.flatMap { r in
                r.messages.map { .message(room: r.room, id: $0.id, user: $0.user, text: $0.text, time: $0.time, lastSeen: false) }
            }
    }

    // MARK: internals

    /// Writes a transaction. Pipelined, a `waited` one is tracked until its
    /// sync acknowledges it (`whenDurable`); an unwaited one rides in the
    /// next sync somebody waits for (`Journal.appendLater`).
    private func append(_ records: [JournalRecord], waited: Bool = true) throws(StoreError) {
        if let failed { throw failed }
        if waited, held != nil {
            held! += records
            return
        }
        // Anything else keeps its place behind the event's records.
        if let pending = held, !pending.isEmpty {
            held = nil
            defer { held = [] }
            try append(pending)
        }
        do {
            if commits != nil, !waited {
                try journal.appendLater(records)
            } else if let commits {
                commits.queued()
                do {
                    try journal.append(records) { result in commits.acknowledged(result) }
                } catch {
                    commits.acknowledged(.failure(error as? JournalError ?? .closed))
                    throw error
                }
            } else {
                _ = try journal.appendBlocking(records)
            }
        } catch {
            // Nothing is retried and then acknowledged: the first failure is final.
            let e = commits?.failure ?? StoreError("journal \(directory)", journal: error)
            appendFailure = e
            throw e
        }
        for r in records { bytesSinceSnapshot += r.framedSize }
    }

    /// True while pipelined writes wait for their sync.
    public var hasUnacknowledgedWrites: Bool { commits?.isPending ?? false }

    /// Calls `done` once everything written so far is acknowledged (at once
    /// when it already is, or when writes block), with the failure if one failed.
    public func whenDurable(_ done: @escaping @Sendable (StoreError?) -> Void) {
        guard let commits else { return done(appendFailure) }
        commits.whenAcknowledged(done)
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
            }
            outbox.add(e.sends, steps: e.steps)
            if !e.sends.isEmpty, !e.sender.isEmpty { sender = e.sender }
            timers.apply(plugin: e.plugin, e.timers)
        case .delivered(let ids):
            outbox.remove(ids)
        }
    }

    private func replay(_ record: JournalRecord) throws {
        switch try Self.decode(record) {
        case .state(let plugin, let key, let value)?:
            state.commit(plugin: plugin, writes: [(key, value)])
        case .message(let room, let id, let user, let text, let time, let lastSeen)?:
            if lastSeen { cursors.advance(room: room, to: RoomCursor(cursor: id, time: time)) }
            _ = try history.append(room: room, id: id, user: user, text: text, time: time)
        case .outbox(let entry, let sender)?:
            try apply(.effects(HandlerEffects(plugin: entry.plugin, sender: sender, writes: [], sends: [entry])))
        case .delivered(let ids)?:
            try apply(.delivered(ids))
        case .timer(let plugin, let t)?:
            timers.apply(plugin: plugin, [.set(t)])
        case .timerDrop(let plugin, let name)?:
            timers.apply(plugin: plugin, [.drop(name: name)])
        case .lastSeen(let room, let cursor)?:
            cursors.set(room: room, to: cursor)
        case .step(let step)?:
            outbox.add([], steps: [step])
        case nil:
            throw StoreError("unknown record type \(record.type)")
        }
    }

    /// Pipelined writes: how many were queued and acknowledged, in order, and
    /// who waits for which. Written on the bot's thread, acknowledged on the
    /// journal writer's.
    final class CommitTracker: Sendable {
        private struct State {
            var queued: UInt64 = 0
            var acknowledged: UInt64 = 0
            var failure: StoreError?
            var waiters: [(through: UInt64, done: @Sendable (StoreError?) -> Void)] = []
        }
        private let state = Mutex(State())
        private let directory: String

        init(directory: String) { self.directory = directory }

        var failure: StoreError? { state.withLock { $0.failure } }
        var isPending: Bool { state.withLock { $0.acknowledged < $0.queued } }

        func queued() { state.withLock { $0.queued += 1 } }

        /// One write's outcome; the journal acknowledges in the order of writing.
        func acknowledged(_ result: Result<UInt64, JournalError>) {
            let ready = state.withLock { s -> [(through: UInt64, done: @Sendable (StoreError?) -> Void)] in
                s.acknowledged += 1
                if case .failure(let e) = result, s.failure == nil { s.failure = StoreError("journal \(directory)", journal: e) }
                let n = s.failure == nil ? s.waiters.prefix { $0.through <= s.acknowledged }.count : s.waiters.count
                defer { s.waiters.removeFirst(n) }
                return Array(s.waiters.prefix(n))
            }
            let failure = self.failure
            for w in ready { w.done(failure) }
        }

        func whenAcknowledged(_ done: @escaping @Sendable (StoreError?) -> Void) {
            let now = state.withLock { s -> StoreError?? in
                if let f = s.failure { return .some(f) }
                if s.acknowledged >= s.queued { return .some(nil) }
                s.waiters.append((s.queued, done))
                return .none
            }
            if let now { done(now) }
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
