import ArgumentParser
import Foundation
import ParleyCore
import ParleyLua

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
            FileHandle.standardError.write(Data("parley: \(e.message)\n".utf8))
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

        let text: String
        let label = events == "-" ? "<stdin>" : events
        if events == "-" {
            text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        } else {
            guard let data = FileManager.default.contents(atPath: events) else {
                throw UsageFailure(message: "\(events): cannot read the event file")
            }
            text = String(decoding: data, as: UTF8.self)
        }
        let steps: [ScriptStep]
        do { steps = try EventScript.parse(text, file: label).map(\.step) } catch {
            throw UsageFailure(message: error.description)
        }

        let host = PluginTestHost()
        do {
            try await host.run(options: options, plugins: loaded, steps: steps, journal: journal) { action in
                // Printed (unbuffered) as it happens: with --journal, a printed send's
                // transaction is already durable.
                let line = action.json + "\n"
                FileHandle.standardOutput.write(Data(line.utf8))
            }
        } catch {
            FileHandle.standardError.write(Data("parley: \(error); stopping\n".utf8))
            throw ExitCode(1)
        }
    }
}

struct UsageFailure: Error {
    var message: String
}
