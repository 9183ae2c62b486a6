import Foundation
import ParleyLua
import ParleyNet

/// The threads plugin VMs run on: a few `LuaThreadExecutor`s shared
/// round-robin by every bot of the process.
///
/// One thread per bot would not scale to a thousand simulated users; one
/// thread per core keeps every core busy while each `lua_State` still lives
/// on exactly one thread for its whole life.
public final class LuaExecutorPool: Sendable {
    private let executors: [LuaThreadExecutor]
    private let next = RoundRobinCounter()

    public init(threads: Int = ProcessInfo.processInfo.activeProcessorCount) {
        executors = (0..<max(1, threads)).map { LuaThreadExecutor(name: "parley-lua-\($0)") }
    }

    public func take() -> LuaThreadExecutor {
        executors[next.increment() % executors.count]
    }

    public static let shared = LuaExecutorPool()
}

/// A tiny thread-safe counter.
final class RoundRobinCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    func increment() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}

/// A bot's completed writes resume its outbox drain at the Lua thread's next
/// wake. The bound is short: past it the thread wakes for the completion
/// alone, as it would without the deferral, so a quiet bot loses nothing;
/// at a message every few milliseconds the next event nearly always comes
/// first and the wake is saved.
extension LuaThreadExecutor: LazyResumer {
    static let lazyCompletionBound = 0.005

    public func expectResumption() {
        expectLazy(within: Self.lazyCompletionBound)
    }

    public func resumeLazily(_ resume: @escaping @Sendable () -> Void) {
        runLazily(within: Self.lazyCompletionBound, resume)
    }
}
