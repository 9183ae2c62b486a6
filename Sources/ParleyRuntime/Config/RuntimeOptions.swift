import Foundation
import ParleyConfig

/// `[runtime]`: how the process runs its bots.
public struct RuntimeOptions: Sendable, Equatable {
    /// Bot loops: the threads every bot's link and plugins run on (see
    /// `BotLoops`). One per core by default; `--loops` overrides it.
    public var loops = ProcessInfo.processInfo.activeProcessorCount

    public init() {}

    static func read(_ t: TableReader) throws(ConfigError) -> RuntimeOptions {
        var o = RuntimeOptions()
        o.loops = try t.int("loops", default: o.loops, range: 1...1024)
        return o
    }
}
