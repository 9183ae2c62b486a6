import Foundation
import Logging
import Metrics
import ParleyCore
import ParleyStore
import ParleyJournal
import ParleyLua

/// What a handler's actions become: sends wait for their transaction to be
/// durable, then join the outbox in commit order; everything else happens now.
extension BotRunner {
    /// Events handled whose commit is not yet durable: past this the pump
    /// waits for the journal instead of taking more in.
    static let maxUncommittedEvents = 256
    /// Sends waiting in the outbox while the drain is writing (not held by
    /// the rate cap): past this the pump waits for the drain.
    static let maxOutboxBacklog = 4 * sendBatchLimit

    /// Takes a handler's actions: sends join the outbox once their transaction
    /// is durable (at once without a pipelined journal, else when the journal
    /// says so), in commit order; everything else is carried out now.
    /// `typing`: whether a plugin listens to typing, when the caller has
    /// just read it on the host (nil: read here).
    func accept(_ actions: [BotAction], events: Int = 0, typing: Bool? = nil) {
        guard let host else { return }
        syncTyping(host, listening: typing)
        let sends = actions.compactMap(\.message)
        dispatch(actions)
        guard !sends.isEmpty || events > 0 else { return }
        let request = outbox.commit(sends, events: events)
        // No journal, or one that acknowledges as it writes: nothing to wait for.
        guard host.pipelined else { return release(through: request) }
        let durable = onLoop(host) { host in
            if host.isDurable { return true }
            // Called on the journal's thread: back to this loop without a task.
            host.whenDurable { [weak self] failure in
                self?.later { $0.committed(through: request, failure) }
            }
            return false
        }
        if durable { release(through: request) }
    }

    /// Tells the link whether to send who is typing when the plugins' wish
    /// changed since it last heard (a handler or a timer called
    /// `bot.on("typing")`, a plugin was disabled or reloaded): a bot whose
    /// plugins do not listen is not woken by every typing change. Checked
    /// wherever handlers' actions arrive, which is after any Lua ran.
    /// `listening`: the plugins' interest when the caller has just read it
    /// on the host (nil: read here).
    func syncTyping(_ host: BotHost, listening: Bool? = nil) {
        let wanted = (listening ?? onLoop(host) { $0.listensToTyping }) || observer.hearsTyping
        guard wanted != typingReceived, let session else { return }
        typingReceived = wanted
        session.receiveTyping(wanted)
    }

    func committed(through request: UInt64, _ failure: StoreError?) {
        if let failure {
            journalFailed(failure)
            resumePump()
            return
        }
        release(through: request)
    }

    /// Moves the sends of every commit up to `request` to the outbox, in order.
    func release(through request: UInt64) {
        outbox.release(through: request, now: BotHost.now())
        kickDrain()
        resumePump()
    }

    /// The pump takes no more events while too many handled ones wait for
    /// their commit, or while replies pile up behind a drain that is writing
    /// (not one the rate cap holds: that backlog is `outbox_sends`' to bound).
    var mustHoldBack: Bool {
        guard failure == nil, !closing else { return false }
        return outbox.uncommittedEvents > Self.maxUncommittedEvents
            || (outbox.queuedCount > Self.maxOutboxBacklog && draining && !rateHeld)
    }

    /// Lets a held-back pump go on once it need not wait any more.
    func resumePump() {
        guard pumpHeld, !mustHoldBack else { return }
        pumpHeld = false
        queueTurn()
    }

    /// Carries out everything but sends (`accept` takes those). A moderation
    /// step or `bot.away` after a send of the same handler waits for that
    /// send to be done (`heldActions`): the reason goes out before the kick.
    func dispatch(_ actions: [BotAction]) {
        // A plugin's actions come together, its sends before its moderation.
        // The last send is kept as an index: no string is copied on a reply's path.
        var lastSend = -1
        for (i, a) in actions.enumerated() {
            switch a.kind {
            case .send:
                lastSend = i
                continue
            case .webhookReply:
                continue
            case .moderate, .away:
                if lastSend >= 0, actions[lastSend].plugin == a.plugin, let id = actions[lastSend].message?.id {
                    heldActions[id, default: []].append(a)
                    continue
                }
            default:
                break
            }
            switch a.kind {
            case .send, .webhookReply:
                continue
            case .typing(let room, let on):
                // Typing is only worth showing now; offline it is dropped.
                if session != nil, spec.transport.capabilities.typing { typingQueue.append((room, on)) }
            case .log(let level, let text):
                log(level == .error ? .error : level == .warn ? .warn : .info, text, plugin: a.plugin)
            case .error(let kind, let message):
                RuntimeMetrics.pluginError(kind)
                if kind == .quota {
                    // A plugin sending into a full outbox on every event: one line a second, with a count.
                    if let line = quotaLog.report(plugin: a.plugin, message, now: BotHost.now()) {
                        log(.error, "\(kind.rawValue): \(line)", plugin: a.plugin)
                    } else {
                        flushQuotaLogSoon()
                    }
                } else {
                    log(.error, "\(kind.rawValue): \(message)", plugin: a.plugin)
                }
            case .http(let call):
                startRequest(call, plugin: a.plugin)
            case .moderate(let m, let answer):
                moderate(m, plugin: a.plugin, answer: answer, step: a.step)
            case .away(let seconds):
                awayUntil = BotHost.now() + seconds
                log(.info, "away for \(Int(seconds)) s (plugin \(a.plugin))")
                if let s = session { Task { await s.leave() } }
            }
        }
        // Typing changes go out now, without waiting for any commit.
        if !typingQueue.isEmpty { kickDrain() }
    }

    /// Out of line: the pump calls it (see `pump`'s frame in the router).
    @inline(never)
    func flushQuotaLog(force: Bool) {
        for (plugin, line) in quotaLog.flush(now: BotHost.now(), force: force) {
            log(.error, "quota: \(line)", plugin: plugin)
        }
    }

    /// A held-back refusal is said within about a second, under its own
    /// time, rather than with the plugin's next event, which may be hours on.
    func flushQuotaLogSoon() {
        guard !quotaFlushPending else { return }
        quotaFlushPending = true
        _ = executor.schedule(after: 1.05) { [weak self] in
            self?.onLoopThread { runner in
                runner.quotaFlushPending = false
                runner.flushQuotaLog(force: false)
                if runner.quotaLog.holdsBack { runner.flushQuotaLogSoon() }
            }
        }
    }
}

extension BotAction {
    /// A held moderation step or `bot.away`, for the log.
    var heldSummary: String {
        switch kind {
        case .moderate(let m, _): "\(m.verb) \(m.summary)"
        case .away(let seconds): "away for \(Int(seconds)) s"
        default: "\(kind)"
        }
    }
}
