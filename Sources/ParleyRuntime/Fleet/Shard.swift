/// A process's part of a fleet (`parley run --shard I/N`): the bots whose
/// names rendezvous hashing places in shard `I` of `N`, numbered from 0 as a
/// StatefulSet numbers its pods.
///
/// Rendezvous (highest random weight) hashing: a bot goes to the shard
/// whose weight for it is highest. Going from N to N+1 shards moves only
/// the bots the new shard wins, about 1/(N+1) of them, and no bot moves
/// between two old shards.
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    public var index: Int
    public var count: Int

    public init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    public var description: String { "\(index)/\(count)" }

    /// `I/N`, or `auto/N` with `I` the ordinal at the end of `hostname`
    /// (`parley-3` is shard 3), as a StatefulSet names its pods; `auto/1`
    /// on a host without one is shard 0 (`docker run` names its container by id).
    public static func parse(_ text: String, hostname: String) throws(ShardError) -> Shard {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let count = Int(parts[1]), (1...10_000).contains(count) else {
            throw ShardError("'\(text)' is not I/N or auto/N (N from 1 to 10000)")
        }
        let index: Int
        if parts[0] == "auto" {
            // `parley-3`, or `parley-3.parley.default.svc.cluster.local`.
            let host = hostname.split(separator: ".").first.map(String.init) ?? hostname
            let digits = host.reversed().prefix { $0.isNumber }
            if count == 1, digits.isEmpty || !host.dropLast(digits.count).hasSuffix("-") {
                // One shard runs everything, on any host (a container named by its id, say).
                return Shard(index: 0, count: 1)
            }
            guard !digits.isEmpty, host.dropLast(digits.count).hasSuffix("-"), let i = Int(String(digits.reversed())) else {
                throw ShardError("--shard auto/\(count): the host name '\(hostname)' does not end in -ORDINAL (as parley-3 does)")
            }
            index = i
        } else {
            guard let i = Int(parts[0]) else { throw ShardError("'\(text)' is not I/N or auto/N") }
            index = i
        }
        guard (0..<count).contains(index) else { throw ShardError("shard \(index) of \(count): shards are numbered 0 to \(count - 1)") }
        return Shard(index: index, count: count)
    }

    /// Whether this shard runs the bot.
    public func owns(_ bot: String) -> Bool { Self.place(bot, shards: count) == index }

    /// The shard a bot runs in, of `shards`.
    public static func place(_ bot: String, shards: Int) -> Int {
        (0..<shards).max { weight(bot, $0) < weight(bot, $1) } ?? 0
    }

    /// A stable 64-bit weight of (bot, shard): FNV-1a over the name and the
    /// shard number, then SplitMix64's finalizer to spread it. Stable across
    /// processes and builds (Swift's `Hasher` is seeded per process).
    static func weight(_ bot: String, _ shard: Int) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bot.utf8 {
            h ^= UInt64(b)
            h &*= 0x0000_0100_0000_01b3
        }
        h ^= UInt64(truncatingIfNeeded: shard) &+ 0x9e37_79b9_7f4a_7c15
        h = (h ^ (h >> 30)) &* 0xbf58_476d_1ce4_e5b9
        h = (h ^ (h >> 27)) &* 0x94d0_49bb_1331_11eb
        return h ^ (h >> 31)
    }
}

public struct ShardError: Error, CustomStringConvertible, Sendable {
    public var description: String
    init(_ d: String) { description = d }
}
