import ParleyCore
import ParleyStore
import ParleyLua

/// A plugin's timers: `bot.after`/`bot.every`/`bot.cancel` stage changes in
/// the open transaction; the bot schedules them once the handler committed.
/// Saved timers (named, or made while loading) outlive the process.
extension Plugin {
    /// `timer_unheard(id, name)`: what to warn of when a timer fired into no
    /// function and no `timer` handler, the first time it does; nil after.
    /// Made here, not in the prelude, which every VM of a fleet holds.
    func timerUnheard(_ a: [LuaValue]) -> Result<[LuaValue], HostCallError> {
        guard case .int(let id) = a.first, !unheardTimers.contains(id) else { return .success([.nil]) }
        // A repeating timer is told once, until it goes; a once timer is gone already, and fires no more.
        if liveTimers.contains(id) { unheardTimers.insert(id) }
        let named = a.count > 1 ? a[1].stringValue.map { "'\($0)' " } ?? "" : ""
        return .success([.string("timer \(named)fired with no function and no bot.on(\"timer\") handler "
            + "(functions do not survive a restart): re-create it by name while loading, or handle timer events")])
    }

    /// `timer_add(seconds, repeats, opts, cron)`; `opts` may hold `name` and
    /// `data`; `cron` is a `bot.cron` spec, which replaces the interval.
    func timerAdd(_ a: [LuaValue]) -> Result<[LuaValue], HostCallError> {
        var cron: CronSchedule?
        if a.count > 3, !a[3].isNil {
            guard let spec = a[3].stringValue else { return .failure(HostCallError("bot.cron: the schedule must be a string")) }
            do { cron = try CronSchedule(spec, timeZone: services.timeZone) } catch {
                return .failure(HostCallError("bot.cron: \(error.message)"))
            }
        }
        let repeats = cron != nil || (a.count > 1 && a[1] == .bool(true))
        let who = cron != nil ? "bot.cron" : repeats ? "bot.every" : "bot.after"
        guard let seconds = a.first?.numberValue, seconds.isFinite else {
            return .failure(HostCallError("\(who): the interval must be a number of seconds"))
        }
        if cron == nil, seconds < limits.minTimerInterval {
            return .success([.nil, .string("timer interval too short: \(seconds) s, the minimum is \(limits.minTimerInterval) s")])
        }
        var name: String?
        var data: LuaValue?
        if a.count > 2, !a[2].isNil {
            guard case .table = a[2] else { return .failure(HostCallError("\(who): the options must be a table")) }
            if let e = HostCallError.unknownOption(in: a[2], who: who, known: ["name", "data"]) { return .failure(e) }
            let n = a[2]["name"]
            if !n.isNil {
                guard case .bytes(let raw) = n, let text = String(validating: raw, as: UTF8.self), !text.isEmpty else {
                    return .failure(HostCallError("\(who): the name must be a non-empty UTF-8 string"))
                }
                if text.hasPrefix("#") {
                    return .failure(HostCallError("\(who): timer names starting with '#' are reserved"))
                }
                if raw.count > limits.stateKeyBytes {
                    return refuse("timer-name", "timer name too long: \(raw.count) bytes, the limit is \(limits.stateKeyBytes)")
                }
                name = text
            }
            let d = a[2]["data"]
            if !d.isNil {
                let size = d.encoded.count
                if size > limits.stateValueBytes {
                    return refuse("timer-data", "timer data too large: \(size) bytes serialised, the limit is \(limits.stateValueBytes)")
                }
                data = d
            }
        }
        if name == nil, loading {
            loadOrdinal += 1
            name = "#\(loadOrdinal)"
        }
        // A name already in use is replaced (not counted twice against the quota).
        let replacing = name.map { n in
            staged.timers.contains { $0.name == n } || timerNames[n] != nil || restored[n] != nil
        } ?? false
        let cancelled = staged.cancels.filter { liveTimers.contains($0) }.count
        if !replacing, liveTimers.count + staged.timers.count - cancelled >= limits.timers {
            return refuse("timers", "timer quota exceeded: at most \(limits.timers) timers per plugin")
        }
        var id: Int64?
        var due: Double?
        if let name {
            let previous = staged.timers.firstIndex { $0.name == name }.map { staged.timers.remove(at: $0) }
            if loading, let r = restored[name], !staged.cancels.contains(r.id) {
                if r.timer.repeats == repeats, r.timer.seconds == seconds, r.timer.cron == cron?.spec.text {
                    // The same call as before the restart: keep the saved schedule.
                    id = r.id
                    due = r.timer.due
                } else {
                    staged.cancels.append(r.id)
                }
            } else if let old = timerNames[name], !staged.cancels.contains(old) {
                staged.cancels.append(old)
            }
            if let previous, previous.id != id { drops.append(previous.id) }
        }
        let newId = id ?? nextTimerId
        if id == nil { nextTimerId += 1 }
        if let cron, due == nil {
            guard let first = cron.next(after: services.now) else {
                return .failure(HostCallError("bot.cron: '\(cron.spec.text)' never fires"))
            }
            due = first
        }
        staged.timers.append(PendingTimer(id: newId, seconds: seconds, repeats: repeats, name: name, data: data, due: due, cron: cron,
                                          atLoad: loading))
        return .success([.int(newId)])
    }

    /// `timer_cancel(id or name)`.
    func timerCancel(_ a: [LuaValue]) -> Result<[LuaValue], HostCallError> {
        let id: Int64
        switch a.first {
        case .int(let i)?:
            id = i
        case .bytes(let raw)?:
            let name = String(decoding: raw, as: UTF8.self)
            guard let found = staged.timers.last(where: { $0.name == name })?.id ?? timerNames[name] ?? restored[name]?.id else {
                return .success([.bool(false)])
            }
            id = found
        case .double(let d)? where d == d.rounded() && abs(d) < 9e15:
            id = Int64(d)
        default:
            // A slip (a nil id from a failed bot.after, say) would otherwise read as "already gone".
            return .failure(HostCallError("bot.cancel: expected a timer's id or name"))
        }
        var cancelled = false
        if let i = staged.timers.firstIndex(where: { $0.id == id }) {
            let t = staged.timers.remove(at: i)
            drops.append(id)
            cancelled = true
            // Cancelling an adopted timer cancels the saved one too.
            guard t.due != nil else { return .success([.bool(true)]) }
        }
        let restoredIds = restored.values.contains { $0.id == id }
        if liveTimers.contains(id) || restoredIds, !staged.cancels.contains(id) {
            staged.cancels.append(id)
            cancelled = true
        }
        return .success([.bool(cancelled)])
    }

    /// The saved name of a live or restored timer, if it has one.
    func savedName(of id: Int64) -> String? {
        timerNames.first { $0.value == id }?.key ?? restored.first { $0.value.id == id }?.key
    }

    /// Saved timers from the store, before the plugin loads: each gets an id
    /// now, and waits for a call to adopt it.
    func restore(_ saved: [SavedTimer]) {
        for t in saved {
            restored[t.name] = (nextTimerId, t)
            nextTimerId += 1
        }
    }

    /// Forgets a cancelled or finished timer's bookkeeping.
    func forget(_ id: Int64) {
        liveTimers.remove(id)
        unheardTimers.remove(id)
        if let n = timerNames.first(where: { $0.value == id })?.key { timerNames[n] = nil }
        if let n = restored.first(where: { $0.value.id == id })?.key { restored[n] = nil }
    }

    // MARK: staged timers, for the bot

    func takePendingTimers() -> (add: [PendingTimer], cancel: [Int64]) {
        defer {
            staged.timers.removeAll()
            staged.cancels.removeAll()
        }
        return (staged.timers, staged.cancels)
    }

    func takeDrops() -> [Int64] {
        defer { drops.removeAll() }
        return drops
    }
}

/// A timer change staged by the open transaction.
struct PendingTimer {
    var id: Int64
    var seconds: Double
    var repeats: Bool
    /// Saved under this name: given by the plugin, or `#n` while loading. nil: not saved.
    var name: String?
    var data: LuaValue?
    /// Set when the call adopted a restored timer: its saved due time (and
    /// for a `bot.cron` timer, its first slot).
    var due: Double?
    var cron: CronSchedule? = nil
    /// Made while the plugin loaded: see `SavedTimer.atLoad`.
    var atLoad = false
}
