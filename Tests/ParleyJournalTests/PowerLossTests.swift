#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
@testable import ParleyJournal

/// Notes: "Simulated power loss in an injectable file layer" with an oracle
/// that records every acknowledged write (RocksDB db_crashtest, Jepsen).
@Suite struct PowerLossTests {
    struct Oracle: Sendable {
        /// Last sequence of each acknowledged transaction → its index.
        var acked: [UInt64: Int] = [:]
        var ackCount = 0
        var snapshotAcked: UInt64 = 0
        var crashed: SimulatedDisk?
    }

    final class Shared: Sendable {
        let oracle = Mutex(Oracle())
    }

    static func snapshotPayload(_ seq: UInt64) -> [UInt8] {
        withUnsafeBytes(of: seq.littleEndian) { Array($0) } + Array("state".utf8)
    }

    @Test(arguments: [FsyncPolicy.always, .interval(milliseconds: 1), .never])
    func powerLossKeepsTheAcknowledgedPrefix(policy: FsyncPolicy) async throws {
        let seedBase: UInt64 = policy == .always ? 1000 : policy == .never ? 2000 : 3000
        var stats = (acked: 0, recovered: 0, lostUnsynced: 0, snapshots: 0)
        // PARLEY_JOURNAL_POWERLOSS_ITERATIONS=5000 for a longer soak.
        let iterations = getenv("PARLEY_JOURNAL_POWERLOSS_ITERATIONS").flatMap { Int(String(cString: $0)) } ?? 200
        for iteration in 0..<iterations {
            let s = try await Self.iteration(seed: seedBase + UInt64(iteration), policy: policy)
            stats.acked += s.acked
            stats.recovered += s.recovered
            stats.lostUnsynced += s.acked > s.recoveredAcked ? 1 : 0
            stats.snapshots += s.snapshot ? 1 : 0
        }
        print("power loss \(policy): \(stats)")
        // The loop must exercise something: acknowledgements, recoveries, and
        // (without .always) actual loss of unsynced acknowledged work.
        #expect(stats.acked > iterations * 5 && stats.recovered > iterations * 3)
        if policy == .always { #expect(stats.lostUnsynced == 0) }
    }

    struct Stats { var acked = 0, recovered = 0, recoveredAcked = 0, snapshot = false }

    @discardableResult
    static func iteration(seed: UInt64, policy: FsyncPolicy) async throws -> Stats {
        var random = SeededRandom(seed: seed)
        let disk = SimulatedDisk(seed: random.next())
        let segmentSize = Int.random(in: 300...3000, using: &random)
        let mode = CrashMode.allCases[Int(seed % 4)]
        let total = Int.random(in: 1...40, using: &random)
        let writers = Int.random(in: 1...8, using: &random)
        let crashAfter = Int.random(in: 0...total, using: &random)
        let snapshots = random.next() % 3 == 0
        let txns = (0..<total).map {
            makeTransaction(id: UInt64($0), records: Int.random(in: 1...4, using: &random), sizes: 0...200, random: &random)
        }
        let label = "seed \(seed) policy \(policy) mode \(mode) segment \(segmentSize) writers \(writers) crashAfter \(crashAfter)/\(total)"

        let shared = Shared()
        // Pieces smaller than a segment, so crashes also land while obsolete
        // files are shrunk and while a snapshot is written back.
        let options = JournalOptions(fsync: policy, segmentSize: segmentSize, pieceBytes: Int.random(in: 40...400, using: &random), fileLayer: disk)
        let (journal, _) = try Journal.open(directory: "/j", options: options)
        if crashAfter == 0 {
            shared.oracle.withLock { $0.crashed = disk.crash(mode: mode) }
        }
        await withTaskGroup(of: Void.self) { group in
            for w in 0..<writers {
                let mine = Array(stride(from: w, to: total, by: writers))
                let snapshotSeed = random.next()
                group.addTask {
                    var local = SeededRandom(seed: snapshotSeed)
                    for index in mine {
                        guard let seq = try? await journal.append(txns[index]) else { return }
                        let crashNow = shared.oracle.withLock { o -> Bool in
                            o.acked[seq] = index
                            o.ackCount += 1
                            return o.ackCount == crashAfter && o.crashed == nil
                        }
                        if crashNow {
                            let after = disk.crash(mode: mode)
                            shared.oracle.withLock { $0.crashed = after }
                        }
                        if snapshots, local.next() % 4 == 0 {
                            // Compaction's order: seal the segment behind this
                            // transaction, then snapshot through it.
                            if local.next() % 2 == 0 { try? await journal.sealSegment() }
                            if (try? await journal.writeSnapshot(snapshotPayload(seq), coveringThrough: seq)) != nil {
                                shared.oracle.withLock { $0.snapshotAcked = max($0.snapshotAcked, seq) }
                            }
                        }
                    }
                }
            }
        }
        let crashed = shared.oracle.withLock { o -> SimulatedDisk in
            if let c = o.crashed { return c }
            let c = disk.crash(mode: mode)
            o.crashed = c
            return c
        }
        try? await journal.close()
        let final = shared.oracle.withLock { $0 }

        // Reopen what survived: must always work.
        let reopened = JournalOptions(fsync: policy, segmentSize: segmentSize, fileLayer: crashed)
        let journal2: Journal
        let recovery: Recovery
        do {
            (journal2, recovery) = try Journal.open(directory: "/j", options: reopened)
        } catch {
            Issue.record("\(label): reopen failed: \(error)")
            return Stats()
        }
        let base = recovery.snapshotSequence
        if let snapshot = recovery.snapshot {
            #expect(snapshot.bytes == snapshotPayload(snapshot.sequence), "\(label)")
        }
        #expect(base >= final.snapshotAcked, "\(label): acknowledged snapshot \(final.snapshotAcked) lost, have \(base)")
        let recovered = try recovery.allTransactions()
        var seen = Set<Int>()
        for txn in recovered {
            guard let id = transactionID(txn), id < UInt64(total) else {
                Issue.record("\(label): recovered a transaction nobody wrote")
                break
            }
            #expect(txn.records == txns[Int(id)], "\(label): transaction \(id) altered")
            #expect(seen.insert(Int(id)).inserted, "\(label): transaction \(id) twice")
            if let ackedIndex = final.acked[txn.lastSequence] {
                #expect(ackedIndex == Int(id), "\(label): sequence \(txn.lastSequence) holds \(id), acknowledged \(ackedIndex)")
            }
        }
        let byLast = Dictionary(uniqueKeysWithValues: recovered.map { ($0.lastSequence, $0) })
        for (seq, index) in final.acked where seq > base {
            if policy == .always {
                // Acknowledged under `.always` = durable.
                #expect(byLast[seq].flatMap(transactionID) == UInt64(index), "\(label): acknowledged transaction \(index) at \(seq) lost")
            } else if seq <= recovery.lastSequence {
                #expect(byLast[seq].flatMap(transactionID) == UInt64(index), "\(label): prefix broken at \(seq)")
            }
        }
        // Still appendable; a clean reopen keeps everything.
        let extra = [JournalRecord(type: 9, payload: withUnsafeBytes(of: UInt64(999_999).littleEndian) { Array($0) })]
        let seq = try await journal2.append(extra)
        #expect(seq == recovery.lastSequence + 1, "\(label)")
        try await journal2.close()
        let (journal3, recovery3) = try Journal.open(directory: "/j", options: reopened)
        #expect(try recovery3.allTransactions() == recovered + [JournalTransaction(firstSequence: seq, records: extra)], "\(label)")
        try await journal3.close()
        return Stats(
            acked: final.acked.count, recovered: recovered.count,
            recoveredAcked: final.acked.keys.filter { $0 <= recovery.lastSequence }.count,
            snapshot: recovery.snapshot != nil)
    }

    /// A power loss at every step of freeing obsolete files (after their
    /// renames, after each shrink): the journal always reopens with the new
    /// snapshot and every acknowledged transaction after it, and removes the
    /// half-freed files.
    @Test(arguments: CrashMode.allCases)
    func powerLossWhileObsoleteFilesAreFreed(mode: CrashMode) async throws {
        var step = 0
        var leftHalfFreed = 0
        var crashedSomewhere = true
        while crashedSomewhere {
            let disk = SimulatedDisk(seed: UInt64(step))
            let layer = FailObsolete(disk: disk, at: step)
            let options = JournalOptions(fsync: .always, segmentSize: 1024, runwayBytes: 0, pieceBytes: 300, fileLayer: layer)
            var random = SeededRandom(seed: 77)
            let (journal, _) = try Journal.open(directory: "/j", options: options)
            var acked: [JournalTransaction] = []
            for id in 0..<30 {
                let txn = makeTransaction(id: UInt64(id), records: 1, sizes: 100...200, random: &random)
                let last = try await journal.append(txn)
                acked.append(JournalTransaction(firstSequence: last, records: txn))
            }
            let through = acked[19].lastSequence
            try await journal.sealSegment()
            _ = try? await journal.writeSnapshot(Self.snapshotPayload(through), coveringThrough: through)
            try? await journal.close()
            let after = layer.crashed(mode: mode)
            crashedSomewhere = after != nil
            let survivor = after ?? disk

            let label = "mode \(mode) crash at shrink \(step)"
            if try survivor.listDirectory("/j").contains(where: { $0.hasSuffix(Journal.obsoleteSuffix) }) { leftHalfFreed += 1 }
            let (reopened, recovery) = try Journal.open(directory: "/j", options: JournalOptions(fsync: .always, segmentSize: 1024, fileLayer: survivor))
            #expect(recovery.snapshot == RecoveredSnapshot(sequence: through, bytes: Self.snapshotPayload(through)), "\(label)")
            #expect(try recovery.allTransactions() == Array(acked[20...]), "\(label)")
            #expect(try survivor.listDirectory("/j").allSatisfy { !$0.hasSuffix(Journal.obsoleteSuffix) }, "\(label)")
            try await reopened.close()
            step += 1
        }
        // Three or more covered segments of about 1 KiB, three shrinks each.
        #expect(step >= 9)
        #expect(leftHalfFreed == step - 1)
    }

    /// A removal that fails part-way fails that snapshot call, loses
    /// nothing, and the next snapshot finishes it. A failed shrink leaves
    /// `.obsolete` files; a failed rename leaves the segment under its own
    /// name, still listed, so the next removal covers it again.
    @Test(arguments: [FailObsolete.Step.shrink, .rename])
    func aFailedRemovalIsFinishedByTheNextSnapshot(step: FailObsolete.Step) async throws {
        let disk = SimulatedDisk(seed: 5)
        let layer = FailObsolete(disk: disk, at: 0, dies: false, step: step)
        let options = JournalOptions(fsync: .always, segmentSize: 1024, runwayBytes: 0, pieceBytes: 300, fileLayer: layer)
        var random = SeededRandom(seed: 78)
        let (journal, _) = try Journal.open(directory: "/j", options: options)
        var last: UInt64 = 0
        for id in 0..<30 { last = try await journal.append(makeTransaction(id: UInt64(id), records: 1, sizes: 100...200, random: &random)) }
        try await journal.sealSegment()
        await #expect(throws: JournalError.self) { try await journal.writeSnapshot(Self.snapshotPayload(last), coveringThrough: last) }
        if step == .shrink { #expect(try disk.listDirectory("/j").contains { $0.hasSuffix(Journal.obsoleteSuffix) }) }
        let more = try await journal.append(JournalRecord(type: 1, payload: [1]))
        try await journal.sealSegment()
        try await journal.writeSnapshot(Self.snapshotPayload(more), coveringThrough: more)
        let left = try disk.listDirectory("/j")
        #expect(left.filter { $0.hasSuffix(".seg") }.count == 1, "\(left)")
        #expect(left.allSatisfy { !$0.hasSuffix(Journal.obsoleteSuffix) }, "\(left)")
        try await journal.close()
        let (reopened, recovery) = try Journal.open(directory: "/j", options: options)
        #expect(recovery.snapshot == RecoveredSnapshot(sequence: more, bytes: Self.snapshotPayload(more)))
        #expect(try recovery.allTransactions().isEmpty)
        try await reopened.close()
    }

    /// The simulated disk, whose `at`-th shrink of an obsolete file (from 0),
    /// or `at`-th rename to an obsolete name, fails. With `dies`, that is a
    /// power loss: every call after it fails too.
    final class FailObsolete: FileLayer, Sendable {
        enum Step: Sendable { case shrink, rename }
        let disk: SimulatedDisk
        let at: Int
        let dies: Bool
        let step: Step
        private let steps = Mutex(0)

        init(disk: SimulatedDisk, at: Int, dies: Bool = true, step: Step = .shrink) {
            self.disk = disk
            self.at = at
            self.dies = dies
            self.step = step
        }

        private var failed: Bool { steps.withLock { $0 > at } }

        /// Counts the step; true when this one is to fail.
        private func failsNow() -> Bool {
            steps.withLock { n -> Bool in n += 1; return n == at + 1 }
        }

        /// What the power loss left, or nil when it never happened.
        func crashed(mode: CrashMode) -> SimulatedDisk? {
            dies && failed ? disk.crash(mode: mode) : nil
        }

        func truncate(_ file: JournalFile, to length: Int64) throws {
            if step == .shrink, file.path.hasSuffix(Journal.obsoleteSuffix), failsNow() {
                throw JournalError.io(operation: "ftruncate", path: file.path, errno: EIO)
            }
            try live().truncate(file, to: length)
        }

        /// After a power loss nothing more reaches the disk.
        private func live() throws -> SimulatedDisk {
            if dies && failed { throw JournalError.io(operation: "power lost", path: "/j", errno: EIO) }
            return disk
        }

        func open(_ path: String, mode: OpenMode) throws -> JournalFile { try live().open(path, mode: mode) }
        func close(_ file: JournalFile) { disk.close(file) }
        func write(_ file: JournalFile, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws -> Int { try live().write(file, bytes, at: offset) }
        func read(_ file: JournalFile, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int { try live().read(file, into: buffer, at: offset) }
        func sync(_ file: JournalFile) throws { try live().sync(file) }
        func writeBack(_ file: JournalFile, offset: Int64, length: Int64) throws { try live().writeBack(file, offset: offset, length: length) }
        func size(_ file: JournalFile) throws -> Int64 { try live().size(file) }
        func rename(_ from: String, to: String) throws {
            if step == .rename, to.hasSuffix(Journal.obsoleteSuffix), failsNow() {
                throw JournalError.io(operation: "rename", path: from, errno: EIO)
            }
            try live().rename(from, to: to)
        }
        func remove(_ path: String) throws { try live().remove(path) }
        func syncDirectory(_ path: String) throws { try live().syncDirectory(path) }
        func listDirectory(_ path: String) throws -> [String] { try live().listDirectory(path) }
        func createDirectory(_ path: String) throws { try live().createDirectory(path) }
        func directoryExists(_ path: String) -> Bool { disk.directoryExists(path) }
        func lockDirectory(_ path: String) throws -> JournalFile { try live().lockDirectory(path) }
        func unlock(_ lock: JournalFile) { disk.unlock(lock) }
    }
}
