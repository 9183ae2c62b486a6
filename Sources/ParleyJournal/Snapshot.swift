/// Snapshot files: `snapshot-<sequence, 20 digits>.snap`, written whole.
///
/// ```
///  0  8 magic "PRLYSNAP"
///  8  4 version (LE) = 1
/// 12  4 reserved, zero
/// 16  8 sequence covered: every transaction up to and including it (LE)
/// 24  8 payload length (LE), must equal file size - 40
/// 32  4 reserved, zero
/// 36  4 masked CRC32C of bytes 0..<36 and the payload
/// 40  n payload (the caller's compacted state)
/// ```
///
/// A snapshot is never modified in place: it is written to a `.tmp` file,
/// synced, renamed and the directory synced.
/// So a snapshot file that fails its checks is real damage, never a torn write.
enum SnapshotFormat {
    static let headerSize = 40
    static let magic: [UInt8] = Array("PRLYSNAP".utf8)
    static let version: UInt32 = 1
    static let prefix = "snapshot-"
    static let suffix = ".snap"
    static let tempSuffix = ".tmp"

    static func fileName(sequence: UInt64) -> String {
        prefix + paddedDecimal(sequence) + suffix
    }

    static func sequence(fileName name: String) -> UInt64? {
        guard name.hasPrefix(prefix), name.hasSuffix(suffix) else { return nil }
        return parsePaddedDecimal(name.dropFirst(prefix.count).dropLast(suffix.count))
    }

    static func encodeHeader(sequence: UInt64, payload: [UInt8]) -> [UInt8] {
        var header = [UInt8](repeating: 0, count: headerSize)
        header.withUnsafeMutableBytes { raw in
            for (i, b) in magic.enumerated() { raw[i] = b }
            raw.storeLE32(version, 8)
            raw.storeLE64(sequence, 16)
            raw.storeLE64(UInt64(payload.count), 24)
            var crc = Checksum.crc32c(0, UnsafeRawBufferPointer(rebasing: raw[0..<36]))
            crc = Checksum.crc32c(crc, payload)
            raw.storeLE32(Checksum.mask(crc), 36)
        }
        return header
    }

    struct Problem: Error {
        var offset: Int64
        var reason: String
    }

    /// Checks a whole snapshot file and returns the payload range.
    static func validate(_ buf: UnsafeRawBufferPointer, expectedSequence: UInt64) -> Result<Range<Int>, Problem> {
        guard buf.count >= headerSize else {
            return .failure(Problem(offset: Int64(buf.count), reason: "short snapshot header (\(buf.count) of \(headerSize) bytes)"))
        }
        for i in 0..<magic.count where buf[i] != magic[i] {
            return .failure(Problem(offset: Int64(i), reason: "bad snapshot magic"))
        }
        let length = buf.le64(24)
        guard length == UInt64(buf.count - headerSize) else {
            return .failure(Problem(offset: 24, reason: "snapshot length field \(length) does not match the \(buf.count - headerSize) payload bytes in the file"))
        }
        var crc = Checksum.crc32c(0, UnsafeRawBufferPointer(rebasing: buf[0..<36]))
        crc = Checksum.crc32c(crc, UnsafeRawBufferPointer(rebasing: buf[headerSize...]))
        guard Checksum.mask(crc) == buf.le32(36) else {
            // The checksum cannot say which byte is bad: name what it covers.
            let covered = buf.count > headerSize ? "bytes 0–35 and \(headerSize)–\(buf.count - 1)" : "bytes 0–35"
            return .failure(Problem(offset: 36, reason: "snapshot checksum mismatch (the checksum at byte 36 covers \(covered); one of them, or the checksum, changed)"))
        }
        let version = buf.le32(8)
        guard version == self.version else {
            return .failure(Problem(offset: 8, reason: "unsupported snapshot version \(version)"))
        }
        guard buf.le32(12) == 0, buf.le32(32) == 0 else {
            return .failure(Problem(offset: 12, reason: "snapshot reserved fields are not zero"))
        }
        let sequence = buf.le64(16)
        guard sequence == expectedSequence else {
            return .failure(Problem(offset: 16, reason: "snapshot says sequence \(sequence) but the file name says \(expectedSequence)"))
        }
        return .success(headerSize..<buf.count)
    }

    /// temp file, write, fsync, rename, fsync directory — in that order, so a
    /// crash leaves either the old set of snapshots or the new complete one.
    static func write(_ payload: [UInt8], sequence: UInt64, directory: String, layer: any FileLayer, piece: Int) throws {
        let name = fileName(sequence: sequence)
        let finalPath = Paths.join(directory, name)
        let tempPath = finalPath + tempSuffix
        let header = encodeHeader(sequence: sequence, payload: payload)
        let file = try layer.open(tempPath, mode: .createTruncate)
        do {
            let h = try header.withUnsafeBytes { try layer.writeFully(file, $0, at: 0) }
            guard h == header.count else { throw JournalError.noSpace(path: tempPath, errno: 0) }
            // In pieces, each on the device before the next: one sync of the whole
            // file would hold the disk long enough to stall every commit meanwhile.
            var offset = 0
            while offset < payload.count {
                let piece = min(piece, payload.count - offset)
                let p = try payload.withUnsafeBytes {
                    try layer.writeFully(file, UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + piece)]), at: Int64(headerSize + offset))
                }
                guard p == piece else { throw JournalError.noSpace(path: tempPath, errno: 0) }
                try layer.writeBack(file, offset: Int64(headerSize + offset), length: Int64(piece))
                offset += piece
            }
            try layer.sync(file)
            layer.close(file)
        } catch {
            layer.close(file)
            try? layer.remove(tempPath)
            throw error
        }
        do {
            try layer.rename(tempPath, to: finalPath)
        } catch {
            try? layer.remove(tempPath)
            throw error
        }
        try layer.syncDirectory(directory)
    }
}
