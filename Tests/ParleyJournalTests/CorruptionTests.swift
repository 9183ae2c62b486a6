import Testing
@testable import ParleyJournal

/// Notes: "Bit flips in sealed segments and snapshots: always detected,
/// never returned as data", and damage that is not a torn tail refuses to
/// open, naming the file and offset.
@Suite struct CorruptionTests {
    /// A journal of several sealed 1 KiB segments and a live last one.
    static func build(_ dir: String, snapshot: Bool = false) async throws -> [JournalTransaction] {
        var random = SeededRandom(seed: 21)
        var txns: [JournalTransaction] = []
        let (journal, _) = try Journal.open(directory: dir, options: JournalOptions(fsync: .never, segmentSize: 1024))
        for id in 0..<40 {
            let txn = makeTransaction(id: UInt64(id), records: Int.random(in: 1...3, using: &random), sizes: 0...120, random: &random)
            let last = try await journal.append(txn)
            txns.append(JournalTransaction(firstSequence: last - UInt64(txn.count) + 1, records: txn))
        }
        if snapshot {
            let payload = (0..<100).map { UInt8($0) }
            try await journal.writeSnapshot(payload, coveringThrough: txns[4].lastSequence)
        }
        try await journal.close()
        return txns
    }

    static func expectCorrupt(_ dir: String, file: String, _ comment: String, open alsoOpen: Bool) {
        do {
            _ = try Journal.verify(directory: dir)
            Issue.record("verify accepted damage: \(comment)")
        } catch let error as JournalError {
            #expect(error.corruptLocation?.file == file, "\(comment): \(error)")
            #expect(error.description.contains(file) && error.description.contains("offset"), "\(comment)")
        } catch {
            Issue.record("unexpected error \(error)")
        }
        guard alsoOpen else { return }
        do {
            let (journal, _) = try Journal.open(directory: dir, options: JournalOptions(fsync: .never, segmentSize: 1024))
            Issue.record("open accepted damage: \(comment)")
            _ = journal
        } catch let error as JournalError {
            #expect(error.corruptLocation?.file == file, "\(comment): \(error)")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    /// A last segment whose first block was zeroed or overwritten, over
    /// records written after it, is damage: never taken for a segment whose
    /// creation was torn, which open would remove with its records.
    @Test func aDamagedFirstBlockOverRecordsIsNeverATornCreation() async throws {
        try await withTempDirectory("first-block") { dir in
            let (journal, _) = try Journal.open(directory: dir, options: JournalOptions(fsync: .never))
            for i in 0..<100 { _ = try await journal.append([JournalRecord(type: 1, payload: Array(repeating: UInt8(i), count: 200))]) }
            try await journal.close()
            let name = try segmentNames(dir).last!
            var bytes = try readBytes(dir + "/" + name)
            #expect(bytes.count > 3 * 4096)
            for zeroed in [true, false] {
                var damaged = bytes
                for i in 0..<4096 { damaged[i] = zeroed ? 0 : UInt8(truncatingIfNeeded: i &* 31 &+ 7) }
                try writeBytes(dir + "/" + name, damaged)
                Self.expectCorrupt(dir, file: dir + "/" + name, zeroed ? "first block zeroed" : "first block overwritten", open: true)
                #expect(try readBytes(dir + "/" + name) == damaged, "the segment is left as it was")
            }
            bytes = []
        }
    }

    /// A segment the snapshot covers whole, left behind by a crash during a
    /// compaction, holds nothing needed: damage in it stops nobody, salvage
    /// keeps the snapshot and what follows, and open removes the file.
    @Test func damageInACoveredSegmentCostsNothing() async throws {
        try await withTempDirectory("covered") { dir in
            let options = JournalOptions(fsync: .never, segmentSize: 4096)
            let (journal, _) = try Journal.open(directory: dir, options: options)
            for i in 0..<60 { _ = try await journal.append([JournalRecord(type: 1, payload: Array(repeating: UInt8(i), count: 100))]) }
            let first = try segmentNames(dir).first!
            let old = try readBytes(dir + "/" + first)
            _ = try await journal.writeSnapshot(Array("state".utf8), coveringThrough: 60)
            for i in 60..<65 { _ = try await journal.append([JournalRecord(type: 1, payload: [UInt8(i)])]) }
            try await journal.close()
            // The compaction removed the segments it covers; put the first back, damaged.
            let left = try segmentNames(dir)
            #expect(!left.contains(first))
            var damaged = old
            damaged[old.count / 2] ^= 0xFF
            try writeBytes(dir + "/" + first, damaged)
            let summary = try Journal.verify(directory: dir, options: options)
            #expect(summary.snapshotSequence == 60 && summary.lastSequence == 65, "\(summary)")
            let report = try Journal.salvage(directory: dir, options: options)
            #expect(report.brokenFiles.isEmpty && report.damage.isEmpty, "\(report)")
            let (reopened, recovery) = try Journal.open(directory: dir, options: options)
            let after = try recovery.allTransactions().count
            #expect(recovery.snapshotSequence == 60 && after == 5)
            #expect(recovery.warnings.contains { $0.contains("the snapshot covers it") }, "\(recovery.warnings)")
            let remaining = try segmentNames(dir)
            #expect(!remaining.contains(first))
            try await reopened.close()
        }
    }

    /// Verifying and reading change nothing, so they need nothing but
    /// reading: a read-only mount, a backup, a user who may only read.
    @Test func verifyAndReadNeedOnlyToRead() async throws {
        let disk = SimulatedDisk(seed: 31)
        let (journal, _) = try Journal.open(directory: "/j", options: JournalOptions(fsync: .never, segmentSize: 4096, fileLayer: disk))
        for i in 0..<60 { _ = try await journal.append([JournalRecord(type: 1, payload: Array(repeating: UInt8(i), count: 100))]) }
        _ = try await journal.writeSnapshot(Array("s".utf8), coveringThrough: 30)
        for i in 60..<70 { _ = try await journal.append([JournalRecord(type: 1, payload: [UInt8(i)])]) }
        try await journal.close()
        let options = JournalOptions(fileLayer: HookedDisk(disk: disk, readOnly: true))
        let summary = try Journal.verify(directory: "/j", options: options)
        #expect(summary.lastSequence == 70 && summary.snapshotSequence == 30, "\(summary)")
        let recovery = try Journal.read(directory: "/j", options: options)
        #expect(try recovery.allTransactions().count == 40)
    }

    @Test func bitFlipsInSealedSegmentsAreDetected() async throws {
        try await withTempDirectory("bitflip") { dir in
            _ = try await Self.build(dir)
            let names = try segmentNames(dir)
            #expect(names.count >= 4)
            var random = SeededRandom(seed: 22)
            var flips = 0
            for name in names.dropLast() {
                let path = dir + "/" + name
                let original = try readBytes(path)
                // Every byte of the first sealed segment, every third of the rest.
                let step = name == names.first ? 1 : 3
                for position in stride(from: 0, to: original.count, by: step) {
                    var bytes = original
                    bytes[position] ^= UInt8(1) << UInt8.random(in: 0...7, using: &random)
                    try writeBytes(path, bytes)
                    Self.expectCorrupt(dir, file: path, "flip at \(name):\(position)", open: position % 50 == 0)
                    flips += 1
                }
                try writeBytes(path, original)
            }
            #expect(flips > 1000)
            #expect(throws: Never.self) { _ = try Journal.verify(directory: dir) }
        }
    }

    @Test func bitFlipsInTheLastSegmentNeverReturnAlteredData() async throws {
        try await withTempDirectory("bitflip-last") { dir in
            let txns = try await Self.build(dir)
            let path = dir + "/" + (try segmentNames(dir)).last!
            let original = try readBytes(path)
            var random = SeededRandom(seed: 23)
            for position in stride(from: 0, to: original.count, by: 5) {
                var bytes = original
                bytes[position] ^= UInt8(1) << UInt8.random(in: 0...7, using: &random)
                try writeBytes(path, bytes)
                // Either refused, or a prefix of the truth (a flip in the last
                // transaction's bytes looks like a torn tail).
                if let (journal, recovery) = try? Journal.open(directory: dir, options: JournalOptions(fsync: .never, segmentSize: 1024)) {
                    let got = try recovery.allTransactions()
                    #expect(got == Array(txns.prefix(got.count)), "flip at \(position)")
                    try await journal.close()
                }
                try writeBytes(path, original)
            }
        }
    }

    @Test func bitFlipsInSnapshotsAreDetected() async throws {
        try await withTempDirectory("bitflip-snap") { dir in
            _ = try await Self.build(dir, snapshot: true)
            let name = try listFiles(dir).first { $0.hasPrefix("snapshot-") }!
            let path = dir + "/" + name
            let original = try readBytes(path)
            for position in 0..<original.count {
                for bit in 0..<8 {
                    var bytes = original
                    bytes[position] ^= UInt8(1) << UInt8(bit)
                    try writeBytes(path, bytes)
                    Self.expectCorrupt(dir, file: path, "snapshot flip at \(position).\(bit)", open: bit == 0 && position % 10 == 0)
                }
            }
            // A checksum cannot say which byte changed: the error names the bytes it covers.
            var flipped = original
            flipped[original.count - 1] ^= 1
            try writeBytes(path, flipped)
            #expect(throws: JournalError.corrupt(file: path, offset: 36, reason: """
                snapshot checksum mismatch (the checksum at byte 36 covers bytes 0–35 and 40–\(original.count - 1); \
                one of them, or the checksum, changed)
                """)) { _ = try Journal.verify(directory: dir) }
            // Truncated and extended snapshots too.
            for cut in [0, 1, 39, 40, original.count - 1] {
                try writeBytes(path, Array(original[0..<cut]))
                Self.expectCorrupt(dir, file: path, "snapshot cut at \(cut)", open: true)
            }
            try writeBytes(path, original + [0])
            Self.expectCorrupt(dir, file: path, "snapshot with a trailing byte", open: true)
            try writeBytes(path, original)
            #expect(try Journal.verify(directory: dir).snapshotSequence != nil)
        }
    }

    @Test func sequenceGapAndMissingStartAreRefused() async throws {
        try await withTempDirectory("gap") { dir in
            _ = try await Self.build(dir)
            let names = try segmentNames(dir)
            // A missing middle segment.
            let middle = try readBytes(dir + "/" + names[2])
            removeFile(dir + "/" + names[2])
            Self.expectCorrupt(dir, file: dir + "/" + names[3], "missing segment", open: true)
            try writeBytes(dir + "/" + names[2], middle)
            // A missing first segment with no snapshot covering it.
            let first = try readBytes(dir + "/" + names[0])
            removeFile(dir + "/" + names[0])
            Self.expectCorrupt(dir, file: dir + "/" + names[1], "missing first segment", open: true)
            try writeBytes(dir + "/" + names[0], first)
            // A valid record after a bad one in the last segment is damage, not a torn tail.
            let lastPath = dir + "/" + names.last!
            let last = try readBytes(lastPath)
            var bytes = last
            bytes[SegmentFormat.headerSize + 5] ^= 0x10 // the first frame's CRC
            try writeBytes(lastPath, bytes)
            Self.expectCorrupt(dir, file: lastPath, "valid record after a bad one", open: true)
            try writeBytes(lastPath, last)
            #expect(throws: Never.self) { _ = try Journal.verify(directory: dir) }
        }
    }

    @Test func badNewestSnapshotFallsBackOnlyWhenUnambiguous() async throws {
        try await withTempDirectory("fallback") { dir in
            // One big segment: snapshots delete no segments, so an older
            // snapshot plus the segments still rebuild everything.
            let options = JournalOptions(fsync: .never)
            var random = SeededRandom(seed: 24)
            var txns: [JournalTransaction] = []
            let (journal, _) = try Journal.open(directory: dir, options: options)
            func add(_ n: Int) async throws {
                for _ in 0..<n {
                    let txn = makeTransaction(id: UInt64(txns.count), records: 2, sizes: 10...50, random: &random)
                    let last = try await journal.append(txn)
                    txns.append(JournalTransaction(firstSequence: last - 1, records: txn))
                }
            }
            try await add(10)
            try await journal.writeSnapshot([1], coveringThrough: txns[9].lastSequence)
            let older = SnapshotFormat.fileName(sequence: txns[9].lastSequence)
            let olderBytes = try readBytes(dir + "/" + older)
            try await add(10)
            try await journal.writeSnapshot([2], coveringThrough: txns[19].lastSequence)
            try await add(5)
            try await journal.close()
            try writeBytes(dir + "/" + older, olderBytes) // as if the delete had not happened yet
            let newer = dir + "/" + SnapshotFormat.fileName(sequence: txns[19].lastSequence)
            var bytes = try readBytes(newer)
            bytes[bytes.count - 1] ^= 1
            try writeBytes(newer, bytes)

            let (reopened, recovery) = try Journal.open(directory: dir, options: options)
            #expect(recovery.snapshot == RecoveredSnapshot(sequence: txns[9].lastSequence, bytes: [1]))
            #expect(try recovery.allTransactions() == Array(txns[10...]))
            #expect(recovery.warnings.contains { $0.contains(newer) })
            try await reopened.close()

            // Without the older snapshot it is ambiguous: refuse, naming the bad one.
            removeFile(dir + "/" + older)
            Self.expectCorrupt(dir, file: newer, "bad only snapshot", open: true)
        }
    }

    @Test func randomBytesNeverCrashTheReader() async throws {
        // Not a fuzzer, but the same promise: any bytes give an error or a
        // prefix, never a crash.
        let disk = SimulatedDisk(seed: 25)
        let options = JournalOptions(fsync: .never, fileLayer: disk)
        let (journal, _) = try Journal.open(directory: "/j", options: options)
        _ = try await journal.append([JournalRecord(type: 1, payload: [1, 2, 3])])
        try await journal.close()
        let path = "/j/" + SegmentFormat.fileName(firstSequence: 1)
        let valid = disk.contents(of: path)!
        var random = SeededRandom(seed: 26)
        for round in 0..<300 {
            var bytes = round % 2 == 0 ? Array(valid[0..<SegmentFormat.headerSize]) : []
            bytes += (0..<Int.random(in: 0...200, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            if round % 3 == 0, bytes.count > 50 {
                // A plausible length and sequence to get past the cheap checks.
                bytes[32] = UInt8.random(in: 0...20, using: &random); bytes[33] = 0; bytes[34] = 0; bytes[35] = 0
                bytes[42] = 1; for i in 43..<50 { bytes[i] = 0 }
            }
            disk.replaceDurably(path, with: bytes)
            _ = try? Journal.verify(directory: "/j", options: options)
            if let (j, r) = try? Journal.open(directory: "/j", options: options) {
                _ = try? r.allTransactions()
                try? await j.close()
            }
        }
    }
}
