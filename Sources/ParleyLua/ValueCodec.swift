/// Writes values in the C codec's format (see `parley_lua.h`).
///
/// Events are written straight into a reused buffer, without building
/// `LuaValue`s first, because this is on the per-event hot path.
public struct ValueWriter: Sendable {
    public private(set) var bytes: [UInt8] = []

    public init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    public mutating func reset() { bytes.removeAll(keepingCapacity: true) }

    public mutating func writeNil() { bytes.append(0) }
    public mutating func write(_ b: Bool) { bytes.append(b ? 2 : 1) }

    public mutating func write(_ i: Int64) {
        bytes.append(3)
        appendU64(UInt64(bitPattern: i))
    }

    public mutating func write(_ d: Double) {
        bytes.append(4)
        appendU64(d.bitPattern)
    }

    public mutating func write(_ s: String) {
        if let done: Void = s.utf8.withContiguousStorageIfAvailable({ writeString(UnsafeRawBufferPointer($0)) }) {
            return done
        }
        var copy = s
        copy.withUTF8 { writeString(UnsafeRawBufferPointer($0)) }
    }

    /// One of the VM's common strings (`VMSetup.commonStrings`) by index: the
    /// C side pushes the pre-made Lua string instead of hashing the text again.
    public mutating func writeCommon(_ index: UInt8) {
        bytes.append(7)
        bytes.append(index)
    }

    public mutating func write(bytes b: [UInt8]) {
        b.withUnsafeBytes { writeString($0) }
    }

    public mutating func writeString(_ p: UnsafeRawBufferPointer) {
        bytes.append(5)
        appendU32(UInt32(truncatingIfNeeded: p.count))
        bytes.append(contentsOf: p.bindMemory(to: UInt8.self))
    }

    /// Starts a table; follow with `array` values, then `pairs` key/value pairs.
    public mutating func beginTable(array: Int, pairs: Int) {
        bytes.append(6)
        appendU32(UInt32(truncatingIfNeeded: array))
        appendU32(UInt32(truncatingIfNeeded: pairs))
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

    private mutating func appendU32(_ v: UInt32) {
        withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) }
    }

    private mutating func appendU64(_ v: UInt64) {
        withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) }
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
