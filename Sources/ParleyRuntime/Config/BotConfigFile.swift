import Foundation
import ParleyConfig
import ParleyJournal
import ParleyCore
import ParleyStore
import ParleyLua
import ParleyREST
import ParleySTOMP
import ParleySocketIO
import ParleyStreamChat

extension TransportRegistry {
    /// The transports Parley ships: what `transport = "…"` may name.
    public static let standard = TransportRegistry([
        StreamChatTransport.driver, SocketIOTransport.driver, RESTTransport.driver, STOMPTransport.driver,
    ])
}

/// One `[[bot]]` of a config file, with paths resolved against the file's folder.
public struct BotConfig: Sendable {
    public var name: String
    /// The transport's name (`transport = "…"`, one of the registry's).
    public var transport: String
    /// nil: start the embedded server.
    public var server: String?
    public var rooms: [String]
    /// Plugin files, absolute.
    public var plugins: [String]
    /// Journal directory, absolute; nil keeps state in memory.
    public var journal: String?
    /// When the journal acknowledges a write (`fsync`, `fsync_interval_ms`).
    public var fsync: FsyncPolicy
    /// How much history each room keeps (`history_days`, `history_max`).
    public var history: HistoryRetention
    public var commandPrefix: String
    public var limits: PluginLimits
    public var pluginLimits: [String: PluginLimits]
    public var pluginConfig: [String: LuaValue]
    /// The config line of this bot's `[[bot]]` header, for messages.
    public var line: Int
    /// The line of its `plugins` key (the header's when there is none): where a plugin's load error points.
    public var pluginsLine = 0
    /// The line of its `server` key (the header's when there is none): where an unusable server points.
    public var serverLine = 0
    /// The line of its `journal` key (or of `[[bot]]`), for `check`'s journal problems.
    public var journalLine = 0
    /// Where each plugin's settings begin (`bot.plugin.NAME`, `bot.plugin_limits.NAME`,
    /// `bot.webhooks.NAME`), first line first: what a bot that loads no plugins points at.
    public var pluginSettingsAt: [(plugin: String, key: String, line: Int)] = []
    /// `[bot.presence]`: reconnects and the offline outbox.
    public var presence = PresenceOptions()
    /// `[bot.flow]`: incoming queue bounds and the outgoing rate cap.
    public var flow = FlowOptions()
    /// `[bot.roles]`: role name → the users who have it.
    public var roles: [String: [String]] = [:]
    /// The line of each `[bot.roles]` key, for `check`'s warnings.
    public var roleLines: [String: Int] = [:]
    /// `timezone`: the IANA zone `bot.cron` schedules are read in.
    public var timeZone = TimeZone(identifier: "UTC")!
    /// `[bot.http]`: where `bot.http` may go.
    public var http = HTTPOptions()
    /// `[bot.webhooks.PLUGIN] secret`: the key of each plugin's webhook signatures.
    public var webhookSecrets: [String: String] = [:]
    /// `[bot.<transport>]`: the transport's own keys, read by its driver.
    public var transportOptions: any TransportOptions

    /// The transport's options as their own type (nil when the bot speaks another transport).
    public func options<O: TransportOptions>(_ type: O.Type) -> O? { transportOptions as? O }

    /// The plugin host's view of this bot.
    public var botOptions: BotOptions {
        var o = BotOptions(name: name)
        // Also in `parley plugin test --config`: a send to another room is refused there as live.
        o.rooms = rooms
        o.commandPrefix = commandPrefix
        o.limits = limits
        o.pluginLimits = pluginLimits
        o.pluginConfig = pluginConfig
        o.history = history
        o.roles = roles
        o.timeZone = timeZone
        o.http = http
        return o
    }
}

/// A plugin's name: its file's name without the extension
/// (`plugins/greeter.lua` is `greeter`), as `[bot.plugin.NAME]` and logs use it.
public func pluginName(ofFile path: String) -> String {
    URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
}

/// A parsed bot config file.
///
/// Strict on purpose: an unknown key is an error naming the file, line and
/// key (a typo in `instructions` must not silently leave the default), and so
/// is every wrong type or out-of-range value.
public struct BotConfigFile: Sendable {
    public var path: String
    public var bots: [BotConfig]
    /// `[runtime]`: how the process runs its bots.
    public var runtime = RuntimeOptions()

    public static func load(path: String, transports: TransportRegistry = .standard) throws(ConfigError) -> BotConfigFile {
        let doc = try TOMLDocument(contentsOfFile: path, file: path)
        return try parse(doc, path: path, transports: transports)
    }

    public static func parse(text: String, path: String, transports: TransportRegistry = .standard) throws(ConfigError) -> BotConfigFile {
        try parse(try TOMLDocument(parsing: text, file: path), path: path, transports: transports)
    }

    private static func parse(_ doc: TOMLDocument, path: String, transports: TransportRegistry) throws(ConfigError) -> BotConfigFile {
        let base = URL(fileURLWithPath: path).deletingLastPathComponent()
        let resolve: @Sendable (String) -> String = { p in
            p.hasPrefix("/") ? p : base.appendingPathComponent(p).standardizedFileURL.path
        }
        do {
            var runtime = RuntimeOptions()
            let bots: [BotConfig] = try doc.read { root in
                runtime = try root.optionalTable("runtime") { try RuntimeOptions.read($0) } ?? RuntimeOptions()
                return try root.tableArray("bot") { (_, t) in try readBot(t, resolve: resolve, transports: transports) }.flatMap { $0 }
            }
            if bots.isEmpty {
                throw ConfigError(kind: .missingKey, file: path, line: 1, key: "bot", message: "no [[bot]] table: nothing to run")
            }
            var seen: Set<String> = []
            for b in bots where !seen.insert(b.name).inserted {
                throw ConfigError(kind: .invalidValue, file: path, line: b.line, key: "bot.name", message: "two bots are named '\(b.name)'")
            }
            // A journal is one bot's: a second would find it locked and never start.
            var journals: [String: String] = [:]
            for b in bots {
                guard let j = b.journal else { continue }
                let key = URL(fileURLWithPath: j).standardizedFileURL.resolvingSymlinksInPath().path
                if let other = journals.updateValue(b.name, forKey: key) {
                    let fleet = b.line == bots.first { $0.name == other }?.line
                    throw ConfigError(kind: .invalidValue, file: path, line: b.journalLine, key: "bot.journal",
                                      message: "bots '\(other)' and '\(b.name)' share the journal \(j): each bot needs its own"
                                        + (fleet ? " (put {n} or {bot} in the path, e.g. \"state/{bot}\")" : ""))
                }
            }
            return BotConfigFile(path: path, bots: bots, runtime: runtime)
        } catch let e as ConfigError {
            throw e
        } catch {
            throw ConfigError(kind: .io, file: path, line: 0, message: "\(error)")
        }
    }

    /// The bot a single-bot command (like `parley plugin test`) uses: the one named, else the first.
    public func bot(named name: String?) throws(ConfigError) -> BotConfig {
        guard let name else { return bots[0] }
        if let b = bots.first(where: { $0.name == name }) { return b }
        if bots.count == 1 { return bots[0] }
        throw ConfigError(kind: .invalidValue, file: path, line: 1, key: "bot.name",
                          message: "no bot named '\(name)' (have: \(bots.map(\.name).joined(separator: ", ")))")
    }

    /// Whether a name holds a control character (C0, DEL, C1) or a line or
    /// paragraph separator: names are printed by `check` and in log lines.
    static func breaksLines(_ name: String) -> Bool {
        name.unicodeScalars.contains { $0.properties.generalCategory == .control || $0 == "\u{2028}" || $0 == "\u{2029}" }
    }

    private static func readBot(_ t: TableReader, resolve: @escaping @Sendable (String) -> String,
                                transports: TransportRegistry) throws -> [BotConfig] {
        let line = t.table.position.line
        let name = try t.string("name")
        if name.isEmpty { throw t.error("name", "the bot name must not be empty") }
        // A name is printed by check, written in every log line and sent to chat servers.
        if Self.breaksLines(name) {
            throw t.error("name", "the bot name must not contain control characters or line breaks")
        }
        let count = try t.int("count", default: 1, range: 1...100_000)
        if count > 1, !name.contains("{n}") {
            throw t.error("name", "a fleet (count = \(count)) needs {n} in its name, e.g. \"user{n}\"")
        }
        let transport = try t.oneOf("transport", transports.names, default: transports.names[0])
        let server = try t.optionalString("server")
        let rooms = try t.stringArray("rooms", default: ["lobby"])
        // A room listed twice would be joined twice: every message handled and answered twice.
        if rooms.isEmpty { throw t.error("rooms", "name at least one room (leave rooms out for [\"lobby\"])") }
        if rooms.contains(where: { $0.allSatisfy(\.isWhitespace) }) { throw t.error("rooms", "a room name must not be empty") }
        if rooms.contains(where: Self.breaksLines) {
            throw t.error("rooms", "a room name must not contain control characters or line breaks")
        }
        if let twice = rooms.enumerated().first(where: { rooms[..<$0.offset].contains($0.element) })?.element {
            throw t.error("rooms", "'\(twice)' is listed twice")
        }
        let plugins = try t.stringArray("plugins", default: []).map(resolve)
        // Checked here, once: a bot that runs without a plugin it names is a
        // bot doing less than its operator thinks, for ever.
        var byName: [String: String] = [:]
        for p in plugins {
            if let other = byName.updateValue(p, forKey: pluginName(ofFile: p)) {
                throw t.error("plugins", "\(other) and \(p) are both named '\(pluginName(ofFile: p))': a plugin is named by its file's base name, and a bot loads each name once")
            }
            var isFolder: ObjCBool = false
            if !FileManager.default.fileExists(atPath: p, isDirectory: &isFolder) {
                throw t.error("plugins", "plugin file \(p) does not exist")
            }
            if isFolder.boolValue || !FileManager.default.isReadableFile(atPath: p) {
                throw t.error("plugins", "plugin file \(p) cannot be read\(isFolder.boolValue ? " (it is a folder)" : "")")
            }
        }
        let journal = try t.optionalString("journal").map(resolve)
        if let j = try t.optionalString("journal"), j.allSatisfy(\.isWhitespace) {
            throw t.error("journal", "journal must name a directory (leave it out to keep the state in memory)")
        }
        let fsyncName = try t.oneOf("fsync", ["always", "interval", "never"], default: "always")
        let fsyncInterval = try t.int("fsync_interval_ms", default: 1000, range: 1...3_600_000)
        // Set without the policy it belongs to, it would be ignored: the bot would sync otherwise than asked.
        if t.contains("fsync_interval_ms"), fsyncName != "interval" {
            throw t.error("fsync_interval_ms", "fsync_interval_ms applies only with fsync = \"interval\" (this bot's fsync is \"\(fsyncName)\")")
        }
        if journal == nil, t.contains("fsync") {
            throw t.error("fsync", "fsync applies only with a journal (this bot keeps its state in memory; set journal = \"DIR\" or leave fsync out)")
        }
        let fsync: FsyncPolicy = fsyncName == "always" ? .always : fsyncName == "never" ? .never : .interval(milliseconds: fsyncInterval)
        let historyDays = try t.double("history_days", default: 30, range: HistoryRetention.days)
        let historyMax = try t.int("history_max", default: 100_000, range: HistoryRetention.messages)
        let history = HistoryRetention(maxMessagesPerRoom: historyMax, maxAge: historyDays * 86_400)
        let prefix = try t.string("prefix", default: "!")
        // Commands are read from a line's first bytes: a NUL or a line break there is never typed.
        if Self.breaksLines(prefix) {
            throw t.error("prefix", "the command prefix must not contain control characters or line breaks")
        }
        let zoneName = try t.string("timezone", default: "UTC")
        guard let timeZone = TimeZone(identifier: zoneName) else {
            throw t.error("timezone", "unknown time zone '\(zoneName)' (expected an IANA name such as Europe/Berlin)")
        }
        let limits = try t.optionalTable("limits") { l in try readLimits(l, base: PluginLimits()) } ?? PluginLimits()
        let presence = try t.optionalTable("presence") { p in try PresenceOptions.read(p) } ?? PresenceOptions()
        let flow = try t.optionalTable("flow") { f in try FlowOptions.read(f) } ?? FlowOptions()
        let http = try t.optionalTable("http") { h in try HTTPOptions.read(h) } ?? HTTPOptions()
        if t.contains("own_thread") {
            throw t.error("own_thread", "own_thread is not a setting: every bot's link and plugins share one of the bot loops ([runtime] loops sets how many)")
        }
        // Every transport's table is read (and checked) when present; the bot keeps its own transport's.
        let names = count > 1 ? (1...count).map { name.replacingOccurrences(of: "{n}", with: String($0)) } : [name]
        // `{n}` in a fleet's rooms gives each bot its own (`team{n}`); the transports check the first bot's, as they differ only in digits.
        func roomsOf(_ n: Int) -> [String] { count > 1 ? rooms.map { $0.replacingOccurrences(of: "{n}", with: String(n)) } : rooms }
        var transportOptions: (any TransportOptions)?
        for driver in transports.drivers {
            let keys = TransportBotKeys(table: t, chosen: driver.name == transport, names: names, rooms: roomsOf(1),
                                        server: server, resolve: resolve)
            // Read inside the table's closure, so its unknown keys are reported when it returns.
            let options = try t.optionalTable(driver.name) { try driver.read($0, keys) } ?? driver.read(nil, keys)
            if keys.chosen { transportOptions = options }
        }
        let pluginNames = Set(plugins.map(pluginName(ofFile:)))
        // A table per plugin names one the bot loads: a typo must not leave the defaults in place.
        func notLoaded(_ plugin: String) -> String? {
            pluginNames.isEmpty || pluginNames.contains(plugin) ? nil
                : "'\(plugin)' is not a plugin this bot loads (plugins: \(pluginNames.sorted().joined(separator: ", ")))"
        }
        var settingsAt: [(plugin: String, key: String, line: Int)] = []
        var pluginLimits: [String: PluginLimits] = [:]
        _ = try t.optionalTable("plugin_limits") { pl in
            for key in pl.keys {
                if let why = notLoaded(key) { throw pl.error(key, "limits for \(why)", kind: .unknownKey) }
                settingsAt.append((key, "bot.plugin_limits.\(key)", pl.line(of: key) ?? line))
                pluginLimits[key] = try pl.table(key) { l in try readLimits(l, base: limits) }
            }
        }
        var roles: [String: [String]] = [:], roleLines: [String: Int] = [:]
        _ = try t.optionalTable("roles") { r in
            for role in r.keys {
                roleLines[role] = r.line(of: role) ?? line
                let users = try r.stringArray(role, default: [])
                if users.contains(where: \.isEmpty) { throw r.error(role, "a user name must not be empty") }
                roles[role] = users
            }
        }
        var webhookSecrets: [String: String] = [:]
        _ = try t.optionalTable("webhooks") { w in
            for plugin in w.keys {
                if let why = notLoaded(plugin) { throw w.error(plugin, "webhook settings for \(why)", kind: .unknownKey) }
                settingsAt.append((plugin, "bot.webhooks.\(plugin)", w.line(of: plugin) ?? line))
                try w.table(plugin) { p in
                    if let secret = try p.secret("secret") {
                        if secret.utf8.count < 16 { throw p.error("secret", "a webhook secret needs at least 16 bytes") }
                        webhookSecrets[plugin] = secret
                    }
                }
            }
        }
        var pluginConfig: [String: LuaValue] = [:]
        if let table = t.rawTable("plugin", hint: "[bot.plugin.NAME] holds a plugin's settings; did you mean plugins = [...]?") {
            for entry in table.entries {
                guard case .table(let sub) = entry.value.kind else {
                    throw ConfigError(kind: .typeMismatch, file: table.file, line: entry.keyPosition.line,
                                      key: "bot.plugin.\(entry.key)", message: "expected a table of this plugin's settings")
                }
                if let why = notLoaded(entry.key) {
                    throw ConfigError(kind: .unknownKey, file: table.file, line: entry.keyPosition.line,
                                      key: "bot.plugin.\(entry.key)", message: "settings for \(why)")
                }
                settingsAt.append((entry.key, "bot.plugin.\(entry.key)", entry.keyPosition.line))
                pluginConfig[entry.key] = luaValue(.table(sub))
            }
        }
        return (1...count).map { n in
            var b = BotConfig(name: count > 1 ? name.replacingOccurrences(of: "{n}", with: String(n)) : name,
                      transport: transport, server: server, rooms: roomsOf(n), plugins: plugins,
                      // `{bot}`: a journal of its own per bot (`/data/{bot}`), wherever it runs.
                      journal: journal.map { j in
                          let named = count > 1 ? name.replacingOccurrences(of: "{n}", with: String(n)) : name
                          return (count > 1 ? j.replacingOccurrences(of: "{n}", with: String(n)) : j).replacingOccurrences(of: "{bot}", with: named)
                      },
                      fsync: fsync, history: history, commandPrefix: prefix,
                      limits: limits, pluginLimits: pluginLimits, pluginConfig: pluginConfig, line: line,
                      transportOptions: transportOptions!)
            b.pluginsLine = t.line(of: "plugins") ?? line
            b.serverLine = t.line(of: "server") ?? line
            b.journalLine = t.line(of: "journal") ?? line
            b.pluginSettingsAt = settingsAt.sorted { $0.line < $1.line }
            b.presence = presence
            b.flow = flow
            b.roles = roles
            b.roleLines = roleLines
            b.timeZone = timeZone
            b.http = http
            b.webhookSecrets = webhookSecrets
            return b
        }
    }

    /// `[bot.limits]` and `[bot.plugin_limits.NAME]`; each key overrides `base`.
    private static func readLimits(_ l: TableReader, base: PluginLimits) throws(ConfigError) -> PluginLimits {
        var o = base
        // Each call into a plugin is charged one hook period (1,000) up front: below ten, nothing useful runs.
        o.instructions = try l.int("instructions", default: base.instructions, range: 10_000...)
        o.timeMilliseconds = try l.int("time_ms", default: base.timeMilliseconds, range: 1...600_000)
        o.memoryBytes = try l.int("memory_kb", default: base.memoryBytes / 1024, range: 256...(16 << 20)) * 1024
        o.sendsPerEvent = try l.int("sends_per_event", default: base.sendsPerEvent, range: 0...100_000)
        o.messageBytes = try l.int("message_bytes", default: base.messageBytes, range: 1...(1 << 24))
        o.logLinesPerEvent = try l.int("log_lines_per_event", default: base.logLinesPerEvent, range: 0...1_000_000)
        o.logLineBytes = try l.int("log_line_bytes", default: base.logLineBytes, range: 16...(1 << 20))
        o.timers = try l.int("timers", default: base.timers, range: 0...1_000_000)
        o.minTimerInterval = try l.double("min_timer_interval", default: base.minTimerInterval, range: 0.001...)
        o.stateKeyBytes = try l.int("state_key_bytes", default: base.stateKeyBytes, range: 1...(1 << 20))
        o.stateValueBytes = try l.int("state_value_bytes", default: base.stateValueBytes, range: 16...(1 << 30))
        o.stateTotalBytes = try l.int("state_total_bytes", default: base.stateTotalBytes, range: 16...(1 << 34))
        o.outboxSends = try l.int("outbox_sends", default: base.outboxSends, range: 1...10_000_000)
        o.failuresBeforeDisable = try l.int("failures_before_disable", default: base.failuresBeforeDisable, range: 1...1_000_000)
        return o
    }

    /// TOML → Lua, for `bot.config`. Date-times become their text.
    static func luaValue(_ node: TOMLNode.Kind) -> LuaValue {
        switch node {
        case .string(let s): .string(s)
        case .integer(let i): .int(i)
        case .float(let d): .double(d)
        case .bool(let b): .bool(b)
        case .datetime(let d): .string(d.text)
        case .array(let items): .list(items.map { luaValue($0.kind) })
        case .table(let t): .table(array: [], hash: t.entries.map { LuaPair(key: .string($0.key), value: luaValue($0.value.kind)) })
        }
    }
}
