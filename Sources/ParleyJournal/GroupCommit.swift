#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import CParleyJournal
import Dispatch
import Synchronization

/// A segment the journal currently holds (for snapshot clean-up).
struct SegmentRef: Sendable {
    var name: String
    var path: String
    var firstSequence: UInt64
}

/// The one writer of a journal, with group commit.
///
/// Appenders put their transaction in a queue and suspend; a dedicated thread
/// takes everything queued, encodes it into one buffer, writes it with one
/// `write`, and under `.always` makes it durable with one `fdatasync` before
/// resuming every waiter. Syncs, file creation and segment
/// rolls therefore never run on the Swift concurrency pool. One exception
/// keeps `.interval`/`.never` fast: an appender that finds the writer idle
/// does the single `write` itself — its transaction plus everything queued
/// (flat combining) — when it fits the current segment. That is microseconds
/// into the page cache, no sync and no file creation, instead of two thread
/// hand-offs per append.
///
/// Whoever holds `busy` (the thread, or such an inline appender) owns the file
/// state in `io`; `busy` is only flipped under `shared`'s lock, so `io`'s lock
/// is never contended and only makes the hand-over visible between threads.
final class GroupCommitWriter: Sendable {
    /// Who hears how an append ended: a suspended task, or a callback for an
    /// appender that must neither block nor suspend (a pipelined bot: its next
    /// event is handled while this one syncs).
    enum AppendWaiter: Sendable {
        case task(CheckedContinuation<UInt64, any Error>)
        case callback(@Sendable (Result<UInt64, JournalError>) -> Void)
        /// Nobody waits (`Journal.appendLater`): under `.always` the record
        /// rides in the next sync somebody waits for, or is synced within
        /// `laterSyncNanos`.
        case later

        func resume(with result: Result<UInt64, JournalError>) {
            switch self {
            case .task(let c): c.resume(with: result.mapError { $0 as any Error })
            case .callback(let done): done(result)
            case .later: break
            }
        }

        var isWaiting: Bool { if case .later = self { false } else { true } }

        func resume(throwing error: JournalError) { resume(with: .failure(error)) }
    }
    typealias SyncWaiter = CheckedContinuation<Void, any Error>
    /// Told the sequence of the last record before the seal.
    typealias SealDone = @Sendable (Result<UInt64, JournalError>) -> Void

    enum Item: Sendable {
        /// `waiter == nil`: an inline append whose result is returned directly.
        case append(records: [JournalRecord], bytes: Int, waiter: AppendWaiter?)
        case sync(waiter: SyncWaiter)
        /// Seal the segment being written (when it holds records) and start the next.
        case seal(done: SealDone)
    }

    private enum ThreadState: Sendable { case notStarted, running }

    private struct Shared: Sendable {
        var thread = ThreadState.notStarted
        var queue: [Item] = []
        var busy = false
        var sleeping = false
        /// When the sleeping thread wakes by itself (nil: only when woken).
        var sleepDeadline: UInt64?
        var closing = false
        var failure: JournalError?
        /// Monotonic time (ns) by which unsynced data must be synced (`.interval`).
        var syncDue: UInt64?
        var closeWaiters: [SyncWaiter] = []
        var closeResult: Result<Void, JournalError>?
    }

    struct IO: Sendable {
        var file: JournalFile
        var seed: UInt32
        /// Bytes in the current segment: every byte below is written.
        var size: Int64
        var nextSequence: UInt64
        var dirty = false
        var dirtySince: UInt64 = 0
        var buffer: [UInt8] = []
        /// Bytes of the current segment the last successful fdatasync covered.
        var syncedSize: Int64 = 0
        /// The file's length: bytes from `size` up to here are the runway's zeros.
        var allocated: Int64 = 0
        /// When `unlinked` last asked the file layer.
        var linkCheckedAt: UInt64 = 0
    }

    private enum Resolution {
        case append(AppendWaiter, Result<UInt64, JournalError>)
        case sync(SyncWaiter, Result<Void, JournalError>)
        case seal(SealDone, Result<UInt64, JournalError>)
    }

    let layer: any FileLayer
    let directory: String
    let policy: FsyncPolicy
    let segmentSize: Int64
    let maxBatchBytes: Int
    /// Zeros written ahead of the records under `.always` (`JournalOptions.runwayBytes`).
    let runwayBytes: Int64
    private let intervalNanos: UInt64?
    private let shared = Mutex(Shared())
    private let io: Mutex<IO>
    private let wake = DispatchSemaphore(value: 0)
    /// Segments in order; the last one is the one being written.
    let segments: Mutex<[SegmentRef]>
    /// Sequence of the last record written to the file (not necessarily synced).
    let lastWritten: Atomic<UInt64>

    init(layer: any FileLayer, directory: String, options: JournalOptions, io: IO, segments: [SegmentRef]) {
        self.layer = layer
        self.directory = directory
        self.policy = options.fsync
        self.segmentSize = Int64(options.segmentSize)
        self.maxBatchBytes = options.maxBatchBytes
        self.runwayBytes = options.fsync == .always ? Int64(options.runwayBytes) : 0
        if case let .interval(ms) = options.fsync {
            intervalNanos = UInt64(ms) * 1_000_000
        } else {
            intervalNanos = nil
        }
        self.io = Mutex(io)
        self.segments = Mutex(segments)
        self.lastWritten = Atomic(io.nextSequence &- 1)
    }

    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    var failure: JournalError? { shared.withLock { $0.failure } }

    // MARK: entry points

    /// The thread starts on first need (the first queued item, the first
    /// unsynced `.interval` write, a close with unsynced data), so a journal
    /// opened only to read, or written only inline, never pays for one.
    private func ensureThread() {
        let start = shared.withLock { s -> Bool in
            guard s.thread == .notStarted else { return false }
            s.thread = .running
            return true
        }
        guard start else { return }
        do {
            try startDetachedThread(name: "parley-journal") { [self] in self.run() }
        } catch {
            // Nobody will serve the queue: fail everything, for good.
            let failed = Self.failed(error)
            let (queue, closers) = shared.withLock { s -> ([Item], [SyncWaiter]) in
                s.failure = s.failure ?? failed
                let q = s.queue
                let c = s.closeWaiters
                s.queue = []
                s.closeWaiters = []
                s.closeResult = .success(())
                return (q, c)
            }
            for item in queue {
                switch item {
                case let .append(_, _, w): w?.resume(throwing: failed)
                case let .sync(w): w.resume(throwing: failed)
                case let .seal(done): done(.failure(failed))
                }
            }
            io.withLock { layer.close($0.file) }
            for c in closers { c.resume() }
        }
    }

    func append(_ records: [JournalRecord], bytes: Int) async throws -> UInt64 {
        if policy != .always, let result = tryInline(records, bytes: bytes) {
            return try result.get()
        }
        return try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<UInt64, any Error>) in
            enqueue(.append(records: records, bytes: bytes, waiter: .task(waiter)))
        }
    }

    /// `append` without waiting: `done` is called (on the writer's thread, or
    /// on this one when the append is refused or written inline) once the
    /// transaction is acknowledged under the policy, or failed.
    func append(_ records: [JournalRecord], bytes: Int, done: @escaping @Sendable (Result<UInt64, JournalError>) -> Void) {
        if policy != .always, let result = tryInline(records, bytes: bytes) {
            return done(result)
        }
        enqueue(.append(records: records, bytes: bytes, waiter: .callback(done)))
    }

    /// `append` that nobody waits for (see `AppendWaiter.later`).
    func appendLater(_ records: [JournalRecord], bytes: Int) {
        if policy != .always, tryInline(records, bytes: bytes) != nil { return }
        enqueue(.append(records: records, bytes: bytes, waiter: .later))
    }

    /// Returns once everything written so far is durable (for snapshots, and
    /// `Journal.sync`).
    func sync() async throws {
        try await withCheckedThrowingContinuation { (waiter: SyncWaiter) in
            enqueue(.sync(waiter: waiter))
        }
    }

    /// Queues a segment seal behind everything appended so far (see `Journal.sealSegment`).
    func seal(_ done: @escaping SealDone) {
        enqueue(.seal(done: done))
    }

    /// Stops the thread after it has written what is queued; syncs and closes
    /// the segment.
    func close() async throws {
        try await withCheckedThrowingContinuation { (waiter: SyncWaiter) in
            let (signal, done) = shared.withLock { s -> (Bool, Result<Void, JournalError>?) in
                if let result = s.closeResult { return (false, result) }
                s.closing = true
                s.closeWaiters.append(waiter)
                if s.sleeping { s.sleeping = false; return (true, nil) }
                return (false, nil)
            }
            if let done { waiter.resume(with: done.mapError { $0 as any Error }) }
            if signal { wake.signal() }
            if done == nil { closeWithoutThreadIfPossible() }
        }
    }

    /// For `deinit` of a journal nobody closed: let the thread finish and exit.
    func detachClose() {
        let signal = shared.withLock { s -> Bool in
            if s.closeResult != nil { return false }
            s.closing = true
            if s.sleeping { s.sleeping = false; return true }
            return false
        }
        if signal { wake.signal() }
        closeWithoutThreadIfPossible()
    }

    /// Closing with no thread running: if nothing needs a sync, just close
    /// the file here; otherwise start the thread to do it (a sync is blocking
    /// work for the thread, never for the caller).
    private func closeWithoutThreadIfPossible() {
        let own = shared.withLock { s -> Bool in
            guard s.thread == .notStarted, !s.busy, s.closeResult == nil else { return false }
            s.busy = true
            return true
        }
        guard own else { return }
        let needsSync = io.withLock { $0.dirty } && failure == nil
        if needsSync || shared.withLock({ !$0.queue.isEmpty }) {
            shared.withLock { $0.busy = false }
            ensureThread()
        } else {
            finish()
        }
    }

    private func enqueue(_ item: Item) {
        let (signal, refusal) = shared.withLock { s -> (Bool, JournalError?) in
            if let failure = s.failure { return (false, failure) }
            if s.closing { return (false, .closed) }
            s.queue.append(item)
            if s.sleeping { s.sleeping = false; return (true, nil) }
            return (false, nil)
        }
        if let refusal {
            switch item {
            case let .append(_, _, waiter): waiter?.resume(throwing: refusal)
            case let .sync(waiter): waiter.resume(throwing: refusal)
            case let .seal(done): done(.failure(refusal))
            }
            return
        }
        if signal { wake.signal() }
        ensureThread()
    }

    /// The inline fast path (see the type's comment). nil: use the queue.
    ///
    /// The appender that finds the writer idle also takes whatever is queued
    /// (flat combining): one `write` for all of them, and it resumes their
    /// continuations, so under load no thread hand-off is paid at all.
    func tryInline(_ records: [JournalRecord], bytes: Int) -> Result<UInt64, JournalError>? {
        enum Gate { case refuse(JournalError), own([Item], Int, JournalError?), queue }
        let gate = shared.withLock { s -> Gate in
            if let failure = s.failure { return .refuse(failure) }
            if s.closing { return .refuse(.closed) }
            if s.busy { return .queue }
            var pendingBytes = 0
            for item in s.queue {
                // A sync would block this thread for milliseconds: the thread's job.
                guard case let .append(_, b, _) = item else { return .queue }
                pendingBytes += b
            }
            if pendingBytes + bytes > maxBatchBytes { return .queue }
            s.busy = true
            let pending = s.queue
            s.queue = []
            return .own(pending, pendingBytes, s.failure)
        }
        let pending: [Item]
        let pendingBytes: Int
        let failure: JournalError?
        switch gate {
        case let .refuse(error): return .failure(error)
        case .queue: return nil
        case let .own(p, b, f): (pending, pendingBytes, failure) = (p, b, f)
        }
        var out: [Resolution] = []
        let (result, due, handBack) = io.withLock { io -> (Result<UInt64, JournalError>?, UInt64?, [Item]) in
            let total = Int64(pendingBytes + bytes)
            // A lone transaction larger than a segment may fill a fresh one.
            let fits = io.size + total <= segmentSize || (io.size <= Int64(SegmentFormat.headerSize) && pending.isEmpty)
            guard fits else {
                // Needs a segment roll (file creation, syncs): the thread's job.
                return (nil, syncDue(io), pending)
            }
            let (inline, newFailure) = process(
                pending + [.append(records: records, bytes: bytes, waiter: nil)],
                inline: true, failure: failure, io: &io, out: &out)
            if let newFailure { shared.withLock { $0.failure = newFailure } }
            return (inline, syncDue(io), [])
        }
        release(syncDue: due, pushFront: handBack)
        resume(out)
        // nil: the transaction needs a segment roll, which the thread does.
        return result
    }

    /// Gives up `busy`; wakes the thread if it has something to do.
    private func release(syncDue due: UInt64?, pushFront: [Item]) {
        let (signal, needThread) = shared.withLock { s -> (Bool, Bool) in
            s.busy = false
            // A failed journal syncs nothing more (and must not spin on it).
            let due = s.failure == nil ? due : nil
            // A sync due before the sleeping thread would wake by itself: it
            // must wake now to sleep until then. (It sleeps without a deadline
            // while an inline appender holds `busy`, so any due counts then.)
            let sooner = due.map { due in s.sleepDeadline.map { due < $0 } ?? true } ?? false
            s.syncDue = due
            if !pushFront.isEmpty { s.queue.insert(contentsOf: pushFront, at: 0) }
            let work = !s.queue.isEmpty || due != nil || s.closing
            let needThread = s.thread == .notStarted && work
            if s.sleeping && (!s.queue.isEmpty || sooner || s.closing) {
                s.sleeping = false
                return (true, needThread)
            }
            return (false, needThread)
        }
        if signal { wake.signal() }
        if needThread { ensureThread() }
    }

    /// Under `.always`, how soon records nobody waits for are synced when no
    /// waited-for append comes along to carry them.
    static let laterSyncNanos: UInt64 = 50_000_000

    private func syncDue(_ io: IO) -> UInt64? {
        guard io.dirty else { return nil }
        if let intervalNanos { return io.dirtySince &+ intervalNanos }
        return policy == .always ? io.dirtySince &+ Self.laterSyncNanos : nil
    }

    // MARK: the thread

    private enum Action {
        case process([Item], JournalError?)
        case timedSync
        case close
        case sleep(UInt64?)
        case exit
    }

    private func run() {
        /// Appends in the previous `.always` batch (see `gather`).
        var previousBatch = 0
        while true {
            let action = shared.withLock { s -> Action in
                if s.closeResult != nil { return .exit }
                if s.busy {
                    s.sleeping = true
                    s.sleepDeadline = nil
                    return .sleep(nil)
                }
                if !s.queue.isEmpty {
                    s.busy = true
                    let batch = takeBatch(&s.queue)
                    return .process(batch, s.failure)
                }
                if s.failure == nil, let due = s.syncDue, Self.now() >= due {
                    s.busy = true
                    return .timedSync
                }
                if s.closing {
                    s.busy = true
                    return .close
                }
                s.sleeping = true
                s.sleepDeadline = s.failure == nil ? s.syncDue : nil
                return .sleep(s.sleepDeadline)
            }
            switch action {
            case let .process(first, failure):
                var batch = first
                if policy == .always {
                    batch = gather(batch, expecting: previousBatch)
                    previousBatch = Self.waiting(batch)
                }
                var out: [Resolution] = []
                let due = io.withLock { io -> UInt64? in
                    let (_, newFailure) = process(batch, inline: false, failure: failure, io: &io, out: &out)
                    if let newFailure { shared.withLock { $0.failure = newFailure } }
                    return syncDue(io)
                }
                release(syncDue: due, pushFront: [])
                resume(out)
            case .timedSync:
                let due = io.withLock { io -> UInt64? in
                    if io.dirty {
                        do {
                            try self.syncActive(&io)
                        } catch {
                            let failed = Self.failed(error)
                            shared.withLock { $0.failure = failed }
                        }
                    }
                    return syncDue(io)
                }
                release(syncDue: due, pushFront: [])
            case .close:
                finish()
                return
            case .exit:
                return
            case let .sleep(deadline):
                if let deadline {
                    _ = wake.wait(timeout: DispatchTime(uptimeNanoseconds: deadline))
                } else {
                    wake.wait()
                }
                shared.withLock { $0.sleeping = false }
            }
        }
    }

    /// Group commit's one subtlety: right after a sync resumes N waiters, the
    /// first of them to append again would get a sync of its own while the
    /// other N-1 queue up behind it, so batches alternate 1, N-1, 1, N-1.
    /// When a batch is much smaller than the previous one, wait up to 200 µs
    /// (a few percent of an fdatasync) for the rest of the crowd to come back.
    /// A crowd is four or more appends somebody waits for: one bot's commit
    /// and its delivery record are not one, and each wait costs this thread
    /// a sleep and a wake.
    private func gather(_ batch: [Item], expecting previous: Int) -> [Item] {
        guard previous >= 4, Self.waiting(batch) * 2 <= previous else { return batch }
        var batch = batch
        for _ in 0..<8 {
            usleep(25)
            let (more, enough) = shared.withLock { s -> ([Item], Bool) in
                let more = takeBatch(&s.queue)
                return (more, s.closing)
            }
            batch += more
            if enough || Self.waiting(batch) * 4 >= previous * 3 { break }
        }
        return batch
    }

    /// Appends in `items` that somebody waits for.
    private static func waiting(_ items: [Item]) -> Int {
        items.reduce(0) { n, item in
            if case let .append(_, _, w) = item, w?.isWaiting ?? true { n + 1 } else { n }
        }
    }

    /// Takes queued items up to `maxBatchBytes` (at least one).
    private func takeBatch(_ queue: inout [Item]) -> [Item] {
        var total = 0
        var count = 0
        for item in queue {
            if case let .append(_, bytes, _) = item {
                if count > 0 && total + bytes > maxBatchBytes { break }
                total += bytes
            }
            count += 1
        }
        if count == queue.count {
            let all = queue
            queue = []
            return all
        }
        let batch = Array(queue[..<count])
        queue.removeFirst(count)
        return batch
    }

    private func finish() {
        let result = io.withLock { io -> Result<Void, JournalError> in
            defer { layer.close(io.file) }
            if shared.withLock({ $0.failure }) != nil { return .success(()) }
            do {
                // A closed journal's last segment ends with its last record.
                try cutRunway(&io)
                guard io.dirty else { return .success(()) }
                try syncActive(&io)
                return .success(())
            } catch {
                let failed = Self.failed(error)
                shared.withLock { $0.failure = failed }
                return .failure(failed)
            }
        }
        let waiters = shared.withLock { s -> [SyncWaiter] in
            s.closeResult = result
            let w = s.closeWaiters
            s.closeWaiters = []
            return w
        }
        for w in waiters { w.resume(with: result.mapError { $0 as any Error }) }
    }

    private func resume(_ out: [Resolution]) {
        for r in out {
            switch r {
            case let .append(w, result): w.resume(with: result)
            case let .sync(w, result): w.resume(with: result.mapError { $0 as any Error })
            case let .seal(done, result): done(result)
            }
        }
    }

    static func failed(_ error: any Error) -> JournalError {
        if let e = error as? JournalError {
            if case .failed = e { return e }
            return .failed(cause: e)
        }
        return .failed(cause: .io(operation: "\(error)", path: "", errno: EIO))
    }

    // MARK: writing

    private enum RollError: Error {
        case noSpace(JournalError)
        case failed(JournalError)
    }

    /// Writes (and under `.always` syncs) a batch. Resolutions for queued
    /// waiters go to `out`; an inline append's result is returned. Returns the
    /// new failure if this batch put the journal in the failed state.
    private func process(
        _ items: [Item], inline: Bool, failure initialFailure: JournalError?, io: inout IO, out: inout [Resolution]
    ) -> (Result<UInt64, JournalError>?, JournalError?) {
        var inlineResult: Result<UInt64, JournalError>?
        var failure = initialFailure
        var newFailure: JournalError?
        /// Written but not yet covered by a sync (`.always` only).
        var unsynced: [(AppendWaiter?, UInt64)] = []
        /// After ENOSPC the rest of this batch is refused; the next batch probes.
        var batchNoSpace: JournalError?

        func resolve(_ waiter: AppendWaiter?, _ result: Result<UInt64, JournalError>) {
            if let waiter { out.append(.append(waiter, result)) } else { inlineResult = result }
        }
        func ackUnsynced() {
            for (w, seq) in unsynced { resolve(w, .success(seq)) }
            unsynced.removeAll()
        }
        /// Failed state: every waiter gets the error; nothing is retried
        /// and then acknowledged.
        func enterFailed(_ error: any Error) {
            let f = Self.failed(error)
            failure = f
            newFailure = f
            for (w, _) in unsynced { resolve(w, .failure(f)) }
            unsynced.removeAll()
        }

        var i = 0
        while i < items.count {
            if let failure {
                for item in items[i...] {
                    switch item {
                    case let .append(_, _, w): resolve(w, .failure(failure))
                    case let .sync(w): out.append(.sync(w, .failure(failure)))
                    case let .seal(done): out.append(.seal(done, .failure(failure)))
                    }
                }
                break
            }
            switch items[i] {
            case let .sync(w):
                do {
                    if io.dirty { try syncActive(&io) }
                    ackUnsynced()
                    out.append(.sync(w, .success(())))
                } catch {
                    enterFailed(error)
                    out.append(.sync(w, .failure(failure!)))
                }
                i += 1
                continue
            case let .seal(done):
                // Only the thread processes seals: the inline path leaves the
                // queue alone when it holds anything but appends.
                let through = io.nextSequence &- 1
                if io.size > Int64(SegmentFormat.headerSize) {
                    do {
                        try roll(&io)
                        ackUnsynced() // the seal synced them
                        out.append(.seal(done, .success(through)))
                    } catch let RollError.noSpace(e) {
                        // The old segment was synced before the new one failed:
                        // nothing is lost, later appends continue in it.
                        ackUnsynced()
                        out.append(.seal(done, .failure(e)))
                    } catch let RollError.failed(e) {
                        enterFailed(e)
                        out.append(.seal(done, .failure(failure!)))
                    } catch {
                        enterFailed(error)
                        out.append(.seal(done, .failure(failure!)))
                    }
                } else {
                    out.append(.seal(done, .success(through)))
                }
                i += 1
                continue
            case let .append(_, bytes, w):
                if let batchNoSpace {
                    resolve(w, .failure(batchNoSpace))
                    i += 1
                    continue
                }
                if !inline && io.size > Int64(SegmentFormat.headerSize) && io.size + Int64(bytes) > segmentSize {
                    do {
                        try roll(&io)
                        ackUnsynced() // the seal synced them
                    } catch let RollError.noSpace(e) {
                        // The old segment was sealed (synced) before the new
                        // one failed, so what was written is durable.
                        ackUnsynced()
                        batchNoSpace = e
                        continue
                    } catch let RollError.failed(e) {
                        enterFailed(e)
                        continue
                    } catch {
                        enterFailed(error)
                        continue
                    }
                }
            }

            if let removed = unlinked(&io) {
                enterFailed(removed)
                continue
            }
            // Encode the run of appends that fits this segment into one buffer.
            io.buffer.removeAll(keepingCapacity: true)
            var seq = io.nextSequence
            var chunk: [(AppendWaiter?, UInt64)] = []
            var j = i
            while j < items.count, case let .append(records, bytes, w) = items[j] {
                if j > i {
                    let after = io.size + Int64(io.buffer.count + bytes)
                    if after > segmentSize || io.buffer.count + bytes > maxBatchBytes { break }
                }
                for (k, record) in records.enumerated() {
                    FrameFormat.append(
                        type: record.type, commit: k == records.count - 1, sequence: seq,
                        payload: record.payload, seed: io.seed, to: &io.buffer)
                    seq &+= 1
                }
                chunk.append((w, seq &- 1))
                j += 1
            }
            i = j

            let outcome = writeChunk(&io)
            switch outcome {
            case .written:
                io.nextSequence = seq
                if !io.dirty {
                    io.dirty = true
                    io.dirtySince = Self.now()
                }
                lastWritten.store(seq &- 1, ordering: .releasing)
                if policy == .always {
                    unsynced.append(contentsOf: chunk)
                } else {
                    for (w, s) in chunk { resolve(w, .success(s)) }
                }
            case let .noSpace(e):
                batchNoSpace = e
                for (w, _) in chunk { resolve(w, .failure(e)) }
            case let .failed(e):
                enterFailed(e)
                for (w, _) in chunk { resolve(w, .failure(failure!)) }
            }
        }

        if unsynced.contains(where: { $0.0?.isWaiting ?? true }) {
            // `.always`: one fdatasync for the whole batch, then every waiter
            // (records appended `later` alone wait for the timed sync).
            do {
                try syncActive(&io)
                ackUnsynced()
            } catch {
                enterFailed(error)
            }
        } else if !inline, failure == nil, let intervalNanos, io.dirty, Self.now() >= io.dirtySince &+ intervalNanos {
            do {
                try syncActive(&io)
            } catch {
                enterFailed(error)
            }
        }
        return (inlineResult, newFailure)
    }

    /// A segment deleted under the journal (an `rm -r` of its directory)
    /// still takes writes, which no reopen would find, and its lock no longer
    /// keeps a second process out: once a second, before a write, the
    /// segment's link count says so, and the journal fails.
    private func unlinked(_ io: inout IO) -> JournalError? {
        let now = Self.now()
        guard now >= io.linkCheckedAt &+ 1_000_000_000 else { return nil }
        io.linkCheckedAt = now
        return layer.isUnlinked(io.file) ? .removed(path: io.file.path) : nil
    }

    private enum WriteOutcome {
        case written
        case noSpace(JournalError)
        case failed(JournalError)
    }

    /// One write of `io.buffer` at the end of the segment. On ENOSPC or a
    /// short write the file is truncated back to the last good offset.
    private func writeChunk(_ io: inout IO) -> WriteOutcome {
        let count = io.buffer.count
        let file = io.file
        let at = io.size
        var spaceError: JournalError?
        extendRunway(&io, past: at + Int64(count))
        do {
            let written = try io.buffer.withUnsafeBytes { try layer.writeFully(file, $0, at: at) }
            if written == count {
                io.size += Int64(count)
                io.allocated = max(io.allocated, io.size)
                return .written
            }
            spaceError = .noSpace(path: file.path, errno: ENOSPC)
        } catch let JournalError.io(_, path, code) where JournalError.isNoSpace(code) {
            spaceError = .noSpace(path: path, errno: code)
        } catch {
            return .failed(error as? JournalError ?? .io(operation: "write", path: file.path, errno: EIO))
        }
        do {
            try layer.truncate(file, to: at)
            io.allocated = at
        } catch {
            return .failed(error as? JournalError ?? .io(operation: "ftruncate", path: file.path, errno: EIO))
        }
        return .noSpace(spaceError!)
    }

    /// Makes sure the file reaches `end`, writing the runway's zeros ahead
    /// of it (up to `runwayBytes` past it, within the segment) when it does
    /// not. The zeros reach the disk with the next sync, which then also
    /// flushes the new length; the syncs after it, until the runway is used
    /// up, flush data only. Best effort: without space for zeros the records
    /// are appended as they would be without a runway.
    private func extendRunway(_ io: inout IO, past end: Int64) {
        guard runwayBytes > 0, end > io.allocated else { return }
        // From where the records end: the bytes before are theirs to write.
        let from = max(io.allocated, end)
        let to = max(end, min(end + runwayBytes, segmentSize))
        guard to > from else { return }
        let zeros = [UInt8](repeating: 0, count: Int(to - from))
        do {
            let written = try zeros.withUnsafeBytes { try layer.writeFully(io.file, $0, at: from) }
            if written == zeros.count {
                io.allocated = to
                return
            }
        } catch {}
        // Whatever zeros did get written are cut again: the file ends where the records do.
        if (try? layer.truncate(io.file, to: io.size)) != nil { io.allocated = io.size }
    }

    /// Cuts the runway off the segment (before it is sealed, or on close), so
    /// the file ends with its last record; the caller syncs.
    private func cutRunway(_ io: inout IO) throws {
        guard io.allocated > io.size else { return }
        try layer.truncate(io.file, to: io.size)
        io.allocated = io.size
        io.dirty = true
    }

    /// fdatasync of the active segment. When it fails, the file is cut back to
    /// what the last successful sync covered before the error is reported:
    /// after a failed fdatasync Linux marks the pages clean, so bytes still
    /// readable from the page cache may never reach the disk, and a reopen must
    /// not find them and act on them.
    private func syncActive(_ io: inout IO) throws {
        do {
            try layer.sync(io.file)
            io.dirty = false
            io.syncedSize = io.size
        } catch {
            try? layer.truncate(io.file, to: io.syncedSize)
            io.size = io.syncedSize
            io.allocated = io.syncedSize
            throw error
        }
    }

    /// Seals the current segment and starts the next: sync the old one, then
    /// create, write the header, sync the new file and fsync the directory
    /// before any record goes into it.
    private func roll(_ io: inout IO) throws {
        do {
            try cutRunway(&io)
        } catch {
            throw RollError.failed(error as? JournalError ?? .io(operation: "ftruncate", path: io.file.path, errno: EIO))
        }
        if io.dirty {
            do {
                try syncActive(&io)
            } catch {
                throw RollError.failed(error as? JournalError ?? .io(operation: "fdatasync", path: io.file.path, errno: EIO))
            }
        }
        let first = io.nextSequence
        let name = SegmentFormat.fileName(firstSequence: first)
        let path = Paths.join(directory, name)
        let salt = randomSalt()
        let header = SegmentFormat.encodeHeader(salt: salt, firstSequence: first)
        let file: JournalFile
        do {
            file = try layer.open(path, mode: .createTruncate)
        } catch let JournalError.io(_, p, code) where JournalError.isNoSpace(code) {
            throw RollError.noSpace(.noSpace(path: p, errno: code))
        } catch {
            throw RollError.failed(error as? JournalError ?? .io(operation: "open", path: path, errno: EIO))
        }
        var spaceError: JournalError?
        do {
            let written = try header.withUnsafeBytes { try layer.writeFully(file, $0, at: 0) }
            if written != header.count { spaceError = .noSpace(path: path, errno: ENOSPC) }
        } catch let JournalError.io(_, p, code) where JournalError.isNoSpace(code) {
            spaceError = .noSpace(path: p, errno: code)
        } catch {
            layer.close(file)
            throw RollError.failed(error as? JournalError ?? .io(operation: "write", path: path, errno: EIO))
        }
        if let spaceError {
            layer.close(file)
            do {
                try layer.remove(path)
            } catch {
                throw RollError.failed(error as? JournalError ?? .io(operation: "unlink", path: path, errno: EIO))
            }
            throw RollError.noSpace(spaceError)
        }
        do {
            try layer.sync(file)
            try layer.syncDirectory(directory)
        } catch {
            layer.close(file)
            throw RollError.failed(error as? JournalError ?? .io(operation: "fsync", path: path, errno: EIO))
        }
        layer.close(io.file)
        io.file = file
        io.size = Int64(SegmentFormat.headerSize)
        io.syncedSize = io.size
        io.allocated = io.size
        io.seed = Checksum.seed(salt: salt)
        segments.withLock { $0.append(SegmentRef(name: name, path: path, firstSequence: first)) }
    }
}

// MARK: a plain detached thread (no Foundation)

private final class ThreadBody {
    let name: String
    let body: () -> Void
    init(_ name: String, _ body: @escaping () -> Void) {
        self.name = name
        self.body = body
    }
}

func startDetachedThread(name: String, _ body: @escaping @Sendable () -> Void) throws {
    let box = Unmanaged.passRetained(ThreadBody(name, body)).toOpaque()
    #if canImport(Darwin)
    var thread: pthread_t?
    #else
    var thread = pthread_t()
    #endif
    let rc = pthread_create(&thread, nil, { arg in
        #if canImport(Darwin)
        let raw = arg
        #else
        guard let raw = arg else { return nil }
        #endif
        let work = Unmanaged<ThreadBody>.fromOpaque(raw).takeRetainedValue()
        _ = parley_set_thread_name(work.name)
        work.body()
        return nil
    }, box)
    guard rc == 0 else {
        Unmanaged<ThreadBody>.fromOpaque(box).release()
        throw JournalError.io(operation: "pthread_create (\(name))", path: "", errno: rc)
    }
    #if canImport(Darwin)
    if let thread { pthread_detach(thread) }
    #else
    pthread_detach(thread)
    #endif
}
