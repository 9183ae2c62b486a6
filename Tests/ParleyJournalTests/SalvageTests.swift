import Testing
@testable import ParleyJournal

@Suite struct SalvageTests {
    @Test func salvageKeepsEverythingBeforeTheDamage() async throws {
        try await withTempDirectory("salvage") { dir in
            let txns = try await CorruptionTests.build(dir)
            let names = try segmentNames(dir)
            #expect(names.count >= 5)
            // Damage the middle of the third segment.
            let victim = dir + "/" + names[2]
            var bytes = try readBytes(victim)
            let position = bytes.count / 2
            bytes[position] ^= 0x40
            try writeBytes(victim, bytes)
            #expect(throws: JournalError.self) { _ = try Journal.open(directory: dir) }

            // Which transactions are intact: those that end before the damage.
            let victimFirst = SegmentFormat.firstSequence(fileName: names[2])!
            var end = SegmentFormat.headerSize
            var expected = txns.filter { $0.firstSequence < victimFirst }
            for txn in txns where txn.firstSequence >= victimFirst {
                end += txn.records.reduce(0) { $0 + FrameFormat.headerSize + $1.payload.count }
                if end > position { break }
                expected.append(txn)
            }
            let laterBytes = try names[3...].reduce(0) { $0 + (try readBytes(dir + "/" + $1)).count }

            let report = try Journal.salvage(directory: dir)
            #expect(report.damage.count == 1)
            #expect(report.damage.first?.corruptLocation?.file == victim)
            #expect(report.brokenFiles == [victim + ".broken"])
            let broken = try readBytes(victim + ".broken")
            #expect(broken.count == bytes.count - (end - txns.first { $0.firstSequence >= victimFirst && !expected.contains($0) }
                .map { $0.records.reduce(0) { $0 + FrameFormat.headerSize + $1.payload.count } }!) + laterBytes)
            #expect(Int64(broken.count) == report.bytesMoved)
            #expect(report.summary.transactions == expected.count)

            let (journal, recovery) = try Journal.open(directory: dir)
            #expect(try recovery.allTransactions() == expected)
            let seq = try await journal.append(JournalRecord(type: 1, payload: [1]))
            #expect(seq == expected.last!.lastSequence + 1)
            try await journal.close()
            #expect(try Journal.verify(directory: dir).lastSequence == seq)
            // Salvaging a healthy journal changes nothing.
            let again = try Journal.salvage(directory: dir)
            #expect(again.damage.isEmpty && again.brokenFiles.isEmpty)
        }
    }

    @Test func salvageMovesABadSnapshotAside() async throws {
        try await withTempDirectory("salvage-snap") { dir in
            let options = JournalOptions(fsync: .never)
            let (journal, _) = try Journal.open(directory: dir, options: options)
            for i in 0..<10 { _ = try await journal.append(JournalRecord(type: 1, payload: [UInt8(i)])) }
            try await journal.writeSnapshot([42], coveringThrough: 5)
            try await journal.close()
            let snap = dir + "/" + SnapshotFormat.fileName(sequence: 5)
            var bytes = try readBytes(snap)
            bytes[SnapshotFormat.headerSize] ^= 1
            try writeBytes(snap, bytes)
            #expect(throws: JournalError.self) { _ = try Journal.open(directory: dir, options: options) }
            let report = try Journal.salvage(directory: dir, options: options)
            #expect(report.brokenFiles == [snap + ".broken"])
            // The one segment still starts at 1, so everything replays from the log.
            let (j2, recovery) = try Journal.open(directory: dir, options: options)
            #expect(recovery.snapshot == nil)
            #expect(try recovery.allTransactions().map { $0.records[0].payload } == (0..<10).map { [UInt8($0)] })
            try await j2.close()
        }
    }

    /// A bad snapshot whose records follow it (the segments it covered are
    /// gone): moving it aside would keep nothing, so salvage changes nothing
    /// and says why.
    @Test func salvageRefusesABadSnapshotTheRecordsBuildOn() async throws {
        try await withTempDirectory("salvage-snap-needed") { dir in
            let options = JournalOptions(fsync: .never, segmentSize: 4096)
            let (journal, _) = try Journal.open(directory: dir, options: options)
            var last: UInt64 = 0
            for i in 0..<200 { last = try await journal.append(JournalRecord(type: 1, payload: [UInt8](repeating: UInt8(i & 0xFF), count: 100))) }
            try await journal.writeSnapshot([42], coveringThrough: last - 5)
            try await journal.close()
            let names = try segmentNames(dir)
            #expect(SegmentFormat.firstSequence(fileName: names[0])! > 1, "\(names)")
            let snap = dir + "/" + SnapshotFormat.fileName(sequence: last - 5)
            var bytes = try readBytes(snap)
            bytes[SnapshotFormat.headerSize] ^= 1
            try writeBytes(snap, bytes)
            let before = try listFiles(dir).sorted()
            #expect {
                _ = try Journal.salvage(directory: dir, options: options)
            } throws: { error in
                "\(error)".contains("salvage would keep nothing, so it changed nothing")
            }
            #expect(try listFiles(dir).sorted() == before)
            #expect(try readBytes(snap) == bytes)
        }
    }
}
