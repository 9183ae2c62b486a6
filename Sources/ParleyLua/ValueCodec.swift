/// Writes values in the C codec's format (see `parley_lua.h`).
///
/// Events are written straight into a reused raw buffer, without building
/// `LuaValue`s first, because this is on the per-event hot path (an `Array`
/// append per field cost more than the rest of the encoding together).
public struct ValueWriter {
    /// Copy-on-write raw storage: copies of a writer never see each other's writes.
    private final class Storage {
        var base: UnsafeMutableRawPointer
        var count = 0
        var capacity: Int

        init(capacity: Int) {
            self.capacity = max(capacity, 64)
            base = .allocate(byteCount: self.capacity, alignment: 8)
        }

        func copy() -> Storage {
            let s = Storage(capacity: capacity)
            s.base.copyMemory(from: base, byteCount: count)
            s.count = count
            return s
        }

        deinit { base.deallocate() }
    }

    private var storage: Storage

    public init(capacity: Int = 256) { storage = Storage(capacity: capacity) }

    /// The bytes written so far (a copy; hot paths use `withUnsafeBytes`).
    public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    public var count: Int { storage.count }

    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: storage.base, count: storage.count))
    }

    public mutating func reset() {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(capacity: storage.capacity) }
        storage.count = 0
    }

    /// Makes room for `n` more bytes and returns where they go.
    @inline(__always)
    private mutating func reserve(_ n: Int) -> UnsafeMutableRawPointer {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        let s = storage
        if s.capacity - s.count < n {
            var cap = s.capacity * 2
            while cap - s.count < n { cap *= 2 }
            let nb = UnsafeMutableRawPointer.allocate(byteCount: cap, alignment: 8)
            nb.copyMemory(from: s.base, byteCount: s.count)
            s.base.deallocate()
            s.base = nb
            s.capacity = cap
        }
        let p = s.base + s.count
        s.count += n
        return p
    }

    @inline(__always)
    private mutating func put(_ tag: UInt8) { reserve(1).storeBytes(of: tag, as: UInt8.self) }

    public mutating func writeNil() { put(0) }
    public mutating func write(_ b: Bool) { put(b ? 2 : 1) }

    public mutating func write(_ i: Int64) {
        let p = reserve(9)
        p.storeBytes(of: 3, as: UInt8.self)
        (p + 1).storeBytes(of: UInt64(bitPattern: i).littleEndian, toByteOffset: 0, as: UInt64.self)
    }

    public mutating func write(_ d: Double) {
        let p = reserve(9)
        p.storeBytes(of: 4, as: UInt8.self)
        (p + 1).storeBytes(of: d.bitPattern.littleEndian, toByteOffset: 0, as: UInt64.self)
    }

    public mutating func write(_ s: String) {
        if let done: Void = s.utf8.withContiguousStorageIfAvailable({ writeString(UnsafeRawBufferPointer($0)) }) {
            return done
        }
        var copy = s
        copy.withUTF8 { writeString(UnsafeRawBufferPointer($0)) }
    }

    public mutating func write(bytes b: [UInt8]) {
        b.withUnsafeBytes { writeString($0) }
    }

    public mutating func writeString(_ src: UnsafeRawBufferPointer) {
        let p = reserve(5 + src.count)
        p.storeBytes(of: 5, as: UInt8.self)
        (p + 1).storeBytes(of: UInt32(truncatingIfNeeded: src.count).littleEndian, toByteOffset: 0, as: UInt32.self)
        if let from = src.baseAddress, src.count > 0 { (p + 5).copyMemory(from: from, byteCount: src.count) }
    }

    /// One of the VM's common strings (`VMSetup.commonStrings`) by index: the
    /// C side pushes the pre-made Lua string instead of hashing the text again.
    public mutating func writeCommon(_ index: UInt8) {
        let p = reserve(2)
        p.storeBytes(of: 7, as: UInt8.self)
        (p + 1).storeBytes(of: index, as: UInt8.self)
    }

    /// Starts a table; follow with `array` values, then `pairs` key/value pairs.
    public mutating func beginTable(array: Int, pairs: Int) {
        let p = reserve(9)
        p.storeBytes(of: 6, as: UInt8.self)
        (p + 1).storeBytes(of: UInt32(truncatingIfNeeded: array).littleEndian, toByteOffset: 0, as: UInt32.self)
        (p + 5).storeBytes(of: UInt32(truncatingIfNeeded: pairs).littleEndian, toByteOffset: 0, as: UInt32.self)
    }

    /// Convenience for the common `key = string` field.
    public mutating func field(_ key: String, _ value: String) {
        write(key)
        write(value)
    }

    public mutating func write(_ v: LuaValue) {
        switch v {
        case .nil: writeNil()
        case .bool(let b): write(b)
        case .int(let i): write(i)
        case .double(let d): write(d)
        case .bytes(let b): write(bytes: b)
        case .table(let array, let hash):
            beginTable(array: array.count, pairs: hash.count)
            for item in array { write(item) }
            for pair in hash {
                write(pair.key)
                write(pair.value)
            }
        }
    }
}

/// Reads values written by the C encoder or by `ValueWriter`.
///
/// Input is treated as untrusted: every length is checked against what is
/// left, nesting is bounded, and malformed input is an error, never a trap.
public struct ValueReader {
    public enum Failure: Error, Sendable { case malformed }

    private let base: UnsafeRawBufferPointer
    private var offset = 0

    public init(_ buffer: UnsafeRawBufferPointer) { base = buffer }

    public var isAtEnd: Bool { offset >= base.count }

    public mutating func read() throws(Failure) -> LuaValue { try read(depth: 0) }

    /// Reads every remaining value (the arguments of a host call).
    public mutating func readAll() throws(Failure) -> [LuaValue] {
        var out: [LuaValue] = []
        while !isAtEnd { out.append(try read()) }
        return out
    }

    private mutating func byte() throws(Failure) -> UInt8 {
        guard offset < base.count else { throw .malformed }
        defer { offset += 1 }
        return base[offset]
    }

    private mutating func u32() throws(Failure) -> UInt32 {
        guard base.count - offset >= 4 else { throw .malformed }
        var v: UInt32 = 0
        for i in 0..<4 { v |= UInt32(base[offset + i]) << (8 * UInt32(i)) }
        offset += 4
        return v
    }

    private mutating func u64() throws(Failure) -> UInt64 {
        guard base.count - offset >= 8 else { throw .malformed }
        var v: UInt64 = 0
        for i in 0..<8 { v |= UInt64(base[offset + i]) << (8 * UInt64(i)) }
        offset += 8
        return v
    }

    private mutating func read(depth: Int) throws(Failure) -> LuaValue {
        switch try byte() {
        case 0: return .nil
        case 1: return .bool(false)
        case 2: return .bool(true)
        case 3: return .int(Int64(bitPattern: try u64()))
        case 4: return .double(Double(bitPattern: try u64()))
        case 5:
            let n = Int(try u32())
            guard base.count - offset >= n else { throw .malformed }
            let s = Array(base[offset..<offset + n])
            offset += n
            return .bytes(s)
        case 6:
            guard depth < 32 else { throw .malformed }
            let n = Int(try u32())
            let m = Int(try u32())
            guard n + 2 * m <= base.count - offset else { throw .malformed }
            var array: [LuaValue] = []
            array.reserveCapacity(n)
            for _ in 0..<n { array.append(try read(depth: depth + 1)) }
            var hash: [LuaPair] = []
            hash.reserveCapacity(m)
            for _ in 0..<m {
                let k = try read(depth: depth + 1)
                let v = try read(depth: depth + 1)
                hash.append(LuaPair(key: k, value: v))
            }
            return .table(array: array, hash: hash)
        default:
            throw .malformed
        }
    }
}

extension LuaValue {
    /// The value's encoded form (its size is what state quotas count).
    public var encoded: [UInt8] {
        var w = ValueWriter()
        w.write(self)
        return w.bytes
    }

    /// Decodes one value from bytes produced by `encoded`.
    public init(decoding bytes: [UInt8]) throws(ValueReader.Failure) {
        var result: LuaValue = .nil
        var failure: ValueReader.Failure?
        bytes.withUnsafeBytes { raw in
            var r = ValueReader(raw)
            do throws(ValueReader.Failure) {
                result = try r.read()
                if !r.isAtEnd { failure = .malformed }
            } catch { failure = error }
        }
        if let failure { throw failure }
        self = result
    }
}
