import NIOWebSocket
import ParleyNet
import Testing

/// The keys that mask the frames Parley's WebSocket clients send.
struct MaskingKeyTests {
    /// 2,000 keys cross three refills of the 512-key pool: none is the zero
    /// key of an empty pool, and they do not repeat (two equal 32-bit keys in
    /// 2,000 random ones happen once in about 2,000 runs; eleven never).
    @Test func keysAcrossRefillsAreRandom() {
        let keys = (0..<2_000).map { _ in WebSocketMaskingKey.pooled() }
        #expect(!keys.contains(WebSocketMaskingKey([0, 0, 0, 0])!))
        let distinct = Set(keys.map { Array($0) })
        #expect(distinct.count >= 1_990, "\(2_000 - distinct.count) repeats")
    }
}
