/// Sequential reading of a file through one reusable buffer.
///
/// Recovery reads every segment twice (check on open, replay through the
/// reader); reading whole 64 MiB segments into fresh arrays cost more in page
/// faults than the checksums. A window of a few MiB stays hot in cache and is
/// reused for every segment. It always covers at least one whole frame of the
/// maximum size, so frame parsing sees the same bytes it would in a whole-file
/// buffer.
final class FileWindow {
    let layer: any FileLayer
    private(set) var file: JournalFile?
    /// Bytes of the file that may be read (the file size, or a validated end).
    private(set) var size: Int64 = 0
    private let storage: UnsafeMutableRawBufferPointer
    /// File offset of `storage[0]` and the number of valid bytes from there.
    private var start: Int64 = 0
    private var count = 0

    /// `maxFrame`: the largest view a caller will ask for.
    init(layer: any FileLayer, maxFrame: Int) {
        self.layer = layer
        let capacity = max(4 << 20, maxFrame + (1 << 20))
        storage = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
    }

    deinit {
        detach()
        storage.deallocate()
    }

    /// Starts reading `file` (which the window then owns and closes) up to `size`.
    func attach(_ file: JournalFile, size: Int64) {
        detach()
        self.file = file
        self.size = size
        start = 0
        count = 0
    }

    func detach() {
        if let file { layer.close(file) }
        file = nil
        count = 0
    }

    /// Bytes `offset ..< offset + length` of the file; valid until the next
    /// call. `length` must fit the window and `offset + length <= size`.
    @inline(__always)
    func view(at offset: Int64, length: Int) throws -> UnsafeRawBufferPointer {
        if offset >= start, offset + Int64(length) <= start + Int64(count) {
            let from = Int(offset - start)
            return UnsafeRawBufferPointer(rebasing: storage[from..<(from + length)])
        }
        return try refill(at: offset, length: length)
    }

    private func refill(at offset: Int64, length: Int) throws -> UnsafeRawBufferPointer {
        guard let file else { throw JournalError.invalidArgument("read from a detached window") }
        precondition(length <= storage.count && offset + Int64(length) <= size)
        if offset >= start, offset <= start + Int64(count) {
            // Keep what is already here: slide it to the front.
            let keep = Int(start + Int64(count) - offset)
            if keep > 0 {
                let from = Int(offset - start)
                UnsafeMutableRawBufferPointer(rebasing: storage[0..<keep])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: storage[from..<(from + keep)]))
            }
            count = keep
        } else {
            count = 0
        }
        start = offset
        let want = Int(min(Int64(storage.count), size - offset))
        while count < want {
            let n = try layer.read(file, into: UnsafeMutableRawBufferPointer(rebasing: storage[count..<want]), at: start + Int64(count))
            if n <= 0 { break }
            count += n
        }
        guard count >= length else {
            throw JournalError.corrupt(
                file: file.path, offset: start + Int64(count),
                reason: "file ended at \(start + Int64(count)) bytes while reading (expected \(size); it changed underneath)")
        }
        return UnsafeRawBufferPointer(rebasing: storage[0..<length])
    }

    /// A copy of bytes `offset ..< size` (for the rare scans past a bad frame).
    func remainder(from offset: Int64) throws -> [UInt8] {
        guard let file else { return [] }
        let total = Int(size - offset)
        var filled = 0
        let bytes = try [UInt8](unsafeUninitializedCapacity: total) { raw, initialized in
            let buffer = UnsafeMutableRawBufferPointer(raw)
            while filled < total {
                let n = try layer.read(file, into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]), at: offset + Int64(filled))
                if n <= 0 { break }
                filled += n
            }
            initialized = filled
        }
        return bytes
    }
}
