import Foundation
import Synchronization
import Testing
@testable import ParleyJournal

@Suite struct ConcurrencyTests {
    static func payload(writer: Int, index: Int) -> [UInt8] {
        [UInt8(writer), UInt8(index)] + [UInt8](repeating: UInt8(truncatingIfNeeded: writer &+ index), count: 62)
    }

    /// `verify` and `read` take no lock, so they may read a segment a bot is
    /// writing: a scan can see a record still zero and, read again a moment
    /// later, the one after it written. That is a write under way, not damage.
    @Test func aTailWrittenWhileItIsReadIsNotDamage() async throws {
        let disk = SimulatedDisk(seed: 43)
        let (journal, _) = try Journal.open(directory: "/j", options: JournalOptions(fsync: .always, fileLayer: disk))
        for i in 0..<10 { _ = try await journal.append(JournalRecord(type: 1, payload: [UInt8](repeating: UInt8(i), count: 50))) }
        try await journal.close()
        // The ninth record's start: the first read of the scan sees it and the tenth still zero.
        let cut = Int64(SegmentFormat.headerSize + 8 * (FrameFormat.headerSize + 50))
        let racing = HookedDisk(disk: disk, zeroFrom: cut, scans: 1)
        #expect(throws: Never.self) { _ = try Journal.verify(directory: "/j", options: JournalOptions(fileLayer: racing)) }
        #expect(racing.segmentReads == 2, "read twice: the first scan saw the write under way, the second saw it done")
        // Damage that stays where it is, read after read, is still reported.
        let damaged = HookedDisk(disk: disk, zeroFrom: cut, scans: .max)
        #expect(throws: JournalError.self) { _ = try Journal.read(directory: "/j", options: JournalOptions(fileLayer: damaged)) }
    }

    /// A bot that compacts while `verify` and `read` run beside it: its
    /// compactions rename, cut and remove the segments a reader is on. The
    /// reader must never call that damage: it either reads the journal whole
    /// or learns it changed under it (`changedWhileRead`), and reads again.
    @Test func readsBesideCompactionsNeverReportDamage() async throws {
        try await withTempDirectory("live-read", realDisk: true) { dir in
            let options = JournalOptions(fsync: .never, segmentSize: 16 << 10)
            let (journal, _) = try Journal.open(directory: dir, options: options)
            let writing = Atomic<Bool>(true)
            let tally = Mutex<(reads: Int, changed: Int, failures: [String])>((0, 0, []))
            // The reader blocks on files: its own thread, not the cooperative pool.
            let reader = Thread {
                while writing.load(ordering: .acquiring) {
                    do {
                        _ = try Journal.verify(directory: dir)
                        var seen = 0
                        try Journal.read(directory: dir).forEachTransaction { _ in seen += 1 }
                        tally.withLock { $0.reads += 1 }
                    } catch JournalError.changedWhileRead {
                        tally.withLock { $0.changed += 1 }
                    } catch {
                        tally.withLock { $0.failures.append("\(error)") }
                    }
                }
            }
            reader.start()
            let payload = [UInt8](repeating: 7, count: 1_000)
            var compactions = 0
            let end = ContinuousClock.now + .seconds(3)
            while ContinuousClock.now < end {
                var last: UInt64 = 0
                for _ in 0..<100 { last = try await journal.append(JournalRecord(type: 1, payload: payload)) }
                try await journal.writeSnapshot([UInt8](repeating: 1, count: 64), coveringThrough: last)
                compactions += 1
            }
            writing.store(false, ordering: .releasing)
            while !reader.isFinished { try await Task.sleep(for: .milliseconds(10)) }
            try await journal.close()
            let t = tally.withLock { $0 }
            #expect(t.failures.isEmpty, "\(t.failures.count) reads called a compaction damage: \(t.failures.prefix(3))")
            #expect(t.reads > 0, "no read got through in 3 s beside \(compactions) compactions (\(t.changed) changed under it)")
            print("live reads: \(t.reads) whole, \(t.changed) changed under them, \(compactions) compactions")
        }
    }

    /// 64 appenders under `.always` on a real disk: distinct, increasing
    /// sequence numbers, and everything comes back.
    @Test func sixtyFourConcurrentAppendersUnderAlways() async throws {
        try await withTempDirectory("concurrent", realDisk: true) { dir in
            let options = JournalOptions(fsync: .always, segmentSize: 16 << 10)
            let (journal, _) = try Journal.open(directory: dir, options: options)
            let perWriter = 8
            let results = try await withThrowingTaskGroup(of: (Int, [UInt64]).self) { group in
                for w in 0..<64 {
                    group.addTask {
                        var seqs: [UInt64] = []
                        for i in 0..<perWriter {
                            seqs.append(try await journal.append(JournalRecord(type: 1, payload: Self.payload(writer: w, index: i))))
                        }
                        return (w, seqs)
                    }
                }
                return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
            }
            try await journal.close()
            var owner: [UInt64: (Int, Int)] = [:]
            for (w, seqs) in results {
                #expect(seqs == seqs.sorted() && Set(seqs).count == seqs.count, "writer \(w)")
                for (i, s) in seqs.enumerated() { owner[s] = (w, i) }
            }
            #expect(Set(owner.keys) == Set(1...UInt64(64 * perWriter)))

            let (reopened, recovery) = try Journal.open(directory: dir, options: options)
            let all = try recovery.allTransactions()
            #expect(all.count == 64 * perWriter)
            for txn in all {
                guard let (w, i) = owner[txn.lastSequence] else { Issue.record("unknown \(txn.lastSequence)"); continue }
                #expect(txn.records == [JournalRecord(type: 1, payload: Self.payload(writer: w, index: i))])
            }
            try await reopened.close()
        }
    }

    /// Group commit: with a 1 ms device flush, 64 concurrent appenders share
    /// syncs instead of paying one each.
    @Test func concurrentAppendersShareSyncs() async throws {
        let disk = SimulatedDisk(seed: 41)
        disk.setFaults(DiskFaults(syncLatencyMicroseconds: 1000))
        let (journal, _) = try Journal.open(directory: "/j", options: JournalOptions(fsync: .always, fileLayer: disk))
        let before = disk.syncCount
        try await withThrowingTaskGroup(of: Void.self) { group in
            for w in 0..<64 {
                group.addTask {
                    for i in 0..<4 { _ = try await journal.append(JournalRecord(type: 1, payload: Self.payload(writer: w, index: i))) }
                }
            }
            try await group.waitForAll()
        }
        let syncs = disk.syncCount - before
        #expect(syncs < 64, "256 appends took \(syncs) syncs")
        #expect(journal.lastSequence == 256)
        try await journal.close()
    }

    /// Under `.interval` a sync runs at least every interval while appends
    /// keep coming, whoever writes them: the writer thread, asleep while an
    /// appender wrote inline, must still wake for the deadline.
    @Test func anIntervalSyncComesWhileAppendsGoInline() async throws {
        let disk = HookedDisk(disk: SimulatedDisk(seed: 7), slowWrites: true)
        let options = JournalOptions(fsync: .interval(milliseconds: 20), fileLayer: disk)
        let (journal, _) = try Journal.open(directory: "/j", options: options)
        let before = disk.syncCount
        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for w in 0..<2 {
                group.addTask {
                    for i in 0..<150 {
                        _ = try await journal.append(JournalRecord(type: 1, payload: Self.payload(writer: w, index: i)))
                        try await Task.sleep(for: .milliseconds(5))
                    }
                }
            }
            try await group.waitForAll()
        }
        let syncs = disk.syncCount - before, took = ContinuousClock.now - started
        try await journal.close()
        // One sync per 20 ms asked. A loaded machine stretches the run and the
        // gaps (other suites run beside this one): when the pool is starved the
        // appends resume in bursts that share a sync, so at least one a second,
        // or one per ten appends when the run stretches past 30 s. A writer
        // asleep past its deadline makes none at all until the close.
        #expect(syncs >= 5 && Double(syncs) >= min(took / .seconds(1), 30), "\(syncs) syncs in \(took)")
    }

    /// Mixed policies with concurrent snapshots and appends never lose or
    /// reorder anything.
    @Test(arguments: [FsyncPolicy.interval(milliseconds: 2), .never])
    func concurrentAppendsAndSnapshots(policy: FsyncPolicy) async throws {
        let disk = SimulatedDisk(seed: 42)
        let options = JournalOptions(fsync: policy, segmentSize: 2048, fileLayer: disk)
        let (journal, _) = try Journal.open(directory: "/j", options: options)
        let snapshotted = Locked<UInt64>(0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for w in 0..<16 {
                group.addTask {
                    for i in 0..<25 {
                        let seq = try await journal.append(JournalRecord(type: 1, payload: Self.payload(writer: w, index: i)))
                        if i % 10 == 9 {
                            if (try? await journal.writeSnapshot(Array("s".utf8), coveringThrough: seq)) != nil {
                                snapshotted.withLock { $0 = max($0, seq) }
                            }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        try await journal.close()
        let (j2, recovery) = try Journal.open(directory: "/j", options: options)
        let all = try recovery.allTransactions()
        #expect(recovery.snapshotSequence == snapshotted.withLock { $0 })
        #expect(all.first?.firstSequence ?? 401 == recovery.snapshotSequence + 1)
        #expect(all.last?.lastSequence ?? recovery.snapshotSequence == 400)
        try await j2.close()
    }

    /// The writer's thread carries its name to the OS, so `top -H` and perf
    /// tell it from the bot loops.
    @Test func writerThreadIsNamedForTheOS() throws {
        let seen = Mutex<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        try startDetachedThread(name: "parley-name-test") {
            let comm = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
            seen.withLock { $0 = comm?.trimmingCharacters(in: .whitespacesAndNewlines) }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(seen.withLock { $0 } == "parley-name-tes")  // the kernel keeps 15 bytes
    }
}

/// A `SimulatedDisk` with faults of its own:
/// - `slowWrites`: writes take a millisecond, as a loaded disk's can (an inline
///   append then holds the writer's `busy` long enough for the writer thread
///   to find it so);
/// - `readOnly`: the disk can only be read, as a read-only mount or backup is;
/// - `zeroFrom`: the first read of a segment from its start, in each of the
///   first `scans` scans, sees every byte from there still zero: a write under
///   way, or (for every scan) a zeroed record.
final class HookedDisk: FileLayer, Sendable {
    let disk: SimulatedDisk
    let slowWrites: Bool
    let readOnly: Bool
    let zeroFrom: Int64?
    let scans: Int
    private let reads = Mutex(0)
    /// Reads of a segment from its start so far: one per scan.
    var segmentReads: Int { reads.withLock { $0 } }
    var syncCount: Int { disk.syncCount }

    init(disk: SimulatedDisk, slowWrites: Bool = false, readOnly: Bool = false, zeroFrom: Int64? = nil, scans: Int = 0) {
        self.disk = disk
        self.slowWrites = slowWrites
        self.readOnly = readOnly
        self.zeroFrom = zeroFrom
        self.scans = scans
    }

    func open(_ path: String, mode: OpenMode) throws -> JournalFile {
        if readOnly, mode != .readOnly { throw JournalError.io(operation: "open", path: path, errno: EROFS) }
        return try disk.open(path, mode: mode)
    }
    func close(_ file: JournalFile) { disk.close(file) }
    func write(_ file: JournalFile, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws -> Int {
        if slowWrites { usleep(1_000) }
        return try disk.write(file, bytes, at: offset)
    }
    func read(_ file: JournalFile, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        let n = try disk.read(file, into: buffer, at: offset)
        guard let zeroFrom, offset == 0, file.path.hasSuffix(SegmentFormat.suffix),
              reads.withLock({ r in r += 1; return r <= scans }), Int64(n) > zeroFrom else { return n }
        for i in Int(zeroFrom)..<n { buffer[i] = 0 }
        return n
    }
    func sync(_ file: JournalFile) throws { try disk.sync(file) }
    func writeBack(_ file: JournalFile, offset: Int64, length: Int64) throws { try disk.writeBack(file, offset: offset, length: length) }
    func truncate(_ file: JournalFile, to length: Int64) throws { try disk.truncate(file, to: length) }
    func size(_ file: JournalFile) throws -> Int64 { try disk.size(file) }
    func rename(_ from: String, to: String) throws { try disk.rename(from, to: to) }
    func remove(_ path: String) throws { try disk.remove(path) }
    func syncDirectory(_ path: String) throws { try disk.syncDirectory(path) }
    func listDirectory(_ path: String) throws -> [String] { try disk.listDirectory(path) }
    func createDirectory(_ path: String) throws { try disk.createDirectory(path) }
    func directoryExists(_ path: String) -> Bool { disk.directoryExists(path) }
    func lockDirectory(_ path: String) throws -> JournalFile {
        if readOnly { throw JournalError.io(operation: "lock", path: path, errno: EROFS) }
        return try disk.lockDirectory(path)
    }
    func unlock(_ lock: JournalFile) { disk.unlock(lock) }
}
