import Foundation
import ParleyConfig

/// `[runtime]`: how the process runs its bots.
public struct RuntimeOptions: Sendable, Equatable {
    /// Bot loops: the threads every bot's link and plugins run on (see
    /// `BotLoops`). One per core by default; `--loops` overrides it.
    public var loops = ProcessInfo.processInfo.activeProcessorCount
    /// `ready_backoff`: `/readyz` counts a bot waiting out a reconnect delay
    /// shorter than this (seconds) as ready; a longer one is a failing link.
    public var readyBackoff: Double = 30

    public init() {}

    static func read(_ t: TableReader) throws(ConfigError) -> RuntimeOptions {
        var o = RuntimeOptions()
        o.loops = try t.int("loops", default: o.loops, range: 1...1024)
        o.readyBackoff = try t.double("ready_backoff", default: o.readyBackoff, range: 0...86_400)
        return o
    }
}
