import Foundation
import ParleyConfig
import ParleyCore

/// Turns a config file's bots into runnable specs.
public enum BotSpecs {
    /// - Parameter embedded: the address of each embedded server, by
    ///   transport name, used by bots whose config names no `server`.
    /// - Parameter embeddedAuth: what a bot on each embedded server connects
    ///   with (the server's moderator token), by transport name.
    /// - Parameter log: where each bot's transport logs, with the bot's name.
    public static func make(_ file: BotConfigFile, embedded: [String: HostPort], embeddedAuth: [String: [String: String]] = [:],
                            log: @escaping @Sendable (_ bot: String, _ line: String) -> Void) throws(ConfigError) -> [BotSpec] {
        try file.bots.map { b throws(ConfigError) in
            // Settings for plugins of a bot that loads none are a mistake here
            // (`plugin test --config` gives the plugin on its command line).
            if b.plugins.isEmpty, let first = b.pluginSettingsAt.first {
                throw ConfigError(kind: .unknownKey, file: file.path, line: first.line, key: first.key,
                                  message: "there are settings for plugin '\(first.plugin)', but this bot loads no plugins (add it to plugins)")
            }
            var target = TransportTarget(name: b.name, rooms: b.rooms, server: b.server, embedded: embedded[b.transport],
                                         connectTimeout: b.presence.connectTimeout,
                                         log: { [name = b.name] line in log(name, line) }, file: file.path, line: b.serverLine)
            target.embeddedAuth = embeddedAuth[b.transport] ?? [:]
            let transport = try b.transportOptions.makeTransport(for: target)
            let plugins = b.plugins.map {
                BotSpec.PluginFile(name: pluginName(ofFile: $0), path: $0)
            }
            var options = b.botOptions
            // Every bot of a fleet gets its own seed, so 1,000 simulated users do not all say the same thing.
            options.randomSeed = Int64.random(in: Int64.min...Int64.max)
            var spec = BotSpec(options: options, plugins: plugins, presence: b.presence, transport: transport,
                               journal: b.journal, fsync: b.fsync, flow: b.flow)
            spec.webhookSecrets = b.webhookSecrets
            return spec
        }
    }
}

/// Many bots in one process: each runs on its own, different bots concurrently.
public actor Fleet {
    public nonisolated let runners: [BotRunner]
    private let observer: RuntimeObserver
    private var stopped = false
    /// Each plugin file as last loaded: the watcher and SIGHUP share it, so
    /// an edit followed by a SIGHUP is one reload, not two.
    private var stamps: [String: FileStamp] = [:]

    private let lines: FleetLines?

    public init(specs: [BotSpec], observer: RuntimeObserver, loops: BotLoops = .shared) {
        let lines = specs.count > 1 ? FleetLines(size: specs.count) : nil
        runners = specs.map { BotRunner(spec: $0, observer: observer, loops: loops, fleetLines: lines) }
        self.lines = lines
        self.observer = observer
    }

    /// Runs every bot until all have ended; outcomes in config order. With
    /// `watchPlugins`, a changed plugin file is reloaded in every bot that
    /// loads it (`parley run`).
    public func run(watchPlugins: Bool = false) async -> [BotOutcome] {
        let watcher = watchPlugins ? Task { await self.watchPluginFiles() } : nil
        defer { watcher?.cancel() }
        return await withTaskGroup(of: (Int, BotOutcome).self) { group in
            for (i, r) in runners.enumerated() {
                group.addTask { (i, await r.run()) }
            }
            var out = [BotOutcome](repeating: .stopped, count: runners.count)
            for await (i, o) in group { out[i] = o }
            // Each bot logged an ending other than a plain stop itself.
            let stopped = out.filter { $0 == .stopped }.count
            if runners.count > 1, stopped > 0 {
                let text = stopped == runners.count ? "all \(stopped) bots stopped" : "\(stopped) of \(runners.count) bots stopped"
                observer.log(LogRecord(time: Date().timeIntervalSince1970, bot: "parley", plugin: nil, level: .info, text: text))
                if let unsent = lines?.unsentAtStop() {
                    observer.log(LogRecord(time: Date().timeIntervalSince1970, bot: "parley", plugin: nil, level: .warn, text: unsent))
                }
            }
            return out
        }
    }

    /// Graceful shutdown of every bot, concurrently.
    public func stop() async {
        guard !stopped else { return }
        stopped = true
        await withTaskGroup(of: Void.self) { group in
            for r in runners { group.addTask { await r.stop() } }
        }
    }

    /// Reloads every bot's plugins from their files (SIGHUP). Not once the
    /// bots are stopping: what a load handler sent would wait in the journal
    /// for the next start.
    public func reloadPlugins() async {
        guard !stopped else {
            observer.log(LogRecord(time: Date().timeIntervalSince1970, bot: "parley", plugin: nil, level: .info,
                                   text: "SIGHUP ignored: the bots are stopping"))
            return
        }
        for (path, loaders) in pluginUsers() {
            stamps[path] = FileStamp(of: path) ?? stamps[path]
            await reload(loaders)
        }
    }

    /// Each plugin file, in the order bots load them, with every bot that loads it.
    private func pluginUsers() -> [(path: String, loaders: [(runner: BotRunner, plugin: String)])] {
        var order: [String] = []
        var users: [String: [(runner: BotRunner, plugin: String)]] = [:]
        for r in runners {
            for p in r.plugins {
                if users[p.path] == nil { order.append(p.path) }
                users[p.path, default: []].append((r, p.name))
            }
        }
        return order.map { ($0, users[$0]!) }
    }

    /// Reloads one file in every bot that loads it. The first bot says what
    /// came of it in full (the plugin's load error included); the others are
    /// summed up in a line per outcome and first error, which the line
    /// quotes with the first bot that had it, so a fleet of 1,000 logs two
    /// lines, not 2,000 alike ones, and no bot's error goes unsaid.
    private func reload(_ loaders: [(runner: BotRunner, plugin: String)]) async {
        guard let first = loaders.first else { return }
        await first.runner.reload(first.plugin)
        struct Key: Hashable { var outcome: BotHost.Reload; var error: String? }
        var others: [Key: (count: Int, bot: String)] = [:], order: [Key] = []
        for l in loaders.dropFirst() {
            guard let (outcome, error) = await l.runner.reload(l.plugin, quiet: true) else { continue }
            let key = Key(outcome: outcome, error: error)
            if others[key] == nil { order.append(key) }
            others[key, default: (0, l.runner.name)].count += 1
        }
        for key in order {
            let (n, bot) = others[key]!
            var (level, text) = key.outcome.line(first.plugin, among: " in \(n) more bot\(n == 1 ? "" : "s") that load\(n == 1 ? "s" : "") it")
            if let error = key.error {
                level = .error
                text += "; the first error, in \(bot): \(error)"
            }
            observer.log(LogRecord(time: Date().timeIntervalSince1970, bot: first.runner.name, plugin: nil, level: level, text: text))
        }
    }

    /// Polls each distinct plugin file once a second, however many bots load
    /// it (a fleet of 1,000 simulated users shares one persona file). A file
    /// that goes missing is said once, when it goes: the loaded version runs
    /// on, and the file loads again when it is back.
    private func watchPluginFiles() async {
        let users = pluginUsers()
        for u in users where stamps[u.path] == nil { stamps[u.path] = FileStamp(of: u.path) }
        var missing = Set(users.map(\.path).filter { stamps[$0] == nil })
        while !Task.isCancelled, !stopped {
            try? await Task.sleep(for: .seconds(1))
            for (path, loaders) in users {
                guard let now = FileStamp(of: path) else {
                    if missing.insert(path).inserted { warnMissing(path, loaders.map(\.runner.name), plugin: loaders[0].plugin) }
                    continue
                }
                missing.remove(path)
                guard now != stamps[path] else { continue }
                stamps[path] = now
                await reload(loaders)
            }
        }
    }

    private func warnMissing(_ path: String, _ bots: [String], plugin: String) {
        let n = bots.count - 1
        let others = n > 0 ? " (and \(n) more bot\(n == 1 ? "" : "s") that load\(n == 1 ? "s" : "") it)" : ""
        observer.log(LogRecord(time: Date().timeIntervalSince1970, bot: bots[0], plugin: nil, level: .warn, text: """
            plugin \(plugin): its file \(path) is gone or cannot be read\(others); the loaded version runs on, \
            and the file loads again once it is back
            """))
    }
}

/// What tells a plugin file changed: its time, its size and the file a
/// symbolic link leads to. Through symlinks: a ConfigMap swaps a `..data`
/// link under the file's own link, and an edit lands in the target; either
/// changes the stamp.
struct FileStamp: Equatable {
    var modified: Double
    var size: Int
    var target: String

    /// Nil while the file cannot be read (being replaced, say).
    init?(of path: String) {
        target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        guard let a = try? FileManager.default.attributesOfItem(atPath: target) else { return nil }
        modified = (a[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        size = (a[.size] as? Int) ?? 0
    }
}
