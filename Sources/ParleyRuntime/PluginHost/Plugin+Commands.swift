import ParleyLua

/// A plugin's commands as the bot sees them: their options for `help`, who
/// may run them (`[bot.roles]`), and the refusals a user hears.
extension Plugin {
    /// `command_info(name, opts)`: checks and keeps a `bot.command`'s
    /// options (`help`, `usage`, `roles`), for `help` and `may_run`; true
    /// when the command is guarded by roles.
    func commandInfo(_ a: [LuaValue]) -> Result<[LuaValue], HostCallError> {
        guard let name = a.first?.stringValue else { return .failure(HostCallError("bot.command: the name must be a string")) }
        var info = commands[name] ?? CommandInfo(help: nil, usage: nil, roles: [])
        let opts = a.count > 1 ? a[1] : .nil
        switch opts {
        case .nil: break
        case .table:
            if let e = HostCallError.unknownOption(in: opts, who: "bot.command", known: ["help", "usage", "roles"]) { return .failure(e) }
            for (key, value) in [("help", opts["help"]), ("usage", opts["usage"])] where !value.isNil {
                guard let text = value.stringValue else { return .failure(HostCallError("bot.command: \(key) must be a string")) }
                // `!help NAME` answers in one line; a second would be a message of its own on StreamChat.
                if text.contains(where: \.isNewline) { return .failure(HostCallError("bot.command: \(key) must be one line")) }
                if key == "help" { info.help = text } else { info.usage = text }
            }
            let roles = opts["roles"]
            if !roles.isNil {
                guard case .table(let list, let hash) = roles, !list.isEmpty, hash.isEmpty,
                      list.allSatisfy({ $0.stringValue != nil }) else {
                    return .failure(HostCallError("bot.command: roles must be a list of role names"))
                }
                info.roles = list.compactMap(\.stringValue)
            }
        default:
            return .failure(HostCallError("bot.command: the options must be a table"))
        }
        commands[name] = info
        return .success([.bool(!info.roles.isEmpty)])
    }

    func roles(_ a: [LuaValue]) -> Result<[LuaValue], HostCallError> {
        guard let user = a.first?.stringValue else { return .failure(HostCallError("bot.roles: the user must be a string")) }
        return .success([.list(services.roles(of: user).map { .string($0) })])
    }

    func help(_ a: [LuaValue]) -> Result<[LuaValue], HostCallError> {
        guard let user = a.first?.stringValue else { return .success([.nil]) }
        let command = a.count > 1 ? a[1].stringValue : nil
        let byName = a.count > 2 && a[2] == .bool(true)
        return .success([services.helpText(for: user, command: command, byName: byName).map { .string($0) } ?? .nil])
    }

    /// `may_run(user, command)`: true, or false with the refusal to send
    /// (nil when this user heard it for this command less than a minute ago)
    /// and the audit line to log.
    func mayRun(_ a: [LuaValue]) -> Result<[LuaValue], HostCallError> {
        guard let user = a.first?.stringValue, a.count > 1, let command = a[1].stringValue,
              let info = commands[command], !info.roles.isEmpty else { return .success([.bool(true)]) }
        if !Set(services.roles(of: user)).isDisjoint(with: info.roles) { return .success([.bool(true)]) }
        let need = Bot.roleNeed(info.roles)
        let key = user + "\0" + command
        let now = services.now
        var reply: LuaValue = .nil
        if now - (refusals[key] ?? -.infinity) >= 60 {
            if refusals.count >= 1000 { refusals = refusals.filter { now - $0.value < 60 } }
            refusals[key] = now
            reply = .string("\(user): \(services.shown(command: command)) \(need).")
        }
        return .success([.bool(false), reply, .string("refused \(services.shown(command: command)) for \(user): \(need)")])
    }
}
