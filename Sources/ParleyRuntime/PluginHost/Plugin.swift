import ParleyCore
import ParleyStore
import ParleyLua

/// A loaded plugin: its VM plus the bookkeeping that makes each event one
/// transaction. Host calls during a handler only *stage* state writes and
/// timer changes; `commit` applies them after the handler succeeded and
/// `rollback` forgets them after it failed, so a failed handler has no effects.
final class Plugin: HostFunctions {
    let name: String
    let vm: PluginVM
    let limits: PluginLimits
    unowned let services: PluginServices

    var isDisabled = false
    var consecutiveFailures = 0
    /// Events, errors and costs, for the dashboard.
    var stats = PluginStats()
    /// What the handler running now staged (the open transaction).
    var staged = Staged()
    /// The commands the plugin registered, by lower-case name.
    var commands: [String: CommandInfo] = [:]
    /// When each user was last told they may not run a command ("user\0command").
    var refusals: [String: Double] = [:]

    // Timers that are scheduled (committed); ids are this plugin's own.
    var liveTimers: Set<Int64> = []
    /// Live timers that are saved in the store, by name (see `SavedTimer`).
    var timerNames: [String: Int64] = [:]
    /// While loading: saved timers from the store that no call has adopted yet.
    var restored: [String: (id: Int64, timer: SavedTimer)] = [:]
    /// True while the top level and the `load` handlers run: unnamed timers
    /// get names by their order (`#1`, `#2`, ...) and naming a restored timer adopts it.
    var loading = false
    var loadOrdinal = 0
    /// Requests made and not yet answered (`[bot.http] in_flight`): the
    /// request's id (`HTTPCall.id`) → its callback's id in the prelude.
    var httpInFlight: [Int64: Int64] = [:]
    /// Steps taken whose outcome a function waits for: the step's id
    /// (`BotAction.Kind.moderate`'s `answer`) → its callback's id in the prelude.
    var moderationInFlight: [Int64: Int64] = [:]
    /// `bot.webhook` paths, and what the running webhook handler returned.
    var webhooks: Set<String> = []
    var webhookAnswer: WebhookReply?
    var nextTimerId: Int64 = 1
    /// Timer ids whose Lua callbacks the prelude may forget (sent with the next event).
    var drops: [Int64] = []
    /// Repeating timers that fired into no function and no handler: told once each.
    var unheardTimers: Set<Int64> = []


    /// Whether an event of this kind goes to the plugin: it is enabled and a
    /// handler listens (see `EventInterest`). A skipped event does not touch
    /// the VM, so it neither resets nor adds to the failure streak.
    func listens(_ interest: EventInterest) -> Bool {
        !isDisabled && vm.wants & interest.rawValue != 0
    }

    init(name: String, vm: PluginVM, limits: PluginLimits, services: PluginServices) {
        self.name = name
        self.vm = vm
        self.limits = limits
        self.services = services
    }

    // MARK: transaction

    func beginEvent() {
        vm.setOutboxWaiting(services.waitingSends(plugin: name))
        staged.reset()
    }

    /// Forgets the staged changes of a failed handler.
    func rollback() {
        drops.append(contentsOf: staged.timers.map(\.id))
        drops.append(contentsOf: staged.http.map(\.id))
        drops.append(contentsOf: staged.moderation.compactMap(\.callback))
        staged.discardEffects()
    }

    // MARK: host functions

    func call(function id: Int32, arguments a: [LuaValue]) -> Result<[LuaValue], HostCallError> {
        guard let fn = HostFunction(rawValue: id) else { return .failure(HostCallError("unknown host function")) }
        switch fn {
        case .stateGet: return stateGet(a)
        case .stateSet: return stateSet(a)
        case .stateKeys: return stateKeys(a)
        case .timerAdd: return timerAdd(a)
        case .timerCancel: return timerCancel(a)
        case .history: return history(a)
        case .roster: return roster(a)
        case .checkLength: return checkLength(a)
        case .away: return away(a)
        case .commandInfo: return commandInfo(a)
        case .roles: return roles(a)
        case .help: return help(a)
        case .mayRun: return mayRun(a)
        case .jsonEncode: return jsonEncode(a)
        case .jsonDecode: return jsonDecode(a)
        case .httpRequest: return httpRequest(a)
        case .webhookAdd: return webhookAdd(a)
        case .webhookReply: return webhookReply(a)
        case .moderate: return moderate(a)
        case .answersHelp: return .success([.bool(services.answersHelp(self))])
        case .timerUnheard: return timerUnheard(a)
        case .fit:
            guard let text = a.first?.stringValue else { return .failure(HostCallError("bot.fit: the text must be a string")) }
            return .success([.string(services.transport.fit(text, maxBytes: limits.messageBytes))])
        case .preludeExtension:
            // Only the prelude holds this function: a prelude extension's bytecode by name.
            guard let name = a.first?.stringValue, let code = Prelude.extensions[name] else {
                return .failure(HostCallError("no prelude extension named \(a.first?.stringValue ?? "?")"))
            }
            return .success([.bytes(code)])
        }
    }

    func refuse(_ kind: String, _ reason: String) -> Result<[LuaValue], HostCallError> {
        if staged.quotaKinds.insert(kind).inserted { staged.quotaReports.append(reason) }
        return .success([.nil, .string(reason)])
    }

    private func stateKey(_ a: [LuaValue], _ who: String) -> Result<String, HostCallError> {
        guard let key = a.first?.stringValue, case .bytes(let raw) = a[0] else {
            return .failure(HostCallError("\(who): the key must be a string"))
        }
        guard String(validating: raw, as: UTF8.self) != nil else {
            return .failure(HostCallError("\(who): the key must be UTF-8 text"))
        }
        return .success(key)
    }

    private func stateGet(_ a: [LuaValue]) -> Result<[LuaValue], HostCallError> {
        switch stateKey(a, "bot.state.get") {
        case .failure(let e): return .failure(e)
        case .success(let key):
            if let i = staged.index[key] { return .success([staged.writes[i].value ?? .nil]) }
            return .success([services.stateStore.value(plugin: name, key: key) ?? .nil])
        }
    }

    /// `bot.state.keys([prefix])`: the keys this handler sees (its own
    /// writes applied), those that start with `prefix`, sorted by their bytes.
    private func stateKeys(_ a: [LuaValue]) -> Result<[LuaValue], HostCallError> {
        var prefix = ""
        if let p = a.first, !p.isNil {
            guard let text = p.stringValue else { return .failure(HostCallError("bot.state.keys: the prefix must be a string")) }
            prefix = text
        }
        var keys = Set(services.stateStore.keys(plugin: name))
        for w in staged.writes {
            if w.value == nil { keys.remove(w.key) } else { keys.insert(w.key) }
        }
        let list = keys.filter { $0.utf8.starts(with: prefix.utf8) }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        return .success([.table(array: list.map { .string($0) }, hash: [])])
    }

    private func size(of key: String) -> Int {
        if let i = staged.index[key] {
            return staged.writes[i].value.map { key.utf8.count + $0.encoded.count } ?? 0
        }
        return services.stateStore.value(plugin: name, key: key).map { key.utf8.count + $0.encoded.count } ?? 0
    }

    private func stateSet(_ a: [LuaValue]) -> Result<[LuaValue], HostCallError> {
        let key: String
        switch stateKey(a, "bot.state.set") {
        case .failure(let e): return .failure(e)
        case .success(let k): key = k
        }
        if key.utf8.count > limits.stateKeyBytes {
            return refuse("state-key", "state key too long: \(key.utf8.count) bytes, the limit is \(limits.stateKeyBytes)")
        }
        let value: LuaValue? = a.count > 1 && !a[1].isNil ? a[1] : nil
        let valueSize = value?.encoded.count ?? 0
        if valueSize > limits.stateValueBytes {
            return refuse("state-value", "state value too large: \(valueSize) bytes serialised, the limit is \(limits.stateValueBytes)")
        }
        let total = staged.total ?? services.stateStore.totalBytes(plugin: name)
        let newTotal = total - size(of: key) + (value == nil ? 0 : key.utf8.count + valueSize)
        if newTotal > limits.stateTotalBytes, value != nil {
            return refuse("state-total", "state quota exceeded: this plugin's state would take \(newTotal) bytes, the limit is \(limits.stateTotalBytes)")
        }
        staged.total = newTotal
        if let i = staged.index[key] {
            staged.writes[i].value = value
        } else {
            staged.index[key] = staged.writes.count
            staged.writes.append((key, value))
        }
        return .success([.bool(true)])
    }

    private func history(_ a: [LuaValue]) -> Result<[LuaValue], HostCallError> {
        guard let room = a.first?.stringValue else {
            return .failure(HostCallError("bot.history: the room must be a string"))
        }
        let opts = a.count > 1 ? a[1] : .nil
        switch opts {
        case .nil, .table: break
        default: return .failure(HostCallError("bot.history: the options must be a table"))
        }
        if let e = HostCallError.unknownOption(in: opts, who: "bot.history", known: ["limit", "before", "after"]) { return .failure(e) }
        var limit = 30
        if !opts["limit"].isNil {
            // Checked before any conversion: a plugin's 1e300 or NaN must not trap the process.
            guard let l = opts["limit"].numberValue, l == l.rounded(), (1...100).contains(l) else {
                return .failure(HostCallError("bot.history: limit must be a whole number from 1 to 100"))
            }
            limit = Int(l)
        }
        for key in ["before", "after"] where !opts[key].isNil && opts[key].stringValue == nil {
            return .failure(HostCallError("bot.history: \(key) must be a cursor string"))
        }
        do {
            let page = try services.historyStore.page(
                room: room, before: opts["before"].stringValue, after: opts["after"].stringValue, limit: limit)
            let messages: [LuaValue] = page.messages.map { m in
                .record([("id", .string(m.id)), ("room", .string(m.room)), ("user", .string(m.user)),
                         ("text", .string(m.text)), ("time", .double(m.time)), ("cursor", .string(m.cursor))])
            }
            var fields: [(String, LuaValue)] = [("messages", .list(messages))]
            if let b = page.before { fields.append(("before", .string(b))) }
            if let af = page.after { fields.append(("after", .string(af))) }
            return .success([.record(fields)])
        } catch {
            return .success([.nil, .string("bot.history: invalid cursor")])
        }
    }

    private func roster(_ a: [LuaValue]) -> Result<[LuaValue], HostCallError> {
        guard let room = a.first?.stringValue else {
            return .failure(HostCallError("bot.roster: the room must be a string"))
        }
        let list: [LuaValue] = services.rosterEntries(room: room).map {
            .record([("user", .string($0.user)), ("online", .bool($0.online))])
        }
        return .success([.list(list)])
    }

    /// The prelude calls this from `bot.send` only when the text has more
    /// bytes than the transport allows characters, so the common case never
    /// leaves the VM; grapheme counting needs Swift.
    private func checkLength(_ a: [LuaValue]) -> Result<[LuaValue], HostCallError> {
        guard case .bytes(let raw)? = a.first else { return .success([.bool(true)]) }
        let text = String(decoding: raw, as: UTF8.self)
        if let problem = services.transport.characterProblem(text) { return refuse("length", problem) }
        return .success([.bool(true)])
    }

    /// `bot.json.encode(value)`: the text, or nil and why.
    private func jsonEncode(_ a: [LuaValue]) -> Result<[LuaValue], HostCallError> {
        switch LuaJSON.encode(a.first ?? .nil) {
        case .success(let text): return .success([.string(text)])
        case .failure(let e): return .success([.nil, .string("bot.json.encode: \(e.message)")])
        }
    }

    /// `bot.json.decode(text)`: the value, or nil and why.
    private func jsonDecode(_ a: [LuaValue]) -> Result<[LuaValue], HostCallError> {
        guard case .bytes(let raw)? = a.first else { return .failure(HostCallError("bot.json.decode: the text must be a string")) }
        switch LuaJSON.decode(raw) {
        case .success(let value): return .success([value])
        case .failure(let e): return .success([.nil, .string("bot.json.decode: \(e.message)")])
        }
    }

    private func away(_ a: [LuaValue]) -> Result<[LuaValue], HostCallError> {
        guard let seconds = a.first?.numberValue, seconds.isFinite, seconds >= 1, seconds <= 86_400 else {
            return .failure(HostCallError("bot.away: the absence must be a number of seconds between 1 and 86400"))
        }
        staged.away = seconds
        return .success([.bool(true)])
    }

}

/// Field names of event tables, sent to the VM once and then by index
/// (`ValueWriter.writeCommon`), so building an event hashes no key strings.
enum EventKey: UInt8, CaseIterable {
    case room, user, text, id, time, on, state, users, online, once, name, data
    case status, headers, body, error, method, path, query

    static let names: [String] = allCases.map { "\($0)" }
}

extension ValueWriter {
    mutating func key(_ k: EventKey) { writeCommon(k.rawValue) }
}

/// What a handler staged: applied by the bot once the handler succeeded
/// (`Bot+Transactions`), forgotten when it failed. One value, so each event
/// starts it afresh in one step.
struct Staged {
    /// State writes in order, where each key's last one is, and the
    /// plugin's state bytes with them applied (nil until the first write).
    var writes: [(key: String, value: LuaValue?)] = []
    var index: [String: Int] = [:]
    var total: Int?
    var timers: [PendingTimer] = []
    var cancels: [Int64] = []
    /// `bot.http` requests, made once it commits; `id` is the callback's id in the prelude until then.
    var http: [HTTPCall] = []
    /// `bot.kick`/`mute`/`delete`, with the id of the function that wants the outcome in the prelude (nil: none).
    var moderation: [(action: ModerationAction, callback: Int64?)] = []
    /// `bot.away(seconds)` (the last call wins).
    var away: Double?
    /// Quota refusals decided in Swift, reported once per kind per event,
    /// whether the handler then failed or not.
    var quotaReports: [String] = []
    var quotaKinds: Set<String> = []

    /// Empty for the next event, keeping the storage.
    mutating func reset() {
        discardEffects()
        quotaReports.removeAll(keepingCapacity: true)
        quotaKinds.removeAll(keepingCapacity: true)
    }

    /// Forgets what a failed handler would have done; its quota refusals are still reported.
    mutating func discardEffects() {
        writes.removeAll(keepingCapacity: true)
        index.removeAll(keepingCapacity: true)
        total = nil
        timers.removeAll(keepingCapacity: true)
        cancels.removeAll(keepingCapacity: true)
        http.removeAll(keepingCapacity: true)
        moderation.removeAll(keepingCapacity: true)
        away = nil
    }
}
