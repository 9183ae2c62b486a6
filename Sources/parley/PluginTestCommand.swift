import ArgumentParser
import Foundation
import ParleyCore
import ParleyLua
import ParleyRuntime

/// `parley plugin test`: the plugin author's harness.
struct PluginTestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run plugins against a script of events and print what they do, as JSON lines.",
        discussion: """
        Events (one JSON object per line): message, join, leave, typing, roster, connection, \
        and advance (moves the virtual clock; due timers fire). Output: one JSON object per \
        action. Exit 0 when the run completed, whatever the plugins did; exit 2 for unreadable \
        files, invalid JSON or unknown event types.
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

    @Option(name: .long, help: "Seed for the plugins' math.random.")
    var seed: Int64 = 0

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
                options = try BotConfigFile.load(path: config).bot(named: name).botOptions
            } catch {
                throw UsageFailure(message: error.description)
            }
            if let name { options.name = name }
        }
        options.randomSeed = seed

        var loaded: [(name: String, source: [UInt8])] = []
        for path in plugins {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw UsageFailure(message: "\(path): cannot read the plugin file")
            }
            let base = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
            loaded.append((base, Array(data)))
        }

        let emit: @Sendable (BotAction) -> Void = { action in
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
                guard let data = FileManager.default.contents(atPath: events) else {
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
        } catch {
            CommandOutput.print("parley: \(error); stopping", to: .error)
            throw ExitCode(1)
        }
    }
}

struct UsageFailure: Error {
    var message: String
}
