import Metrics
import ParleyCore
import ParleyJournal
import Synchronization

/// The journal's file layer with its syncs timed, for
/// `parley_journal_sync_duration_seconds`. Everything else passes through.
///
/// A decorator rather than a hook inside the journal: the journal module
/// stays free of a metrics dependency, and the file layer is already the
/// seam its tests use.
struct MeteredFileLayer: FileLayer {
    let base: any FileLayer
    /// The last sync's duration in nanoseconds (0: none yet), for the dashboard.
    let lastSync = LastSync()
    /// Syncs the disk held for long, told to the bot's log.
    let slow: SlowSyncs

    final class LastSync: Sendable {
        let nanoseconds = Atomic<UInt64>(0)
    }

    func sync(_ file: JournalFile) throws {
        let started = ContinuousClock.now
        defer {
            let now = ContinuousClock.now, took = now - started
            RuntimeMetrics.journalSync.record(duration: took)
            lastSync.nanoseconds.store(UInt64(took.wholeNanoseconds), ordering: .relaxed)
            slow.record(took, at: now)
        }
        try base.sync(file)
    }

    func syncDirectory(_ path: String) throws {
        let started = ContinuousClock.now
        defer {
            let now = ContinuousClock.now
            RuntimeMetrics.journalSync.record(duration: now - started)
            slow.record(now - started, at: now)
        }
        try base.syncDirectory(path)
    }

    func writeBack(_ file: JournalFile, offset: Int64, length: Int64) throws {
        try base.writeBack(file, offset: offset, length: length)
    }
    func open(_ path: String, mode: OpenMode) throws -> JournalFile { try base.open(path, mode: mode) }
    func close(_ file: JournalFile) { base.close(file) }
    func write(_ file: JournalFile, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws -> Int {
        try base.write(file, bytes, at: offset)
    }
    func read(_ file: JournalFile, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        try base.read(file, into: buffer, at: offset)
    }
    func truncate(_ file: JournalFile, to length: Int64) throws { try base.truncate(file, to: length) }
    func size(_ file: JournalFile) throws -> Int64 { try base.size(file) }
    func rename(_ from: String, to: String) throws { try base.rename(from, to: to) }
    func remove(_ path: String) throws { try base.remove(path) }
    func listDirectory(_ path: String) throws -> [String] { try base.listDirectory(path) }
    func createDirectory(_ path: String) throws { try base.createDirectory(path) }
    func directoryExists(_ path: String) -> Bool { base.directoryExists(path) }
    func isUnlinked(_ file: JournalFile) -> Bool { base.isUnlinked(file) }
    func lockDirectory(_ path: String) throws -> JournalFile { try base.lockDirectory(path) }
}

/// Warns of the journal's syncs that took `threshold` or longer: a reply
/// waits for its event's commit, so it waited as long, and an operator
/// looking at slow replies should learn that it was the disk. The first is
/// told at once; after that at most one line per `quiet`, counting the slow
/// syncs since the last line (the histogram has every one).
final class SlowSyncs: Sendable {
    /// Far above a healthy disk's sync (well under 10 ms), and long enough for a person to notice.
    static let threshold: Duration = .milliseconds(500)

    let threshold: Duration
    let quiet: Duration
    /// Whether a send waits for its commit (`fsync = "always"`): then the line says so.
    let repliesWait: Bool
    private let warn: @Sendable (String) -> Void
    private let state = Mutex(State())

    private struct State {
        var count = 0
        var longest: Duration = .zero
        var warned: ContinuousClock.Instant?
    }

    /// `warn` is called on the syncing thread: it should hand the line on, not write it there.
    init(threshold: Duration = SlowSyncs.threshold, quiet: Duration = .seconds(60), repliesWait: Bool,
         warn: @escaping @Sendable (String) -> Void) {
        self.threshold = threshold
        self.quiet = quiet
        self.repliesWait = repliesWait
        self.warn = warn
    }

    func record(_ took: Duration, at now: ContinuousClock.Instant) {
        guard took >= threshold else { return }
        let line = state.withLock { s -> String? in
            s.count += 1
            s.longest = max(s.longest, took)
            if let warned = s.warned, now - warned < quiet { return nil }
            defer { s = State(warned: now) }
            let held = s.count == 1
                ? "the disk held a journal sync for \(took.wholeMilliseconds) ms"
                : "the disk held \(s.count) journal syncs for \(threshold.wholeMilliseconds) ms or more since the last warning (the longest \(s.longest.wholeMilliseconds) ms)"
            return held + (repliesWait ? "; replies wait for their commit, so they waited as long" : "")
        }
        if let line { warn(line) }
    }
}
