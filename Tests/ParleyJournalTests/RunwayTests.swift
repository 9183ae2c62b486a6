#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import ParleyJournal

/// The runway: under `.always` the journal writes zeros ahead of its records,
/// so appends overwrite bytes the file already has and each `fdatasync`
/// flushes data alone. Recovery must read the zeros as the end of the log,
/// never as damage, and a sealed or closed segment must not keep them.
@Suite struct RunwayTests {
    static let path = "/j/" + SegmentFormat.fileName(firstSequence: 1)

    static func record(_ n: UInt8) -> JournalRecord { JournalRecord(type: 1, payload: [UInt8](repeating: n, count: 40)) }

    static func options(_ disk: SimulatedDisk, segmentSize: Int = 64 << 10) -> JournalOptions {
        JournalOptions(fsync: .always, segmentSize: segmentSize, runwayBytes: 4096, fileLayer: disk)
    }

    @Test func zerosAheadOfTheRecordsSurvivePowerLossAsTheEndOfTheLog() async throws {
        for mode in CrashMode.allCases {
            let disk = SimulatedDisk(seed: 71)
            let (journal, _) = try Journal.open(directory: "/j", options: Self.options(disk))
            var acked: [UInt64] = []
            for n in 0..<10 { acked.append(try await journal.append(Self.record(UInt8(n)))) }
            let file = try #require(disk.contents(of: Self.path))
            let end = SegmentFormat.headerSize + 10 * (FrameFormat.headerSize + 40)
            #expect(file.count == SegmentFormat.headerSize + FrameFormat.headerSize + 40 + 4096, "the runway is written ahead of the first record")
            #expect(file[end...].allSatisfy { $0 == 0 })

            let after = disk.crash(mode: mode)
            let (j2, recovery) = try Journal.open(directory: "/j", options: Self.options(after))
            #expect(recovery.truncatedBytes == 0, "zeros are not a torn tail (\(mode))")
            #expect(recovery.warnings.isEmpty, "\(recovery.warnings)")
            #expect(try recovery.allTransactions().map(\.lastSequence) == acked)
            // Appends go on after the recovered records.
            #expect(try await j2.append(Self.record(99)) == 11)
            try await j2.close()
        }
    }

    @Test func aCloseCutsTheRunwaySoTheFileEndsWithItsLastRecord() async throws {
        let disk = SimulatedDisk(seed: 72)
        let (journal, _) = try Journal.open(directory: "/j", options: Self.options(disk))
        for n in 0..<3 { _ = try await journal.append(Self.record(UInt8(n))) }
        try await journal.close()
        let end = SegmentFormat.headerSize + 3 * (FrameFormat.headerSize + 40)
        #expect(disk.contents(of: Self.path)?.count == end)
    }

    @Test func aSealedSegmentKeepsNoRunway() async throws {
        let disk = SimulatedDisk(seed: 73)
        let options = Self.options(disk, segmentSize: 400)
        let (journal, _) = try Journal.open(directory: "/j", options: options)
        var acked: [UInt64] = []
        for n in 0..<20 { acked.append(try await journal.append(Self.record(UInt8(n)))) }
        let names = try segmentNames("/j", layer: disk)
        #expect(names.count > 2)
        for name in names.dropLast() {
            let bytes = try #require(disk.contents(of: "/j/" + name))
            #expect(bytes.last != 0, "\(name) ends with a record, not zeros")
        }
        // Power loss with the last segment's runway in place: nothing acknowledged is lost.
        let (j2, recovery) = try Journal.open(directory: "/j", options: Self.options(disk.crash(mode: .dropUnsynced), segmentSize: 400))
        #expect(recovery.truncatedBytes == 0)
        #expect(try recovery.allTransactions().map(\.lastSequence) == acked)
        try await j2.close()
    }

    /// A record torn in the middle of the runway (its first bytes written,
    /// zeros after) is a torn tail: it is cut and reported, the records
    /// before it stay.
    @Test func aRecordTornInsideTheRunwayIsATornTail() async throws {
        let disk = SimulatedDisk(seed: 74)
        let (journal, _) = try Journal.open(directory: "/j", options: Self.options(disk))
        for n in 0..<4 { _ = try await journal.append(Self.record(UInt8(n))) }
        let end = SegmentFormat.headerSize + 4 * (FrameFormat.headerSize + 40)
        let after = disk.crash(mode: .dropUnsynced)
        var bytes = try #require(after.contents(of: Self.path))
        // Half of a fifth record's frame: non-zero bytes followed by the runway's zeros.
        for i in end..<(end + 20) { bytes[i] = 0xA5 }
        after.replaceDurably(Self.path, with: bytes)
        let (j2, recovery) = try Journal.open(directory: "/j", options: Self.options(after))
        #expect(recovery.truncatedBytes == Int64(bytes.count - end))
        #expect(try recovery.allTransactions().map(\.lastSequence) == [1, 2, 3, 4])
        try await j2.close()
    }

    /// With no room left for the zeros, records are appended as they would
    /// be without a runway: the disk being nearly full costs nothing acknowledged.
    @Test func noRoomForTheRunwayStillAppends() async throws {
        let disk = SimulatedDisk(seed: 75)
        let (journal, _) = try Journal.open(directory: "/j", options: Self.options(disk))
        _ = try await journal.append(Self.record(0))
        let used = try #require(disk.contents(of: Self.path)).count
        // Room for 200 bytes past the runway already written: a new runway does not fit, records do.
        disk.setFaults(DiskFaults(capacity: used + 200))
        var acked: [UInt64] = [1]
        // 71 frames of 58 bytes fill the first runway; four more fit in what is left.
        for n in 1..<75 { acked.append(try await journal.append(Self.record(UInt8(n)))) }
        try await journal.close()
        let (j2, recovery) = try Journal.open(directory: "/j", options: Self.options(disk))
        #expect(try recovery.allTransactions().map(\.lastSequence) == acked)
        try await j2.close()
    }
}

/// `Journal.appendLater`: records nobody waits for cost no sync of their own.
@Suite struct AppendLaterTests {
    static func options(_ disk: SimulatedDisk) -> JournalOptions { JournalOptions(fsync: .always, fileLayer: disk) }

    @Test func aLaterRecordRidesInTheNextSyncSomebodyWaitsFor() async throws {
        let disk = SimulatedDisk(seed: 81)
        let (journal, _) = try Journal.open(directory: "/j", options: Self.options(disk))
        try journal.appendLater([RunwayTests.record(1)])
        #expect(try await journal.append([RunwayTests.record(2)]) == 2)
        let (j2, recovery) = try Journal.open(directory: "/j", options: Self.options(disk.crash(mode: .dropUnsynced)))
        #expect(try recovery.allTransactions().map(\.lastSequence) == [1, 2])
        try await j2.close()
    }

    @Test func aLaterRecordAloneIsSyncedSoon() async throws {
        let disk = SimulatedDisk(seed: 82)
        let (journal, _) = try Journal.open(directory: "/j", options: Self.options(disk))
        _ = try await journal.append([RunwayTests.record(1)])
        try journal.appendLater([RunwayTests.record(2)])
        try await Task.sleep(for: .milliseconds(300))
        let (j2, recovery) = try Journal.open(directory: "/j", options: Self.options(disk.crash(mode: .dropUnsynced)))
        #expect(try recovery.allTransactions().map(\.lastSequence) == [1, 2])
        try await j2.close()
    }
}
