/// When an append counts as done.
public enum FsyncPolicy: Sendable, Hashable {
    /// `append` returns only after `fdatasync` covered the transaction. Concurrent appenders
    /// share one sync (group commit).
    case always
    /// `append` returns after `write`; the writer syncs at least every
    /// `milliseconds` ms while there is unsynced data. A power loss can lose up
    /// to that window, never more, and never a middle transaction.
    case interval(milliseconds: Int = 1000)
    /// `append` returns after `write`; the journal syncs only when it seals a
    /// segment, before a snapshot and on close.
    case never
}

/// Tuning and the file layer for one journal.
public struct JournalOptions: Sendable {
    public var fsync: FsyncPolicy
    /// A segment is sealed and a new one started once the next transaction
    /// would take it past this size. A single transaction larger than this
    /// gets a segment of its own.
    public var segmentSize: Int
    /// Largest payload of one record. Recovery checks every length against it
    /// before allocating, so opening a journal with a smaller
    /// value than it was written with reports the larger records as damage.
    public var maxRecordSize: Int
    /// Upper bound on the bytes one group-commit batch gathers before it is
    /// written; bounds the writer's buffer.
    public var maxBatchBytes: Int
    /// Under `.always`, zeros written ahead of the records (the runway), so
    /// that an append overwrites bytes the file already has: `fdatasync` then
    /// flushes only data, not the file's new size with it (on ext4 this takes
    /// the one-writer sync rate from about 7,200 to 10,900 a second). 0 turns
    /// it off. Recovery tells a runway (zeros to the end) from a torn tail.
    public var runwayBytes: Int
    /// How much of a large file goes to the device, or is freed, per step:
    /// a snapshot is written back and an obsolete segment or snapshot is
    /// freed a piece at a time, so a commit meanwhile waits for one piece at
    /// most, never the whole file.
    public var pieceBytes: Int
    /// Create the directory when it does not exist.
    public var createIfMissing: Bool
    /// The file operations the journal uses: `PosixFileLayer()` for real
    /// files, `SimulatedDisk` in tests.
    public var fileLayer: any FileLayer

    public init(
        fsync: FsyncPolicy = .always,
        segmentSize: Int = 64 << 20,
        maxRecordSize: Int = 1 << 20,
        maxBatchBytes: Int = 8 << 20,
        runwayBytes: Int = 1 << 20,
        pieceBytes: Int = 256 << 10,
        createIfMissing: Bool = true,
        fileLayer: any FileLayer = PosixFileLayer()
    ) {
        self.fsync = fsync
        self.segmentSize = segmentSize
        self.maxRecordSize = maxRecordSize
        self.maxBatchBytes = maxBatchBytes
        self.runwayBytes = runwayBytes
        self.pieceBytes = pieceBytes
        self.createIfMissing = createIfMissing
        self.fileLayer = fileLayer
    }

    func validate() throws {
        guard segmentSize >= SegmentFormat.headerSize + FrameFormat.headerSize else {
            throw JournalError.invalidArgument("segmentSize \(segmentSize) is too small")
        }
        guard maxRecordSize >= 0, maxRecordSize <= Int(UInt32.max) - FrameFormat.headerSize else {
            throw JournalError.invalidArgument("maxRecordSize \(maxRecordSize) out of range")
        }
        if case let .interval(ms) = fsync, ms <= 0 {
            throw JournalError.invalidArgument("fsync interval must be positive, got \(ms) ms")
        }
        guard runwayBytes >= 0 else {
            throw JournalError.invalidArgument("runwayBytes must not be negative")
        }
        guard pieceBytes > 0 else {
            throw JournalError.invalidArgument("pieceBytes must be positive")
        }
        guard maxBatchBytes > 0 else {
            throw JournalError.invalidArgument("maxBatchBytes must be positive")
        }
    }
}
