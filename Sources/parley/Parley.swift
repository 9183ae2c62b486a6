import ArgumentParser

@main
struct Parley: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parley",
        abstract: "A headless chat-bot runtime with sandboxed Lua 5.4 plugins.",
        subcommands: [RunCommand.self, CheckCommand.self, ServeCommand.self, DemoCommand.self, PluginCommand.self, JournalCommand.self]
    )
}

struct PluginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugin",
        abstract: "Work with plugins.",
        subcommands: [PluginTestCommand.self, PluginNewCommand.self]
    )
}
