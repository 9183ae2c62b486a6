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
            self?.assumeIsolated { $0.fireTimers() }
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

    /// Reloads every plugin (SIGHUP).
    public func reloadPlugins() async {
        for p in spec.plugins { await reload(p.name) }
    }

    /// Loads a new version of one plugin; the old one keeps running if it fails.
    public func reload(_ plugin: String) async {
        guard let host, failure == nil, !closing else { return }
        do {
            let (outcome, actions, due) = try onLoop(host) { try $0.reload(plugin: plugin) }
            switch outcome {
            case .reloaded: log(.info, "plugin \(plugin) reloaded")
            case .loaded: log(.info, "plugin \(plugin) loaded (it did not load at start)")
            case .failed(running: true): log(.error, "plugin \(plugin) not reloaded; the old version keeps running")
            case .failed(running: false): log(.error, "plugin \(plugin) still does not load, and does not run")
            }
            accept(actions)
            rescheduleTimers(due)
        } catch {
            journalFailed(error)
        }
    }
}
