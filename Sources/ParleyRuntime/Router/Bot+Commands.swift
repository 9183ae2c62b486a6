import ParleyCore

/// Roles and the built-in `help` command: what the bot knows across its
/// plugins, which no single plugin VM sees.
extension Bot {
    func roles(of user: String) -> [String] {
        options.roles.filter { $0.value.contains(user) }.map(\.key).sorted()
    }

    /// `!help` lists the commands `user` may run, from every plugin; `!help
    /// NAME` shows one command's usage. nil, and the bot stays silent, when it
    /// has no commands (a room of greeters would each answer otherwise), or
    /// when a plugin registered its own `help` command: then that one answers.
    /// A prefixed `!help` reaches every bot in the room, so a bot with nothing
    /// to offer (no such command, none the user may run) stays silent rather
    /// than contradict the one that has; asked by name (`bot: help`), it says so.
    func helpText(for user: String, command: String?, byName: Bool) -> String? {
        let live = plugins.filter { !$0.isDisabled }
        if !live.contains(where: { !$0.commands.isEmpty }) || live.contains(where: { $0.commands["help"] != nil }) { return nil }
        let userRoles = Set(roles(of: user))
        func mayRun(_ c: CommandInfo) -> Bool { c.roles.isEmpty || !userRoles.isDisjoint(with: c.roles) }

        // `!help !kick` names the command as people type it: the prefix is not part of its name.
        if var command = command?.lowercased() {
            let prefix = options.commandPrefix.lowercased()
            if !prefix.isEmpty, command.hasPrefix(prefix), command.count > prefix.count { command.removeFirst(prefix.count) }
            guard let info = live.lazy.compactMap({ $0.commands[command] }).first else {
                return byName ? "No command \(shown(command: command)). \(shown(command: "help")) lists them." : nil
            }
            var line = shown(command: command)
            if let usage = info.usage, !usage.isEmpty { line += " " + usage }
            if let help = info.help, !help.isEmpty { line += ": " + help }
            if !info.roles.isEmpty { line += " (\(Self.roleNeed(info.roles)))" }
            return line
        }
        var names = Set<String>()
        for p in live { for (n, c) in p.commands where mayRun(c) { names.insert(n) } }
        guard !names.isEmpty else { return byName ? "No commands you may run here." : nil }
        let list = names.sorted().map { shown(command: $0) }.joined(separator: ", ")
        return "Commands: \(list). \(shown(command: "help")) NAME tells more."
    }

    /// The first enabled plugin in load order answers the built-in `help`:
    /// when it is disabled, the next one takes over, so `!help` never goes quiet.
    func answersHelp(_ plugin: Plugin) -> Bool {
        plugins.first { !$0.isDisabled } === plugin
    }

    func shown(command: String) -> String {
        options.commandPrefix.isEmpty ? "\(name): \(command)" : options.commandPrefix + command
    }

    /// "needs the moderator role", or "needs one of the roles admin, moderator".
    static func roleNeed(_ roles: [String]) -> String {
        roles.count == 1 ? "needs the \(roles[0]) role" : "needs one of the roles \(roles.sorted().joined(separator: ", "))"
    }
}
