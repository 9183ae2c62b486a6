#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import ParleyJournal

/// Notes: "Never retry fsync after a failure and then acknowledge" and "On a
/// short write or ENOSPC: truncate back to the last good offset and refuse
/// writes until space returns".
@Suite struct FailureTests {
    static func segmentBytes(_ disk: SimulatedDisk) -> Int {
        (try? segmentNames("/j", layer: disk))?.reduce(0) { $0 + (disk.contents(of: "/j/" + $1)?.count ?? 0) } ?? 0
    }

    /// A journal whose directory is deleted under it (an `rm -r`) would take
    /// writes that no reopen finds: within a second it fails, naming why.
    @Test func aDeletedDirectoryFailsTheJournal() async throws {
        try await withTempDirectory("deleted") { dir in
            for fsync in [FsyncPolicy.always, .never] {
                let (journal, _) = try Journal.open(directory: dir + "/j", options: JournalOptions(fsync: fsync))
                _ = try await journal.append([JournalRecord(type: 1, payload: [1, 2, 3])])
                removeDirectory(dir + "/j")
                try await Task.sleep(for: .milliseconds(1100))
                var error: JournalError?
                do { _ = try await journal.append([JournalRecord(type: 1, payload: [4])]) } catch let e as JournalError { error = e }
                #expect(error.map { "\($0)" }?.contains("was deleted while open (was the journal directory removed?)") == true, "\(String(describing: error))")
                try? await journal.close()
            }
        }
    }

    @Test func fdatasyncFailureFailsEveryWaiterAndEverythingAfter() async throws {
        let disk = SimulatedDisk(seed: 31)
        let options = JournalOptions(fsync: .always, fileLayer: disk)
        let (journal, _) = try Journal.open(directory: "/j", options: options)
        var random = SeededRandom(seed: 32)
        var acked: [JournalTransaction] = []
        for id in 0..<5 {
            let txn = makeTransaction(id: UInt64(id), records: 2, sizes: 10...50, random: &random)
            let last = try await journal.append(txn)
            acked.append(JournalTransaction(firstSequence: last - 1, records: txn))
        }
        disk.setFaults(DiskFaults(syncErrno: EIO))
        let doomed = (5..<13).map { makeTransaction(id: UInt64($0), records: 1, sizes: 10...50, random: &random) }
        let results = await withTaskGroup(of: Result<UInt64, JournalError>.self) { group in
            for txn in doomed {
                group.addTask {
                    do { return .success(try await journal.append(txn)) } catch { return .failure(error as! JournalError) }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let cause = JournalError.failed(cause: .io(operation: "fdatasync", path: "/j/" + SegmentFormat.fileName(firstSequence: 1), errno: EIO))
        for result in results {
            #expect(result == .failure(cause))
        }
        #expect(journal.failure == cause)
        #expect(cause.description.contains("fdatasync") && cause.description.contains("EIO"))
        // The disk "recovers"; the journal must not: no later acknowledgement.
        disk.setFaults(DiskFaults())
        await #expect(throws: cause) { try await journal.append(doomed[0]) }
        await #expect(throws: cause) { try await journal.sync() }
        await #expect(throws: cause) { try await journal.writeSnapshot([1], coveringThrough: 1) }
        try await journal.close()

        // Reopening reads what is on disk: the acknowledged prefix, and maybe
        // some whole unacknowledged transactions, never a partial one.
        let (j2, recovery) = try Journal.open(directory: "/j", options: options)
        let got = try recovery.allTransactions()
        #expect(Array(got.prefix(5)) == acked)
        for txn in got.dropFirst(5) { #expect(doomed.contains(txn.records)) }
        try await j2.close()
        // After a power loss the pages whose sync failed are gone (Linux marks
        // them clean): exactly the acknowledged ones remain.
        let after = disk.crash(mode: .dropUnsynced)
        let (j3, r3) = try Journal.open(directory: "/j", options: JournalOptions(fileLayer: after))
        #expect(try r3.allTransactions() == acked)
        try await j3.close()
    }

    @Test func writeErrorOtherThanNoSpaceFailsTheJournal() async throws {
        let disk = SimulatedDisk(seed: 33)
        let (journal, _) = try Journal.open(directory: "/j", options: JournalOptions(fsync: .never, fileLayer: disk))
        _ = try await journal.append(JournalRecord(type: 1, payload: [1]))
        disk.setFaults(DiskFaults(writeErrno: EIO))
        let cause = JournalError.failed(cause: .io(operation: "write", path: "/j/" + SegmentFormat.fileName(firstSequence: 1), errno: EIO))
        await #expect(throws: cause) { try await journal.append(JournalRecord(type: 1, payload: [2])) }
        disk.setFaults(DiskFaults())
        await #expect(throws: cause) { try await journal.append(JournalRecord(type: 1, payload: [3])) }
        #expect(journal.failure == cause)
        try await journal.close()
    }

    @Test(arguments: [FsyncPolicy.always, .interval(milliseconds: 5), .never])
    func noSpaceTruncatesBackAndRecoversWhenSpaceReturns(policy: FsyncPolicy) async throws {
        let disk = SimulatedDisk(seed: 34)
        // No runway: the byte counts below are the records' own (`RunwayTests` has a full disk with one).
        let options = JournalOptions(fsync: policy, segmentSize: 1 << 20, runwayBytes: 0, fileLayer: disk)
        let (journal, _) = try Journal.open(directory: "/j", options: options)
        var acked: [JournalTransaction] = []
        func append(_ records: [JournalRecord]) async throws {
            let last = try await journal.append(records)
            acked.append(JournalTransaction(firstSequence: last - UInt64(records.count) + 1, records: records))
        }
        let small = { (n: UInt8) in [JournalRecord(type: 1, payload: [n, n, n])] }
        let big = { (n: UInt8) in [JournalRecord(type: 2, payload: [UInt8](repeating: n, count: 300)), JournalRecord(type: 2, payload: [UInt8](repeating: n, count: 300))] }
        for n in 0..<3 { try await append(small(UInt8(n))) }
        let used = Self.segmentBytes(disk)

        // Room for ~100 bytes: the big transaction gets a short write, then ENOSPC.
        disk.setFaults(DiskFaults(capacity: used + 100))
        let path = "/j/" + SegmentFormat.fileName(firstSequence: 1)
        await #expect(throws: JournalError.noSpace(path: path, errno: ENOSPC)) { try await journal.append(big(9)) }
        #expect(Self.segmentBytes(disk) == used, "truncated back to the last good offset")
        #expect(journal.failure == nil)
        // A write that fits succeeds: that write was the probe. No sequence gap.
        try await append(small(3))
        #expect(acked.last!.lastSequence == 4)
        // Full again: refused, and still nothing partial left behind.
        await #expect(throws: JournalError.self) { try await journal.append(big(8)) }
        let usedNow = Self.segmentBytes(disk)
        // A direct ENOSPC from write (nothing written at all).
        disk.setFaults(DiskFaults(writeErrno: ENOSPC))
        await #expect(throws: JournalError.noSpace(path: path, errno: ENOSPC)) { try await journal.append(small(7)) }
        #expect(Self.segmentBytes(disk) == usedNow)
        // Space returns: the next append goes through.
        disk.setFaults(DiskFaults())
        try await append(big(5))
        try await append(small(6))
        try await journal.close()

        let (j2, recovery) = try Journal.open(directory: "/j", options: options)
        #expect(recovery.truncatedBytes == 0)
        #expect(try recovery.allTransactions() == acked)
        try await j2.close()
    }

    @Test func noSpaceWhileRollingToANewSegment() async throws {
        let disk = SimulatedDisk(seed: 35)
        let options = JournalOptions(fsync: .always, segmentSize: 200, runwayBytes: 0, fileLayer: disk)
        let (journal, _) = try Journal.open(directory: "/j", options: options)
        var acked: [UInt64] = []
        let record = JournalRecord(type: 1, payload: [UInt8](repeating: 7, count: 100))
        acked.append(try await journal.append(record))
        // The next append must roll; the new segment's header does not fit.
        disk.setFaults(DiskFaults(capacity: Self.segmentBytes(disk) + 10))
        await #expect(throws: JournalError.self) { try await journal.append(record) }
        #expect(journal.failure == nil)
        #expect(try segmentNames("/j", layer: disk).count == 1, "the half-made segment was removed")
        disk.setFaults(DiskFaults())
        acked.append(try await journal.append(record))
        acked.append(try await journal.append(record))
        #expect(acked == [1, 2, 3])
        try await journal.close()
        let (j2, recovery) = try Journal.open(directory: "/j", options: options)
        #expect(try recovery.allTransactions().map(\.lastSequence) == acked)
        try await j2.close()
    }
}
