import Foundation
import Hummingbird

/// `/healthz` and `/readyz` on the `--http` server, for Kubernetes' probes.
///
/// - `/healthz`: 200 when every bot loop runs a job within 2 s (a loop held
///   by a plugin past its budget, or wedged, fails it): the process is alive.
/// - `/readyz`: 200 when every bot of this process is online, or waiting out
///   a reconnect delay shorter than `[runtime] ready_backoff`; else 503 with
///   one line per bot that is not, saying why.
enum Health {
    static let loopDeadline = Duration.seconds(2)

    static func routes(_ router: Router<BasicRequestContext>, runners: [BotRunner], readyBackoff: Double) {
        router.get("/healthz") { _, _ in
            let stuck = await stuckLoops(runners)
            return stuck == 0 ? HTTPServer.text(.ok, "ok\n") : HTTPServer.text(.serviceUnavailable, "\(stuck) bot loop(s) did not answer within 2 s\n")
        }
        router.get("/readyz") { _, _ in
            var reasons: [String] = []
            for r in runners {
                if let why = await r.unready(backoffBound: readyBackoff) { reasons.append("\(r.name): \(why)") }
            }
            return reasons.isEmpty ? HTTPServer.text(.ok, "ready: \(runners.count) bot\(runners.count == 1 ? "" : "s")\n")
                : HTTPServer.text(.serviceUnavailable, reasons.joined(separator: "\n") + "\n")
        }
    }

    /// Loops that do not run a job within the deadline (one runner per loop is asked).
    static func stuckLoops(_ runners: [BotRunner]) async -> Int {
        var seen = Set<ObjectIdentifier>()
        let probes = runners.filter { seen.insert(ObjectIdentifier($0.executor)).inserted }
        var stuck = 0
        for r in probes where !(await answers(r)) { stuck += 1 }
        return stuck
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
    func unready(backoffBound: Double) -> String? {
        switch state {
        case .online: return nil
        case .backoff where backoffDelay < backoffBound: return nil
        case .backoff: return "reconnecting after \(Int(backoffDelay)) s (over ready_backoff \(Int(backoffBound)) s)"
        default: return state.rawValue
        }
    }
}
