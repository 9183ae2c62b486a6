import ParleyJournal
import Synchronization
import Testing
@testable import ParleyRuntime

/// A journal sync the disk holds for long is told to the bot's log: at once
/// the first time, then at most once per quiet period, counting the others.
@Suite struct SlowSyncTests {
    /// The lines a `SlowSyncs` told.
    final class Lines: Sendable {
        let all = Mutex<[String]>([])
        func add(_ line: String) { all.withLock { $0.append(line) } }
        var told: [String] { all.withLock { $0 } }
    }

    @Test func theFirstIsToldAtOnceAndTheRestOncePerQuietPeriod() {
        let lines = Lines()
        let slow = SlowSyncs(threshold: .milliseconds(500), quiet: .seconds(60), repliesWait: true) { lines.add($0) }
        let t0 = ContinuousClock.now
        slow.record(.milliseconds(3), at: t0)
        slow.record(.milliseconds(499), at: t0 + .seconds(1))
        #expect(lines.told.isEmpty)

        slow.record(.milliseconds(612), at: t0 + .seconds(2))
        #expect(lines.told == ["the disk held a journal sync for 612 ms; replies wait for their commit, so they waited as long"])

        // Within the quiet period: counted, not told.
        slow.record(.milliseconds(900), at: t0 + .seconds(10))
        slow.record(.milliseconds(700), at: t0 + .seconds(61))
        #expect(lines.told.count == 1)

        // The first after it tells all three since the last line.
        slow.record(.milliseconds(520), at: t0 + .seconds(62))
        #expect(lines.told.last == "the disk held 3 journal syncs for 500 ms or more since the last warning (the longest 900 ms); "
            + "replies wait for their commit, so they waited as long")

        // A lone one after a quiet period is told as itself.
        slow.record(.milliseconds(2_400), at: t0 + .seconds(200))
        #expect(lines.told.last == "the disk held a journal sync for 2400 ms; replies wait for their commit, so they waited as long")
        #expect(lines.told.count == 3)
    }

    @Test func withoutWaitingRepliesTheLineSaysOnlyWhatTheDiskDid() {
        let lines = Lines()
        let slow = SlowSyncs(repliesWait: false) { lines.add($0) }
        slow.record(.seconds(1), at: .now)
        #expect(lines.told == ["the disk held a journal sync for 1000 ms"])
    }

    /// Through a journal on a disk whose syncs take 60 ms: the metered layer
    /// times each commit's sync and tells the slow one.
    @Test func aJournalsSlowCommitIsTold() async throws {
        let disk = SimulatedDisk(seed: 1)
        disk.setFaults(DiskFaults(syncLatencyMicroseconds: 60_000))
        let dir = "/journal"
        let lines = Lines()
        let layer = MeteredFileLayer(base: disk,
                                     slow: SlowSyncs(threshold: .milliseconds(50), repliesWait: true) { lines.add($0) })
        let (journal, _) = try Journal.open(directory: dir, options: JournalOptions(fsync: .always, fileLayer: layer))
        _ = try journal.appendBlocking([JournalRecord(type: 1, payload: Array("hello".utf8))])
        try await journal.close()
        #expect(lines.told.count == 1)
        #expect(lines.told.first?.hasPrefix("the disk held a journal sync for ") == true)
        #expect(layer.lastSync.nanoseconds.load(ordering: .relaxed) >= 60_000_000)
    }
}
