import Metrics
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

    final class LastSync: Sendable {
        let nanoseconds = Atomic<UInt64>(0)
    }

    func sync(_ file: JournalFile) throws {
        let started = ContinuousClock.now
        defer {
            let took = ContinuousClock.now - started
            RuntimeMetrics.journalSync.record(duration: took)
            lastSync.nanoseconds.store(UInt64(took.components.seconds) * 1_000_000_000 + UInt64(took.components.attoseconds / 1_000_000_000),
                                       ordering: .relaxed)
        }
        try base.sync(file)
    }

    func syncDirectory(_ path: String) throws {
        let started = ContinuousClock.now
        defer { RuntimeMetrics.journalSync.record(duration: ContinuousClock.now - started) }
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
    func lockDirectory(_ path: String) throws -> JournalFile { try base.lockDirectory(path) }
}
