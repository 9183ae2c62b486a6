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

    /// Sequence the transactions start after.
    public var snapshotSequence: UInt64 { snapshot?.sequence ?? 0 }

    /// A reader over the transactions after the snapshot.
    public func transactions() -> TransactionReader {
        TransactionReader(extents: extents, after: snapshotSequence, layer: layer, maxRecordSize: maxRecordSize)
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

/// Iterates recovered transactions. `next()` throws `JournalError.corrupt` if
/// a segment no longer matches what `open` validated.
public struct TransactionReader: Sendable {
    private let extents: [SegmentExtent]
    private let after: UInt64
    private let layer: any FileLayer
    private let maxRecordSize: Int
    private var index = 0
    private var buffer: [UInt8] = []
    private var offset = 0
    private var expected: UInt64 = 0
    private var seed: UInt32 = 0
    private var loaded = false

    init(extents: [SegmentExtent], after: UInt64, layer: any FileLayer, maxRecordSize: Int) {
        self.extents = extents
        self.after = after
        self.layer = layer
        self.maxRecordSize = maxRecordSize
    }

    /// Loads the next segment that has records after the snapshot; false at the end.
    private mutating func loadNext() throws -> Bool {
        while index < extents.count {
            let extent = extents[index]
            if extent.lastSequence <= after || extent.validEnd <= Int64(SegmentFormat.headerSize) {
                index += 1
                continue
            }
            let file = try layer.open(extent.path, mode: .existing)
            defer { layer.close(file) }
            let size = try layer.size(file)
            guard size >= extent.validEnd else {
                throw JournalError.corrupt(file: extent.path, offset: size, reason: "segment shrank to \(size) bytes after it was opened (it held \(extent.validEnd))")
            }
            let count = Int(extent.validEnd)
            var filled = 0
            buffer = try [UInt8](unsafeUninitializedCapacity: count) { raw, initialized in
                let bytes = UnsafeMutableRawBufferPointer(raw)
                while filled < count {
                    let n = try layer.read(file, into: UnsafeMutableRawBufferPointer(rebasing: bytes[filled...]), at: Int64(filled))
                    if n <= 0 { break }
                    filled += n
                }
                initialized = filled
            }
            guard filled == count else {
                throw JournalError.corrupt(file: extent.path, offset: Int64(filled), reason: "segment ended early while reading it back")
            }
            offset = SegmentFormat.headerSize
            expected = extent.firstSequence
            seed = Checksum.seed(salt: extent.salt)
            loaded = true
            return true
        }
        return false
    }

    private mutating func finishSegment() {
        loaded = false
        buffer = []
        index += 1
    }

    /// The next transaction after the snapshot, or nil at the end.
    public mutating func next() throws -> JournalTransaction? {
        while true {
            if !loaded {
                guard try loadNext() else { return nil }
            }
            if offset >= buffer.count {
                finishSegment()
                continue
            }
            let first = expected
            var records: [JournalRecord] = []
            var at = offset
            var seq = expected
            let path = extents[index].path
            let (seed, maxRecordSize) = (self.seed, self.maxRecordSize)
            try buffer.withUnsafeBytes { raw in
                while true {
                    switch FrameFormat.parse(raw, at: at, seed: seed, expected: seq, maxRecordSize: maxRecordSize) {
                    case let .frame(frame):
                        records.append(JournalRecord(
                            type: frame.type,
                            payload: Array(UnsafeRawBufferPointer(rebasing: raw[frame.payloadStart..<frame.end]))))
                        at = frame.end
                        seq &+= 1
                        if frame.commit { return }
                        if at >= raw.count {
                            throw JournalError.corrupt(file: path, offset: Int64(at), reason: "transaction has no commit record (the segment changed after it was opened)")
                        }
                    case let .bad(failure):
                        throw JournalError.corrupt(file: path, offset: Int64(at), reason: "\(failure.reason) (the segment changed after it was opened)")
                    }
                }
            }
            offset = at
            expected = seq
            if seq &- 1 <= after { continue }
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
            let (seed, maxRecordSize, after) = (self.seed, self.maxRecordSize, self.after)
            var at = offset
            var seq = expected
            try buffer.withUnsafeBytes { raw in
                while at < raw.count {
                    switch FrameFormat.parse(raw, at: at, seed: seed, expected: seq, maxRecordSize: maxRecordSize) {
                    case let .frame(frame):
                        if frame.sequence > after {
                            try body(frame.sequence, frame.type, UnsafeRawBufferPointer(rebasing: raw[frame.payloadStart..<frame.end]), frame.commit)
                        }
                        at = frame.end
                        seq &+= 1
                    case let .bad(failure):
                        throw JournalError.corrupt(file: path, offset: Int64(at), reason: "\(failure.reason) (the segment changed after it was opened)")
                    }
                }
            }
            offset = at
            expected = seq
            finishSegment()
        }
    }
}
