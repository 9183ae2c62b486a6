import Foundation
import Logging
import ParleyCore
import Synchronization

/// Watches a fleet for the dashboard: each bot's state changes, events and
/// replies (in 10 s buckets over 10 minutes), and the last log lines. Fed by
/// the runtime's observer callbacks on the bots' loops; read by the HTTP
/// server, which adds each runner's own report (`BotRunner.report()`).
public final class FleetWatch: Sendable {
    /// Cards on the page; a larger fleet shows its first ones and its size.
    public static let maxCards = 100
    static let buckets = 60
    static let bucketSeconds = 10.0
    static let logLines = 50

    struct Live {
        var state = ConnectionState.offline
        var since: Double
        var events = [Int](repeating: 0, count: FleetWatch.buckets)
        var replies = [Int](repeating: 0, count: FleetWatch.buckets)
        /// The bucket number (time / 10 s) the last count went into.
        var bucket: Int
        /// The bot's plugin figures as its loop last gave them.
        var lastReport: BotRunner.OwnReport?

        init(now: Double) {
            since = now
            bucket = Int(now / FleetWatch.bucketSeconds)
        }

        /// Moves to the bucket of `now`, emptying the ones skipped.
        mutating func roll(to now: Double) {
            let b = Int(now / FleetWatch.bucketSeconds)
            guard b > bucket else { return }
            for k in (bucket + 1)...min(b, bucket + FleetWatch.buckets) {
                events[k % FleetWatch.buckets] = 0
                replies[k % FleetWatch.buckets] = 0
            }
            bucket = b
        }

        /// Oldest first, per second; the current bucket counts the seconds it has had.
        func rates(_ counts: [Int], now: Double) -> [Double] {
            let elapsed = max(1, now - Double(bucket) * FleetWatch.bucketSeconds)
            return (0..<FleetWatch.buckets).map { i in
                let k = bucket - (FleetWatch.buckets - 1) + i
                return Double(counts[((k % FleetWatch.buckets) + FleetWatch.buckets) % FleetWatch.buckets])
                    / (k == bucket ? elapsed : FleetWatch.bucketSeconds)
            }
        }
    }

    private let bots = Mutex<[String: Live]>([:])
    private let logs = Mutex<[LogLine]>([])

    public init() {}

    /// `base` with the watch listening in: its callbacks and log lines still
    /// go where they went.
    public func observing(_ base: RuntimeObserver) -> RuntimeObserver {
        var o = base
        let tap = WatchLogHandler(watch: self)
        o.logger = Logger(label: base.logger.label) { _ in MultiplexLogHandler([base.logger.handler, tap]) }
        o.logger.logLevel = base.logger.logLevel
        o.event = { [self] bot, event in
            base.event(bot, event)
            count(bot) { $0.events[$0.bucket % Self.buckets] += 1 }
        }
        o.sent = { [self] bot, plugin, room, text in
            base.sent(bot, plugin, room, text)
            count(bot) { $0.replies[$0.bucket % Self.buckets] += 1 }
        }
        o.connection = { [self] bot, state in
            base.connection(bot, state)
            count(bot) { live in
                if live.state != state { live.since = Date().timeIntervalSince1970 }
                live.state = state
            }
        }
        return o
    }

    private func count(_ bot: String, _ change: (inout Live) -> Void) {
        let now = Date().timeIntervalSince1970
        bots.withLock { all in
            var live = all[bot] ?? Live(now: now)
            live.roll(to: now)
            change(&live)
            all[bot] = live
        }
    }

    func log(_ line: LogLine) {
        logs.withLock { l in
            l.append(line)
            if l.count > Self.logLines { l.removeFirst(l.count - Self.logLines) }
        }
    }

    /// How long a snapshot waits for a bot's loop: a loop busy past it
    /// (a join storm, a slow plugin) is shown with its last plugin figures.
    static let loopDeadline = Duration.seconds(1)

    static func isOnline(_ r: BotRunner) -> Bool {
        r.presence.withLock { $0.failure == nil && $0.state == .online }
    }

    /// A snapshot: each runner's report (asked on every loop at once) with what was watched.
    public func report(_ runners: [BotRunner]) async -> FleetReport {
        // Past the cap, the bots that are not online come first (in config
        // order, then the rest): the cards a large fleet shows are the ones to look at.
        let shown = runners.count <= Self.maxCards ? runners : Array((runners.filter { !Self.isOnline($0) }
            + runners.filter(Self.isOnline)).prefix(Self.maxCards))
        let own = await withTaskGroup(of: (Int, BotRunner.OwnReport?).self) { group in
            for (i, runner) in shown.enumerated() {
                group.addTask { (i, try? await withDeadline(Self.loopDeadline, timeout: CancellationError()) { await runner.report() }) }
            }
            var all = [BotRunner.OwnReport?](repeating: nil, count: shown.count)
            for await (i, r) in group { all[i] = r }
            return all
        }
        let now = Date().timeIntervalSince1970
        var reports: [BotReport] = []
        for (runner, answered) in zip(shown, own) {
            let (live, last) = bots.withLock { all -> (Live, BotRunner.OwnReport?) in
                var live = all[runner.name] ?? Live(now: now)
                live.roll(to: now)
                if let answered { live.lastReport = answered }
                all[runner.name] = live
                return (live, live.lastReport)
            }
            let presence = runner.presence.withLock { $0 }
            reports.append(BotReport(name: runner.name, transport: runner.spec.transport.capabilities.name,
                                     loop: runner.loops.number(of: runner.executor) ?? 0,
                                     state: presence.failure == nil ? presence.state.rawValue : "failed",
                                     stateSince: presence.failure != nil ? presence.failedAt : live.state == presence.state ? live.since : now,
                                     reconnects: presence.reconnects,
                                     eventsPerSecond: live.rates(live.events, now: now),
                                     repliesPerSecond: live.rates(live.replies, now: now),
                                     plugins: last?.plugins ?? [], journalSyncMilliseconds: last?.journalSyncMilliseconds,
                                     loopBusy: answered == nil))
        }
        return FleetReport(time: now, botCount: runners.count, bots: reports, loops: runners.first?.loops.report ?? [],
                           logs: logs.withLock { $0 })
    }
}

/// Copies each log line into the watch's ring (the runner masked it already).
struct WatchLogHandler: LogHandler {
    let watch: FleetWatch
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        watch.log(LogLine(time: Date().timeIntervalSince1970, level: event.level.rawValue,
                          bot: all["bot"].map { "\($0)" }, plugin: all["plugin"].map { "\($0)" }, text: "\(event.message)"))
    }
}
