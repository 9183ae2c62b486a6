#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Synchronization

// ParleyJournal — a crash-safe append-only journal. One file, one job:
//   Journal.swift       the public face: open/recover, append, snapshot, close
//   Options.swift       FsyncPolicy, JournalOptions
//   Records.swift       JournalRecord, JournalTransaction
//   Errors.swift        JournalError
//   Checksum.swift      CRC32C over the C target, masking, byte helpers
//   Framing.swift       the record frame, parsed without trusting any byte
//   Segment.swift       segment file names and header
//   Snapshot.swift      snapshot file format and its write protocol
//   GroupCommit.swift   the single writer: batching, syncs, rolls, failure states
//   FileWindow.swift    sequential reads through one reused buffer
//   Scan.swift          checking a directory: torn tails vs damage
//   Recovery.swift      Recovery and the transaction reader
//   Maintenance.swift   verify and salvage
//   FileLayer.swift     the file operations, and the POSIX implementation
//   SimulatedDisk.swift an in-memory FileLayer that models power loss
// The crash-safety rules it follows are described in docs/journal.md.

/// A crash-safe append-only journal in one directory.
///
/// ```swift
/// let (journal, recovery) = try Journal.open(directory: "/var/lib/parley/journal")
/// if let snapshot = recovery.snapshot { state = decode(snapshot.bytes) }
/// try recovery.forEachTransaction { apply($0) }
/// let seq = try await journal.append([JournalRecord(type: 1, payload: bytes)])
/// ```
///
/// One process at a time: `open` takes an exclusive lock on the directory.
public final class Journal: Sendable {
    /// The journal directory.
    public let directory: String
    public let options: JournalOptions

    private let writer: GroupCommitWriter
    /// The directory lock, released by `close` (or `deinit`).
    private let lock: Mutex<JournalFile?>
    private let snapshotQueue = DispatchQueue(label: "parley.journal.snapshot")
    private let snapshotSequence: Mutex<UInt64>
    private let closed = Mutex(false)
    /// Whether `writeSnapshot` ever used `snapshotQueue` (close drains it then;
    /// otherwise it skips waking a dispatch worker for nothing).
    private let snapshotsUsed = Atomic<Bool>(false)

    private init(directory: String, options: JournalOptions, writer: GroupCommitWriter, lock: JournalFile, snapshotSequence: UInt64) {
        self.directory = directory
        self.options = options
        self.writer = writer
        self.lock = Mutex(lock)
        self.snapshotSequence = Mutex(snapshotSequence)
    }

    deinit {
        writer.detachClose()
        releaseLock()
    }

    private func releaseLock() {
        if let file = lock.withLock({ l -> JournalFile? in defer { l = nil }; return l }) {
            options.fileLayer.unlock(file)
        }
    }

    // MARK: opening

    /// Opens (creating when allowed) the journal in `directory` and recovers it.
    ///
    /// A torn tail of the last segment — a short header, a length past the end,
    /// a zeroed region, a bad checksum with nothing valid after it, an
    /// unfinished transaction — is truncated and the truncation synced before
    /// anything is appended. Anything else that does not
    /// check out throws `JournalError.corrupt(file:offset:reason:)`; use
    /// `salvage` to keep what comes before it.
    public static func open(directory: String, options: JournalOptions = JournalOptions()) throws -> (Journal, Recovery) {
        try options.validate()
        let layer = options.fileLayer
        let dir = normalize(directory)
        if !layer.directoryExists(dir) {
            guard options.createIfMissing else {
                throw JournalError.io(operation: "open journal directory", path: dir, errno: ENOENT)
            }
            try layer.createDirectory(dir)
            try layer.syncDirectory(Paths.parent(dir))
        }
        let lock = try layer.lockDirectory(dir)
        do {
            return try openLocked(dir, options: options, lock: lock)
        } catch {
            layer.unlock(lock)
            throw error
        }
    }

    private static func openLocked(_ dir: String, options: JournalOptions, lock: JournalFile) throws -> (Journal, Recovery) {
        let layer = options.fileLayer
        let scan: DirectoryScan
        switch try JournalScanner.scan(directory: dir, layer: layer, maxRecordSize: options.maxRecordSize) {
        case let .success(s): scan = s
        case let .failure(damaged): throw damaged.damage.error
        }

        // Repairs, each made durable before anything depends on it.
        var warnings = scan.warnings
        var namesChanged = false
        for temp in scan.tempFiles {
            try layer.remove(Paths.join(dir, temp))
            namesChanged = true
        }
        for covered in scan.coveredSegments {
            try layer.remove(covered)
            warnings.append("removed \(covered): the snapshot covers it (a compaction did not finish)")
            namesChanged = true
        }
        if let torn = scan.tornHeaderSegment {
            try layer.remove(torn)
            warnings.append("removed \(torn): its header was never completely written (torn segment creation)")
            namesChanged = true
        }
        if namesChanged { try layer.syncDirectory(dir) }

        var segments = scan.segments
        let truncated = scan.tornBytes
        // A torn tail goes, and so does a runway (it is written again as records need it).
        if let last = segments.last, last.fileSize > last.validEnd {
            let file = try layer.open(last.path, mode: .existing)
            defer { layer.close(file) }
            try layer.truncate(file, to: last.validEnd)
            try layer.sync(file)
            segments[segments.count - 1].fileSize = last.validEnd
        }

        let lastSequence = scan.lastSequence
        let nextSequence = lastSequence &+ 1
        var io: GroupCommitWriter.IO
        if let last = segments.last {
            let file = try layer.open(last.path, mode: .existing)
            // What recovery returns must be durable before anyone acts on it: a
            // previous process may have written these bytes and died (or failed
            // its fdatasync) before they reached the disk. If this sync fails,
            // open fails, and nothing recovered is used.
            do {
                try layer.sync(file)
            } catch {
                layer.close(file)
                throw error
            }
            io = GroupCommitWriter.IO(
                file: file, seed: Checksum.seed(salt: last.salt), size: last.validEnd, nextSequence: nextSequence)
        } else {
            let salt = randomSalt()
            let name = SegmentFormat.fileName(firstSequence: nextSequence)
            let path = Paths.join(dir, name)
            try layer.writeNewFile(path, SegmentFormat.encodeHeader(salt: salt, firstSequence: nextSequence), directory: dir)
            let file = try layer.open(path, mode: .existing)
            io = GroupCommitWriter.IO(
                file: file, seed: Checksum.seed(salt: salt), size: Int64(SegmentFormat.headerSize), nextSequence: nextSequence)
            segments.append(ScannedSegment(
                name: name, path: path, firstSequence: nextSequence, salt: salt,
                fileSize: Int64(SegmentFormat.headerSize), validEnd: Int64(SegmentFormat.headerSize),
                lastSequence: lastSequence, records: 0, transactions: 0))
        }

        io.syncedSize = io.size
        io.allocated = io.size
        let writer = GroupCommitWriter(
            layer: layer, directory: dir, options: options, io: io,
            segments: segments.map { SegmentRef(name: $0.name, path: $0.path, firstSequence: $0.firstSequence) })
        let journal = Journal(
            directory: dir, options: options, writer: writer, lock: lock, snapshotSequence: scan.baseSequence)
        let recovery = Recovery(base: scan.base, segments: segments, lastSequence: lastSequence, truncatedBytes: truncated,
                                warnings: warnings, layer: layer, maxRecordSize: options.maxRecordSize)
        return (journal, recovery)
    }

    static func normalize(_ directory: String) -> String {
        var d = Substring(directory)
        while d.count > 1 && d.hasSuffix("/") { d = d.dropLast() }
        return d.isEmpty ? "." : String(d)
    }

    // MARK: writing

    /// Appends a transaction: records that recovery returns all together or
    /// not at all. Returns the sequence number of its last record.
    ///
    /// Under `.always` it returns once `fdatasync` covered it; concurrent
    /// callers share that sync. Throws `.noSpace` while the disk is full (the
    /// next append tries again), or `.failed(cause:)` for good after a write or
    /// sync failure.
    public func append(_ transaction: [JournalRecord]) async throws -> UInt64 {
        let bytes = try framedSize(of: transaction)
        return try await writer.append(transaction, bytes: bytes)
    }

    /// Checks a transaction before it is queued and returns its framed size.
    private func framedSize(of transaction: [JournalRecord]) throws -> Int {
        guard !transaction.isEmpty else { throw JournalError.emptyTransaction }
        var bytes = 0
        for record in transaction {
            guard record.payload.count <= options.maxRecordSize else {
                throw JournalError.recordTooLarge(size: record.payload.count, limit: options.maxRecordSize)
            }
            bytes += FrameFormat.size(payload: record.payload.count)
        }
        return bytes
    }

    /// `append`, for a caller on a thread of its own (never the Swift
    /// concurrency pool): blocks until the transaction is acknowledged. Under
    /// `.interval` and `.never` an idle writer lets the caller do the write
    /// itself, with no thread hand-off at all.
    public func appendBlocking(_ transaction: [JournalRecord]) throws -> UInt64 {
        let bytes = try framedSize(of: transaction)
        if options.fsync != .always, let result = writer.tryInline(transaction, bytes: bytes) {
            return try result.get()
        }
        let result = Mutex<Result<UInt64, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task.detached { [writer] in
            do {
                let seq = try await writer.append(transaction, bytes: bytes)
                result.withLock { $0 = .success(seq) }
            } catch {
                result.withLock { $0 = .failure(error) }
            }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0! }.get()
    }

    /// `append` for a caller that goes on while the journal syncs (a
    /// pipelined bot): returns at once, and `done` is called on the writer's
    /// thread once the transaction is acknowledged under the fsync policy, or
    /// failed. Transactions are written and acknowledged in the order they
    /// were appended.
    public func append(_ transaction: [JournalRecord], done: @escaping @Sendable (Result<UInt64, JournalError>) -> Void) throws {
        let bytes = try framedSize(of: transaction)
        writer.append(transaction, bytes: bytes, done: done)
    }

    /// Appends a transaction nobody waits for, such as a record that the
    /// transport took a send: it is written in order with the others, and
    /// under `.always` synced with the next transaction somebody waits for,
    /// or within 50 ms. A power loss before that loses it, so it must be a
    /// record whose loss is safe (a send recorded again as pending is sent
    /// once more, with its id); a failure shows in the next append.
    public func appendLater(_ transaction: [JournalRecord]) throws {
        let bytes = try framedSize(of: transaction)
        writer.appendLater(transaction, bytes: bytes)
    }

    /// Appends a transaction of one record.
    public func append(_ record: JournalRecord) async throws -> UInt64 {
        try await append([record])
    }

    /// Returns once everything appended so far is durable (useful under
    /// `.interval` and `.never`).
    public func sync() async throws {
        try await writer.sync()
    }

    /// Seals the segment being written, after everything appended before this
    /// call, and starts a new one for everything appended after it. A snapshot
    /// covering through the last record before the seal can then delete every
    /// older segment, which is how compaction frees the active segment too.
    ///
    /// Returns at once: the writer thread does the roll (sync the old segment,
    /// create, sync and fsync the directory for the new one) and then calls
    /// `done` on its own thread with the sequence of the last record before
    /// the seal, which is what a snapshot of the state at the time of this call
    /// covers. An empty active segment is left as it is. A full disk reports
    /// `.noSpace` and later appends continue in the old segment; a failed sync
    /// puts the journal in its failed state.
    public func sealSegment(_ done: @escaping @Sendable (Result<UInt64, JournalError>) -> Void) {
        writer.seal(done)
    }

    /// `sealSegment(_:)`, awaited.
    @discardableResult
    public func sealSegment() async throws -> UInt64 {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<UInt64, any Error>) in
            writer.seal { c.resume(with: $0.mapError { $0 as any Error }) }
        }
    }

    /// Sequence number of the last record written to the segment file (under
    /// `.always` possibly not yet acknowledged).
    public var lastSequence: UInt64 { writer.lastWritten.load(ordering: .acquiring) }

    /// The failure that stopped this journal, if any.
    public var failure: JournalError? { writer.failure }

    /// Writes what is queued, syncs, stops the writer thread, waits for a
    /// snapshot in progress and releases the directory lock. Appends after
    /// this throw `.closed`.
    public func close() async throws {
        let first = closed.withLock { c -> Bool in
            defer { c = true }
            return !c
        }
        defer { releaseLock() }
        try await writer.close()
        if first && snapshotsUsed.load(ordering: .acquiring) {
            // Let a snapshot in progress finish before the lock goes.
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                snapshotQueue.async { done.resume() }
            }
        }
    }

    // MARK: snapshots

    /// Stores the layer above's compacted state as covering every transaction
    /// through `sequence` (which must be a value `append` returned), then
    /// deletes the segments and snapshots it makes obsolete.
    ///
    /// Order: the journal is synced through
    /// `sequence` first, then temp file, write, fsync, rename, fsync directory;
    /// only after that are covered segments and older snapshots removed.
    /// Blocking work runs on a private dispatch queue, not the Swift pool.
    public func writeSnapshot(_ bytes: [UInt8], coveringThrough sequence: UInt64) async throws {
        let written = lastSequence
        guard sequence <= written else {
            throw JournalError.invalidArgument("snapshot sequence \(sequence) is past the last written sequence \(written)")
        }
        let current = snapshotSequence.withLock { $0 }
        guard sequence >= current else {
            throw JournalError.invalidArgument("snapshot sequence \(sequence) is older than the current snapshot's \(current)")
        }
        snapshotsUsed.store(true, ordering: .releasing)
        try await writer.sync()
        let layer = options.fileLayer
        let dir = directory
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            snapshotQueue.async { [self] in
                do {
                    // `close` marks itself closed before draining this queue,
                    // so a snapshot either finishes before the lock goes or
                    // does not start.
                    guard !closed.withLock({ $0 }) else { throw JournalError.closed }
                    let stale = snapshotSequence.withLock { $0 }
                    guard sequence >= stale else {
                        throw JournalError.invalidArgument("snapshot sequence \(sequence) is older than the current snapshot's \(stale)")
                    }
                    try SnapshotFormat.write(bytes, sequence: sequence, directory: dir, layer: layer, piece: options.pieceBytes)
                    snapshotSequence.withLock { $0 = sequence }
                    try Self.removeObsolete(through: sequence, directory: dir, layer: layer, writer: writer, piece: options.pieceBytes)
                    done.resume()
                } catch {
                    done.resume(throwing: error)
                }
            }
        }
    }

    /// Deletes segments whose every record is covered by the snapshot at
    /// `sequence` (never the segment being written), and older snapshots.
    ///
    /// They are renamed out of the journal's names first (synced), then
    /// shrunk and removed a piece at a time (`removeInPieces`), so the
    /// journal's commits meanwhile never wait for a whole segment's blocks to
    /// be freed. A crash part-way leaves only `.obsolete` files, which open
    /// removes; never a shortened segment or snapshot under its own name. A
    /// removal that failed is finished by the next snapshot's.
    private static func removeObsolete(through sequence: UInt64, directory: String, layer: any FileLayer, writer: GroupCommitWriter, piece: Int) throws {
        let covered = writer.segments.withLock { segments -> [SegmentRef] in
            var drop = 0
            while drop + 1 < segments.count, segments[drop + 1].firstSequence &- 1 <= sequence {
                drop += 1
            }
            return Array(segments[..<drop])
        }
        var names = covered.map(\.name)
        // An earlier removal that failed part-way left `.obsolete` files: they go too.
        var leftovers: [String] = []
        for name in try layer.listDirectory(directory) {
            if name.hasSuffix(obsoleteSuffix) { leftovers.append(name); continue }
            guard let seq = SnapshotFormat.sequence(fileName: name), seq < sequence else { continue }
            names.append(name)
        }
        if !names.isEmpty {
            // A segment leaves the writer's list once renamed: one whose rename
            // failed keeps its name and its place, and the next removal covers
            // it again. (Dropped from the list unrenamed, it would stay on disk
            // as a segment whose successors are gone: a gap open refuses.)
            var renamed: Set<String> = []
            defer { writer.segments.withLock { $0.removeAll { renamed.contains($0.name) } } }
            for name in names {
                let path = Paths.join(directory, name)
                try layer.rename(path, to: path + obsoleteSuffix)
                renamed.insert(name)
            }
            try layer.syncDirectory(directory)
        }
        for name in leftovers + names.map({ $0 + obsoleteSuffix }) {
            try layer.removeInPieces(Paths.join(directory, name), piece: Int64(piece))
        }
    }

    /// What a file being removed is renamed to end with (`removeObsolete`).
    static let obsoleteSuffix = ".obsolete"
}
