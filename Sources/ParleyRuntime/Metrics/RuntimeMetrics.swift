import CoreMetrics
import Metrics
import ParleyCore
import Synchronization

/// The runtime's metrics, through swift-metrics: with no backend bootstrapped
/// (no `--http`) every one of them is a no-op.
///
/// Labels are few and fixed (event kinds, error kinds), never per bot or per
/// user, so a fleet of thousands of simulated users does not explode the
/// number of series.
enum RuntimeMetrics {
    static let events: [String: Counter] = Dictionary(uniqueKeysWithValues:
        ["message", "join", "leave", "typing", "roster", "connection"].map { ($0, Counter(label: "parley_events_total", dimensions: [("kind", $0)])) })
    /// `events["message"]`, found without hashing the kind's name on every message.
    private static let messages = events["message"]!
    static func counter(of e: BotEvent) -> Counter? {
        if case .message = e { return messages }
        return events[e.kind]
    }
    static let handlerLatency = Timer(label: "parley_handler_duration_seconds")
    static let pluginErrors: [PluginErrorKind: Counter] = Dictionary(uniqueKeysWithValues:
        [PluginErrorKind.syntax, .runtime, .budget, .memory, .quota, .pluginDisabled].map {
            ($0, Counter(label: "parley_plugin_errors_total", dimensions: [("kind", $0.rawValue)]))
        })
    static let budgetTrips = Counter(label: "parley_budget_trips_total")
    static let sends = Counter(label: "parley_sends_total")
    static let sendsDropped = Counter(label: "parley_sends_dropped_total")
    /// Incoming events a full room queue shed (`[bot.flow] room_queue`).
    static let eventsShed = Counter(label: "parley_events_shed_total")
    static let reconnects = Counter(label: "parley_reconnects_total")
    static let journalSync = Timer(label: "parley_journal_sync_duration_seconds")

    /// A fresh handle each time: one made before the metrics are bootstrapped would count nothing.
    static var logLinesDropped: Counter { Counter(label: "parley_log_lines_dropped_total") }

    /// The process's bots by connection state (`parley_bots{state}`).
    static let bots = BotStates()

    /// Makes every series once the metrics are bootstrapped, so `/metrics`
    /// shows each counter from 0 rather than only after its first event.
    static func registerAll() {
        _ = (events, handlerLatency, pluginErrors, budgetTrips, sends, sendsDropped, eventsShed, reconnects, journalSync)
        _ = logLinesDropped
        bots.recordAll()
    }

    static func pluginError(_ kind: PluginErrorKind) {
        pluginErrors[kind]?.increment()
        if kind == .budget || kind == .memory { budgetTrips.increment() }
    }
}

/// How many of the process's bots are in each connection state, kept as
/// each bot's changes: a gauge is set, not added to, so the counts live
/// here. Its handles are made at each change (a few a bot's life), as the
/// bots may start before `/metrics` bootstraps the backend.
final class BotStates: Sendable {
    private let counts = Mutex([ConnectionState: Int]())

    /// A bot came (`from` nil), changed state, or went (`to` nil).
    func move(from old: ConnectionState?, to new: ConnectionState?) {
        counts.withLock { c in
            for (state, by) in [(old, -1), (new, 1)] {
                guard let state else { continue }
                c[state, default: 0] += by
                Self.gauge(state).record(c[state] ?? 0)
            }
        }
    }

    func recordAll() {
        counts.withLock { c in
            for state in ConnectionState.allCases { Self.gauge(state).record(c[state] ?? 0) }
        }
    }

    private static func gauge(_ state: ConnectionState) -> Gauge {
        Gauge(label: "parley_bots", dimensions: [("state", state.rawValue)])
    }
}

