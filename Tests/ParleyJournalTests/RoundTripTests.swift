import Synchronization
import Testing
@testable import ParleyJournal

@Suite struct RoundTripTests {
    @Test(arguments: [FsyncPolicy.always, .interval(milliseconds: 5), .never])
    func roundTripAcrossSegmentRolls(policy: FsyncPolicy) async throws {
        try await withTempDirectory("roundtrip") { dir in
            let options = JournalOptions(fsync: policy, segmentSize: 4096)
            var random = SeededRandom(seed: 1)
            var expected: [JournalTransaction] = []
            do {
                let (journal, recovery) = try Journal.open(directory: dir, options: options)
                #expect(try recovery.allTransactions().isEmpty)
                #expect(recovery.snapshot == nil)
                for id in 0..<150 {
                    let count = Int.random(in: 1...5, using: &random)
                    // Mostly small, some bigger than a segment (they get one of their own).
                    let sizes = id % 37 == 5 ? 5000...9000 : 0...700
                    let txn = makeTransaction(id: UInt64(id), records: count, sizes: sizes, random: &random)
                    let last = try await journal.append(txn)
                    let first = last - UInt64(count) + 1
                    #expect(first == (expected.last?.lastSequence ?? 0) + 1)
                    expected.append(JournalTransaction(firstSequence: first, records: txn))
                }
                // Empty payloads and single records work too.
                let single = JournalRecord(type: 255, payload: [])
                let s = try await journal.append(single)
                expected.append(JournalTransaction(firstSequence: s, records: [single]))
                try await journal.close()
            }
            let summary = try Journal.verify(directory: dir)
            #expect(summary.segments > 10)
            #expect(summary.transactions == expected.count)
            #expect(summary.lastSequence == expected.last!.lastSequence)
            #expect(summary.tornTailBytes == 0)

            let (journal, recovery) = try Journal.open(directory: dir, options: options)
            #expect(recovery.lastSequence == expected.last!.lastSequence)
            #expect(recovery.truncatedBytes == 0)
            #expect(try recovery.allTransactions() == expected)
            // The zero-copy visitor sees the same records.
            var visited: [(UInt64, UInt8, [UInt8], Bool)] = []
            try recovery.forEachRecord { seq, type, payload, ends in visited.append((seq, type, Array(payload), ends)) }
            let flat = expected.flatMap { txn in
                txn.records.enumerated().map { (k, r) in
                    (txn.firstSequence + UInt64(k), r.type, r.payload, k == txn.records.count - 1)
                }
            }
            #expect(visited.count == flat.count)
            #expect(zip(visited, flat).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 && $0.2 == $1.2 && $0.3 == $1.3 })
            // Appending continues the sequence after a reopen.
            let more = makeTransaction(id: 999, records: 2, sizes: 10...20, random: &random)
            let last = try await journal.append(more)
            #expect(last == expected.last!.lastSequence + 2)
            try await journal.close()
            let (again, recovered) = try Journal.open(directory: dir, options: options)
            #expect(try recovered.allTransactions() == expected + [JournalTransaction(firstSequence: last - 1, records: more)])
            try await again.close()
        }
    }

    @Test func snapshotCoversAndRemovesOldSegments() async throws {
        try await withTempDirectory("snapshot") { dir in
            let options = JournalOptions(fsync: .never, segmentSize: 2048)
            var random = SeededRandom(seed: 2)
            var after: [JournalTransaction] = []
            let (journal, _) = try Journal.open(directory: dir, options: options)
            var snapshotAt: UInt64 = 0
            for id in 0..<100 {
                let txn = makeTransaction(id: UInt64(id), records: 2, sizes: 50...150, random: &random)
                let last = try await journal.append(txn)
                if id == 69 { snapshotAt = last }
                if id > 69 { after.append(JournalTransaction(firstSequence: last - 1, records: txn)) }
            }
            let segmentsBefore = try segmentNames(dir).count
            let state: [UInt8] = Array("state through 70 transactions".utf8)
            try await journal.writeSnapshot(state, coveringThrough: snapshotAt)
            let segmentsAfter = try segmentNames(dir).count
            #expect(segmentsAfter < segmentsBefore)
            // An older sequence than the current snapshot is refused.
            await #expect(throws: JournalError.self) { try await journal.writeSnapshot([1], coveringThrough: 3) }
            await #expect(throws: JournalError.self) { try await journal.writeSnapshot([1], coveringThrough: 10_000) }
            try await journal.close()
            #expect(try listFiles(dir).filter { $0.hasPrefix("snapshot-") } == [SnapshotFormat.fileName(sequence: snapshotAt)])

            let (reopened, recovery) = try Journal.open(directory: dir, options: options)
            #expect(recovery.snapshot == RecoveredSnapshot(sequence: snapshotAt, bytes: state))
            #expect(try recovery.allTransactions() == after)
            // A newer snapshot replaces the old one.
            let end = try await reopened.append(JournalRecord(type: 1, payload: [9]))
            try await reopened.writeSnapshot([42], coveringThrough: end)
            try await reopened.close()
            let (third, r3) = try Journal.open(directory: dir, options: options)
            #expect(r3.snapshot == RecoveredSnapshot(sequence: end, bytes: [42]))
            #expect(try r3.allTransactions().isEmpty)
            #expect(try listFiles(dir).filter { $0.hasPrefix("snapshot-") }.count == 1)
            let next = try await third.append(JournalRecord(type: 1, payload: [10]))
            #expect(next == end + 1)
            try await third.close()
        }
    }

    /// Compaction's order: seal the active segment, snapshot through its last
    /// record; every older segment goes, and appends made after the seal
    /// (even while it is queued) land in the new segment and survive.
    @Test(arguments: [FsyncPolicy.always, .never])
    func sealThenSnapshotLeavesOnlyTheNewSegment(policy: FsyncPolicy) async throws {
        try await withTempDirectory("seal") { dir in
            let options = JournalOptions(fsync: policy)   // 64 MiB segments: never rolls by size here
            var random = SeededRandom(seed: 3)
            let (journal, _) = try Journal.open(directory: dir, options: options)
            var through: UInt64 = 0
            for id in 0..<50 {
                through = try await journal.append(makeTransaction(id: UInt64(id), records: 1, sizes: 20...80, random: &random))
            }
            #expect(try segmentNames(dir).count == 1)
            let sealed = Mutex<Result<UInt64, JournalError>?>(nil)
            journal.sealSegment { r in sealed.withLock { $0 = r } }
            var after: [JournalTransaction] = []
            for id in 50..<60 {
                let txn = makeTransaction(id: UInt64(id), records: 2, sizes: 20...80, random: &random)
                let last = try await journal.append(txn)
                after.append(JournalTransaction(firstSequence: last - 1, records: txn))
            }
            try await journal.sync()
            // The seal reports the last record before it: what a snapshot taken then covers.
            #expect(sealed.withLock { $0.flatMap { try? $0.get() } } == through)
            #expect(try segmentNames(dir) == [SegmentFormat.fileName(firstSequence: 1), SegmentFormat.fileName(firstSequence: through + 1)])
            try await journal.writeSnapshot([7], coveringThrough: through)
            #expect(try segmentNames(dir) == [SegmentFormat.fileName(firstSequence: through + 1)])
            // Sealing an empty segment does nothing.
            try await journal.sealSegment()
            try await journal.sealSegment()
            try await journal.close()
            let (again, recovery) = try Journal.open(directory: dir, options: options)
            #expect(recovery.snapshot == RecoveredSnapshot(sequence: through, bytes: [7]))
            #expect(try recovery.allTransactions() == after)
            try await again.close()
        }
    }

    /// `appendBlocking` from a thread of its own (as the bot's store calls
    /// it), interleaved with seals: same numbering and recovery as `append`.
    @Test(arguments: [FsyncPolicy.always, .interval(milliseconds: 5), .never])
    func appendBlockingFromAPlainThread(policy: FsyncPolicy) async throws {
        try await withTempDirectory("blocking") { dir in
            let options = JournalOptions(fsync: policy, segmentSize: 4096)
            let (journal, _) = try Journal.open(directory: dir, options: options)
            let expected: [JournalTransaction] = try await withCheckedThrowingContinuation { done in
                do {
                    try startDetachedThread(name: "test-appender") {
                        var random = SeededRandom(seed: 4)
                        var written: [JournalTransaction] = []
                        do {
                            for id in 0..<200 {
                                let txn = makeTransaction(id: UInt64(id), records: 1 + id % 3, sizes: 10...300, random: &random)
                                let last = try journal.appendBlocking(txn)
                                written.append(JournalTransaction(firstSequence: last + 1 - UInt64(txn.count), records: txn))
                                if id % 50 == 49 { journal.sealSegment { _ in } }
                            }
                            done.resume(returning: written)
                        } catch {
                            done.resume(throwing: error)
                        }
                    }
                } catch {
                    done.resume(throwing: error)
                }
            }
            #expect(expected.last?.lastSequence == UInt64(expected.reduce(0) { $0 + $1.records.count }))
            try await journal.close()
            let (again, recovery) = try Journal.open(directory: dir, options: options)
            #expect(try recovery.allTransactions() == expected)
            try await again.close()
        }
    }

    /// Segments bigger than the reader's window (a few MiB): frames straddle
    /// window refills, including maximum-size records.
    @Test func segmentsLargerThanTheReadWindow() async throws {
        try await withTempDirectory("bigsegment") { dir in
            let options = JournalOptions(fsync: .never)
            var random = SeededRandom(seed: 6)
            var expected: [JournalTransaction] = []
            let (journal, _) = try Journal.open(directory: dir, options: options)
            var total = 0
            var id: UInt64 = 0
            while total < 11 << 20 {
                let sizes = id % 7 == 3 ? (1 << 20)...(1 << 20) : 0...200_000
                let txn = makeTransaction(id: id, records: Int.random(in: 1...3, using: &random), sizes: sizes, random: &random)
                let last = try await journal.append(txn)
                expected.append(JournalTransaction(firstSequence: last - UInt64(txn.count) + 1, records: txn))
                total += txn.reduce(0) { $0 + $1.payload.count + FrameFormat.headerSize }
                id += 1
            }
            try await journal.close()
            #expect(try segmentNames(dir).count == 1)
            let (j2, recovery) = try Journal.open(directory: dir, options: options)
            #expect(try recovery.allTransactions() == expected)
            var records = 0
            try recovery.forEachRecord { _, _, _, _ in records += 1 }
            #expect(records == expected.reduce(0) { $0 + $1.records.count })
            try await j2.close()

            // Cut just around the first window boundary: exactly the prefix.
            let path = dir + "/" + (try segmentNames(dir))[0]
            let bytes = try readBytes(path)
            var ends: [Int] = []
            var end = SegmentFormat.headerSize
            for txn in expected {
                end += txn.records.reduce(0) { $0 + FrameFormat.headerSize + $1.payload.count }
                ends.append(end)
            }
            for cut in [4 << 20, (4 << 20) + 1, (5 << 20) - 7, (9 << 20) + 3] {
                try writeBytes(path, Array(bytes[0..<cut]))
                let (j, r) = try Journal.open(directory: dir, options: options)
                #expect(try r.allTransactions() == Array(expected.prefix(ends.filter { $0 <= cut }.count)), "cut at \(cut)")
                try await j.close()
            }
        }
    }

    @Test func argumentChecks() async throws {
        let disk = SimulatedDisk(seed: 3)
        let options = JournalOptions(maxRecordSize: 100, fileLayer: disk)
        let (journal, _) = try Journal.open(directory: "/j", options: options)
        await #expect(throws: JournalError.emptyTransaction) { try await journal.append([]) }
        await #expect(throws: JournalError.recordTooLarge(size: 101, limit: 100)) {
            try await journal.append(JournalRecord(type: 0, payload: [UInt8](repeating: 0, count: 101)))
        }
        #expect(try await journal.append(JournalRecord(type: 0, payload: [UInt8](repeating: 0, count: 100))) == 1)
        // A second journal on the same directory is refused while this one is open.
        #expect(throws: JournalError.locked(path: "/j")) { _ = try Journal.open(directory: "/j", options: options) }
        try await journal.close()
        await #expect(throws: JournalError.closed) { try await journal.append(JournalRecord(type: 0, payload: [])) }
        #expect(throws: JournalError.self) { _ = try Journal.open(directory: "/j", options: JournalOptions(segmentSize: 10, fileLayer: disk)) }
    }

    @Test func intervalPolicySyncsWithinTheInterval() async throws {
        let disk = SimulatedDisk(seed: 4)
        let options = JournalOptions(fsync: .interval(milliseconds: 20), fileLayer: disk)
        let (journal, _) = try Journal.open(directory: "/j", options: options)
        let seq = try await journal.append(JournalRecord(type: 7, payload: [1, 2, 3]))
        // Give the writer a few intervals; then a power loss must keep it.
        try await Task.sleep(for: .milliseconds(150))
        let after = disk.crash(mode: .dropUnsynced)
        try? await journal.close()
        let (j2, recovery) = try Journal.open(directory: "/j", options: JournalOptions(fileLayer: after))
        #expect(try recovery.allTransactions().map(\.lastSequence) == [seq])
        try await j2.close()
    }

    @Test func neverPolicyLosesOnlyUnsyncedSuffix() async throws {
        let disk = SimulatedDisk(seed: 5)
        let options = JournalOptions(fsync: .never, fileLayer: disk)
        let (journal, _) = try Journal.open(directory: "/j", options: options)
        _ = try await journal.append(JournalRecord(type: 1, payload: [1]))
        try await journal.sync()
        _ = try await journal.append(JournalRecord(type: 1, payload: [2]))
        let after = disk.crash(mode: .dropUnsynced)
        try? await journal.close()
        let (j2, recovery) = try Journal.open(directory: "/j", options: JournalOptions(fileLayer: after))
        #expect(try recovery.allTransactions().map { $0.records[0].payload } == [[1]])
        try await j2.close()
    }
}
