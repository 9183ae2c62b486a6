#if canImport(Glibc)
import Glibc
#endif
import NIOWebSocket
import Synchronization

extension WebSocketMaskingKey {
    /// A key for one frame written through NIO's encoder (the bench's
    /// reference bots), from the pool that masks Parley's own client frames.
    ///
    /// RFC 6455 asks for an unpredictable key per frame. NIO's `random()` reads
    /// the system generator each time, a `getrandom` system call per frame, as
    /// many as the reply's own `writev`. These come from the same source, read
    /// once per 512 frames.
    package static func pooled() -> WebSocketMaskingKey {
        var source = KernelRandomPool.Draw()
        return .random(using: &source)
    }
}

/// Kernel randomness, fetched in bulk and handed out a word at a time.
enum KernelRandomPool {
    private static let pool = Mutex(Words())

    /// The masking key of one client frame (`ClientFrame`).
    static func maskKey() -> UInt32 { UInt32(truncatingIfNeeded: pool.withLock { $0.next() }) }

    /// A generator that draws from the shared pool.
    struct Draw: RandomNumberGenerator {
        mutating func next() -> UInt64 { KernelRandomPool.pool.withLock { $0.next() } }
    }

    private struct Words {
        private var words = [UInt64](repeating: 0, count: 512)
        private var used = 512

        mutating func next() -> UInt64 {
            if used == words.count { refill() }
            defer { used += 1 }
            return words[used]
        }

        /// From `/dev/urandom` (Glibc's module has no `getrandom`): the
        /// kernel's generator, as `getrandom` would give. Should that fail,
        /// the system generator fills the pool.
        private mutating func refill() {
            let filled = words.withUnsafeMutableBytes { raw -> Bool in
                let fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else { return false }
                defer { close(fd) }
                var done = 0
                while done < raw.count {
                    let n = read(fd, raw.baseAddress! + done, raw.count - done)
                    if n > 0 { done += n } else if n < 0 && errno == EINTR { continue } else { return false }
                }
                return true
            }
            if !filled {
                var system = SystemRandomNumberGenerator()
                for i in words.indices { words[i] = system.next() }
            }
            used = 0
        }
    }
}
