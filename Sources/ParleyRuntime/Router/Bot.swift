import Foundation
import ParleyCore
import ParleyStore
import ParleyLua

/// How a bot's plugins are set up.
public struct BotOptions: Sendable {
    public var name: String
    /// Prefix of commands (`!ping`); messages addressed to the bot by name are commands too.
    public var commandPrefix: String = "!"
    /// Limits for every plugin, and overrides for single plugins by name.
    public var limits = PluginLimits()
    public var pluginLimits: [String: PluginLimits] = [:]
    /// Each plugin's `bot.config` table, by plugin name.
    public var pluginConfig: [String: LuaValue] = [:]
    /// Seed for the plugins' `math.random` (fixed in the harness, random in production).
    public var randomSeed: Int64 = 0
    /// What the bot's transport can do; its limits apply to every `bot.send`.
    public var transport = TransportCapabilities.harness
    /// How long a typing indicator stays on without a refresh.
    public var typingTimeout: Double = 5
    /// Prefix of the ids the bot gives messages that arrive without one; must
    /// differ between runs that share a journal so ids stay unique.
    public var messageIdPrefix = "local-"
    /// How much history each room keeps (config `history_days`, `history_max`),
    /// for the store the bot's owner opens.
    public var history = HistoryRetention()
    /// `[bot.roles]`: role name → the users who have it (exact names).
    public var roles: [String: [String]] = [:]
    /// The rooms the config gives the bot: `bot.send` to another is refused
    /// when it is made. Empty: any room (the harness, bots made in code).
    public var rooms: [String] = []
    /// `[bot] timezone`: the zone `bot.cron` schedules are read in.
    public var timeZone = TimeZone(identifier: "UTC")!
    /// `[bot.http]`: the hosts `bot.http` may reach, and its limits per plugin.
    public var http = HTTPOptions()

    public init(name: String) { self.name = name }

    /// Whether a message's text is a command for the bot ("!help", "parley:
    /// help", "@parley help"), by `bot.command`'s own rule. The inbox sheds
    /// such messages last in a flood, and the plugin that answers `help` gets
    /// them whether or not it listens to messages.
    public func isAddressed(_ text: String) -> Bool { PluginVM.isCommand(text, prefix: commandPrefix, name: name) }

    func limits(for plugin: String) -> PluginLimits {
        var l = pluginLimits[plugin] ?? limits
        if let m = transport.maxBytes { l.messageBytes = min(l.messageBytes, m) }
        return l
    }
}

/// The router between events and plugins.
///
/// Delivers every event to every enabled plugin in load order, turns what the
/// plugins did into attributed `BotAction`s, runs timers and typing timeouts
/// on the bot's clock, and applies the circuit breaker. Not thread-safe: it
/// owns the plugins' VMs, so its owner runs it on one thread at a time.
public final class Bot: PluginServices {
    public let options: BotOptions
    public var name: String { options.name }
    /// The bot's clock, in seconds since 1970. The harness moves it by hand.
    public var now: Double
    /// Wall time for a live bot (nil in the harness, whose clock only moves by
    /// hand): read before each timer fires, so the time the handlers before it
    /// took counts, and a timer that fell behind fires once instead of
    /// catching up back to back.
    public var clock: (() -> Double)?
    /// State, history and outbox (a journal, or memory).
    public let store: BotStore
    var stateStore: StateStore { store }
    var historyStore: HistoryStore { store }
    var transport: TransportCapabilities { options.transport }
    var http: HTTPOptions { options.http }
    /// Receives the bot log's own lines (plugin disabled, ...).
    public var log: (String) -> Void = { _ in }

    var plugins: [Plugin] = []

    /// Each role the loaded plugins' commands need, with those commands
    /// (`!name`, sorted): what `parley check` holds `[bot.roles]` against.
    public var commandsByRole: [String: [String]] {
        var out: [String: [String]] = [:]
        for p in plugins {
            for (name, info) in p.commands { for role in info.roles { out[role, default: []].append("!" + name) } }
        }
        return out.mapValues { $0.sorted() }
    }
    var rosters: [String: [String: Bool]] = [:]
    /// Why a plugin's file did not load, the last time it was loaded (at
    /// start or a reload), until a load of it succeeds: for the dashboard.
    var loadProblems: [String: String] = [:]
    var typingOn: [String: (plugin: String, since: Double)] = [:]
    var timers: [TimerEntry] = []   // sorted by (due, order)
    var timerOrder = 0
    var generatedIds = 0
    /// `bot.http` requests and answered moderation steps made so far: the next one's id.
    var requests: Int64 = 0

    struct TimerEntry {
        var due: Double
        var order: Int
        var plugin: Plugin
        var id: Int64
        var interval: Double?
        /// Saved in the store under this name (see `SavedTimer`); nil: lives until restart.
        var name: String? = nil
        var seconds: Double = 0
        var data: LuaValue? = nil
        /// A `bot.cron` timer's schedule: it sets the next due time, not `interval`.
        var cron: CronSchedule? = nil
        /// Made while the plugin loaded: see `SavedTimer.atLoad`.
        var atLoad = false
    }

    public init(options: BotOptions, now: Double, store: BotStore = MemoryBotStore()) {
        self.options = options
        self.now = now
        self.store = store
    }

    /// Records that the transport has these sends and moderation steps (by
    /// their ids), so a restart does not send or take them again.
    public func markDelivered(_ actions: [BotAction]) throws(StoreError) {
        try markDelivered(ids: actions.compactMap { $0.message?.id ?? $0.step?.id })
    }

    /// Records that the transport took these sends, or the server answered
    /// these moderation steps (or either was dropped for good): they leave
    /// the journal's outbox, and sends stop counting against `outbox_sends`.
    public func markDelivered(ids: [String]) throws(StoreError) {
        guard !ids.isEmpty else { return }
        try store.markDelivered(ids)
    }

    /// Sends whose transaction committed but whose delivery was never recorded
    /// (the process stopped in between): to be sent again, once, with their ids.
    public func undeliveredSends() -> [BotAction] {
        store.undelivered().map { BotAction(plugin: $0.plugin, .send(room: $0.room, text: $0.text), message: $0) }
    }

    /// Moderation steps whose handler committed but whose answer was never
    /// recorded: to be taken again, once, with their ids (their functions
    /// are Lua code, which no journal keeps).
    public func pendingSteps() -> [BotAction] {
        store.pendingSteps().map { BotAction(plugin: $0.plugin, .moderate($0.action), step: $0) }
    }

    /// The store's ledger is the one count of a plugin's pending sends.
    func waitingSends(plugin: String) -> Int { store.undeliveredCount(plugin: plugin) }


    // MARK: events

    /// Delivers one event to every enabled plugin, in load order. The
    /// event's writes are one transaction (`BotStore.beginEvent`).
    public func handle(_ event: BotEvent) throws(StoreError) -> [BotAction] {
        if event.isOwn(by: options.name) { return [] }
        return try asOneTransaction { () throws(StoreError) in try route(event) }
    }

    /// Runs `body` with the store holding its writes, then writes them as one
    /// transaction: one sync for all the handlers it runs.
    func asOneTransaction(_ body: () throws(StoreError) -> [BotAction]) throws(StoreError) -> [BotAction] {
        store.beginEvent()
        let out: [BotAction]
        do {
            out = try body()
        } catch {
            try? store.endEvent()
            throw error
        }
        try store.endEvent()
        return out
    }

    /// `handle` without the event's transaction: what each kind of event is to the plugins.
    func route(_ event: BotEvent) throws(StoreError) -> [BotAction] {
        var out: [BotAction] = []
        switch event {
        case .message(let m):
            let time = m.time ?? now
            // Catch-up may hand back what the bot already handled (a reconnect
            // that overlaps its last session): the server id says so.
            if m.replayed, let serverId = m.id, store.contains(room: m.room, id: serverId, since: time) { return [] }
            let id = m.id ?? nextId()
            // A server id moves the room's last-seen cursor, in the same record.
            try store.appendReceived(room: m.room, id: id, user: m.user, text: m.text, time: time, lastSeen: m.id != nil)
            // The plugin that answers `help` also gets what is addressed to the bot.
            for p in plugins where p.listens(.message) || (answersHelp(p) && options.isAddressed(m.text)) {
                out += try run(p) { vm, drops in
                    vm.dispatchMessage(room: m.room, user: m.user, text: m.text, id: id, time: time,
                                       replayed: m.replayed, now: now, drops: drops)
                }
            }
            return out
        case .join(let room, let user, let time), .leave(let room, let user, let time):
            let joined = event.kind == "join"
            // Someone who left is out of the room, not offline in it: a
            // roster of everyone ever seen would only grow.
            if joined { rosters[room, default: [:]][user] = true } else { rosters[room]?[user] = nil }
            let t = time ?? now
            for p in plugins where p.listens(joined ? .join : .leave) {
                out += try deliver(to: p, kind: event.kind) { w in
                    w.beginTable(array: 0, pairs: 3)
                    w.key(.room); w.write(room)
                    w.key(.user); w.write(user)
                    w.key(.time); w.write(t)
                }
            }
        case .typing(let room, let user, let on):
            for p in plugins where p.listens(.typing) {
                out += try deliver(to: p, kind: "typing") { w in
                    w.beginTable(array: 0, pairs: 3)
                    w.key(.room); w.write(room)
                    w.key(.user); w.write(user)
                    w.key(.on); w.write(on)
                }
            }
        case .roster(let room, let users):
            // Some servers list the bot itself; plugins never see it, as they never see its joins.
            rosters[room] = Dictionary(users.lazy.filter { $0.user != self.name }.map { ($0.user, $0.online) },
                                       uniquingKeysWith: { $1 })
            let entries = rosterEntries(room: room)
            for p in plugins where p.listens(.roster) {
                out += try deliver(to: p, kind: "roster") { w in
                    w.beginTable(array: 0, pairs: 2)
                    w.key(.room); w.write(room)
                    w.key(.users)
                    w.beginTable(array: entries.count, pairs: 0)
                    for e in entries {
                        w.beginTable(array: 0, pairs: 2)
                        w.key(.user); w.write(e.user)
                        w.key(.online); w.write(e.online)
                    }
                }
            }
        case .connection(let state):
            // Off the chat, the bot cannot see who leaves or arrives: it
            // forgets the rosters rather than report them stale, and learns
            // them again from the server's roster or the joins it sees.
            if state != .online { rosters.removeAll() }
            for p in plugins where p.listens(.connection) {
                out += try deliver(to: p, kind: "connection") { w in
                    w.beginTable(array: 0, pairs: 1)
                    w.key(.state); w.write(state.rawValue)
                }
            }
        }
        return out
    }

    /// Stores history from before the bot joined a room (a transport's
    /// backfill) without delivering it to plugins: `bot.history` then reaches
    /// back past the bot's arrival. Afterwards the room's last-seen cursor is
    /// `through` (or newer), also when `messages` is empty, so the next
    /// connect catches up from there instead of backfilling again. Messages
    /// the history already holds (by server id) are skipped.
    public func backfill(room: String, messages: [ChatMessage], through: RoomCursor) throws(StoreError) {
        let fresh = messages.filter { m in
            guard let id = m.id else { return false }
            return !store.contains(room: room, id: id, since: m.time ?? now)
        }
        try store.appendReceived(fresh.map { m in
            var m = m
            m.room = room
            m.time = m.time ?? now
            return m
        })
        if let seen = store.lastSeen(room: room), seen.time >= through.time { return }
        try store.setLastSeen(room: room, cursor: through.cursor, time: through.time)
    }

    func rosterEntries(room: String) -> [RosterEntry] {
        (rosters[room] ?? [:]).map { RosterEntry(user: $0.key, online: $0.value) }.sorted { $0.user < $1.user }
    }

    // MARK: internals

    func nextId() -> String {
        generatedIds += 1
        return String(prefix: options.messageIdPrefix, number: generatedIds)
    }

}
