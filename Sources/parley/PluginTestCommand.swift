import ArgumentParser
import Foundation
import ParleyCore
import ParleyLua
import ParleyRuntime
import Synchronization

/// `parley plugin test`: the plugin author's harness.
struct PluginTestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run plugins against a script of events and print what they do, as JSON lines.",
        discussion: """
        Events (one JSON object per line): message, join, leave, typing, roster, connection, \
        advance (moves the virtual clock; due timers fire), http_reply and moderation_reply \
        (the answer the next bot.http request or moderation step gets), and webhook (a request \
        to a plugin's bot.webhook). Output: one JSON object per \
        action. Exit 0 when the run completed, whatever the plugins did; exit 2 for unreadable \
        files, invalid JSON or unknown event types. With --expect FILE the actions are compared \
        with FILE's lines instead of printed: exit 1 and a diff when they differ; --update \
        rewrites FILE with what the plugins did.
        """
    )

    @Argument(help: "Plugin files, loaded in order into one bot.")
    var plugins: [String]

    @Option(name: .long, help: "The event script (JSONL); - reads standard input.")
    var events: String

    @Option(name: .long, help: "A bot config (TOML): plugin config tables and limits.")
    var config: String?

    @Option(name: .long, help: "Keep the plugins' state and history in this directory between runs.")
    var journal: String?

    @Option(name: .long, help: "The bot's user name (default: the config's, else \"parley\").")
    var name: String?

    @Option(name: .long, parsing: .unconditional, help: "Seed for the plugins' math.random.")
    var seed: Int64 = 0

    @Option(name: .long, help: ArgumentHelp("Compare the actions with this file's lines (JSONL) instead of printing them.", valueName: "file"))
    var expect: String?

    @Flag(name: .long, help: "With --expect: write the actions to that file instead of comparing.")
    var update = false

    func validate() throws {
        if update, expect == nil { throw ValidationError("--update needs --expect FILE (the file to write)") }
    }

    func run() async throws {
        do {
            try await execute()
        } catch let e as UsageFailure {
            CommandOutput.print("parley: \(e.message)", to: .error)
            throw ExitCode(2)
        }
    }

    private func execute() async throws {
        var options = BotOptions(name: name ?? "parley")
        if let config {
            do {
                let file = try BotConfigFile.load(path: config)
                let bot = try file.bot(named: name)
                options = bot.botOptions
                // The configured transport's text rules, so a test refuses what the live bot's transport would.
                if let spec = try? BotSpecs.make(file, embedded: EmbeddedServers.placeholders, log: { _, _ in }).first(where: { $0.options.name == bot.name }) {
                    options.transport = options.transport.withTextRules(of: spec.transport.capabilities)
                }
            } catch {
                throw UsageFailure(message: error.description)
            }
            if let name { options.name = name }
        }
        options.randomSeed = seed

        var loaded: [(name: String, source: [UInt8])] = []
        for path in plugins {
            guard let data = InputFile.read(path) else {
                throw UsageFailure(message: "\(path): cannot read the plugin file")
            }
            loaded.append((pluginName(ofFile: path), Array(data)))
        }

        // Expected lines are read before anything runs: a missing file is a usage error, not a diff.
        let expected: [String]?
        if let expect, !update {
            guard let data = InputFile.read(expect) else {
                let why = access(expect, F_OK) == 0 ? "cannot be read" : "does not exist; --update writes it"
                throw UsageFailure(message: "\(expect): the expected actions file \(why)")
            }
            expected = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
                .map(String.init).dropLastIfEmpty()
        } else {
            expected = nil
        }
        let collected = Mutex<[String]>([])
        let collect = expect != nil
        let emit: @Sendable (BotAction) -> Void = { action in
            if collect { return collected.withLock { $0.append(action.json) } }
            // Printed (unbuffered) as it happens: with --journal, a printed send's
            // state is already durable.
            CommandOutput.print(action.json)
        }
        let host = PluginTestHost()
        do {
            if events == "-" {
                // Standard input is acted on a line at a time, so a long-running
                // harness can be fed (and killed) event by event.
                try await host.runStreaming(options: options, plugins: loaded, file: "<stdin>", journal: journal,
                                            nextLine: { readLine(strippingNewline: true) }, emit: emit)
            } else {
                guard let data = InputFile.read(events) else {
                    throw UsageFailure(message: "\(events): cannot read the event file")
                }
                // A file is checked whole before anything runs.
                let steps: [ScriptStep]
                do { steps = try EventScript.parse(String(decoding: data, as: UTF8.self), file: events).map(\.step) } catch {
                    throw UsageFailure(message: error.description)
                }
                try await host.run(options: options, plugins: loaded, steps: steps, journal: journal, emit: emit)
            }
        } catch let e as UsageFailure {
            throw e
        } catch let e as ScriptError {
            throw UsageFailure(message: e.description)
        } catch let e as PluginTestRun.TooManyFirings {
            throw UsageFailure(message: e.description)
        } catch {
            CommandOutput.print("parley: \(error); stopping", to: .error)
            throw ExitCode(1)
        }
        guard let expect else { return }
        let actual = collected.withLock { $0 }
        if update {
            do {
                try actual.map { $0 + "\n" }.joined().write(toFile: expect, atomically: true, encoding: .utf8)
            } catch {
                throw UsageFailure(message: "\(expect): cannot write: \(error.localizedDescription)")
            }
            CommandOutput.print("updated \(expect): \(actual.count) action\(actual.count == 1 ? "" : "s")")
            return
        }
        let diff = LineDiff(expected: expected ?? [], actual: actual)
        if diff.isEmpty {
            CommandOutput.print("ok: \(actual.count) action\(actual.count == 1 ? "" : "s") as in \(expect)")
            return
        }
        CommandOutput.print("--- \(expect) (expected)\n+++ actions\n" + diff.text)
        CommandOutput.print("parley: the actions differ from \(expect) (--update rewrites it)", to: .error)
        throw ExitCode(1)
    }
}

extension Array where Element == String {
    /// A file's last newline leaves an empty last piece.
    func dropLastIfEmpty() -> [String] { last == "" ? Array(dropLast()) : self }
}

struct UsageFailure: Error {
    var message: String
}
