import Foundation
import ParleyJournal
import Synchronization

/// What a snapshot costs the commits around it: one writer commits at
/// `always` on a fixed schedule while the journal writes a large snapshot,
/// and the commits that overlap it are compared with the ones that do not,
/// in the same run on the same disk. A busy bot whose replies wait for
/// their commit sees exactly that difference when it compacts.
extension JournalBench {
    static let snapshotBytes = 8 << 20
    static let snapshotRounds = 10

    static func snapshotBench(directory: String) async throws {
        print("")
        print("== Journal commits while a snapshot is written: always, one writer, a commit every 1 ms, \(snapshotBytes >> 20) MiB snapshot, \(snapshotRounds) times")
        let (journal, _) = try Journal.open(directory: directory, options: JournalOptions(fsync: .always))
        let snapshot = (0..<snapshotBytes).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
        let running = Atomic<Bool>(true)
        let commits = Mutex<[(start: ContinuousClock.Instant, ms: Double)]>([])
        let writer = Thread {
            let payload = [UInt8](repeating: 0x5a, count: payloadSize)
            var next = ContinuousClock.now
            while running.load(ordering: .relaxed) {
                next = max(next + .milliseconds(1), ContinuousClock.now)
                let start = ContinuousClock.now
                guard (try? journal.appendBlocking([JournalRecord(type: 1, payload: payload)])) != nil else { return }
                let ms = seconds(ContinuousClock.now - start) * 1000
                commits.withLock { $0.append((start, ms)) }
                Thread.sleep(until: Date() + seconds(next - ContinuousClock.now))
            }
        }
        writer.stackSize = 1 << 20
        writer.start()
        var windows: [Range<ContinuousClock.Instant>] = []
        for _ in 0..<snapshotRounds {
            try await Task.sleep(for: .milliseconds(250))
            let start = ContinuousClock.now
            try await journal.writeSnapshot(snapshot, coveringThrough: journal.lastSequence)
            windows.append(start..<ContinuousClock.now)
        }
        try await Task.sleep(for: .milliseconds(250))
        running.store(false, ordering: .relaxed)
        while !writer.isFinished { try await Task.sleep(for: .milliseconds(5)) }
        try await journal.close()
        try? FileManager.default.removeItem(atPath: directory)

        let all = commits.withLock { $0 }
        let during = all.filter { c in windows.contains { $0.contains(c.start) } }.map(\.ms).sorted()
        let outside = all.filter { c in !windows.contains { $0.contains(c.start) } }.map(\.ms).sorted()
        let durations = windows.map { fmt(seconds($0.upperBound - $0.lowerBound) * 1000, 0) }
        print("   snapshot written in \(durations.joined(separator: " / ")) ms (temp file, write, fsync, rename, fsync directory)")
        print("   commits                    count   p50 ms   p99 ms   max ms")
        for (label, values) in [("no snapshot being written", outside), ("a snapshot being written ", during)] where !values.isEmpty {
            let figures = [SocketIOBench.percentile(values, 0.5), SocketIOBench.percentile(values, 0.99), values.last ?? 0]
            print("   \(label) \(pad(values.count, 6))" + figures.map { "   " + SocketIOBench.pad(fmt($0, 2), 6, right: true) }.joined())
        }
        if let a = outside.isEmpty ? nil : SocketIOBench.percentile(outside, 0.99),
           let b = during.isEmpty ? nil : SocketIOBench.percentile(during, 0.99) {
            print("   p99 while a snapshot is written: \(fmt(b / max(a, 1e-9), 1))× the p99 without")
        }
    }
}
