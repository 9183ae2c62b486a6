import Foundation
import Logging
import Metrics
import ParleyCore
import ParleyJournal
import ParleyLua

/// The plugins' timers on the bot's thread, and hot reload of plugin files.
extension BotRunner {
    func rescheduleTimers(_ due: Double?) {
        guard let due, due < wakeAt, !closing else { return }
        wakeAt = due
        timerWakeup?.cancel()
        // A millisecond late rather than early: the host fires what is due by then.
        // Fires on the bot's loop, which is this runner's executor: no task needed.
        timerWakeup = executor.schedule(after: max(0, due - BotHost.now()) + 0.001) { [weak self] in
            self?.onLoopThread { $0.fireTimers() }
        }
    }

    func fireTimers() {
        wakeAt = .infinity
        timerWakeup = nil
        guard let host, failure == nil, !closing else { return }
        do {
            let (actions, due) = try onLoop(host) { try $0.tick() }
            accept(actions)
            rescheduleTimers(due)
        } catch {
            journalFailed(error)
        }
    }


    /// The plugins this bot loads, for whoever watches their files (`Fleet`).
    public nonisolated var plugins: [BotSpec.PluginFile] { spec.plugins }

    /// Loads a new version of one plugin; the old one keeps running if it
    /// fails. `quiet`: the caller sums up this bot's outcome with others'
    /// (`Fleet`), so neither it nor the plugin's load errors are logged here
    /// (they are still counted); the plugin's first error (its load error, or
    /// its load handler's) comes back with the outcome for that line.
    @discardableResult
    func reload(_ plugin: String, quiet: Bool = false) async -> (outcome: BotHost.Reload, firstError: String?)? {
        guard let host, failure == nil, !closing else { return nil }
        do {
            let (outcome, actions, due) = try onLoop(host) { try $0.reload(plugin: plugin) }
            if !quiet {
                let (level, text) = outcome.line(plugin)
                log(level, text)
            }
            var firstError: String?
            accept(quiet ? actions.filter { a in
                guard case .error(let kind, let message) = a.kind else { return true }
                RuntimeMetrics.pluginError(kind)
                firstError = firstError ?? "\(kind.rawValue): \(message.split(separator: "\n").first ?? "")"
                return false
            } : actions)
            rescheduleTimers(due)
            return (outcome, firstError)
        } catch {
            journalFailed(error)
            return nil
        }
    }
}
