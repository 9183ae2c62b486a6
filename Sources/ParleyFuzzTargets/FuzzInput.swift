/// Reads a fuzz input as a few fields. Structured targets (the journal, the
/// pattern matcher) take some control bytes first and split the rest, so
/// every input is meaningful and the fuzzer never wastes runs on framing.
/// Reading past the end yields zeros and empty slices, never a trap.
struct FuzzInput {
    private(set) var rest: ArraySlice<UInt8>

    init(_ buffer: UnsafeRawBufferPointer) {
        rest = ArraySlice(buffer)
    }

    var isEmpty: Bool { rest.isEmpty }

    mutating func byte() -> UInt8 {
        guard let b = rest.first else { return 0 }
        rest = rest.dropFirst()
        return b
    }

    mutating func take(_ n: Int) -> ArraySlice<UInt8> {
        let part = rest.prefix(n)
        rest = rest.dropFirst(part.count)
        return part
    }

    /// The bytes up to the first `separator` (which is consumed), or all that is left.
    mutating func field(upTo separator: UInt8) -> ArraySlice<UInt8> {
        guard let i = rest.firstIndex(of: separator) else {
            defer { rest = rest[rest.endIndex...] }
            return rest
        }
        defer { rest = rest[(i + 1)...] }
        return rest[..<i]
    }

    mutating func remaining() -> ArraySlice<UInt8> {
        defer { rest = rest[rest.endIndex...] }
        return rest
    }
}

/// Chunk sizes for feeding stream decoders: deterministic for a given seed,
/// so a crash reproduces from the input alone.
struct ChunkSizes {
    private var state: UInt32
    private let largest: Int

    init(seed: UInt8) {
        state = UInt32(seed) &* 2_654_435_761 | 1
        largest = Int(seed % 32) + 1
    }

    mutating func next() -> Int {
        state ^= state << 13
        state ^= state >> 17
        state ^= state << 5
        return Int(state % UInt32(largest)) + 1
    }
}
