import ParleyCore
import ParleyLua
import ParleyStore

/// One handler invocation as a transaction: the plugin runs, and what it did
/// (state writes, sends, timer changes) is committed as one unit, or nothing
/// is; failures count towards the circuit breaker.
extension Bot {
    /// Runs one handler invocation as a transaction and settles its outcome.
    /// `fired`: the bot's own timer bookkeeping, saved whether or not the handler succeeds.
    /// `breaker`: whether a failure counts towards the circuit breaker.
    func deliver(to p: Plugin, kind: String, fired: [TimerChange] = [], breaker: Bool = true,
                         write: (inout ValueWriter) -> Void) throws(StoreError) -> [BotAction] {
        try run(p, fired: fired, breaker: breaker) { vm, drops in vm.dispatch(kind: kind, now: now, drops: drops, write: write) }
    }

    /// One handler invocation: begin the event, hand it to the VM with the
    /// timer ids it may forget, settle the outcome.
    func run(_ p: Plugin, fired: [TimerChange] = [], breaker: Bool = true,
                     dispatch: (PluginVM, [Int64]) -> (PluginFailure?, [VMAction])) throws(StoreError) -> [BotAction] {
        p.beginEvent()
        let start = BotRunner.monotonic()
        let (failure, actions) = dispatch(p.vm, p.takeDrops())
        p.stats.record(instructions: p.vm.lastEventInstructions, seconds: BotRunner.monotonic() - start)
        let out = try settle(p, failure: failure, actions: actions, fired: fired, breaker: breaker)
        for a in out where a.plugin == p.name {
            if case .error(let kind, _) = a.kind { p.stats.errors[kind.rawValue, default: 0] += 1 }
        }
        return out
    }

    /// Logs and quota reports survive a failed handler; everything else is its effects.
    func diagnostics(_ p: Plugin, _ actions: [VMAction]) -> [BotAction] {
        var out: [BotAction] = []
        for a in actions {
            switch a {
            case .log(let level, let text): out.append(BotAction(plugin: p.name, .log(level, text)))
            case .quota(let text): out.append(BotAction(plugin: p.name, .error(.quota, text)))
            case .send, .typing: break
            }
        }
        for q in p.staged.quotaReports { out.append(BotAction(plugin: p.name, .error(.quota, q))) }
        return out
    }

    func settle(_ p: Plugin, failure: PluginFailure?, actions: [VMAction],
                        fired: [TimerChange] = [], breaker: Bool = true) throws(StoreError) -> [BotAction] {
        if let failure {
            p.rollback()
            if !fired.isEmpty {
                try store.commit(HandlerEffects(plugin: p.name, sender: options.name, writes: [], sends: [], timers: fired))
            }
            var out = diagnostics(p, actions)
            out.append(BotAction(plugin: p.name, .error(PluginErrorKind(failure.kind), failure.message)))
            if failure.kind == .memory { p.vm.collectGarbage() }
            guard breaker else { return out }
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
        var sends: [OutgoingMessage] = []
        for case .send(let room, let text) in actions {
            sends.append(OutgoingMessage(id: nextId(), room: room, text: text, plugin: p.name, time: now))
        }
        // Timer adds and cancels join the same transaction when they are saved ones.
        let (add, cancel) = p.takePendingTimers()
        var timerChanges = fired
        for id in cancel {
            if let name = p.savedName(of: id) { timerChanges.append(.drop(name: name)) }
        }
        for t in add {
            guard let name = t.name else { continue }
            let saved = SavedTimer(name: name, due: t.due ?? now + t.seconds, seconds: t.seconds, repeats: t.repeats, data: t.data,
                                   cron: t.cron?.spec.text, atLoad: t.atLoad)
            // Adopting a restored timer unchanged writes nothing.
            if t.due != nil, p.restored[name]?.timer == saved { continue }
            timerChanges.append(.set(saved))
        }
        // Moderation steps follow the handler's sends: a step waits for the last of them.
        let steps = p.staged.moderation.isEmpty ? [] : p.staged.moderation.map {
            ModerationStep(id: nextId(), plugin: p.name, action: $0.action, after: sends.last?.id, time: now)
        }
        let effects = HandlerEffects(plugin: p.name, sender: options.name, writes: p.staged.writes, sends: sends, timers: timerChanges,
                                     steps: steps)
        if !effects.isEmpty { try store.commit(effects) }
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
            schedule(TimerEntry(due: t.due ?? now + t.seconds, order: 0, plugin: p, id: t.id,
                                interval: t.repeats && t.cron == nil ? t.seconds : nil,
                                name: t.name, seconds: t.seconds, data: t.data, cron: t.cron, atLoad: t.atLoad))
        }
        var out: [BotAction] = []
        out.reserveCapacity(actions.count)
        var nextSend = sends.makeIterator()
        for a in actions {
            switch a {
            case .send(let room, let text):
                // Sending ends the bot's typing indicator in that room (no lookup when none is on).
                if !typingOn.isEmpty, typingOn.removeValue(forKey: room) != nil {
                    out.append(BotAction(plugin: p.name, .typing(room: room, on: false)))
                }
                out.append(BotAction(plugin: p.name, .send(room: room, text: text), message: nextSend.next()))
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
        for q in p.staged.quotaReports { out.append(BotAction(plugin: p.name, .error(.quota, q))) }
        if let seconds = p.staged.away { out.append(BotAction(plugin: p.name, .away(seconds: seconds))) }
        for ((m, callback), step) in zip(p.staged.moderation, steps) {
            var answer: Int64?
            if let callback {
                requests += 1
                p.moderationInFlight[requests] = callback
                answer = requests
            }
            out.append(BotAction(plugin: p.name, .moderate(m, answer: answer), step: step))
        }
        for var call in p.staged.http {
            requests += 1
            p.httpInFlight[requests] = call.id
            call.id = requests
            out.append(BotAction(plugin: p.name, .http(call)))
        }
        return out
    }

    func firstLine(_ s: String) -> String {
        String(s.split(separator: "\n", maxSplits: 1).first ?? "")
    }
}
