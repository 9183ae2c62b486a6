import CParleyJournal

/// CRC32C helpers over the C implementation (SSE4.2 when present, else
/// slicing-by-8).
enum Checksum {
    /// CRC32C of `bytes`, extending `crc` (the finished CRC of earlier data, 0 for none).
    @inline(__always)
    static func crc32c(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return crc }
        return parley_crc32c(crc, base, bytes.count)
    }

    static func crc32c(_ crc: UInt32, _ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { crc32c(crc, $0) }
    }

    /// LevelDB's mask: CRCs of data that itself contains CRCs are weak, so the
    /// stored value is rotated and offset.
    @inline(__always)
    static func mask(_ crc: UInt32) -> UInt32 {
        ((crc >> 15) | (crc << 17)) &+ 0xa282_ead8
    }

    @inline(__always)
    static func unmask(_ masked: UInt32) -> UInt32 {
        let rot = masked &- 0xa282_ead8
        return (rot >> 17) | (rot << 15)
    }

    /// The CRC state every record of a segment starts from: the CRC of the
    /// segment's salt. Mixing the salt in means stale bytes from an earlier
    /// file or a reused block never validate.
    static func seed(salt: UInt64) -> UInt32 {
        withUnsafeBytes(of: salt.littleEndian) { crc32c(0, $0) }
    }
}

/// Little-endian field access on raw bytes. Loads are unaligned-safe and
/// bounds are the caller's job (every caller checks the length first).
extension UnsafeRawBufferPointer {
    @inline(__always)
    func le32(_ offset: Int) -> UInt32 {
        UInt32(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    @inline(__always)
    func le64(_ offset: Int) -> UInt64 {
        UInt64(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }
}

extension UnsafeMutableRawBufferPointer {
    @inline(__always)
    func storeLE32(_ value: UInt32, _ offset: Int) {
        storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt32.self)
    }

    @inline(__always)
    func storeLE64(_ value: UInt64, _ offset: Int) {
        storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt64.self)
    }
}

/// 20-digit zero-padded decimal, the width of UInt64.max, so file names sort
/// in sequence order.
func paddedDecimal(_ value: UInt64) -> String {
    let digits = String(value)
    return String(repeating: "0", count: max(0, 20 - digits.count)) + digits
}

/// Parses exactly 20 ASCII digits.
func parsePaddedDecimal(_ text: Substring) -> UInt64? {
    guard text.utf8.count == 20, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
    return UInt64(text)
}

/// CRC32C (Castagnoli) as used by the journal, public for tests, tools and
/// the layer above. All functions extend `crc` (the CRC of earlier data, 0
/// for none): `CRC32C.checksum(b, extending: CRC32C.checksum(a))` is the CRC
/// of `a` followed by `b`.
public enum CRC32C {
    /// Fastest available implementation.
    public static func checksum(_ bytes: UnsafeRawBufferPointer, extending crc: UInt32 = 0) -> UInt32 {
        Checksum.crc32c(crc, bytes)
    }

    public static func checksum(_ bytes: [UInt8], extending crc: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0, extending: crc) }
    }

    /// The slicing-by-8 table implementation.
    public static func software(_ bytes: UnsafeRawBufferPointer, extending crc: UInt32 = 0) -> UInt32 {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return crc }
        return parley_crc32c_sw(crc, base, bytes.count)
    }

    /// The SSE4.2 implementation (falls back to the tables on CPUs without it).
    public static func hardware(_ bytes: UnsafeRawBufferPointer, extending crc: UInt32 = 0) -> UInt32 {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return crc }
        return parley_crc32c_hw(crc, base, bytes.count)
    }

    /// Whether this CPU has the SSE4.2 `crc32` instruction.
    public static var hardwareAvailable: Bool { parley_crc32c_hw_available() != 0 }

    /// LevelDB's masking of a stored CRC.
    public static func mask(_ crc: UInt32) -> UInt32 { Checksum.mask(crc) }
    public static func unmask(_ masked: UInt32) -> UInt32 { Checksum.unmask(masked) }
}
