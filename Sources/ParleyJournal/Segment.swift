/// Segment files: `<first sequence, 20 digits>.seg`, append-only.
///
/// ```
/// header (32 bytes)
///   0  8 magic "PRLYJSEG"
///   8  4 version (LE) = 1
///  12  8 salt (LE), random per segment, mixed into every record CRC
///  20  8 first sequence number (LE), must match the file name
///  28  4 masked CRC32C of bytes 0..<28
/// then frames (see FrameFormat)
/// ```
enum SegmentFormat {
    static let headerSize = 32
    static let magic: [UInt8] = Array("PRLYJSEG".utf8)
    static let version: UInt32 = 1
    static let suffix = ".seg"

    static func fileName(firstSequence: UInt64) -> String {
        paddedDecimal(firstSequence) + suffix
    }

    /// The first sequence number encoded in a segment file name, or nil when
    /// the name is not a segment's.
    static func firstSequence(fileName name: String) -> UInt64? {
        guard name.hasSuffix(suffix) else { return nil }
        return parsePaddedDecimal(name.dropLast(suffix.count))
    }

    static func encodeHeader(salt: UInt64, firstSequence: UInt64) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: headerSize)
        bytes.withUnsafeMutableBytes { raw in
            for (i, b) in magic.enumerated() { raw[i] = b }
            raw.storeLE32(version, 8)
            raw.storeLE64(salt, 12)
            raw.storeLE64(firstSequence, 20)
            let crc = Checksum.crc32c(0, UnsafeRawBufferPointer(rebasing: raw[0..<28]))
            raw.storeLE32(Checksum.mask(crc), 28)
        }
        return bytes
    }

    struct Header {
        var salt: UInt64
        var firstSequence: UInt64
    }

    /// Decodes and checks a header; on failure returns the offset and reason.
    static func decodeHeader(_ buf: UnsafeRawBufferPointer, expectedFirst: UInt64) -> Result<Header, HeaderProblem> {
        guard buf.count >= headerSize else {
            return .failure(HeaderProblem(offset: Int64(buf.count), reason: "short segment header (\(buf.count) of \(headerSize) bytes)"))
        }
        for i in 0..<magic.count where buf[i] != magic[i] {
            return .failure(HeaderProblem(offset: Int64(i), reason: "bad segment magic"))
        }
        let crc = Checksum.crc32c(0, UnsafeRawBufferPointer(rebasing: buf[0..<28]))
        guard Checksum.mask(crc) == buf.le32(28) else {
            return .failure(HeaderProblem(offset: 0, reason: "segment header checksum mismatch"))
        }
        let version = buf.le32(8)
        guard version == self.version else {
            return .failure(HeaderProblem(offset: 8, reason: "unsupported segment version \(version)"))
        }
        let first = buf.le64(20)
        guard first == expectedFirst else {
            return .failure(HeaderProblem(offset: 20, reason: "segment header says first sequence \(first) but the file name says \(expectedFirst)"))
        }
        return .success(Header(salt: buf.le64(12), firstSequence: first))
    }

    struct HeaderProblem: Error {
        var offset: Int64
        var reason: String
    }
}

/// Random 64-bit salt for a new segment. Zero is avoided only so a zero-filled
/// header can never carry a plausible salt.
func randomSalt() -> UInt64 {
    var generator = SystemRandomNumberGenerator()
    var salt: UInt64 = 0
    while salt == 0 { salt = generator.next() }
    return salt
}
