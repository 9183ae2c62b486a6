import Foundation
import ParleyRuntime

/// The process's limit on open files against what its bots need. A fleet
/// past it ran out of descriptors while starting, and NIO then stopped the
/// process (a failed `epoll_create` is fatal there) with no word of why.
enum FileLimit {
    /// Descriptors a bot holds: its link, the embedded server's end of it
    /// when the server runs here, its journal's lock and segment and a
    /// snapshot while it compacts. The process keeps some for itself (its
    /// loops, the HTTP listener, libraries): `base`.
    static func needed(_ bots: [BotConfig], base: Int = 64) -> Int {
        bots.reduce(base) { sum, bot in sum + 1 + (bot.server == nil ? 1 : 0) + (bot.journal == nil ? 0 : 3) }
    }

    /// Raises the soft limit to the hard one, as a server that holds many
    /// connections should (the soft limit is often 1,024 for no reason of
    /// this process's), and says why `needed` still does not fit; nil when it does.
    static func problem(needed: Int) -> String? {
        let unlimited = rlim_t.max   // RLIM_INFINITY, which Swift cannot import as a literal
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        guard limit.rlim_cur != unlimited, UInt64(needed) > UInt64(limit.rlim_cur) else { return nil }
        return """
            these bots need about \(needed) open files and this process may open \(limit.rlim_cur) \
            (ulimit -n; the hard limit is \(limit.rlim_max == unlimited ? "unlimited" : String(limit.rlim_max))): \
            raise the limit, or split the bots over processes (--shard); no bot was started
            """
    }
}
