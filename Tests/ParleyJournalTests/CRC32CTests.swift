import Testing
@testable import ParleyJournal

@Suite struct CRC32CTests {
    static let implementations: [(String, @Sendable (UnsafeRawBufferPointer, UInt32) -> UInt32)] = [
        ("best", { CRC32C.checksum($0, extending: $1) }),
        ("software", { CRC32C.software($0, extending: $1) }),
        ("hardware", { CRC32C.hardware($0, extending: $1) }),
    ]

    @Test func knownVectors() {
        let vectors: [([UInt8], UInt32)] = [
            (Array("123456789".utf8), 0xE306_9283),
            ([UInt8](repeating: 0, count: 32), 0x8A91_36AA),
            ([UInt8](repeating: 0xFF, count: 32), 0x62A8_AB43),
            ((0..<32).map { UInt8($0) }, 0x46DD_794E),
            ((0..<32).map { UInt8(31 - $0) }, 0x113F_DB5C),
            ([], 0),
        ]
        for (name, crc) in Self.implementations {
            for (bytes, expected) in vectors {
                let got = bytes.withUnsafeBytes { crc($0, 0) }
                #expect(got == expected, "\(name) on \(bytes.count) bytes")
            }
        }
    }

    @Test func hardwareDetectionMatchesCPUInfo() throws {
        // On Linux the runtime check must agree with the kernel's flag list.
        guard let info = try? readBytes("/proc/cpuinfo") else { return }
        let text = String(decoding: info, as: UTF8.self)
        guard text.contains("flags") else { return }
        #expect(CRC32C.hardwareAvailable == text.contains(" sse4_2"))
    }

    @Test func implementationsAgreeOnAllLengthsAndAlignments() {
        var random = SeededRandom(seed: 42)
        let buffer = (0..<(300 + 16)).map { _ in UInt8.random(in: 0...255, using: &random) }
        buffer.withUnsafeBytes { raw in
            for start in 0..<16 {
                for length in 0...300 {
                    let slice = UnsafeRawBufferPointer(rebasing: raw[start..<(start + length)])
                    let sw = CRC32C.software(slice)
                    let hw = CRC32C.hardware(slice)
                    #expect(sw == hw, "start \(start) length \(length)")
                    // Extending in two pieces equals one pass.
                    let cut = length / 3
                    let a = CRC32C.hardware(UnsafeRawBufferPointer(rebasing: slice[0..<cut]))
                    let b = CRC32C.software(UnsafeRawBufferPointer(rebasing: slice[cut...]), extending: a)
                    #expect(b == sw)
                }
            }
        }
    }

    @Test func maskRoundTrips() {
        var random = SeededRandom(seed: 7)
        for _ in 0..<1000 {
            let c = UInt32.random(in: 0...UInt32.max, using: &random)
            #expect(CRC32C.unmask(CRC32C.mask(c)) == c)
        }
        #expect(CRC32C.mask(0) == 0xa282_ead8)
    }
}
