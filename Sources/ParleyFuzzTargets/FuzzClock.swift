#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Times inputs in CPU time of the calling thread, not wall time: the fuzzer
/// shares a small machine with builds, and a descheduled thread must not look
/// like a hang. CPU time is the work the parser did, which is what the 100 ms
/// promise is about.
public enum FuzzClock {
    public static func threadCPUNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Runs `target` on `input` and returns the CPU nanoseconds it took.
    public static func time(_ target: FuzzTarget, _ input: UnsafeRawBufferPointer) -> UInt64 {
        let start = threadCPUNanoseconds()
        target.run(input)
        return threadCPUNanoseconds() - start
    }
}
