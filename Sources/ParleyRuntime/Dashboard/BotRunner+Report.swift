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
    /// Each plugin's costs, in the config's order (`files`, the plugins' names):
    /// one that did not load is there too, with why, so a card never hides a
    /// configured plugin that is not running.
    func pluginReports(files: [String]) -> [PluginReport] {
        let loaded = Dictionary(plugins.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let names = files.isEmpty ? plugins.map(\.name) : files
        return names.map { name in
            guard let p = loaded[name] else {
                return PluginReport(name: name, events: 0, errors: [:], instructionsP50: 0, instructionsP99: 0,
                                    instructionLimit: options.limits(for: name).instructions, millisecondsP50: 0, millisecondsP99: 0,
                                    millisecondLimit: options.limits(for: name).timeMilliseconds, memoryBytes: 0,
                                    memoryCap: options.limits(for: name).memoryBytes, outboxWaiting: waitingSends(plugin: name),
                                    isDisabled: false, loadProblem: loadProblems[name] ?? "it did not load", running: false)
            }
            let (i, ms) = p.stats.percentiles
            return PluginReport(name: p.name, events: p.stats.events, errors: p.stats.errors,
                                instructionsP50: i.0, instructionsP99: i.1, instructionLimit: p.limits.instructions,
                                millisecondsP50: ms.0, millisecondsP99: ms.1, millisecondLimit: p.limits.timeMilliseconds,
                                memoryBytes: p.vm.memoryUsed, memoryCap: p.limits.memoryBytes,
                                outboxWaiting: waitingSends(plugin: p.name), isDisabled: p.isDisabled,
                                loadProblem: loadProblems[name], running: true)
        }
    }
}
