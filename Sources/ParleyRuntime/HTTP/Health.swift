import Foundation
import Hummingbird
import ParleyCore

/// `/healthz` and `/readyz` on the `--http` server, for Kubernetes' probes.
///
/// - `/healthz`: 200 when every bot loop runs a job within 2 s (a loop held
///   by a plugin past its budget, or wedged, fails it): the process is alive.
/// - `/readyz`: 200 when every bot of this process is online, or lost its
///   link less than `[runtime] ready_backoff` ago and is on its way back (a
///   blip is no reason to take the pod out of service; an outage is); else
///   503 with one line per bot that is not, saying why.
enum Health {
    static let loopDeadline = Duration.seconds(2)

    /// The paths `routes` serves, both GET.
    static let paths = ["/healthz", "/readyz"]

    static func routes(_ router: Router<BasicRequestContext>, runners: [BotRunner], readyBackoff: Double) {
        router.get("/healthz") { _, _ in
            let stuck = await stuckLoops(runners)
            return stuck == 0 ? HTTPServer.text(.ok, "ok\n") : HTTPServer.text(.serviceUnavailable, "\(stuck) bot loop(s) did not answer within 2 s\n")
        }
        router.get("/readyz") { _, _ in
            // Read from each bot's published presence: a probe never waits on a busy loop.
            let reasons = runners.compactMap { r in r.unready(backoffBound: readyBackoff).map { "\(r.name): \($0)" } }
            return reasons.isEmpty ? HTTPServer.text(.ok, "ready: \(runners.count) bot\(runners.count == 1 ? "" : "s")\n")
                : HTTPServer.text(.serviceUnavailable, reasons.joined(separator: "\n") + "\n")
        }
    }

    /// Loops that do not run a job within the deadline (one runner per loop
    /// is asked, all at once, so the answer takes the deadline at most).
    static func stuckLoops(_ runners: [BotRunner]) async -> Int {
        var seen = Set<ObjectIdentifier>()
        let probes = runners.filter { seen.insert(ObjectIdentifier($0.executor)).inserted }
        return await withTaskGroup(of: Bool.self) { group in
            for r in probes { group.addTask { await answers(r) } }
            return await group.reduce(0) { $0 + ($1 ? 0 : 1) }
        }
    }

    /// Whether the runner's loop runs a job within the deadline (a wedged
    /// loop's job is left waiting, not awaited).
    static func answers(_ r: BotRunner) async -> Bool {
        (try? await withDeadline(loopDeadline, timeout: CancellationError()) { await r.answer(); return true }) ?? false
    }
}

extension BotRunner {
    /// Runs on the bot's loop: that it returns is the answer.
    func answer() {}

    /// Why the bot is not ready, or nil when it is.
    nonisolated func unready(backoffBound: Double) -> String? {
        let now = presence.withLock { $0 }
        if let failure = now.failure { return "failed: \(failure)" }
        switch now.state {
        case .online: return nil
        case .offline, .connecting, .backoff:
            guard let since = now.offlineSince else { return now.state.rawValue }
            let gone = BotHost.now() - since
            if gone < backoffBound { return nil }
            let tenths = FloatingPointFormatStyle<Double>.number.precision(.fractionLength(0...1))
            return "\(now.state.rawValue): offline for \(gone.formatted(tenths)) s (over ready_backoff \(backoffBound.formatted(tenths)) s)"
        default: return now.state.rawValue
        }
    }
}
