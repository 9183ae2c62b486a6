/// The record frame.
///
/// ```
/// offset size field
///      0    4 payload length (LE)            checked against maxRecordSize and the bytes left
///      4    4 masked CRC32C (LE)             over salt ++ length ++ bytes 8..<end
///      8    1 type                           caller's tag
///      9    1 flags                          bit 0 = last record of its transaction (commit)
///     10    8 sequence number (LE)           continuous across segments
///     18    n payload
/// ```
///
/// Transactions are all-or-nothing through the commit flag: recovery only
/// returns records up to the last frame that carries it, so a transaction torn
/// anywhere (even between two complete frames) disappears as a whole.
enum FrameFormat {
    static let headerSize = 18
    static let commitFlag: UInt8 = 0x01
    static let knownFlags: UInt8 = 0x01

    /// Total frame size for a payload of `count` bytes.
    @inline(__always)
    static func size(payload count: Int) -> Int { headerSize + count }

    /// Appends one encoded frame to `buffer`.
    static func append(
        type: UInt8, commit: Bool, sequence: UInt64, payload: [UInt8],
        seed: UInt32, to buffer: inout [UInt8]
    ) {
        let start = buffer.count
        let total = headerSize + payload.count
        buffer.append(contentsOf: repeatElement(0, count: headerSize))
        buffer.append(contentsOf: payload)
        buffer.withUnsafeMutableBytes { raw in
            let frame = UnsafeMutableRawBufferPointer(rebasing: raw[start..<(start + total)])
            frame.storeLE32(UInt32(payload.count), 0)
            frame[8] = type
            frame[9] = commit ? commitFlag : 0
            frame.storeLE64(sequence, 10)
            let crc = checksum(UnsafeRawBufferPointer(frame), seed: seed)
            frame.storeLE32(Checksum.mask(crc), 4)
        }
    }

    /// CRC of a complete frame (its stored CRC field is skipped).
    @inline(__always)
    static func checksum(_ frame: UnsafeRawBufferPointer, seed: UInt32) -> UInt32 {
        let c = Checksum.crc32c(seed, UnsafeRawBufferPointer(rebasing: frame[0..<4]))
        return Checksum.crc32c(c, UnsafeRawBufferPointer(rebasing: frame[8..<frame.count]))
    }

    /// A frame decoded in place: the payload is `buffer[payloadStart..<end]`.
    struct Decoded {
        var type: UInt8
        var commit: Bool
        var sequence: UInt64
        var payloadStart: Int
        var end: Int
    }

    /// Why bytes at an offset are not the expected frame.
    enum Failure {
        case shortHeader(available: Int)
        case zeroed
        case tooLong(length: Int, limit: Int)
        case pastEnd(length: Int, available: Int)
        case badChecksum
        case unknownFlags(UInt8)
        case wrongSequence(found: UInt64, expected: UInt64)

        var reason: String {
            switch self {
            case let .shortHeader(n): return "short record header (\(n) of \(FrameFormat.headerSize) bytes)"
            case .zeroed: return "zeroed record header"
            case let .tooLong(l, m): return "record length \(l) exceeds the maximum record size \(m)"
            case let .pastEnd(l, n): return "record length \(l) runs past the end of the file (\(n) payload bytes left)"
            case .badChecksum: return "record checksum mismatch"
            case let .unknownFlags(f): return "record has unknown flags 0x\(String(f, radix: 16))"
            case let .wrongSequence(f, e): return "record sequence number \(f), expected \(e)"
            }
        }
    }

    enum Parse {
        case frame(Decoded)
        case bad(Failure)
    }

    /// Decodes the frame at `offset` without trusting a single byte: the length
    /// is checked against the maximum and the bytes left before anything
    /// else reads past the header.
    @inline(__always)
    static func parse(
        _ buf: UnsafeRawBufferPointer, at offset: Int, seed: UInt32,
        expected: UInt64, maxRecordSize: Int
    ) -> Parse {
        let available = buf.count - offset
        guard available >= headerSize else { return .bad(.shortHeader(available: max(0, available))) }
        let length = Int(buf.le32(offset))
        let storedCRC = buf.le32(offset + 4)
        if length == 0 && storedCRC == 0 && buf.le64(offset + 10) == 0 && buf[offset + 8] == 0 && buf[offset + 9] == 0 {
            return .bad(.zeroed)
        }
        guard length <= maxRecordSize else { return .bad(.tooLong(length: length, limit: maxRecordSize)) }
        guard length <= available - headerSize else {
            return .bad(.pastEnd(length: length, available: available - headerSize))
        }
        let end = offset + headerSize + length
        let frame = UnsafeRawBufferPointer(rebasing: buf[offset..<end])
        guard Checksum.mask(checksum(frame, seed: seed)) == storedCRC else { return .bad(.badChecksum) }
        let flags = buf[offset + 9]
        guard flags & ~knownFlags == 0 else { return .bad(.unknownFlags(flags)) }
        let sequence = buf.le64(offset + 10)
        guard sequence == expected else { return .bad(.wrongSequence(found: sequence, expected: expected)) }
        return .frame(Decoded(
            type: buf[offset + 8], commit: flags & commitFlag != 0, sequence: sequence,
            payloadStart: offset + headerSize, end: end))
    }

    /// Is there a frame at `offset` that validates with this segment's salt and
    /// carries a sequence number in `sequences`? Used after a bad frame in the
    /// last segment: if anything valid follows, the bad frame was not a torn
    /// tail but damage. The cheap field checks come first so
    /// scanning garbage byte by byte stays linear in practice.
    @inline(__always)
    static func validFrameExists(
        _ buf: UnsafeRawBufferPointer, at offset: Int, seed: UInt32,
        sequences: ClosedRange<UInt64>, maxRecordSize: Int
    ) -> Bool {
        let available = buf.count - offset
        guard available >= headerSize else { return false }
        let sequence = buf.le64(offset + 10)
        guard sequences.contains(sequence) else { return false }
        guard buf[offset + 9] & ~knownFlags == 0 else { return false }
        let length = Int(buf.le32(offset))
        guard length <= maxRecordSize, length <= available - headerSize else { return false }
        let frame = UnsafeRawBufferPointer(rebasing: buf[offset..<(offset + headerSize + length)])
        return Checksum.mask(checksum(frame, seed: seed)) == buf.le32(offset + 4)
    }
}
