import ParleyCore
import ParleyLua
import ParleyStore

/// Loading and reloading plugins: a fresh VM each, its top level run, its
/// timers restored from the journal, then its `load` handlers.
extension Bot {
    /// Loads a plugin into a fresh VM, runs its top level, then its `load`
    /// handlers. `position`: its place in the load order (last by default);
    /// `reloading`: a hot reload, whose caller logs the outcome.
    @discardableResult
    public func loadPlugin(name: String, source: [UInt8], at position: Int? = nil, reloading: Bool = false) throws(StoreError) -> [BotAction] {
        if plugins.contains(where: { $0.name == name }) {
            return [BotAction(plugin: name, .error(.runtime, "a plugin named '\(name)' is already loaded"))]
        }
        var (plugin, out) = try prepare(name: name, source: source, reloading: reloading)
        guard let plugin else { return out }
        plugins.insert(plugin, at: min(position ?? plugins.count, plugins.count))
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
        var (plugin, out) = try prepare(name: name, source: source, reloading: true)
        // The caller logs the outcome, once. A failed load counts on the running version's card.
        guard let plugin else {
            for a in out { if case .error(let kind, _) = a.kind { old.stats.errors[kind.rawValue, default: 0] += 1 } }
            return (false, out)
        }
        // The card goes on: a reload is the same plugin, not a new one.
        plugin.stats = old.stats
        timers.removeAll { $0.plugin === old }
        old.isDisabled = true
        plugins[index] = plugin
        out += try finishLoading(plugin)
        return (true, out)
    }

    /// Makes the VM and runs the plugin's top level; nil when it cannot load
    /// (its diagnostics are still returned).
    func prepare(name: String, source: [UInt8], reloading: Bool = false) throws(StoreError) -> (Plugin?, [BotAction]) {
        let limits = options.limits(for: name)
        var setup = VMSetup(
            prelude: Prelude.source, botName: options.name, commandPrefix: options.commandPrefix,
            config: options.pluginConfig[name] ?? .table(array: [], hash: []),
            randomSeed: options.randomSeed, hostFunctions: HostFunction.table,
            forbiddenSubstrings: options.transport.forbiddenSubstrings, commonStrings: EventKey.names)
        setup.transport = options.transport.luaValue
        setup.refuseControls = !options.transport.controls
        setup.rooms = options.rooms
        setup.zone = ZoneTable.address(for: options.timeZone)
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
            loadProblems[name] = "\(PluginErrorKind(failure.kind).rawValue): \(failure.message.split(separator: "\n").first ?? "")"
            // Its error is reported as the plugin's own, with the cause: this line says what follows from it.
            // (A failed reload says so itself: the old version runs on.)
            if !reloading { log("plugin \(name) failed to load and does not run") }
            return (nil, out)
        }
        loadProblems[name] = nil
        return (plugin, try settle(plugin, failure: nil, actions: actions))
    }

    /// Runs the `load` handlers, then schedules the saved timers no load-time call adopted.
    func finishLoading(_ plugin: Plugin) throws(StoreError) -> [BotAction] {
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
    func scheduleRestored(_ p: Plugin) throws(StoreError) {
        let left = p.restored.values.sorted { $0.id < $1.id }
        p.restored = [:]
        var gone: [TimerChange] = []
        for (id, t) in left {
            // Made while loading and not made again by this load: the
            // plugin no longer has it (`#n` are the unnamed ones).
            if t.name.hasPrefix("#") || t.atLoad || p.isDisabled {
                if !p.isDisabled { gone.append(.drop(name: t.name)) }
                continue
            }
            p.liveTimers.insert(id)
            p.timerNames[t.name] = id
            // A `bot.cron` timer keeps its schedule, not an interval of its seconds.
            let cron = t.cron.flatMap { try? CronSchedule($0, timeZone: timeZone) }
            schedule(TimerEntry(due: t.due, order: 0, plugin: p, id: id, interval: t.repeats && cron == nil ? t.seconds : nil,
                                name: t.name, seconds: t.seconds, data: t.data, cron: cron))
        }
        if !gone.isEmpty {
            try store.commit(HandlerEffects(plugin: p.name, sender: options.name, writes: [], sends: [], timers: gone))
        }
    }
}
