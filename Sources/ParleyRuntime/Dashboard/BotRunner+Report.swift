import ParleyCore
import ParleyLua

/// The runner's part of the dashboard: what only the bot's own loop knows.
extension BotRunner {
    struct OwnReport: Sendable {
        var plugins: [PluginReport]
        var journalSyncMilliseconds: Double?
    }

    func report() -> OwnReport {
        let (plugins, sync) = host.map { onLoop($0) { ($0.pluginReports(), $0.journalSyncMilliseconds) } } ?? ([], nil)
        return OwnReport(plugins: plugins, journalSyncMilliseconds: sync)
    }
}

extension Bot {
    /// Each plugin's costs, in load order.
    func pluginReports() -> [PluginReport] {
        plugins.map { p in
            let (i, ms) = p.stats.percentiles
            return PluginReport(name: p.name, events: p.stats.events, errors: p.stats.errors,
                                instructionsP50: i.0, instructionsP99: i.1, instructionLimit: p.limits.instructions,
                                millisecondsP50: ms.0, millisecondsP99: ms.1, millisecondLimit: p.limits.timeMilliseconds,
                                memoryBytes: p.vm.memoryUsed, memoryCap: p.limits.memoryBytes,
                                outboxWaiting: waitingSends(plugin: p.name), isDisabled: p.isDisabled)
        }
    }
}
