#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import ParleyJournal

/// A fresh directory, on tmpfs when there is one (fdatasync is free there,
/// which keeps the every-offset loops fast), unless `realDisk`.
func makeTempDirectory(_ tag: String, realDisk: Bool = false) -> String {
    let base = (!realDisk && PosixFileLayer().directoryExists("/dev/shm")) ? "/dev/shm" : "/tmp"
    var template = Array("\(base)/parley-journal-\(tag)-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    precondition(made != nil, "mkdtemp failed")
    return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Removes a flat directory (journal directories have no subdirectories).
func removeDirectory(_ path: String) {
    let layer = PosixFileLayer()
    if let names = try? layer.listDirectory(path) {
        for name in names { unlink(path + "/" + name) }
    }
    rmdir(path)
}

func withTempDirectory<T>(_ tag: String, realDisk: Bool = false, _ body: (String) async throws -> T) async throws -> T {
    let dir = makeTempDirectory(tag, realDisk: realDisk)
    defer { removeDirectory(dir) }
    return try await body(dir)
}

func readBytes(_ path: String) throws -> [UInt8] {
    try PosixFileLayer().readFile(path)
}

func writeBytes(_ path: String, _ bytes: [UInt8]) throws {
    let layer = PosixFileLayer()
    let file = try layer.open(path, mode: .createTruncate)
    defer { layer.close(file) }
    let n = try bytes.withUnsafeBytes { try layer.writeFully(file, $0, at: 0) }
    precondition(n == bytes.count)
}

func listFiles(_ dir: String) throws -> [String] {
    try PosixFileLayer().listDirectory(dir).sorted()
}

func segmentNames(_ dir: String, layer: any FileLayer = PosixFileLayer()) throws -> [String] {
    try layer.listDirectory(dir).filter { $0.hasSuffix(".seg") }.sorted()
}

/// A transaction whose payloads identify it: the first 8 bytes of every
/// record are the transaction id, the rest is deterministic filler.
func makeTransaction(id: UInt64, records: Int, sizes: ClosedRange<Int>, random: inout SeededRandom) -> [JournalRecord] {
    (0..<records).map { k in
        let size = Int.random(in: sizes, using: &random)
        var payload = [UInt8](repeating: 0, count: max(size, 8))
        withUnsafeBytes(of: id.littleEndian) { for i in 0..<8 { payload[i] = $0[i] } }
        for i in 8..<payload.count { payload[i] = UInt8(truncatingIfNeeded: id &* 31 &+ UInt64(i) &+ UInt64(k) &* 7) }
        return JournalRecord(type: UInt8(truncatingIfNeeded: k &+ Int(id % 200)), payload: payload)
    }
}

func transactionID(_ txn: JournalTransaction) -> UInt64? {
    guard let first = txn.records.first, first.payload.count >= 8 else { return nil }
    return first.payload.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
}

/// Copies every regular file of `from` into `to` (flat).
func copyDirectory(_ from: String, to: String) throws {
    for name in try listFiles(from) where name != "LOCK" {
        try writeBytes(to + "/" + name, try readBytes(from + "/" + name))
    }
}

extension JournalError {
    /// The file and offset of a `.corrupt` error, else nil.
    var corruptLocation: (file: String, offset: Int64)? {
        if case let .corrupt(file, offset, _) = self { return (file, offset) }
        return nil
    }
}

import Synchronization

/// A Mutex that closures can capture (a Mutex itself cannot be copied into one).
final class Locked<Value: Sendable>: Sendable {
    let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<R>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
}
