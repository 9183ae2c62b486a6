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

    public init(name: String) { self.name = name }

    /// Whether a message's text speaks to the bot: it starts with the command
    /// prefix, or with the bot's name ("parley: help", "@parley help"). A
    /// cheap test for the runtime's shedding order, which keeps such messages
    /// longest in a flood; what counts as a command is still decided by the
    /// prelude's `parse_command`, which this mirrors loosely.
    public func isAddressed(_ text: String) -> Bool {
        if !commandPrefix.isEmpty, text.hasPrefix(commandPrefix) { return true }
        var t = text.drop { $0 == " " || $0 == "\t" }
        if t.first == "@" { t = t.dropFirst() }
        return t.prefix(name.count).lowercased() == name.lowercased()
    }

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
    /// State, history and outbox (a journal, or memory).
    public let store: BotStore
    var stateStore: StateStore { store }
    var historyStore: HistoryStore { store }
    var transport: TransportCapabilities { options.transport }
    /// Receives the bot log's own lines (plugin disabled, ...).
    public var log: (String) -> Void = { _ in }

    private var plugins: [Plugin] = []
    private var rosters: [String: [String: Bool]] = [:]
    private var typingOn: [String: (plugin: String, since: Double)] = [:]
    private var timers: [TimerEntry] = []   // sorted by (due, order)
    private var timerOrder = 0
    private var generatedIds = 0
    /// Sends committed but not yet taken by the transport: owner by outbox id,
    /// and how many each plugin has (what `outbox_sends` bounds).
    private var waitingOwner: [String: String] = [:]
    private var waitingCount: [String: Int] = [:]

    private struct TimerEntry {
        var due: Double
        var order: Int
        var plugin: Plugin
        var id: Int64
        var interval: Double?
        /// Saved in the store under this name (see `SavedTimer`); nil: lives until restart.
        var name: String? = nil
        var seconds: Double = 0
        var data: LuaValue? = nil
    }

    public init(options: BotOptions, now: Double, store: BotStore = MemoryBotStore()) {
        self.options = options
        self.now = now
        self.store = store
    }

    /// Records that the transport has these sends (their `outboxId`s), so a
    /// restart does not send them again.
    public func markDelivered(_ actions: [BotAction]) throws(StoreError) {
        try markDelivered(ids: actions.compactMap(\.outboxId))
    }

    /// Records that the transport took these sends (or that they were
    /// dropped for good): they leave the journal's outbox and stop counting
    /// against their plugin's `outbox_sends`.
    public func markDelivered(ids: [String]) throws(StoreError) {
        guard !ids.isEmpty else { return }
        try store.markDelivered(ids)
        for id in ids {
            guard let plugin = waitingOwner.removeValue(forKey: id) else { continue }
            waitingCount[plugin, default: 1] -= 1
        }
    }

    /// Sends whose transaction committed but whose delivery was never recorded
    /// (the process stopped in between): to be sent again, once, with their ids.
    public func undeliveredSends() -> [BotAction] {
        store.undelivered().map {
            wait(id: $0.id, plugin: $0.plugin)
            return BotAction(plugin: $0.plugin, .send(room: $0.room, text: $0.text), outboxId: $0.id)
        }
    }

    func waitingSends(plugin: String) -> Int { waitingCount[plugin] ?? 0 }

    private func wait(id: String, plugin: String) {
        if waitingOwner.updateValue(plugin, forKey: id) == nil { waitingCount[plugin, default: 0] += 1 }
    }


    // MARK: loading

    /// Loads a plugin into a fresh VM, runs its top level, then its `load` handlers.
    @discardableResult
    public func loadPlugin(name: String, source: [UInt8]) throws(StoreError) -> [BotAction] {
        if plugins.contains(where: { $0.name == name }) {
            return [BotAction(plugin: name, .error(.runtime, "a plugin named '\(name)' is already loaded"))]
        }
        var (plugin, out) = try prepare(name: name, source: source)
        guard let plugin else { return out }
        plugins.append(plugin)
        out += try finishLoading(plugin)
        return out
    }

    /// Hot reload: the new version of a loaded plugin starts in a fresh VM
    /// (its state is in the store, so it is the same state) and takes the old
    /// one's place in the load order. If the new version fails to load, the
    /// old one keeps running and `reloaded` is false. Timers made at load time
    /// re-attach as after a restart; unnamed timers set by handlers end with
    /// the old VM, as they would with a restart.
    public func reloadPlugin(name: String, source: [UInt8]) throws(StoreError) -> (reloaded: Bool, actions: [BotAction]) {
        guard let index = plugins.firstIndex(where: { $0.name == name }) else {
            return (false, [BotAction(plugin: name, .error(.runtime, "no plugin named '\(name)' is loaded"))])
        }
        let old = plugins[index]
        var (plugin, out) = try prepare(name: name, source: source)
        guard let plugin else {
            log("plugin \(name): the new version failed to load; the old version keeps running")
            return (false, out)
        }
        timers.removeAll { $0.plugin === old }
        old.isDisabled = true
        plugins[index] = plugin
        out += try finishLoading(plugin)
        log("plugin \(name) reloaded")
        return (true, out)
    }

    /// Makes the VM and runs the plugin's top level; nil when it cannot load
    /// (its diagnostics are still returned).
    private func prepare(name: String, source: [UInt8]) throws(StoreError) -> (Plugin?, [BotAction]) {
        let limits = options.limits(for: name)
        var setup = VMSetup(
            prelude: Prelude.source, botName: options.name, commandPrefix: options.commandPrefix,
            config: options.pluginConfig[name] ?? .table(array: [], hash: []),
            randomSeed: options.randomSeed, hostFunctions: HostFunction.table,
            forbiddenSubstrings: options.transport.forbiddenSubstrings, commonStrings: EventKey.names)
        setup.transport = options.transport.luaValue
        let vm: PluginVM
        do { vm = try PluginVM(setup: setup, limits: limits) } catch {
            return (nil, [BotAction(plugin: name, .error(PluginErrorKind(error.kind), error.message))])
        }
        let plugin = Plugin(name: name, vm: vm, limits: limits, services: self)
        vm.host = plugin
        // Saved timers wait for the plugin's load-time calls to adopt them.
        plugin.restore(store.savedTimers(plugin: name))
        plugin.loading = true
        plugin.beginEvent()
        let (failure, actions) = vm.load(source: source, chunkName: name + ".lua", now: now)
        if let failure {
            // A plugin that cannot load never runs; its diagnostics are still shown.
            var out = diagnostics(plugin, actions)
            out.append(BotAction(plugin: name, .error(PluginErrorKind(failure.kind), failure.message)))
            log("plugin \(name) failed to load: \(failure)")
            return (nil, out)
        }
        return (plugin, try settle(plugin, failure: nil, actions: actions))
    }

    /// Runs the `load` handlers, then schedules the saved timers no load-time call adopted.
    private func finishLoading(_ plugin: Plugin) throws(StoreError) -> [BotAction] {
        let out = try deliver(to: plugin, kind: "load") { w in w.beginTable(array: 0, pairs: 0) }
        plugin.loading = false
        // Compiling the prelude and the plugin leaves garbage behind; a VM that
        // then idles (a simulated user, a quiet bot) would keep it for good.
        plugin.vm.collectGarbage()
        try scheduleRestored(plugin)
        return out
    }

    /// After loading: saved timers no call adopted. A named one keeps its
    /// schedule and fires as a `timer` event; one named by its load order
    /// (`#n`) belonged to a call the plugin no longer makes, so it goes.
    private func scheduleRestored(_ p: Plugin) throws(StoreError) {
        let left = p.restored.values.sorted { $0.id < $1.id }
        p.restored = [:]
        var gone: [TimerChange] = []
        for (id, t) in left {
            if t.name.hasPrefix("#") || p.isDisabled {
                if !p.isDisabled { gone.append(.drop(name: t.name)) }
                continue
            }
            p.liveTimers.insert(id)
            p.timerNames[t.name] = id
            schedule(TimerEntry(due: t.due, order: 0, plugin: p, id: id, interval: t.repeats ? t.seconds : nil,
                                name: t.name, seconds: t.seconds, data: t.data))
        }
        if !gone.isEmpty {
            try store.commit(HandlerEffects(plugin: p.name, sender: options.name, writes: [], sends: [], timers: gone))
        }
    }

    // MARK: events

    /// Delivers one event to every enabled plugin, in load order.
    public func handle(_ event: BotEvent) throws(StoreError) -> [BotAction] {
        var out: [BotAction] = []
        if event.isOwn(by: options.name) { return [] }
        switch event {
        case .message(let m):
            let time = m.time ?? now
            // Catch-up may hand back what the bot already handled (a reconnect
            // that overlaps its last session): the server id says so.
            if m.replayed, let serverId = m.id, store.contains(room: m.room, id: serverId, since: time) { return [] }
            let id = m.id ?? nextId()
            // A server id moves the room's last-seen cursor, in the same record.
            try store.appendReceived(room: m.room, id: id, user: m.user, text: m.text, time: time, lastSeen: m.id != nil)
            for p in plugins where p.listens(.message) {
                out += try run(p) { vm, drops in
                    vm.dispatchMessage(room: m.room, user: m.user, text: m.text, id: id, time: time,
                                       replayed: m.replayed, now: now, drops: drops)
                }
            }
            return out
        case .join(let room, let user, let time), .leave(let room, let user, let time):
            let joined = event.kind == "join"
            rosters[room, default: [:]][user] = joined
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
            rosters[room] = Dictionary(users.map { ($0.user, $0.online) }, uniquingKeysWith: { $1 })
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
            ReceivedMessage(room: room, id: m.id!, user: m.user, text: m.text, time: m.time ?? now)
        })
        if let seen = store.lastSeen(room: room), seen.time >= through.time { return }
        try store.setLastSeen(room: room, cursor: through.cursor, time: through.time)
    }

    /// When `advance` next has something to do (a timer or a typing timeout); nil when nothing is scheduled.
    public var nextDue: Double? {
        let typing = typingOn.values.map { $0.since + options.typingTimeout }.min()
        return [typing, timers.first?.due].compactMap { $0 }.min()
    }

    /// Moves the clock forward to `time`, firing due timers and typing timeouts in time order.
    public func advance(to time: Double) throws(StoreError) -> [BotAction] {
        var out: [BotAction] = []
        while true {
            let typingDue = typingOn.min { $0.value.since < $1.value.since }
            let typingTime = typingDue.map { $0.value.since + options.typingTimeout }
            let timerTime = timers.first?.due
            guard let next = [typingTime, timerTime].compactMap({ $0 }).min(), next <= time else { break }
            now = max(now, next)
            if let typingDue, let typingTime, typingTime <= (timerTime ?? .infinity) {
                typingOn[typingDue.key] = nil
                out.append(BotAction(plugin: typingDue.value.plugin, .typing(room: typingDue.key, on: false)))
                continue
            }
            let entry = timers.removeFirst()
            let p = entry.plugin
            guard !p.isDisabled, p.liveTimers.contains(entry.id) else { continue }
            // The firing itself is saved with the handler's transaction (even
            // if the handler fails): a once timer is gone, an every timer moves on.
            var fired: [TimerChange] = []
            if let interval = entry.interval {
                // Late (the bot was stopped, or busy): fire once, then keep the phase.
                var next = entry.due + interval
                if next <= now {
                    next = entry.due + interval * (((now - entry.due) / interval).rounded(.down) + 1)
                    if next <= now { next += interval }
                }
                var again = entry
                again.due = next
                schedule(again)
                if let name = entry.name {
                    fired.append(.set(SavedTimer(name: name, due: next, seconds: entry.seconds, repeats: true, data: entry.data)))
                }
            } else {
                p.forget(entry.id)
                if let name = entry.name { fired.append(.drop(name: name)) }
            }
            let publicName = entry.name.flatMap { $0.hasPrefix("#") ? nil : $0 }
            out += try deliver(to: p, kind: "timer", fired: fired) { w in
                w.beginTable(array: 0, pairs: 2 + (publicName == nil ? 0 : 1) + (entry.data == nil ? 0 : 1))
                w.key(.id); w.write(entry.id)
                w.key(.once); w.write(entry.interval == nil)
                if let publicName { w.key(.name); w.write(publicName) }
                if let data = entry.data { w.key(.data); w.write(data) }
            }
        }
        now = max(now, time)
        return out
    }

    func rosterEntries(room: String) -> [RosterEntry] {
        (rosters[room] ?? [:]).map { RosterEntry(user: $0.key, online: $0.value) }.sorted { $0.user < $1.user }
    }

    // MARK: internals

    private func nextId() -> String {
        generatedIds += 1
        return options.messageIdPrefix + String(generatedIds)
    }

    private func schedule(_ e: TimerEntry) {
        var e = e
        timerOrder += 1
        e.order = timerOrder
        let i = timers.firstIndex { ($0.due, $0.order) > (e.due, e.order) } ?? timers.count
        timers.insert(e, at: i)
    }

    /// Runs one handler invocation as a transaction and settles its outcome.
    /// `fired`: the bot's own timer bookkeeping, saved whether or not the handler succeeds.
    private func deliver(to p: Plugin, kind: String, fired: [TimerChange] = [],
                         write: (inout ValueWriter) -> Void) throws(StoreError) -> [BotAction] {
        try run(p, fired: fired) { vm, drops in vm.dispatch(kind: kind, now: now, drops: drops, write: write) }
    }

    /// One handler invocation: begin the event, hand it to the VM with the
    /// timer ids it may forget, settle the outcome.
    private func run(_ p: Plugin, fired: [TimerChange] = [],
                     dispatch: (PluginVM, [Int64]) -> (PluginFailure?, [VMAction])) throws(StoreError) -> [BotAction] {
        p.beginEvent()
        let (failure, actions) = dispatch(p.vm, p.takeDrops())
        return try settle(p, failure: failure, actions: actions, fired: fired)
    }

    /// Logs and quota reports survive a failed handler; everything else is its effects.
    private func diagnostics(_ p: Plugin, _ actions: [VMAction]) -> [BotAction] {
        var out: [BotAction] = []
        for a in actions {
            switch a {
            case .log(let level, let text): out.append(BotAction(plugin: p.name, .log(level, text)))
            case .quota(let text): out.append(BotAction(plugin: p.name, .error(.quota, text)))
            case .send, .typing: break
            }
        }
        for q in p.quotaReports { out.append(BotAction(plugin: p.name, .error(.quota, q))) }
        return out
    }

    private func settle(_ p: Plugin, failure: PluginFailure?, actions: [VMAction],
                        fired: [TimerChange] = []) throws(StoreError) -> [BotAction] {
        if let failure {
            p.rollback()
            if !fired.isEmpty {
                try store.commit(HandlerEffects(plugin: p.name, sender: options.name, writes: [], sends: [], timers: fired))
            }
            var out = diagnostics(p, actions)
            out.append(BotAction(plugin: p.name, .error(PluginErrorKind(failure.kind), failure.message)))
            if failure.kind == .memory { p.vm.collectGarbage() }
            p.consecutiveFailures += 1
            if p.consecutiveFailures >= p.limits.failuresBeforeDisable {
                p.isDisabled = true
                let why = "plugin \(p.name) disabled after \(p.consecutiveFailures) consecutive failed events (last: \(failure.kind.rawValue): \(firstLine(failure.message)))"
                log(why)
                out.append(BotAction(plugin: p.name, .error(.pluginDisabled, why)))
                p.liveTimers.removeAll()
                p.timerNames.removeAll()
            }
            return out
        }
        p.consecutiveFailures = 0
        // Commit the handler's state writes and sends as one unit; only after it
        // is durable do the sends become actions the transport may see.
        var sends: [OutboxEntry] = []
        for case .send(let room, let text) in actions {
            sends.append(OutboxEntry(id: nextId(), plugin: p.name, room: room, text: text, time: now))
        }
        // Timer adds and cancels join the same transaction when they are saved ones.
        let (add, cancel) = p.takePendingTimers()
        var timerChanges = fired
        for id in cancel {
            if let name = p.savedName(of: id) { timerChanges.append(.drop(name: name)) }
        }
        for t in add {
            guard let name = t.name else { continue }
            let saved = SavedTimer(name: name, due: t.due ?? now + t.seconds, seconds: t.seconds, repeats: t.repeats, data: t.data)
            // Adopting a restored timer unchanged writes nothing.
            if t.due != nil, p.restored[name]?.timer == saved { continue }
            timerChanges.append(.set(saved))
        }
        let effects = HandlerEffects(plugin: p.name, sender: options.name, writes: p.pendingWrites, sends: sends, timers: timerChanges)
        if !effects.isEmpty { try store.commit(effects) }
        for e in sends { wait(id: e.id, plugin: p.name) }
        for id in cancel {
            p.forget(id)
            p.drops.append(id)
            timers.removeAll { $0.plugin === p && $0.id == id }
        }
        for t in add {
            p.liveTimers.insert(t.id)
            if let name = t.name {
                p.restored[name] = nil
                p.timerNames[name] = t.id
            }
            schedule(TimerEntry(due: t.due ?? now + t.seconds, order: 0, plugin: p, id: t.id, interval: t.repeats ? t.seconds : nil,
                                name: t.name, seconds: t.seconds, data: t.data))
        }
        var out: [BotAction] = []
        out.reserveCapacity(actions.count)
        var nextSend = sends.makeIterator()
        for a in actions {
            switch a {
            case .send(let room, let text):
                // Sending ends the bot's typing indicator in that room.
                if typingOn.removeValue(forKey: room) != nil {
                    out.append(BotAction(plugin: p.name, .typing(room: room, on: false)))
                }
                out.append(BotAction(plugin: p.name, .send(room: room, text: text), outboxId: nextSend.next()?.id))
            case .typing(let room, let on):
                // Debounced: only changes are actions; a repeated "on" refreshes the timeout.
                if on {
                    if typingOn[room] == nil { out.append(BotAction(plugin: p.name, .typing(room: room, on: true))) }
                    typingOn[room] = (p.name, now)
                } else if typingOn.removeValue(forKey: room) != nil {
                    out.append(BotAction(plugin: p.name, .typing(room: room, on: false)))
                }
            case .log(let level, let text):
                out.append(BotAction(plugin: p.name, .log(level, text)))
            case .quota(let text):
                out.append(BotAction(plugin: p.name, .error(.quota, text)))
            }
        }
        for q in p.quotaReports { out.append(BotAction(plugin: p.name, .error(.quota, q))) }
        if let seconds = p.pendingAway { out.append(BotAction(plugin: p.name, .away(seconds: seconds))) }
        return out
    }

    private func firstLine(_ s: String) -> String {
        String(s.split(separator: "\n", maxSplits: 1).first ?? "")
    }
}
