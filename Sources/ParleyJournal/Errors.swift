#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Everything the journal can throw.
///
/// Values are plain data (Sendable, Equatable) so a waiter, a test and a log
/// line all see the same thing, and the description always names the file and,
/// for damage, the byte offset: an operator has to be able to find it with a hex
/// dump, since the journal refuses to open rather than guess.
public indirect enum JournalError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Bytes on disk that a torn write cannot explain: damage in a sealed
    /// segment, a valid record after a bad one, a sequence gap, a bad snapshot
    /// with no unambiguous fallback. `offset` is the byte offset in `file`.
    case corrupt(file: String, offset: Int64, reason: String)
    /// A file operation failed. `errno` is the POSIX error number.
    case io(operation: String, path: String, errno: Int32)
    /// A write ran out of space (ENOSPC, EDQUOT or a short write). The bytes were
    /// truncated away again; the journal refuses writes until a later write
    /// succeeds.
    case noSpace(path: String, errno: Int32)
    /// The journal hit a write or fdatasync failure and will not accept or
    /// acknowledge anything else; reopen it to recover from what is actually on
    /// disk.
    case failed(cause: JournalError)
    /// A record payload exceeds `JournalOptions.maxRecordSize`.
    case recordTooLarge(size: Int, limit: Int)
    /// `append` was called with no records.
    case emptyTransaction
    /// The caller passed something the journal cannot honour.
    case invalidArgument(String)
    /// The journal was closed.
    case closed
    /// Another journal (in this or another process) has the directory open.
    case locked(path: String)
    /// A reader without the lock (`verify`, `read`) found the journal's files
    /// changed under it (a running bot compacted it or began a segment) where
    /// it expected records: not damage, and reading again sees the new files.
    case changedWhileRead(directory: String)
    /// A reader was pointed at a directory with no segment or snapshot in it.
    case noJournal(directory: String)
    /// The segment being written lost its name (it, or the journal's
    /// directory, was deleted): nothing written to it would be found again.
    case removed(path: String)

    public var description: String {
        switch self {
        case let .corrupt(file, offset, reason):
            return "journal corrupt: \(file) at byte offset \(offset): \(reason)"
        case let .io(operation, path, code):
            return "journal I/O error: \(operation) on \(path) failed: \(errnoDescription(code))"
        case let .noSpace(path, code):
            return "journal out of space writing \(path): \(errnoDescription(code)); cut back to the last good transaction"
        case let .failed(cause):
            return "journal failed, no further writes accepted (reopen to recover): \(cause)"
        case let .recordTooLarge(size, limit):
            return "journal record of \(size) bytes exceeds the maximum record size of \(limit) bytes"
        case .emptyTransaction:
            return "journal transaction has no records"
        case let .invalidArgument(message):
            return "journal: invalid argument: \(message)"
        case .closed:
            return "journal is closed"
        case let .locked(path):
            return "journal directory \(path) is already open elsewhere (locked)"
        case let .noJournal(directory):
            return "\(directory) holds no journal: no segment or snapshot files"
        case let .removed(path):
            return "journal file \(path) was deleted while open (was the journal directory removed?): nothing written from here on would survive a restart"
        case let .changedWhileRead(directory):
            return "journal \(directory) changed while it was read (the bot writing it compacted it or began a segment); read it again"
        }
    }

    /// True for the out-of-space family of errno values.
    static func isNoSpace(_ code: Int32) -> Bool {
        code == ENOSPC || code == EDQUOT
    }
}

/// "No space left on device (ENOSPC)" style text for an errno value.
func errnoDescription(_ code: Int32) -> String {
    let name: String
    switch code {
    case EIO: name = "EIO"
    case ENOSPC: name = "ENOSPC"
    case EDQUOT: name = "EDQUOT"
    case ENOENT: name = "ENOENT"
    case EEXIST: name = "EEXIST"
    case EBADF: name = "EBADF"
    case EACCES: name = "EACCES"
    case EROFS: name = "EROFS"
    case EINVAL: name = "EINVAL"
    case EXDEV: name = "EXDEV"
    case 0: name = "short write"
    default: name = "errno \(code)"
    }
    if code == 0 { return name }
    if let text = strerror(code) {
        return "\(String(cString: text)) (\(name))"
    }
    return name
}
