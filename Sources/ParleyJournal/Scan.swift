#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What one segment file holds, as far as it is valid.
struct ScannedSegment: Sendable {
    var name: String
    var path: String
    var firstSequence: UInt64
    var salt: UInt64
    var fileSize: Int64
    /// End of the last complete transaction. Equal to `fileSize` for a clean
    /// segment; smaller for a last segment with a torn tail.
    var validEnd: Int64
    /// Sequence of the last record of the last complete transaction, or
    /// `firstSequence - 1` when there is none.
    var lastSequence: UInt64
    var records: Int
    var transactions: Int
    /// Zeros at the end of the last segment, written ahead of the records
    /// (`JournalOptions.runwayBytes`): not a torn write, nothing lost.
    var runway: Int64 = 0
}

/// Bytes that no torn write can explain.
struct Damage: Error {
    enum Place {
        /// In segment `index` (of the sorted segment list), or a sequence gap
        /// in front of it. `keepEnd` is where its good prefix ends (0 when
        /// nothing of it can be kept).
        case segment(index: Int, keepEnd: Int64)
        /// A snapshot (at `path`) that is bad or does not fit the segments.
        case snapshot(path: String)
    }

    var path: String
    var offset: Int64
    var reason: String
    var place: Place

    var error: JournalError { .corrupt(file: path, offset: offset, reason: reason) }
}

/// Scan of one segment's bytes.
enum SegmentScanner {
    enum Outcome {
        case ok(ScannedSegment)
        /// The last segment's header never made it to disk (a crash while the
        /// segment was being created, before anything was written into it).
        case tornHeader
        case damaged(offset: Int64, reason: String, keepEnd: Int64)
    }

    /// Validates the segment attached to `window`. `isLast` selects the
    /// torn-tail rules: only the last segment may end in a torn write.
    /// `boundary`, when given, is a snapshot sequence that must not fall inside
    /// a transaction; the offset of a transaction that straddles it is returned.
    static func scan(
        _ window: FileWindow, name: String, path: String, firstSequence: UInt64,
        isLast: Bool, maxRecordSize: Int, boundary: UInt64?
    ) throws -> (Outcome, straddle: Int64?) {
        let size = Int(window.size)
        let header: SegmentFormat.Header
        let headerView = try window.view(at: 0, length: min(size, SegmentFormat.headerSize + FrameFormat.headerSize))
        switch SegmentFormat.decodeHeader(
            UnsafeRawBufferPointer(rebasing: headerView.prefix(SegmentFormat.headerSize)), expectedFirst: firstSequence) {
        case let .success(h):
            header = h
        case let .failure(problem):
            if isLast, !recordsFollowHeader(headerView, fileSize: size, firstSequence: firstSequence, maxRecordSize: maxRecordSize),
               try onlyZerosPastTheHeadersBlock(window, size: size) {
                return (.tornHeader, nil)
            }
            return (.damaged(offset: problem.offset, reason: problem.reason, keepEnd: 0), nil)
        }
        let seed = Checksum.seed(salt: header.salt)
        let maxFrame = FrameFormat.headerSize + maxRecordSize
        var offset = SegmentFormat.headerSize
        var expected = firstSequence
        var transactions = 0
        var lastCommitEnd = offset
        var lastCommitSequence = firstSequence &- 1
        var transactionStart = offset
        var transactionFirst = firstSequence
        var straddle: Int64?
        var failure: FrameFormat.Failure?
        while offset < size {
            let view = try window.view(at: Int64(offset), length: min(maxFrame, size - offset))
            switch FrameFormat.parse(view, at: 0, seed: seed, expected: expected, maxRecordSize: maxRecordSize) {
            case let .frame(frame):
                expected = expected &+ 1
                offset += frame.end
                if frame.commit {
                    transactions += 1
                    if let b = boundary, straddle == nil, transactionFirst <= b, b < frame.sequence {
                        straddle = Int64(transactionStart)
                    }
                    lastCommitEnd = offset
                    lastCommitSequence = frame.sequence
                    transactionStart = offset
                    transactionFirst = expected
                }
            case let .bad(f):
                failure = f
            }
            if failure != nil { break }
        }
        let committedRecords = Int(lastCommitSequence &- (firstSequence &- 1))
        var segment = ScannedSegment(
            name: name, path: path, firstSequence: firstSequence, salt: header.salt,
            fileSize: Int64(size), validEnd: Int64(lastCommitEnd), lastSequence: lastCommitSequence,
            records: committedRecords, transactions: transactions)
        if let failure {
            let badOffset = offset
            if !isLast {
                return (.damaged(offset: Int64(badOffset), reason: "\(failure.reason) in a sealed segment", keepEnd: Int64(lastCommitEnd)), straddle)
            }
            let tail = try window.remainder(from: Int64(badOffset))
            if !tail.contains(where: { $0 != 0 }) {
                segment.runway = Int64(tail.count)
                return (.ok(segment), straddle)
            }
            switch failure {
            case .unknownFlags, .wrongSequence:
                // The checksum matched: these bytes were written whole, so this
                // is not a torn write.
                return (.damaged(offset: Int64(badOffset), reason: failure.reason, keepEnd: Int64(lastCommitEnd)), straddle)
            default:
                break
            }
            let later = tail.withUnsafeBytes {
                validFrame(after: 0, in: $0, seed: seed, expected: expected, maxRecordSize: maxRecordSize)
            }
            if let later {
                return (.damaged(
                    offset: Int64(badOffset),
                    reason: "\(failure.reason), but a valid record follows at offset \(badOffset + later)",
                    keepEnd: Int64(lastCommitEnd)), straddle)
            }
            return (.ok(segment), straddle)
        }
        if lastCommitEnd < size && !isLast {
            return (.damaged(
                offset: Int64(transactionStart),
                reason: "sealed segment ends inside a transaction (records from sequence \(transactionFirst) have no commit)",
                keepEnd: Int64(lastCommitEnd)), straddle)
        }
        return (.ok(segment), straddle)
    }

    /// After a bad frame in the last segment: the first offset holding a frame
    /// that validates with this segment's salt and a plausible sequence number.
    static func validFrame(after bad: Int, in buf: UnsafeRawBufferPointer, seed: UInt32, expected: UInt64, maxRecordSize: Int) -> Int? {
        let size = buf.count
        guard size - bad > FrameFormat.headerSize else { return nil }
        let most = UInt64((size - bad) / FrameFormat.headerSize)
        let (upper, overflow) = expected.addingReportingOverflow(most)
        let range = expected...(overflow ? UInt64.max : upper)
        var p = bad + 1
        while p + FrameFormat.headerSize <= size {
            if FrameFormat.validFrameExists(buf, at: p, seed: seed, sequences: range, maxRecordSize: maxRecordSize) {
                return p
            }
            p += 1
        }
        return nil
    }

    /// The block a header is written in: a torn write of it can leave any
    /// bytes up to its end, but none past it.
    static let headerBlock = 4096

    /// Evidence that records were written after a header that no longer
    /// validates: the first frame slot carries this segment's first sequence
    /// number and a length that fits. Records are only ever written after the
    /// header is durable, so without such evidence a bad header in the last
    /// segment is a segment whose creation was torn.
    static func recordsFollowHeader(_ buf: UnsafeRawBufferPointer, fileSize: Int, firstSequence: UInt64, maxRecordSize: Int) -> Bool {
        let at = SegmentFormat.headerSize
        guard buf.count >= at + FrameFormat.headerSize else { return false }
        let length = Int(buf.le32(at))
        return buf.le64(at + 10) == firstSequence
            && length <= maxRecordSize
            && length <= fileSize - at - FrameFormat.headerSize
    }

    /// Whether nothing but zeros (the runway, or nothing at all) lies past
    /// the header's block. A torn creation leaves nothing more, as records
    /// are only ever written after the header is durable; other bytes there
    /// were written after a good header (a first block zeroed or overwritten
    /// over a megabyte of records), so the file is damaged, never removed.
    static func onlyZerosPastTheHeadersBlock(_ window: FileWindow, size: Int) throws -> Bool {
        var offset = max(SegmentFormat.headerSize, headerBlock)
        while offset < size {
            let view = try window.view(at: Int64(offset), length: min(1 << 16, size - offset))
            if view.contains(where: { $0 != 0 }) { return false }
            offset += view.count
        }
        return true
    }
}

/// The newest usable snapshot.
struct BaseSnapshot: Sendable {
    var name: String
    var path: String
    var sequence: UInt64
    var payload: [UInt8]
}

/// A whole journal directory, checked.
struct DirectoryScan {
    var directory: String
    var segments: [ScannedSegment] = []
    /// Path of a last segment whose creation was torn; open removes it.
    var tornHeaderSegment: String?
    /// Paths of segments the base snapshot covers whole (a crash during a
    /// compaction left them): not read, as nothing in them is needed, so
    /// damage in them stops nobody; open removes them.
    var coveredSegments: [String] = []
    var base: BaseSnapshot?
    /// Snapshot names other than the base (older ones, or a bad newer one
    /// when an older one was used).
    var otherSnapshots: [String] = []
    var tempFiles: [String] = []
    var warnings: [String] = []
    /// The directory's files as a reader without the lock listed them before
    /// this scan (`settledScan`); nil for a scan under the lock.
    var listed: [String]?

    var baseSequence: UInt64 { base?.sequence ?? 0 }

    /// Bytes after the last complete transaction of the last segment.
    var tornBytes: Int64 {
        guard let last = segments.last else { return 0 }
        return last.fileSize - last.validEnd - last.runway
    }

    var lastSequence: UInt64 {
        segments.last?.lastSequence ?? baseSequence
    }
}

/// What a failed scan found, with the good part for `salvage`.
struct DamagedScan: Error {
    var damage: Damage
    /// Every segment file name, sorted by first sequence.
    var segmentNames: [String]
    var partial: DirectoryScan
}

enum JournalScanner {
    /// `scan` for a reader without the lock (`verify`, `read`). A running bot
    /// may be appending to the last segment while it is read, so a scan can
    /// see a record still zero and, read again, the one after it written; or
    /// a compaction may rename, cut and remove files under it. So damage is
    /// believed only when the directory lists the same files after the scan
    /// as before it (a compaction or a new segment changes the list) and, in
    /// the last segment, when the next scan finds it at the same place.
    static func settledScan(directory: String, layer: any FileLayer, maxRecordSize: Int) throws -> Result<DirectoryScan, DamagedScan> {
        var previous: Damage?
        var attempt = 0
        while true {
            attempt += 1
            let before = try journalFiles(directory, layer: layer)
            let outcome: Result<DirectoryScan, DamagedScan>
            do {
                outcome = try scan(directory: directory, layer: layer, maxRecordSize: maxRecordSize)
            } catch let JournalError.io(_, _, errno) where errno == ENOENT && attempt < 6 {
                previous = nil
                continue
            }
            guard case let .failure(damaged) = outcome else {
                return outcome.map { var scan = $0; scan.listed = before; return scan }
            }
            if attempt < 6, try journalFiles(directory, layer: layer) != before {
                previous = nil
                continue
            }
            let d = damaged.damage
            guard case .segment(let index, _) = d.place, index == damaged.segmentNames.count - 1, attempt < 6 else { return outcome }
            if let p = previous, p.path == d.path, p.offset == d.offset { return outcome }
            previous = d
        }
    }

    /// The directory's file names, sorted: what a compaction or a new segment
    /// changes, so a reader can tell the journal moved under it from damage.
    static func journalFiles(_ directory: String, layer: any FileLayer) throws -> [String] {
        try layer.listDirectory(directory).sorted()
    }

    /// Reads and checks every snapshot and segment in `directory`.
    /// Throws `JournalError.io` when a file cannot be read; returns damage as
    /// `.failure` so `salvage` can act on it.
    static func scan(directory: String, layer: any FileLayer, maxRecordSize: Int) throws -> Result<DirectoryScan, DamagedScan> {
        var result = DirectoryScan(directory: directory)
        var segmentFiles: [(UInt64, String)] = []
        var snapshotFiles: [(UInt64, String)] = []
        for name in try layer.listDirectory(directory) {
            if let first = SegmentFormat.firstSequence(fileName: name), first > 0 {
                segmentFiles.append((first, name))
            } else if let seq = SnapshotFormat.sequence(fileName: name) {
                snapshotFiles.append((seq, name))
            } else if name.hasSuffix(SnapshotFormat.suffix + SnapshotFormat.tempSuffix)
                        || name.hasSuffix(".broken" + SnapshotFormat.tempSuffix)
                        || name.hasSuffix(Journal.obsoleteSuffix) {
                // Our own half-written temp files (snapshot, salvage copy) and
                // half-removed obsolete ones.
                result.tempFiles.append(name)
            }
        }
        segmentFiles.sort { $0.0 < $1.0 }
        snapshotFiles.sort { $0.0 > $1.0 }
        let segmentNames = segmentFiles.map(\.1)

        // Snapshots, newest first: the newest one, and the newest valid one.
        var newestProblem: Damage?
        var newestSequence: UInt64?
        for (index, (seq, name)) in snapshotFiles.enumerated() {
            let path = Paths.join(directory, name)
            let bytes = try layer.readFile(path)
            let outcome = bytes.withUnsafeBytes { SnapshotFormat.validate($0, expectedSequence: seq) }
            switch outcome {
            case let .success(range):
                if result.base == nil {
                    result.base = BaseSnapshot(name: name, path: path, sequence: seq, payload: Array(bytes[range]))
                } else {
                    result.otherSnapshots.append(name)
                }
            case let .failure(problem):
                if index == 0 {
                    newestProblem = Damage(path: path, offset: problem.offset, reason: problem.reason, place: .snapshot(path: path))
                    newestSequence = seq
                }
                result.otherSnapshots.append(name)
            }
            if result.base != nil && index + 1 < snapshotFiles.count {
                // Older snapshots are obsolete; their contents do not matter.
                result.otherSnapshots.append(contentsOf: snapshotFiles[(index + 1)...].map(\.1))
                break
            }
        }

        func fail(_ damage: Damage) -> Result<DirectoryScan, DamagedScan> {
            .failure(DamagedScan(damage: damage, segmentNames: segmentNames, partial: result))
        }

        // Segments, oldest first, through one reused window.
        let boundary = result.base?.sequence
        let window = FileWindow(layer: layer, maxFrame: FrameFormat.headerSize + maxRecordSize)
        var straddle: (String, Int64)?
        for (index, (first, name)) in segmentFiles.enumerated() {
            let path = Paths.join(directory, name)
            let isLast = index == segmentFiles.count - 1
            // The next segment starts at or below the snapshot's sequence + 1: this one is covered.
            if let base = result.base, !isLast, segmentFiles[index + 1].0 &- 1 <= base.sequence, result.segments.isEmpty {
                result.coveredSegments.append(path)
                continue
            }
            if let previous = result.segments.last, first != previous.lastSequence &+ 1 {
                return fail(Damage(
                    path: path, offset: 0,
                    reason: "sequence gap: the previous segment \(previous.name) ends at sequence \(previous.lastSequence) but this segment starts at \(first)",
                    place: .segment(index: index, keepEnd: 0)))
            }
            let file = try layer.open(path, mode: .readOnly)
            let size: Int64
            do {
                size = try layer.size(file)
            } catch {
                layer.close(file)
                throw error
            }
            window.attach(file, size: size)
            let (outcome, straddleOffset) = try SegmentScanner.scan(
                window, name: name, path: path, firstSequence: first, isLast: isLast,
                maxRecordSize: maxRecordSize, boundary: boundary)
            window.detach()
            if let at = straddleOffset, straddle == nil { straddle = (path, at) }
            switch outcome {
            case let .ok(segment):
                result.segments.append(segment)
            case .tornHeader:
                result.tornHeaderSegment = path
            case let .damaged(offset, reason, keepEnd):
                return fail(Damage(path: path, offset: offset, reason: reason, place: .segment(index: index, keepEnd: keepEnd)))
            }
        }

        // A bad newest snapshot: fall back to an older valid one only when the
        // segments alone bridge from it to past the bad one (unambiguous).
        if let problem = newestProblem {
            guard let base = result.base, let badSeq = newestSequence,
                  let first = result.segments.first, first.firstSequence <= base.sequence &+ 1,
                  result.lastSequence >= badSeq
            else {
                return fail(problem)
            }
            result.warnings.append("\(problem.error.description); using the older snapshot \(base.name) and the journal after it instead")
        }

        let s = result.baseSequence
        if let first = result.segments.first, first.firstSequence > s &+ 1 {
            let reason = result.base == nil
                ? "the journal starts at sequence \(first.firstSequence) but there is no snapshot covering the sequences before it"
                : "the journal starts at sequence \(first.firstSequence) but the snapshot \(result.base!.name) covers only through \(s)"
            return fail(Damage(path: first.path, offset: 0, reason: reason, place: .segment(index: 0, keepEnd: 0)))
        }
        if let base = result.base, !result.segments.isEmpty, result.lastSequence < base.sequence {
            return fail(Damage(
                path: base.path, offset: 16,
                reason: "snapshot covers through sequence \(base.sequence) but the journal ends at \(result.lastSequence)",
                place: .snapshot(path: base.path)))
        }
        if let base = result.base, let (path, offset) = straddle.map({ ($0.0, $0.1) }) {
            return fail(Damage(
                path: path, offset: offset,
                reason: "snapshot \(base.name) ends in the middle of the transaction at this offset",
                place: .snapshot(path: base.path)))
        }
        return .success(result)
    }
}
