#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What `Journal.verify` found.
public struct JournalSummary: Sendable, Hashable {
    public var segments: Int
    /// Records in complete transactions (including those a snapshot covers).
    public var records: Int
    public var transactions: Int
    /// Sequence of the first record held in a segment (0 when none).
    public var firstSequence: UInt64
    /// Sequence of the last complete transaction (or the snapshot's).
    public var lastSequence: UInt64
    /// Bytes of all segment files.
    public var bytes: Int64
    public var snapshotSequence: UInt64?
    public var snapshotBytes: Int?
    /// Torn tail in the last segment that the next `open` will truncate.
    public var tornTailBytes: Int64
    public var warnings: [String]
    /// A last segment whose header is incomplete: a crash while it was made,
    /// or a copy cut short. The next `open` removes it.
    public var tornHeaderSegment: String? = nil
}

/// What `Journal.salvage` did.
public struct SalvageReport: Sendable {
    /// Each piece of damage it cut at, in the order found.
    public var damage: [JournalError]
    /// The `.broken` files it wrote (paths).
    public var brokenFiles: [String]
    /// Bytes moved out of segments into `.broken` files.
    public var bytesMoved: Int64
    /// The journal as it is now.
    public var summary: JournalSummary
}

extension Journal {
    /// Checks every snapshot and segment without changing anything. Returns
    /// a summary, or throws `JournalError.corrupt(file:offset:reason:)` for the
    /// first damage. A torn tail is not damage (it is reported in the summary).
    public static func verify(directory: String, options: JournalOptions = JournalOptions()) throws -> JournalSummary {
        let dir = normalize(directory)
        switch try JournalScanner.settledScan(directory: dir, layer: options.fileLayer, maxRecordSize: options.maxRecordSize) {
        case let .success(scan): return summary(scan)
        case let .failure(damaged): throw damaged.damage.error
        }
    }

    /// The journal as it is on disk, for reading its records: what `verify`
    /// checks, without the lock and without changing a byte (a torn tail stays
    /// where it is; the reader stops before it). Throws when the directory
    /// holds no journal, or the first damage, as `verify` does.
    public static func read(directory: String, options: JournalOptions = JournalOptions()) throws -> Recovery {
        let dir = normalize(directory)
        let layer = options.fileLayer
        if !layer.directoryExists(dir) { throw JournalError.io(operation: "open journal directory", path: dir, errno: ENOENT) }
        switch try JournalScanner.settledScan(directory: dir, layer: layer, maxRecordSize: options.maxRecordSize) {
        case let .failure(damaged): throw damaged.damage.error
        case let .success(scan):
            // A first segment whose creation a crash cut short is an empty journal, as open reads it.
            guard !scan.segments.isEmpty || scan.base != nil || scan.tornHeaderSegment != nil else {
                throw JournalError.noJournal(directory: dir)
            }
            return Recovery(base: scan.base, segments: scan.segments, lastSequence: scan.lastSequence, truncatedBytes: 0,
                            warnings: scan.warnings, layer: layer, maxRecordSize: options.maxRecordSize,
                            live: scan.listed.map { (directory: dir, files: $0) })
        }
    }

    static func summary(_ scan: DirectoryScan) -> JournalSummary {
        JournalSummary(
            segments: scan.segments.count,
            records: scan.segments.reduce(0) { $0 + $1.records },
            transactions: scan.segments.reduce(0) { $0 + $1.transactions },
            firstSequence: scan.segments.first(where: { $0.records > 0 })?.firstSequence ?? 0,
            lastSequence: scan.lastSequence,
            bytes: scan.segments.reduce(0) { $0 + $1.fileSize },
            snapshotSequence: scan.base?.sequence,
            snapshotBytes: scan.base?.payload.count,
            tornTailBytes: scan.tornBytes,
            warnings: scan.warnings,
            tornHeaderSegment: scan.tornHeaderSegment)
    }

    /// Explicit salvage: keeps everything before the first damage and moves
    /// the rest — the remainder of the damaged segment and every later segment,
    /// concatenated — into `<segment>.broken`; a damaged snapshot that cannot
    /// be bypassed is renamed to `<snapshot>.broken`. Repeats until the
    /// journal checks out, so `open` succeeds afterwards. Nothing is deleted
    /// that is not first durably copied.
    public static func salvage(directory: String, options: JournalOptions = JournalOptions()) throws -> SalvageReport {
        let layer = options.fileLayer
        let dir = normalize(directory)
        let lock = try layer.lockDirectory(dir)
        defer { layer.unlock(lock) }
        var report = SalvageReport(damage: [], brokenFiles: [], bytesMoved: 0, summary: JournalSummary(
            segments: 0, records: 0, transactions: 0, firstSequence: 0, lastSequence: 0, bytes: 0,
            snapshotSequence: nil, snapshotBytes: nil, tornTailBytes: 0, warnings: []))
        var rounds = 0
        while true {
            rounds += 1
            let outcome = try JournalScanner.scan(directory: dir, layer: layer, maxRecordSize: options.maxRecordSize)
            let damaged: DamagedScan
            switch outcome {
            case let .success(scan):
                report.summary = summary(scan)
                return report
            case let .failure(d):
                damaged = d
            }
            guard rounds <= damaged.segmentNames.count + 64 else { throw damaged.damage.error }
            report.damage.append(damaged.damage.error)
            let existing = Set(try layer.listDirectory(dir))
            switch damaged.damage.place {
            case let .snapshot(path):
                // Records after the snapshot build on it: without it (and with no
                // older one they follow), nothing could be kept. Left as it is, for
                // a backup to replace or the operator to move aside knowingly.
                let firstRecord = damaged.segmentNames.first.flatMap(SegmentFormat.firstSequence(fileName:)) ?? 1
                if firstRecord > (damaged.partial.base?.sequence ?? 0) + 1 {
                    throw JournalError.invalidArgument("""
                        the snapshot \(path) is damaged (\(damaged.damage.reason)), and every record after it builds on it: \
                        salvage would keep nothing, so it changed nothing. Restore the directory from a backup, \
                        or move it aside to start the bot with empty state
                        """)
                }
                let target = uniqueBrokenName(Paths.fileName(path), existing: existing)
                try layer.rename(path, to: Paths.join(dir, target))
                try layer.syncDirectory(dir)
                report.brokenFiles.append(Paths.join(dir, target))
            case let .segment(index, keepEnd):
                let names = damaged.segmentNames
                let keep = keepEnd >= Int64(SegmentFormat.headerSize) ? keepEnd : 0
                let target = uniqueBrokenName(names[index], existing: existing)
                let targetPath = Paths.join(dir, target)
                let tempPath = targetPath + SnapshotFormat.tempSuffix
                // 1. Copy the remainder and every later segment, durably.
                let out = try layer.open(tempPath, mode: .createTruncate)
                var written: Int64 = 0
                do {
                    for (k, name) in names[index...].enumerated() {
                        let bytes = try layer.readFile(Paths.join(dir, name))
                        let from = k == 0 ? Int(min(keep, Int64(bytes.count))) : 0
                        let n = try bytes.withUnsafeBytes { raw in
                            try layer.writeFully(out, UnsafeRawBufferPointer(rebasing: raw[from...]), at: written)
                        }
                        guard n == bytes.count - from else { throw JournalError.noSpace(path: tempPath, errno: 0) }
                        written += Int64(n)
                    }
                    try layer.sync(out)
                    layer.close(out)
                } catch {
                    layer.close(out)
                    try? layer.remove(tempPath)
                    throw error
                }
                try layer.rename(tempPath, to: targetPath)
                try layer.syncDirectory(dir)
                report.brokenFiles.append(targetPath)
                report.bytesMoved += written
                // 2. Only then cut the damaged segment and drop the later ones.
                let damagedPath = Paths.join(dir, names[index])
                if keep > 0 {
                    let file = try layer.open(damagedPath, mode: .existing)
                    defer { layer.close(file) }
                    try layer.truncate(file, to: keep)
                    try layer.sync(file)
                } else {
                    try layer.remove(damagedPath)
                }
                for name in names[(index + 1)...].reversed() {
                    try layer.remove(Paths.join(dir, name))
                }
                try layer.syncDirectory(dir)
            }
        }
    }

    private static func uniqueBrokenName(_ base: String, existing: Set<String>) -> String {
        var candidate = base + ".broken"
        var n = 1
        while existing.contains(candidate) || existing.contains(candidate + SnapshotFormat.tempSuffix) {
            candidate = base + ".\(n).broken"
            n += 1
        }
        return candidate
    }
}
