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
        let bytes = options.limits(for: live[0].name).messageBytes
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
            return transport.fit(line, maxBytes: bytes)
        }
        var names = Set<String>()
        for p in live { for (n, c) in p.commands where mayRun(c) { names.insert(n) } }
        guard !names.isEmpty else { return byName ? "No commands you may run here." : nil }
        let list = Self.commandList(names.sorted().map { shown(command: $0) }, more: "\(shown(command: "help")) NAME tells more.",
                                    lineCharacters: transport.maxCharacters, bytes: bytes)
        return transport.fit(list, maxBytes: bytes)
    }

    /// "Commands: !a, !b, … !help NAME tells more." as one send the transport
    /// takes: wrapped at a name's edge into lines of `lineCharacters` (each
    /// line a message of its own on StreamChat) and, past `bytes`, ended with
    /// how many more there are, so a long list is never refused whole.
    static func commandList(_ shown: [String], more: String, lineCharacters: Int?, bytes: Int) -> String {
        let width = lineCharacters ?? .max
        var lines: [String] = [], line = "Commands:", total = 0
        func fits(_ piece: String) -> Bool { line.count + 1 + piece.count <= width }
        func add(_ piece: String) {
            if !fits(piece) {
                total += line.utf8.count + 1
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + piece
        }
        for (i, name) in shown.enumerated() {
            let piece = name + (i == shown.count - 1 ? "." : ",")
            // Room kept for the worst ending: "… and N more." and the closing sentence.
            let ending = "… and \(shown.count - i) more. " + more
            if total + line.utf8.count + 1 + piece.utf8.count + 2 + ending.utf8.count > bytes {
                add("… and \(shown.count - i) more.")
                break
            }
            add(piece)
        }
        add(more)
        return (lines + [line]).joined(separator: "\n")
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
