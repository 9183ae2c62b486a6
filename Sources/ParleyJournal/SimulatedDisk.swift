#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// SplitMix64: a tiny seedable generator so every simulated crash can be
/// replayed from its seed.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// What a power loss leaves of data and names that were not yet synced.
public enum CrashMode: Sendable, CaseIterable, Hashable {
    /// Every unsynced byte is lost; every create, rename and remove since the
    /// last directory sync is undone.
    case dropUnsynced
    /// A random prefix of the unsynced writes reaches the disk (the last one
    /// possibly torn), and a random prefix of the unsynced directory changes.
    case keepPrefix
    /// All unsynced writes "reach" the disk but a random trailing region of
    /// them is garbage: the file size got there before the contents.
    case garbageTail
    /// Same, but the trailing region reads back as zeros.
    case zeroTail
}

/// Failures a test can inject.
public struct DiskFaults: Sendable {
    /// Every file sync fails with this errno (and, like Linux after a failed
    /// fsync, the unsynced writes are dropped from the to-be-durable set while
    /// still readable: a later sync "succeeds" without them).
    public var syncErrno: Int32?
    /// Every write fails with this errno.
    public var writeErrno: Int32?
    /// Every directory sync fails with this errno.
    public var directorySyncErrno: Int32?
    /// Total bytes all files may hold. A write that would exceed it writes what
    /// fits (a short write) and fails with ENOSPC when nothing fits.
    public var capacity: Int?
    /// Not a fault: every file sync first sleeps this long (outside the
    /// disk's lock), like a device flushing its cache, so tests can see
    /// group commit share syncs.
    public var syncLatencyMicroseconds: Int

    public init(
        syncErrno: Int32? = nil, writeErrno: Int32? = nil, directorySyncErrno: Int32? = nil,
        capacity: Int? = nil, syncLatencyMicroseconds: Int = 0
    ) {
        self.syncErrno = syncErrno
        self.writeErrno = writeErrno
        self.directorySyncErrno = directorySyncErrno
        self.capacity = capacity
        self.syncLatencyMicroseconds = syncLatencyMicroseconds
    }
}

/// An in-memory `FileLayer` that models durability the way the crash papers
/// describe Linux file systems: file data is durable only up to the last `sync` of that file,
/// names only up to the last `syncDirectory` of their directory. `crash(mode:)`
/// returns a new disk holding what a power loss would leave; the old disk
/// refuses every later operation (its process is "dead").
///
/// Directories themselves are modelled as always durable.
public final class SimulatedDisk: FileLayer {
    private enum DataOp: Sendable {
        case write(offset: Int, bytes: [UInt8])
        case truncate(Int)
    }

    private enum NameOp: Sendable {
        case link(String, Int)
        case unlink(String)
        case rename(String, String)
    }

    private struct Inode: Sendable {
        var current: [UInt8] = []
        var durable: [UInt8] = []
        var pending: [DataOp] = []
    }

    private struct Directory: Sendable {
        var current: [String: Int] = [:]
        var durable: [String: Int] = [:]
        var log: [NameOp] = []
    }

    private struct OpenFile: Sendable {
        var inode: Int
    }

    private struct State: Sendable {
        var inodes: [Int: Inode] = [:]
        var directories: [String: Directory] = [:]
        var open: [Int32: OpenFile] = [:]
        var locks: [Int32: String] = [:]
        var nextFD: Int32 = 3
        var nextInode = 1
        var random: SeededRandom
        var faults = DiskFaults()
        var dead = false
        var syncCount = 0
        var directorySyncCount = 0
        var writeCount = 0
    }

    private let state: Mutex<State>

    /// A disk holding only the directories "/" and ".".
    public init(seed: UInt64) {
        var initial = State(random: SeededRandom(seed: seed))
        initial.directories["/"] = Directory()
        initial.directories["."] = Directory()
        state = Mutex(initial)
    }

    private init(state: State) {
        self.state = Mutex(state)
    }

    // MARK: test controls

    /// Replaces the injected faults.
    public func setFaults(_ faults: DiskFaults) {
        state.withLock { $0.faults = faults }
    }

    public var faults: DiskFaults { state.withLock { $0.faults } }

    /// Number of successful file syncs so far (group commit shares them).
    public var syncCount: Int { state.withLock { $0.syncCount } }
    public var directorySyncCount: Int { state.withLock { $0.directorySyncCount } }
    public var writeCount: Int { state.withLock { $0.writeCount } }

    /// The current (not necessarily durable) contents of a file.
    public func contents(of path: String) -> [UInt8]? {
        state.withLock { s in
            let (dir, name) = Self.split(path)
            guard let ino = s.directories[dir]?.current[name] else { return nil }
            return s.inodes[ino]?.current
        }
    }

    /// Overwrites a file's contents and makes them durable at once (a test
    /// corrupting "the disk" directly, e.g. flipping a bit).
    public func replaceDurably(_ path: String, with bytes: [UInt8]) {
        state.withLock { s in
            let (dir, name) = Self.split(path)
            guard let ino = s.directories[dir]?.current[name] else { return }
            s.inodes[ino] = Inode(current: bytes, durable: bytes, pending: [])
        }
    }

    /// Simulates a power loss now. This disk is dead afterwards (every call
    /// fails with EIO, so a journal still running on it cannot touch the new
    /// state); the returned disk holds what survived, with all files closed.
    public func crash(mode: CrashMode) -> SimulatedDisk {
        state.withLock { s in
            s.dead = true
            var random = s.random
            var after = State(random: SeededRandom(seed: random.next()))
            after.nextInode = s.nextInode
            after.nextFD = s.nextFD + 1000
            var keptInodes = Set<Int>()
            for (path, dir) in s.directories.sorted(by: { $0.key < $1.key }) {
                var names = dir.durable
                let keep: Int
                switch mode {
                case .dropUnsynced: keep = 0
                default: keep = dir.log.isEmpty ? 0 : Int.random(in: 0...dir.log.count, using: &random)
                }
                for op in dir.log.prefix(keep) {
                    switch op {
                    case let .link(name, ino): names[name] = ino
                    case let .unlink(name): names[name] = nil
                    case let .rename(from, to):
                        if let ino = names[from] { names[to] = ino; names[from] = nil }
                    }
                }
                after.directories[path] = Directory(current: names, durable: names, log: [])
                keptInodes.formUnion(names.values)
            }
            for ino in keptInodes.sorted() {
                guard let inode = s.inodes[ino] else { continue }
                let bytes = Self.survivor(of: inode, mode: mode, random: &random)
                after.inodes[ino] = Inode(current: bytes, durable: bytes, pending: [])
            }
            s.random = random
            return SimulatedDisk(state: after)
        }
    }

    private static func apply(_ op: DataOp, to bytes: inout [UInt8]) {
        switch op {
        case let .write(offset, data):
            if bytes.count < offset { bytes.append(contentsOf: repeatElement(0, count: offset - bytes.count)) }
            let overlap = min(data.count, bytes.count - offset)
            if overlap > 0 { bytes.replaceSubrange(offset..<(offset + overlap), with: data[0..<overlap]) }
            if overlap < data.count { bytes.append(contentsOf: data[overlap...]) }
        case let .truncate(length):
            if length < bytes.count { bytes.removeSubrange(length...) }
            else { bytes.append(contentsOf: repeatElement(0, count: length - bytes.count)) }
        }
    }

    private static func survivor(of inode: Inode, mode: CrashMode, random: inout SeededRandom) -> [UInt8] {
        var bytes = inode.durable
        let ops = inode.pending
        if ops.isEmpty { return bytes }
        switch mode {
        case .dropUnsynced:
            return bytes
        case .keepPrefix:
            let keep = Int.random(in: 0...ops.count, using: &random)
            for op in ops.prefix(keep) { apply(op, to: &bytes) }
            if keep < ops.count, case let .write(offset, data) = ops[keep], !data.isEmpty {
                let torn = Int.random(in: 0..<data.count, using: &random)
                apply(.write(offset: offset, bytes: Array(data[0..<torn])), to: &bytes)
            }
            return bytes
        case .garbageTail, .zeroTail:
            var low = Int.max
            for op in ops {
                switch op {
                case let .write(offset, _): low = min(low, offset)
                case let .truncate(length): low = min(low, length)
                }
            }
            for op in ops { apply(op, to: &bytes) }
            guard low < bytes.count else { return bytes }
            let start = Int.random(in: low..<bytes.count, using: &random)
            for i in start..<bytes.count {
                bytes[i] = mode == .zeroTail ? 0 : UInt8.random(in: 0...255, using: &random)
            }
            return bytes
        }
    }

    // MARK: FileLayer

    private static func split(_ path: String) -> (String, String) {
        (Paths.parent(path), Paths.fileName(path))
    }

    private func error(_ op: String, _ path: String, _ code: Int32) -> JournalError {
        .io(operation: op, path: path, errno: code)
    }

    private func live(_ s: inout State, _ op: String, _ path: String) throws {
        if s.dead { throw error(op, path, EIO) }
    }

    public func open(_ path: String, mode: OpenMode) throws -> JournalFile {
        try state.withLock { s in
            try live(&s, "open", path)
            let (dirPath, name) = Self.split(path)
            guard var dir = s.directories[dirPath] else { throw error("open", path, ENOENT) }
            let ino: Int
            if let existing = dir.current[name] {
                ino = existing
                if case .createTruncate = mode, var inode = s.inodes[ino], !inode.current.isEmpty {
                    inode.current = []
                    inode.pending.append(.truncate(0))
                    s.inodes[ino] = inode
                }
            } else {
                guard case .createTruncate = mode else { throw error("open", path, ENOENT) }
                ino = s.nextInode
                s.nextInode += 1
                s.inodes[ino] = Inode()
                dir.current[name] = ino
                dir.log.append(.link(name, ino))
                s.directories[dirPath] = dir
            }
            let fd = s.nextFD
            s.nextFD += 1
            s.open[fd] = OpenFile(inode: ino)
            return JournalFile(rawValue: fd, path: path)
        }
    }

    public func close(_ file: JournalFile) {
        state.withLock { s in
            _ = s.open.removeValue(forKey: file.rawValue)
            _ = s.locks.removeValue(forKey: file.rawValue)
        }
    }

    public func lockDirectory(_ path: String) throws -> JournalFile {
        try state.withLock { s in
            try live(&s, "flock", path)
            guard s.directories[path] != nil else { throw error("flock", path, ENOENT) }
            if s.locks.values.contains(path) { throw JournalError.locked(path: path) }
            let fd = s.nextFD
            s.nextFD += 1
            s.locks[fd] = path
            return JournalFile(rawValue: fd, path: Paths.join(path, "LOCK"))
        }
    }

    private func inode(_ s: inout State, _ file: JournalFile, _ op: String) throws -> Int {
        try live(&s, op, file.path)
        guard let f = s.open[file.rawValue], s.inodes[f.inode] != nil else { throw error(op, file.path, EBADF) }
        return f.inode
    }

    private static func usage(_ s: State) -> Int {
        var liveInodes = Set<Int>()
        for dir in s.directories.values { liveInodes.formUnion(dir.current.values) }
        for f in s.open.values { liveInodes.insert(f.inode) }
        return liveInodes.reduce(0) { $0 + (s.inodes[$1]?.current.count ?? 0) }
    }

    public func write(_ file: JournalFile, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws -> Int {
        try state.withLock { s in
            let ino = try inode(&s, file, "write")
            if let code = s.faults.writeErrno { throw error("write", file.path, code) }
            guard offset >= 0 else { throw error("write", file.path, EINVAL) }
            var count = bytes.count
            let start = Int(offset)
            if let capacity = s.faults.capacity, let inode = s.inodes[ino] {
                let growth = max(0, start + count - inode.current.count)
                let free = max(0, capacity - Self.usage(s))
                if growth > free {
                    count = max(0, inode.current.count + free - start)
                    count = min(count, bytes.count)
                    if count == 0 { throw error("write", file.path, ENOSPC) }
                }
            }
            if count == 0 { return 0 }
            let data = Array(UnsafeRawBufferPointer(rebasing: bytes[0..<count]))
            s.inodes[ino]!.pending.append(.write(offset: start, bytes: data))
            Self.apply(.write(offset: start, bytes: data), to: &s.inodes[ino]!.current)
            s.writeCount += 1
            return count
        }
    }

    public func read(_ file: JournalFile, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        try state.withLock { s in
            let ino = try inode(&s, file, "read")
            let current = s.inodes[ino]!.current
            guard offset >= 0 else { throw error("read", file.path, EINVAL) }
            let start = Int(offset)
            guard start < current.count else { return 0 }
            let n = min(buffer.count, current.count - start)
            current.withUnsafeBytes { src in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: src[start..<(start + n)]))
            }
            return n
        }
    }

    public func sync(_ file: JournalFile) throws {
        let latency = state.withLock { $0.faults.syncLatencyMicroseconds }
        if latency > 0 { usleep(UInt32(latency)) }
        try state.withLock { s in
            let ino = try inode(&s, file, "fdatasync")
            if let code = s.faults.syncErrno {
                // Linux after a failed fsync: the dirty pages are marked clean,
                // so they are readable but will never become durable.
                s.inodes[ino]!.pending = []
                throw error("fdatasync", file.path, code)
            }
            var inode = s.inodes[ino]!
            for op in inode.pending { Self.apply(op, to: &inode.durable) }
            inode.pending = []
            s.inodes[ino] = inode
            s.syncCount += 1
        }
    }

    /// Nothing becomes durable (the device cache is never flushed, so a power
    /// loss may still drop the range); a sync fault fails it as it fails a sync.
    public func writeBack(_ file: JournalFile, offset: Int64, length: Int64) throws {
        try state.withLock { s in
            let ino = try inode(&s, file, "sync_file_range")
            if let code = s.faults.syncErrno {
                s.inodes[ino]!.pending = []
                throw error("sync_file_range", file.path, code)
            }
        }
    }

    public func truncate(_ file: JournalFile, to length: Int64) throws {
        try state.withLock { s in
            let ino = try inode(&s, file, "ftruncate")
            guard length >= 0 else { throw error("ftruncate", file.path, EINVAL) }
            s.inodes[ino]!.pending.append(.truncate(Int(length)))
            Self.apply(.truncate(Int(length)), to: &s.inodes[ino]!.current)
        }
    }

    public func size(_ file: JournalFile) throws -> Int64 {
        try state.withLock { s in
            let ino = try inode(&s, file, "fstat")
            return Int64(s.inodes[ino]!.current.count)
        }
    }

    public func rename(_ from: String, to: String) throws {
        try state.withLock { s in
            try live(&s, "rename", from)
            let (dirPath, fromName) = Self.split(from)
            let (toDir, toName) = Self.split(to)
            guard dirPath == toDir else { throw error("rename", from, EXDEV) }
            guard var dir = s.directories[dirPath], let ino = dir.current[fromName] else {
                throw error("rename", from, ENOENT)
            }
            dir.current[fromName] = nil
            dir.current[toName] = ino
            dir.log.append(.rename(fromName, toName))
            s.directories[dirPath] = dir
        }
    }

    public func remove(_ path: String) throws {
        try state.withLock { s in
            try live(&s, "unlink", path)
            let (dirPath, name) = Self.split(path)
            guard var dir = s.directories[dirPath], dir.current[name] != nil else {
                throw error("unlink", path, ENOENT)
            }
            dir.current[name] = nil
            dir.log.append(.unlink(name))
            s.directories[dirPath] = dir
        }
    }

    public func syncDirectory(_ path: String) throws {
        try state.withLock { s in
            try live(&s, "fsync directory", path)
            guard var dir = s.directories[path] else { throw error("fsync directory", path, ENOENT) }
            if let code = s.faults.directorySyncErrno { throw error("fsync directory", path, code) }
            dir.durable = dir.current
            dir.log = []
            s.directories[path] = dir
            s.directorySyncCount += 1
        }
    }

    public func listDirectory(_ path: String) throws -> [String] {
        try state.withLock { s in
            try live(&s, "opendir", path)
            guard let dir = s.directories[path] else { throw error("opendir", path, ENOENT) }
            return dir.current.keys.sorted()
        }
    }

    public func createDirectory(_ path: String) throws {
        try state.withLock { s in
            try live(&s, "mkdir", path)
            guard s.directories[Paths.parent(path)] != nil else { throw error("mkdir", path, ENOENT) }
            if s.directories[path] == nil { s.directories[path] = Directory() }
        }
    }

    public func directoryExists(_ path: String) -> Bool {
        state.withLock { s in !s.dead && s.directories[path] != nil }
    }
}
