import ArgumentParser
import Foundation
import ParleyCore
import ParleyRuntime
import Synchronization

/// `parley check BOT.toml`: reads the config and loads every plugin in the
/// sandbox (its top-level code runs; nothing connects), then prints what
/// `parley run` would run, or every error with its file and line.
struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a bot config and load its plugins without connecting.",
        discussion: "Exit status: 0 when everything loads, 2 for a config error or a plugin that fails to load."
    )

    @Argument(help: "The bot config (TOML).")
    var config: String

    @Option(parsing: .unconditional, help: ArgumentHelp("Also print which bots each of N shards runs (`parley run --shard I/N`).", valueName: "N"))
    var shards: Int?

    func validate() throws {
        if let shards, !(1...10_000).contains(shards) { throw ValidationError("--shards must be between 1 and 10000") }
    }

    func run() async throws {
        let file: BotConfigFile
        do {
            file = try BotConfigFile.load(path: config)
        } catch {
            CommandOutput.print("parley: \(error.description)", to: .error)
            throw ExitCode(2)
        }
        // The transports as `run` makes them: an unusable `server` is found here too.
        do {
            _ = try BotSpecs.make(file, embedded: EmbeddedServers.placeholders) { _, _ in }
        } catch {
            CommandOutput.print("parley: \(error.description)", to: .error)
            throw ExitCode(2)
        }
        var failures = 0, journalProblems = 0
        let unwritable = JournalAccess.problems(file.bots.compactMap(\.journal))
        // The bots of one `[[bot]]` table (a fleet) share its plugins and settings: loaded once.
        var checkedTables: Set<Int> = []
        for bot in file.bots {
            let plugins = bot.plugins.map(pluginName(ofFile:))
            // With no `server`, a transport without an embedded server has one found by discovery (STOMP).
            let server = bot.server ?? (EmbeddedServers.transports.contains(bot.transport) ? "(embedded server)" : "(found by discovery)")
            CommandOutput.print("bot \(bot.name): \(bot.transport) \(server), rooms \(bot.rooms.joined(separator: ", ")), "
                + "journal \(bot.journal ?? "none (state in memory)"), plugins \(plugins.isEmpty ? "none" : plugins.joined(separator: ", "))")
            if let journal = bot.journal, let problem = unwritable[journal] {
                journalProblems += 1
                CommandOutput.print("\(file.path):\(bot.journalLine): \(problem)", to: .error)
            }
            guard checkedTables.insert(bot.line).inserted else { continue }
            let (problems, needed) = try await Self.load(bot)
            for problem in problems {
                failures += 1
                CommandOutput.print("\(file.path):\(bot.pluginsLine): \(problem)", to: .error)
            }
            if problems.isEmpty {
                for (line, warning) in Self.roleWarnings(bot, needed: needed) {
                    CommandOutput.print("\(file.path):\(line): warning: \(warning)", to: .error)
                }
            }
        }
        if failures + journalProblems > 0 {
            let counts = [(failures, "plugin error"), (journalProblems, "journal problem")].filter { $0.0 > 0 }
                .map { "\($0.0) \($0.1)\($0.0 == 1 ? "" : "s")" }
            CommandOutput.print("parley: " + counts.joined(separator: ", "), to: .error)
            throw ExitCode(2)
        }
        if let shards {
            var placed = [[String]](repeating: [], count: shards)
            for bot in file.bots { placed[Shard.place(bot.name, shards: shards)].append(bot.name) }
            for (i, names) in placed.enumerated() {
                CommandOutput.print("shard \(i)/\(shards): \(names.count) bot\(names.count == 1 ? "" : "s"): \(names.joined(separator: ", "))")
            }
        }
        CommandOutput.print("ok: \(file.bots.count) bot\(file.bots.count == 1 ? "" : "s")")
    }

    /// A misspelt role is legal TOML and a legal config, and nobody can run
    /// the command it was meant for: said as warnings, with the line. A role
    /// no command needs may still be read by a plugin (`bot.roles`), so it
    /// is a warning too, not an error.
    static func roleWarnings(_ bot: BotConfig, needed: [String: [String]]) -> [(Int, String)] {
        var out: [(Int, String)] = []
        let neededList = needed.keys.sorted().map { "'\($0)'" }.joined(separator: ", ")
        for role in bot.roles.keys.sorted() where needed[role] == nil {
            out.append((bot.roleLines[role] ?? bot.line, "role '\(role)' in [bot.roles] is needed by no command of this bot's plugins"
                + (needed.isEmpty ? "" : " (they need \(neededList))") + "; a plugin may still read it with bot.roles"))
        }
        for (role, commands) in needed.sorted(by: { $0.key < $1.key }) where bot.roles[role, default: []].isEmpty {
            out.append((bot.pluginsLine, "\(commands.joined(separator: ", ")) \(commands.count == 1 ? "needs" : "need") the role '\(role)', "
                + "which [bot.roles] gives nobody: nobody can run \(commands.count == 1 ? "it" : "them")"))
        }
        return out
    }

    /// What loading the bot's plugins, in order, reported as errors, and the
    /// roles their commands need.
    static func load(_ bot: BotConfig) async throws -> (problems: [String], roles: [String: [String]]) {
        var sources: [(name: String, source: [UInt8])] = []
        for path in bot.plugins {
            // The config reader checked the file is there; it can still vanish or be unreadable now.
            guard let data = InputFile.read(path) else { return (["plugin \(path): cannot be read"], [:]) }
            sources.append((pluginName(ofFile: path), Array(data)))
        }
        let paths = Dictionary(uniqueKeysWithValues: zip(sources.map(\.name), bot.plugins))
        let errors = Mutex<[String]>([])
        let roles = try await PluginTestHost().run(options: bot.botOptions, plugins: sources, steps: []) { action in
            guard case .error(let kind, let message) = action.kind else { return }
            // The first line names the plugin's file and line; the traceback adds nothing at load.
            let first = message.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? message
            errors.withLock { $0.append("plugin \(paths[action.plugin] ?? action.plugin): \(kind.rawValue) error: \(first)") }
        }
        return (errors.withLock { $0 }, roles)
    }
}
