import CParleyJournal
import ParleyJournal

extension FuzzTarget {
    /// The journal reader: the input becomes the files of a journal directory
    /// on a `SimulatedDisk`, which `Journal.verify`, `Journal.open` (recovery
    /// and its truncation of a torn tail), the transaction reader and
    /// `Journal.salvage` then read. Oracle: after a successful salvage the
    /// journal verifies, as `salvage` promises.
    ///
    /// Records carry CRCs, so random bytes stop at the first frame. The first
    /// input byte picks how much of the structure the target supplies:
    ///
    /// - layout 0: the rest is the whole segment file, header included;
    /// - layout 1: a valid segment header, then the rest as frames;
    /// - layout 2: as 1, but each frame's CRC is recomputed, so the fuzzer
    ///   reaches lengths, flags, sequences, commits and torn tails;
    /// - layout 3: as 2, after a snapshot built from the next bytes (its
    ///   sequence, the segment's first sequence, its payload), so snapshot
    ///   and segment have to fit together.
    ///
    /// Bit 2 also rewrites frame sequence numbers to run on from the
    /// segment's first, so the fuzzer need not find them.
    static let journal = FuzzTarget(
        name: "journal", summary: "the journal reader: verify, open and recovery, salvage"
    ) { data in
        var input = FuzzInput(data)
        let control = input.byte()
        let layout = control & 3
        let fixSequences = control & 4 != 0

        let disk = SimulatedDisk(seed: 1)
        let directory = "/j"
        guard (try? disk.createDirectory(directory)) != nil else { return }

        var firstSequence: UInt64 = 1
        if layout == 3 {
            let snapshotSequence = UInt64(input.byte() % 8)
            firstSequence = UInt64(input.byte() % 8) + 1
            let payload = Array(input.take(Int(input.byte())))
            let name = "snapshot-" + JournalBytes.padded(snapshotSequence) + ".snap"
            write(JournalBytes.snapshot(sequence: snapshotSequence, payload: payload), to: directory + "/" + name, on: disk)
        }
        var segment: [UInt8]
        switch layout {
        case 0: segment = Array(input.remaining())
        default:
            segment = JournalBytes.segmentHeader(salt: JournalBytes.salt, firstSequence: firstSequence) + input.remaining()
            if layout >= 2 {
                JournalBytes.repairFrames(&segment, salt: JournalBytes.salt, firstSequence: fixSequences ? firstSequence : nil)
            }
        }
        write(segment, to: directory + "/" + JournalBytes.padded(firstSequence) + ".seg", on: disk)

        let options = JournalOptions(fsync: .never, fileLayer: disk)
        _ = try? Journal.verify(directory: directory, options: options)
        if let (journal, recovery) = try? Journal.open(directory: directory, options: options) {
            _ = try? recovery.allTransactions()
            withExtendedLifetime(journal) {}
        }
        if (try? Journal.salvage(directory: directory, options: options)) != nil {
            do { _ = try Journal.verify(directory: directory, options: options) } catch {
                fatalError("parley-fuzz journal: the journal does not verify after a successful salvage: \(error)")
            }
        }
    }

    private static func write(_ bytes: [UInt8], to path: String, on disk: SimulatedDisk) {
        guard let file = try? disk.open(path, mode: .createTruncate) else { return }
        defer { disk.close(file) }
        _ = bytes.withUnsafeBytes { try? disk.write(file, $0, at: 0) }
    }
}

/// The journal's on-disk formats, written from the outside (ParleyJournal
/// keeps its own encoders internal): enough to build files whose checksums
/// hold. See Segment.swift, Framing.swift and Snapshot.swift for the layouts.
enum JournalBytes {
    /// A fixed salt, so an input reproduces the same checksums in every run.
    static let salt: UInt64 = 0x5041_524c_4559_4655

    static func padded(_ n: UInt64) -> String {
        let digits = String(n)
        return String(repeating: "0", count: 20 - digits.count) + digits
    }

    static func crc(_ crc: UInt32, _ bytes: some Collection<UInt8>) -> UInt32 {
        Array(bytes).withUnsafeBytes { raw in
            guard let base = raw.baseAddress, raw.count > 0 else { return crc }
            return parley_crc32c(crc, base, raw.count)
        }
    }

    static func mask(_ crc: UInt32) -> UInt32 {
        ((crc >> 15) | (crc << 17)) &+ 0xa282_ead8
    }

    static func le(_ value: UInt64, _ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    static func segmentHeader(salt: UInt64, firstSequence: UInt64) -> [UInt8] {
        var header = Array("PRLYJSEG".utf8) + le(1, 4) + le(salt, 8) + le(firstSequence, 8)
        header += le(UInt64(mask(crc(0, header))), 4)
        return header
    }

    static func snapshot(sequence: UInt64, payload: [UInt8]) -> [UInt8] {
        var header = Array("PRLYSNAP".utf8) + le(1, 4) + le(0, 4) + le(sequence, 8) + le(UInt64(payload.count), 8) + le(0, 4)
        header += le(UInt64(mask(crc(crc(0, header), payload))), 4)
        return header + payload
    }

    /// Walks the frames after the 32-byte header and stores each one's CRC
    /// (and, given `firstSequence`, consecutive sequence numbers). Stops at a
    /// frame whose length runs past the end: that is the torn tail.
    static func repairFrames(_ segment: inout [UInt8], salt: UInt64, firstSequence: UInt64?) {
        let seed = crc(0, le(salt, 8))
        var offset = 32
        var sequence = firstSequence
        while segment.count - offset >= 18 {
            let length = (0..<4).reduce(0) { $0 | Int(segment[offset + $1]) << (8 * $1) }
            guard length <= segment.count - offset - 18 else { return }
            if let s = sequence {
                segment.replaceSubrange((offset + 10)..<(offset + 18), with: le(s, 8))
                sequence = s &+ 1
            }
            let end = offset + 18 + length
            let c = crc(crc(seed, segment[offset..<(offset + 4)]), segment[(offset + 8)..<end])
            segment.replaceSubrange((offset + 4)..<(offset + 8), with: le(UInt64(mask(c)), 4))
            offset = end
        }
    }
}
