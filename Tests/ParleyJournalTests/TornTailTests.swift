import Testing
@testable import ParleyJournal

/// Notes, "How trusted systems test it": truncate the journal at every byte
/// offset and append zeros/garbage: open must always succeed with exactly the
/// prefix of complete transactions.
@Suite struct TornTailTests {
    struct Fixture {
        var segments: [(name: String, bytes: [UInt8])]
        var transactions: [JournalTransaction]
        /// End offset, within the last segment, of each of its transactions.
        var lastSegmentEnds: [(end: Int, txn: JournalTransaction)]
        var earlier: [JournalTransaction]
    }

    /// ~50 transactions of mixed sizes over a few 2 KiB segments.
    static func buildFixture() async throws -> Fixture {
        try await withTempDirectory("torn-src") { dir in
            var random = SeededRandom(seed: 11)
            var txns: [JournalTransaction] = []
            let (journal, _) = try Journal.open(directory: dir, options: JournalOptions(fsync: .never, segmentSize: 2048))
            for id in 0..<50 {
                // Mixed sizes; #28 nearly fills a segment of its own, so the
                // last segment starts right after it and holds the 21 after.
                let sizes = id == 28 ? 1900...1900 : id > 28 ? (id % 5 == 0 ? 50...90 : 0...30) : (id % 9 == 0 ? 200...400 : 0...90)
                let records = id == 28 ? 1 : id > 28 ? Int.random(in: 1...2, using: &random) : Int.random(in: 1...3, using: &random)
                let txn = makeTransaction(id: UInt64(id), records: records, sizes: sizes, random: &random)
                let last = try await journal.append(txn)
                txns.append(JournalTransaction(firstSequence: last - UInt64(txn.count) + 1, records: txn))
            }
            try await journal.close()
            let names = try segmentNames(dir)
            let segments = try names.map { (name: $0, bytes: try readBytes(dir + "/" + $0)) }
            let lastFirst = SegmentFormat.firstSequence(fileName: names.last!)!
            var end = SegmentFormat.headerSize
            var ends: [(Int, JournalTransaction)] = []
            for txn in txns where txn.firstSequence >= lastFirst {
                end += txn.records.reduce(0) { $0 + FrameFormat.headerSize + $1.payload.count }
                ends.append((end, txn))
            }
            #expect(end == segments.last!.bytes.count)
            return Fixture(
                segments: segments, transactions: txns, lastSegmentEnds: ends,
                earlier: txns.filter { $0.firstSequence < lastFirst })
        }
    }

    enum Tail: CaseIterable { case none, zeros, garbage }

    @Test func truncateAtEveryOffsetOfTheLastSegment() async throws {
        let fixture = try await Self.buildFixture()
        #expect(fixture.segments.count >= 2)
        #expect(fixture.lastSegmentEnds.count >= 10)
        let started = ContinuousClock.now
        defer { print("torn-tail: \(fixture.segments.last!.bytes.count + 1) offsets × 3 tails in \(ContinuousClock.now - started)") }
        let last = fixture.segments.last!
        var random = SeededRandom(seed: 12)
        let options = JournalOptions(fsync: .never, segmentSize: 2048)
        try await withTempDirectory("torn-work") { dir in
            var failures = 0
            for offset in 0...last.bytes.count {
                for tail in Tail.allCases {
                    // Reset the directory to the truncated journal. Earlier
                    // segments only change when the cut removes the last
                    // segment's header (appends then go to the one before).
                    let keep = Set(fixture.segments.map(\.name))
                    for name in try listFiles(dir) where !keep.contains(name) || offset < 64 { removeFile(dir + "/" + name) }
                    if offset < 64 {
                        for segment in fixture.segments.dropLast() { try writeBytes(dir + "/" + segment.name, segment.bytes) }
                    }
                    var bytes = Array(last.bytes[0..<offset])
                    switch tail {
                    case .none: break
                    case .zeros: bytes += [UInt8](repeating: 0, count: Int.random(in: 1...300, using: &random))
                    case .garbage: bytes += (0..<Int.random(in: 1...300, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                    }
                    try writeBytes(dir + "/" + last.name, bytes)

                    // A transaction survives when its bytes are all there. (A tail
                    // of zeros can recreate a cut-off payload that ended in zeros:
                    // then the bytes are simply the original ones again.)
                    let expected = fixture.earlier + fixture.lastSegmentEnds.filter {
                        $0.end <= offset
                            || ($0.end <= bytes.count && bytes[offset..<$0.end].elementsEqual(last.bytes[offset..<$0.end]))
                    }.map(\.txn)
                    let (journal, recovery) = try Journal.open(directory: dir, options: options)
                    let got = try recovery.allTransactions()
                    if got != expected {
                        failures += 1
                        Issue.record("offset \(offset) tail \(tail): recovered \(got.count) transactions, expected \(expected.count)")
                    }
                    // Appendable afterwards, and a reopen is still consistent.
                    // (Every offset for the plain cut; every 7th with a tail.)
                    if tail == .none || offset % 7 == 0 {
                        let extra = [JournalRecord(type: 3, payload: Array("after \(offset)".utf8))]
                        let seq = try await journal.append(extra)
                        #expect(seq == (expected.last?.lastSequence ?? 0) + 1)
                        try await journal.close()
                        let (again, r2) = try Journal.open(directory: dir, options: options)
                        #expect(r2.truncatedBytes == 0)
                        let all = try r2.allTransactions()
                        if all != expected + [JournalTransaction(firstSequence: seq, records: extra)] {
                            failures += 1
                            Issue.record("offset \(offset) tail \(tail): reopen after append is inconsistent")
                        }
                        try await again.close()
                    } else {
                        try await journal.close()
                    }
                    if failures > 5 { return }
                }
            }
        }
    }
}

func removeFile(_ path: String) {
    try? PosixFileLayer().remove(path)
}
