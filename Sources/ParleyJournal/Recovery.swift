/// The newest valid snapshot found on open.
public struct RecoveredSnapshot: Sendable, Hashable {
    /// Every transaction up to and including this sequence is in `bytes`.
    public let sequence: UInt64
    /// What the layer above passed to `writeSnapshot`.
    public let bytes: [UInt8]
}

/// Where one segment's validated bytes end; what the reader re-reads.
struct SegmentExtent: Sendable {
    var path: String
    var firstSequence: UInt64
    var lastSequence: UInt64
    var salt: UInt64
    var validEnd: Int64
}

/// What `Journal.open` recovered: the base snapshot and the complete
/// transactions after it, in order.
///
/// `open` has already checked every byte, so the transactions are exactly the
/// prefix of complete transactions that survived. The reader re-reads the
/// segments one at a time (memory stays at one segment) and re-checks every
/// checksum on the way, so a file changed underneath it is reported, not
/// returned. Consume it before calling `writeSnapshot`, which may delete the
/// segments it reads.
public struct Recovery: Sendable {
    /// The newest valid snapshot, or nil when the journal has none.
    public let snapshot: RecoveredSnapshot?
    /// Sequence of the last complete transaction (the snapshot's sequence when
    /// no transaction follows it; 0 for an empty journal).
    public let lastSequence: UInt64
    /// Bytes of torn tail removed from the last segment.
    public let truncatedBytes: Int64
    /// Things recovery worked around (a bad newest snapshot with an
    /// unambiguous fallback, a removed torn segment), for the log.
    public let warnings: [String]

    let extents: [SegmentExtent]
    let layer: any FileLayer
    let maxRecordSize: Int
    /// For a read without the lock: the directory and its files as scanned.
    let live: LiveRead?

    /// Over the scanned segments' complete transactions, after `base`.
    init(base: BaseSnapshot?, segments: [ScannedSegment], lastSequence: UInt64, truncatedBytes: Int64, warnings: [String],
         layer: any FileLayer, maxRecordSize: Int, live: LiveRead? = nil) {
        snapshot = base.map { RecoveredSnapshot(sequence: $0.sequence, bytes: $0.payload) }
        self.lastSequence = lastSequence
        self.truncatedBytes = truncatedBytes
        self.warnings = warnings
        extents = segments.map {
            SegmentExtent(path: $0.path, firstSequence: $0.firstSequence, lastSequence: $0.lastSequence, salt: $0.salt, validEnd: $0.validEnd)
        }
        self.layer = layer
        self.maxRecordSize = maxRecordSize
        self.live = live
    }

    /// Sequence the transactions start after.
    public var snapshotSequence: UInt64 { snapshot?.sequence ?? 0 }

    /// A reader over the transactions after the snapshot.
    public func transactions() -> TransactionReader {
        TransactionReader(extents: extents, after: snapshotSequence, layer: layer, maxRecordSize: maxRecordSize, live: live)
    }

    /// Calls `body` for each transaction after the snapshot, in order.
    public func forEachTransaction(_ body: (JournalTransaction) throws -> Void) throws {
        var reader = transactions()
        while let txn = try reader.next() { try body(txn) }
    }

    /// All transactions after the snapshot.
    public func allTransactions() throws -> [JournalTransaction] {
        var all: [JournalTransaction] = []
        try forEachTransaction { all.append($0) }
        return all
    }

    /// Zero-copy visit of every record after the snapshot: sequence, type,
    /// payload (valid only during the call) and whether it ends its
    /// transaction. Only records of complete transactions are visited, so a
    /// caller may apply them as they come.
    public func forEachRecord(
        _ body: (_ sequence: UInt64, _ type: UInt8, _ payload: UnsafeRawBufferPointer, _ endsTransaction: Bool) throws -> Void
    ) throws {
        var reader = transactions()
        try reader.visitRecords(body)
    }
}

/// A journal read without the lock, while a bot may write it: the files its
/// scan listed, so a failed read can tell a compaction under it from damage.
typealias LiveRead = (directory: String, files: [String])

/// Iterates recovered transactions. `next()` throws `JournalError.corrupt` if
/// a segment no longer matches what `open` validated. Reads through one
/// reused window of a few MiB, whatever the segment size.
public struct TransactionReader {
    private let extents: [SegmentExtent]
    private let after: UInt64
    private let maxRecordSize: Int
    private let window: FileWindow
    private var index = 0
    private var offset: Int64 = 0
    private var end: Int64 = 0
    private var expected: UInt64 = 0
    private var seed: UInt32 = 0
    private var loaded = false
    private let live: LiveRead?

    init(extents: [SegmentExtent], after: UInt64, layer: any FileLayer, maxRecordSize: Int, live: LiveRead? = nil) {
        self.live = live
        self.extents = extents
        self.after = after
        self.maxRecordSize = maxRecordSize
        self.window = FileWindow(layer: layer, maxFrame: FrameFormat.headerSize + maxRecordSize)
    }

    /// `error`, or `changedWhileRead` when a read without the lock failed
    /// because the files changed under it: a compaction renames, cuts and
    /// removes the segments it covers, which reads as a file gone or damaged.
    private func explained(_ error: any Error) -> any Error {
        guard let live, let now = try? JournalScanner.journalFiles(live.directory, layer: window.layer), now != live.files else { return error }
        return JournalError.changedWhileRead(directory: live.directory)
    }

    /// Attaches the next segment that has records after the snapshot; false at the end.
    private mutating func loadNext() throws -> Bool {
        do {
            return try attachNext()
        } catch {
            throw explained(error)
        }
    }

    private mutating func attachNext() throws -> Bool {
        while index < extents.count {
            let extent = extents[index]
            if extent.lastSequence <= after || extent.validEnd <= Int64(SegmentFormat.headerSize) {
                index += 1
                continue
            }
            let file = try window.layer.open(extent.path, mode: .readOnly)
            let size: Int64
            do {
                size = try window.layer.size(file)
            } catch {
                window.layer.close(file)
                throw error
            }
            guard size >= extent.validEnd else {
                window.layer.close(file)
                throw JournalError.corrupt(file: extent.path, offset: size, reason: "segment shrank to \(size) bytes after it was opened (it held \(extent.validEnd))")
            }
            // Only up to what open validated: the writer appends after it.
            window.attach(file, size: extent.validEnd)
            offset = Int64(SegmentFormat.headerSize)
            end = extent.validEnd
            expected = extent.firstSequence
            seed = Checksum.seed(salt: extent.salt)
            loaded = true
            return true
        }
        return false
    }

    private mutating func finishSegment() {
        loaded = false
        window.detach()
        index += 1
    }

    @inline(__always)
    private func frame(at: Int64, expected: UInt64, path: String) throws -> (FrameFormat.Decoded, UnsafeRawBufferPointer) {
        let view: UnsafeRawBufferPointer
        do {
            view = try window.view(at: at, length: Int(min(Int64(FrameFormat.headerSize + maxRecordSize), end - at)))
        } catch {
            throw explained(error)
        }
        switch FrameFormat.parse(view, at: 0, seed: seed, expected: expected, maxRecordSize: maxRecordSize) {
        case let .frame(frame):
            return (frame, view)
        case let .bad(failure):
            throw explained(JournalError.corrupt(file: path, offset: at, reason: "\(failure.reason) (the segment changed after it was opened)"))
        }
    }

    /// The next transaction after the snapshot, or nil at the end.
    public mutating func next() throws -> JournalTransaction? {
        while true {
            if !loaded {
                guard try loadNext() else { return nil }
            }
            if offset >= end {
                finishSegment()
                continue
            }
            let path = extents[index].path
            let first = expected
            var records: [JournalRecord] = []
            while true {
                let (frame, view) = try frame(at: offset, expected: expected, path: path)
                records.append(JournalRecord(
                    type: frame.type,
                    payload: Array(UnsafeRawBufferPointer(rebasing: view[frame.payloadStart..<frame.end]))))
                offset += Int64(frame.end)
                expected &+= 1
                if frame.commit { break }
                if offset >= end {
                    throw explained(JournalError.corrupt(file: path, offset: offset, reason: "transaction has no commit record (the segment changed after it was opened)"))
                }
            }
            if expected &- 1 <= after { continue }
            return JournalTransaction(firstSequence: first, records: records)
        }
    }

    mutating func visitRecords(
        _ body: (_ sequence: UInt64, _ type: UInt8, _ payload: UnsafeRawBufferPointer, _ endsTransaction: Bool) throws -> Void
    ) throws {
        while true {
            if !loaded {
                guard try loadNext() else { return }
            }
            let path = extents[index].path
            while offset < end {
                let (frame, view) = try frame(at: offset, expected: expected, path: path)
                if frame.sequence > after {
                    try body(frame.sequence, frame.type, UnsafeRawBufferPointer(rebasing: view[frame.payloadStart..<frame.end]), frame.commit)
                }
                offset += Int64(frame.end)
                expected &+= 1
            }
            finishSegment()
        }
    }
}
