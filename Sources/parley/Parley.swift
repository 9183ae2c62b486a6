import ArgumentParser
import ParleyRuntime

@main
struct Parley: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parley",
        abstract: "A headless chat-bot runtime with sandboxed Lua 5.4 plugins.",
        subcommands: [RunCommand.self, CheckCommand.self, ServeCommand.self, DemoCommand.self, PluginCommand.self, JournalCommand.self]
    )

    /// ArgumentParser's own, but `parley help nosuch` is a usage error: the
    /// library prints the general help for it and exits 0, as if all were well.
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "help", let problem = unknownTopic(Array(arguments.dropFirst())) {
            CommandOutput.print("parley: \(problem)", to: .error)
            exit(withError: ExitCode(64))
        }
        do {
            var command = try parseAsRoot(arguments)
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }

    /// Why `parley help WORDS` names no command, or nil when it does.
    static func unknownTopic(_ words: [String]) -> String? {
        var command: any ParsableCommand.Type = Parley.self
        var path = "parley"
        for word in words where !word.hasPrefix("-") {
            var names: [String] = []
            var next: (any ParsableCommand.Type)?
            for sub in command.configuration.subcommands {
                let name = sub._commandName
                names.append(name)
                if name == word { next = sub }
            }
            guard let next else {
                if names.isEmpty { return "'\(path)' has no subcommands; see 'parley help \(path.dropFirst(7))'" }
                return "no command '\(path) \(word)' (the commands are \(names.joined(separator: ", ")))"
            }
            command = next
            path += " " + word
        }
        return nil
    }
}

struct PluginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugin",
        abstract: "Work with plugins.",
        subcommands: [PluginTestCommand.self, PluginNewCommand.self]
    )
}
