import CParleyJournal
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An open file of a `FileLayer`. For `PosixFileLayer` it is the descriptor.
/// Only the layers of this module open files, so its initializer is internal.
public struct JournalFile: Hashable, Sendable {
    public let rawValue: Int32
    public let path: String
}

/// How `FileLayer.open` treats the path.
public enum OpenMode: Sendable {
    /// Open an existing file read-write; fail with ENOENT otherwise.
    case existing
    /// Open an existing file for reading only: what verifying, dumping and
    /// recovering read, so a read-only backup or user can check a journal.
    case readOnly
    /// Create the file, or truncate it to zero if it exists.
    case createTruncate
}

/// The few file operations the journal uses, so tests can swap in a
/// `SimulatedDisk` that models what survives a power loss. Every failure is thrown as
/// `JournalError.io(operation:path:errno:)`.
public protocol FileLayer: Sendable {
    func open(_ path: String, mode: OpenMode) throws -> JournalFile
    func close(_ file: JournalFile)
    /// pwrite: writes at `offset`; may write fewer bytes than asked.
    func write(_ file: JournalFile, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws -> Int
    /// pread: reads at `offset`; returns 0 at end of file.
    func read(_ file: JournalFile, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int
    /// fdatasync (F_FULLFSYNC on Darwin).
    func sync(_ file: JournalFile) throws
    /// Writes a range's dirty pages to the device and waits, without making
    /// them durable (Linux `sync_file_range`), so a large file reaches the disk
    /// in pieces and the journal's commits never wait behind all of it at
    /// once. A failure is final, as for `sync`: the kernel may have reported
    /// the error here and not again to a later sync.
    func writeBack(_ file: JournalFile, offset: Int64, length: Int64) throws
    func truncate(_ file: JournalFile, to length: Int64) throws
    func size(_ file: JournalFile) throws -> Int64
    /// Atomic rename within one directory.
    func rename(_ from: String, to: String) throws
    func remove(_ path: String) throws
    /// fsync of a directory, making creates, renames and removes in it durable.
    func syncDirectory(_ path: String) throws
    /// Names (not paths) of the entries of a directory, without "." and "..".
    func listDirectory(_ path: String) throws -> [String]
    /// mkdir; succeeds if the directory already exists.
    func createDirectory(_ path: String) throws
    func directoryExists(_ path: String) -> Bool
    /// Takes an exclusive lock on the directory for this holder (POSIX: flock
    /// on `<directory>/LOCK`), so two journals never write the same files.
    /// Throws `JournalError.locked` when someone else holds it; `unlock`
    /// releases it.
    func lockDirectory(_ path: String) throws -> JournalFile
    /// Releases a `lockDirectory` lock and closes its file.
    func unlock(_ lock: JournalFile)
    /// Whether the open file no longer has a name (it, or its directory, was
    /// deleted): what is written to it is lost at the next open.
    func isUnlinked(_ file: JournalFile) -> Bool
}

extension FileLayer {
    public func unlock(_ lock: JournalFile) { close(lock) }

    /// A layer that cannot tell says no.
    public func isUnlinked(_ file: JournalFile) -> Bool { false }

    /// Writes all of `bytes`, looping over short writes. Returns the number of
    /// bytes written before a zero-length write (out of space), so the caller
    /// can tell a short write from success.
    func writeFully(_ file: JournalFile, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws -> Int {
        var done = 0
        while done < bytes.count {
            let n = try write(file, UnsafeRawBufferPointer(rebasing: bytes[done...]), at: offset + Int64(done))
            if n <= 0 { return done }
            done += n
        }
        return done
    }

    /// Reads a whole file into memory. `limit` guards the allocation.
    func readFile(_ path: String, limit: Int64 = Int64(Int.max)) throws -> [UInt8] {
        let file = try open(path, mode: .readOnly)
        defer { close(file) }
        return try readAll(file, limit: limit)
    }

    func readAll(_ file: JournalFile, limit: Int64 = Int64(Int.max)) throws -> [UInt8] {
        let size = try self.size(file)
        guard size <= limit else {
            throw JournalError.corrupt(file: file.path, offset: 0, reason: "file of \(size) bytes exceeds the limit of \(limit) bytes")
        }
        let count = Int(size)
        var filled = 0
        let bytes = try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            while filled < count {
                let n = try read(file, into: UnsafeMutableRawBufferPointer(rebasing: raw[filled...]), at: Int64(filled))
                if n <= 0 { break }
                filled += n
            }
            initialized = filled
        }
        return bytes
    }

    /// Deletes a file by shrinking it a piece at a time, each shrink synced,
    /// then unlinking what is left. On a file system that discards freed blocks
    /// as it commits (ext4 mounted `discard`), a whole large file freed at once
    /// holds up the next commit of every other file, the journal's own included.
    func removeInPieces(_ path: String, piece: Int64) throws {
        let file = try open(path, mode: .existing)
        do {
            var length = try size(file)
            while length > piece {
                length -= piece
                try truncate(file, to: length)
                try sync(file)
            }
            close(file)
        } catch {
            close(file)
            throw error
        }
        try remove(path)
    }

    /// Creates `path` with `bytes` durably: write, sync the file, then fsync
    /// the directory before anyone relies on the name.
    func writeNewFile(_ path: String, _ bytes: [UInt8], directory: String) throws {
        let file = try open(path, mode: .createTruncate)
        do {
            let written = try bytes.withUnsafeBytes { try writeFully(file, $0, at: 0) }
            guard written == bytes.count else { throw JournalError.noSpace(path: path, errno: ENOSPC) }
            try sync(file)
        } catch {
            close(file)
            throw error
        }
        close(file)
        try syncDirectory(directory)
    }
}

/// The real thing: POSIX calls on Linux (and Darwin, with F_FULLFSYNC).
public struct PosixFileLayer: FileLayer {
    public init() {}

    private func fail(_ op: String, _ path: String) -> JournalError {
        .io(operation: op, path: path, errno: errno)
    }

    public func open(_ path: String, mode: OpenMode) throws -> JournalFile {
        var flags = (mode == .readOnly ? O_RDONLY : O_RDWR) | O_CLOEXEC
        if case .createTruncate = mode { flags |= O_CREAT | O_TRUNC }
        while true {
            let fd = Glibc_open(path, flags, 0o644)
            if fd >= 0 { return JournalFile(rawValue: fd, path: path) }
            if errno == EINTR { continue }
            throw fail("open", path)
        }
    }

    public func close(_ file: JournalFile) {
        _ = closeFD(file.rawValue)
    }

    public func write(_ file: JournalFile, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws -> Int {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return 0 }
        return try again(onInterrupt: "write", file) { pwrite(file.rawValue, base, bytes.count, off_t(offset)) }
    }

    public func read(_ file: JournalFile, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        return try again(onInterrupt: "read", file) { pread(file.rawValue, base, buffer.count, off_t(offset)) }
    }

    /// A positioned read or write, made again when a signal interrupted it.
    private func again(onInterrupt what: String, _ file: JournalFile, _ call: () -> Int) throws -> Int {
        while true {
            let n = call()
            if n >= 0 { return n }
            if errno != EINTR { throw fail(what, file.path) }
        }
    }

    public func sync(_ file: JournalFile) throws {
        // Never loop on failure here: a failed fdatasync is final.
        #if canImport(Darwin)
        if fcntl(file.rawValue, F_FULLFSYNC) != 0 { throw fail("fcntl(F_FULLFSYNC)", file.path) }
        #else
        if fdatasync(file.rawValue) != 0 { throw fail("fdatasync", file.path) }
        #endif
    }

    public func writeBack(_ file: JournalFile, offset: Int64, length: Int64) throws {
        if parley_write_back(file.rawValue, offset, length) != 0 { throw fail("sync_file_range", file.path) }
    }

    public func truncate(_ file: JournalFile, to length: Int64) throws {
        while ftruncate(file.rawValue, off_t(length)) != 0 {
            if errno == EINTR { continue }
            throw fail("ftruncate", file.path)
        }
    }

    public func size(_ file: JournalFile) throws -> Int64 {
        var st = stat()
        guard fstat(file.rawValue, &st) == 0 else { throw fail("fstat", file.path) }
        return Int64(st.st_size)
    }

    public func rename(_ from: String, to: String) throws {
        guard Glibc_rename(from, to) == 0 else { throw fail("rename to \(to)", from) }
    }

    public func remove(_ path: String) throws {
        guard unlink(path) == 0 else { throw fail("unlink", path) }
    }

    public func syncDirectory(_ path: String) throws {
        let fd = Glibc_open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)
        guard fd >= 0 else { throw fail("open directory", path) }
        defer { _ = closeFD(fd) }
        guard fsync(fd) == 0 else { throw fail("fsync directory", path) }
    }

    public func listDirectory(_ path: String) throws -> [String] {
        guard let dir = opendir(path) else { throw fail("opendir", path) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw -> String in
                let chars = raw.bindMemory(to: CChar.self)
                return String(cString: chars.baseAddress!)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    public func createDirectory(_ path: String) throws {
        if mkdir(path, 0o755) != 0 && errno != EEXIST { throw fail("mkdir", path) }
    }

    public func directoryExists(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    public func isUnlinked(_ file: JournalFile) -> Bool {
        var st = stat()
        return fstat(file.rawValue, &st) == 0 && st.st_nlink == 0
    }

    public func lockDirectory(_ path: String) throws -> JournalFile {
        let lockPath = Paths.join(path, "LOCK")
        let fd = Glibc_open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw fail("open", lockPath) }
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            _ = closeFD(fd)
            if code == EWOULDBLOCK { throw JournalError.locked(path: path) }
            throw JournalError.io(operation: "flock", path: lockPath, errno: code)
        }
        return JournalFile(rawValue: fd, path: lockPath)
    }

    /// Unlocked before it is closed: a child process another thread is just
    /// starting holds a copy of the descriptor until it execs, and the lock
    /// would live on in that copy.
    public func unlock(_ lock: JournalFile) {
        _ = flock(lock.rawValue, LOCK_UN)
        close(lock)
    }
}

// Module-qualified names would be ambiguous with the protocol's methods inside
// the struct, so the libc calls go through these.
@inline(__always) private func Glibc_open(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
    #if canImport(Glibc)
    return Glibc.open(path, flags, mode)
    #elseif canImport(Musl)
    return Musl.open(path, flags, mode)
    #else
    return Darwin.open(path, flags, mode)
    #endif
}

@inline(__always) private func Glibc_rename(_ from: String, _ to: String) -> Int32 {
    #if canImport(Glibc)
    return Glibc.rename(from, to)
    #elseif canImport(Musl)
    return Musl.rename(from, to)
    #else
    return Darwin.rename(from, to)
    #endif
}

@inline(__always) private func closeFD(_ fd: Int32) -> Int32 {
    #if canImport(Glibc)
    return Glibc.close(fd)
    #elseif canImport(Musl)
    return Musl.close(fd)
    #else
    return Darwin.close(fd)
    #endif
}

/// Path helpers (no Foundation).
enum Paths {
    static func join(_ dir: String, _ name: String) -> String {
        dir.hasSuffix("/") ? dir + name : dir + "/" + name
    }

    static func parent(_ path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        if slash == trimmed.startIndex { return "/" }
        return String(trimmed[..<slash])
    }

    static func fileName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}
