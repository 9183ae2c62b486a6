import Foundation
import Synchronization
import Testing
@testable import ParleyJournal

@Suite struct ConcurrencyTests {
    static func payload(writer: Int, index: Int) -> [UInt8] {
        [UInt8(writer), UInt8(index)] + [UInt8](repeating: UInt8(truncatingIfNeeded: writer &+ index), count: 62)
    }

    /// `verify` and `read` take no lock, so they may look at a journal a bot
    /// is writing: a tail written between two of their reads is not damage.
    @Test func readersOfAJournalBeingWrittenSeeNoDamage() async throws {
        try await withTempDirectory("live-read", realDisk: true) { dir in
            let options = JournalOptions(fsync: .never, segmentSize: 256 << 10)
            let (journal, _) = try Journal.open(directory: dir, options: options)
            _ = try await journal.append(JournalRecord(type: 1, payload: [0]))
            let writing = Task {
                var i = 0
                while !Task.isCancelled {
                    _ = try await journal.append(JournalRecord(type: 1, payload: Self.payload(writer: 1, index: i) + [UInt8](repeating: 7, count: 900)))
                    i += 1
                }
            }
            var failures: [String] = []
            for _ in 0..<150 {
                do {
                    _ = try Journal.verify(directory: dir)
                    _ = try Journal.read(directory: dir)
                } catch {
                    failures.append("\(error)")
                }
            }
            writing.cancel()
            _ = await writing.result
            try await journal.close()
            #expect(failures.isEmpty, "\(failures.count) reads saw damage: \(failures.prefix(3))")
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
