import CParleyLua

extension FuzzTarget {
    /// Parley's own Lua pattern matcher (patterns.c), which plugins reach as
    /// string.find, match, gmatch and gsub, and through `bot.hear`'s native
    /// search, with attacker-controlled subjects and often
    /// attacker-controlled patterns. It meters its work against the
    /// plugin's instruction budget; here the budget is small and there is no
    /// wall-clock limit, so work the meter misses shows up as a slow input.
    ///
    /// Input: an operation byte, an `init` byte (signed), a `max n` byte for
    /// gsub, then subject, pattern and replacement separated by NUL bytes.
    /// Errors and a spent budget are expected outcomes.
    static let pattern = FuzzTarget(
        name: "pattern", summary: "the budgeted Lua pattern matcher (find, match, gmatch, gsub, hear)"
    ) { data in
        var input = FuzzInput(data)
        let op = Int32(input.byte() % 8)
        let initial = Int64(Int8(bitPattern: input.byte()))
        let n = input.byte()
        let maxN: Int64 = n < 128 ? -1 : Int64(n - 128)
        // NUL-terminated copies, so no buffer has a nil base address.
        let subject = Array(input.field(upTo: 0)) + [0]
        let pattern = Array(input.field(upTo: 0)) + [0]
        let replacement = Array(input.remaining()) + [0]
        _ = subject.withUnsafeBytes { s in
            pattern.withUnsafeBytes { p in
                replacement.withUnsafeBytes { r in
                    parley_pattern_probe(
                        op, s.baseAddress!.assumingMemoryBound(to: CChar.self), s.count - 1,
                        p.baseAddress!.assumingMemoryBound(to: CChar.self), p.count - 1,
                        r.baseAddress!.assumingMemoryBound(to: CChar.self), r.count - 1,
                        initial, maxN, patternBudget)
                }
            }
        }
    }

    /// A fortieth of a plugin's default 10,000,000 instructions per event.
    /// Spending it takes a few milliseconds (instrumented, or in a debug
    /// build), so an input over 100 ms means work the meter does not see,
    /// not a generous budget.
    static let patternBudget: Int64 = 250_000
}
