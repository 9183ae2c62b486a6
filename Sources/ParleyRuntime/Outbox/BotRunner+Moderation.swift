import Foundation
import ParleyCore
import ParleyStore

/// Moderation steps (`bot.kick`, `bot.mute`, `bot.delete`) once committed:
/// taken behind the send they follow, answered to the plugin, and marked
/// done in the journal like sends.
extension BotRunner {
    /// Steps kept while the bot is offline: a plugin kicking from a timer
    /// through a long outage cannot grow the list without end.
    static let maxStepsAwaitingLink = 1_000

    /// A committed `bot.kick`, `bot.mute` or `bot.delete`: the server carries
    /// it out, or says why not. Logged, marked done in the journal (`step`),
    /// and told to the plugin's function when it passed one (`answer`): its
    /// handler has returned by then. Made while the bot is offline, it waits
    /// for the link, as a send does; one whose link closed before the answer
    /// came is taken again on the next link, as an unconfirmed send is sent
    /// again. A server silent past the answer timeout counts as a refusal: it
    /// would most likely ignore the step again. `note` is added to its log line.
    func moderate(_ action: ModerationAction, plugin: String, answer: Int64?, step: ModerationStep?, note: String = "") {
        var action = action
        // A mute taken late (made before this link came up: it waited for the
        // link, or for a restart) ends when its handler meant it to: it lasts
        // what is left of it. One that only waited for its reply to go out
        // lasts what the handler asked, however slow the server echoed.
        if session != nil, case .mute(let room, let user, let seconds, let reason) = action, let made = step?.time,
           made < onlineSince {
            let left = (seconds - (BotHost.now() - made)).rounded()
            guard left >= 1 else {
                let why = "its \(Int(seconds)) s were over before it could be taken"
                log(.info, "mute dropped: \(action.summary): \(why)", plugin: plugin)
                markDone(step.map { [$0.id] } ?? [])
                tellModeration(plugin, answer, refused: why)
                return
            }
            action = .mute(room: room, user: user, seconds: min(seconds, left), reason: reason)
        }
        guard let session else {
            guard stepsAwaitingLink.count < Self.maxStepsAwaitingLink else {
                let why = "the bot is offline and \(Self.maxStepsAwaitingLink) steps wait for the link already"
                log(.warn, "\(action.verb) dropped: \(action.summary): \(why)", plugin: plugin)
                markDone(step.map { [$0.id] } ?? [])
                tellModeration(plugin, answer, refused: why)
                return
            }
            log(.info, "\(action.verb) waits for the link: \(action.summary)", plugin: plugin)
            stepsAwaitingLink.append(BotAction(plugin: plugin, .moderate(action, answer: answer), step: step))
            return
        }
        stepsInFlight += 1
        let link = linkGeneration
        Task {
            defer { stepsInFlight -= 1 }
            do {
                try await session.moderate(action)
                // After the stop's leave nothing more is logged: the stop said how many were left.
                if !stepsLeftBehind { log(.info, "\(action.verb): \(action.summary)\(note)", plugin: plugin) }
                markDone(step.map { [$0.id] } ?? [])
                tellModeration(plugin, answer, refused: nil)
            } catch let error as TransportError where error.kind == .refused || error.kind == .timeout {
                // A silent server would ignore the step again, so a timeout is final like a refusal.
                let fate = error.kind == .timeout ? "not answered (not taken again)" : "refused"
                if !stepsLeftBehind { log(.warn, "\(action.verb) \(fate): \(action.summary): \(error)", plugin: plugin) }
                markDone(step.map { [$0.id] } ?? [])
                tellModeration(plugin, answer, refused: "\(error)")
            } catch {
                unanswered(BotAction(plugin: plugin, .moderate(action, answer: answer), step: step), on: link, error)
            }
        }
    }

    /// A step the server may or may not have carried out (its link closed
    /// first): kept for the next link (at once if there is one already), or,
    /// when the bot is stopping, for the restart (the journal keeps it: it
    /// was never marked done).
    private func unanswered(_ a: BotAction, on link: Int, _ error: any Error) {
        guard case .moderate(let m, _) = a.kind else { return }
        if stopping {
            if !stepsLeftBehind {
                let fate = spec.journal == nil ? "lost, as the bot has no journal" : "the journal takes it again after the restart"
                log(.warn, "\(m.verb) unanswered: \(m.summary): \(error) (\(fate))", plugin: a.plugin)
            }
            return
        }
        log(.warn, "\(m.verb) unanswered: \(m.summary): \(error) (taken again on the next link)", plugin: a.plugin)
        stepsAwaitingLink.append(a)
        // Not on the link that failed it: a closed one would fail it again at once.
        if linkGeneration != link { takeStepsAwaitingLink() }
    }

    /// Moderation steps made while the bot was offline, found in the journal
    /// at the start, or made while the plugins loaded: taken once the bot is
    /// online, unless their handler ran longer than `outbox_expiry` ago (a
    /// kick an hour late would fall on someone who has moved on).
    func takeStepsAwaitingLink() {
        guard session != nil, !stepsAwaitingLink.isEmpty else { return }
        let steps = stepsAwaitingLink
        stepsAwaitingLink.removeAll()
        let now = BotHost.now()
        for a in steps {
            guard case .moderate(let m, let answer) = a.kind else { continue }
            if let step = a.step, now - step.time > spec.presence.outboxExpiry {
                let why = overExpiry(madeAt: step.time, now: now)
                log(.warn, "\(m.verb) dropped: \(m.summary): \(why)", plugin: a.plugin)
                markDone([step.id])
                tellModeration(a.plugin, answer, refused: why)
                continue
            }
            moderate(m, plugin: a.plugin, answer: answer, step: a.step)
        }
    }

    /// Hands a moderation step's outcome to the function waiting for it, as
    /// an event of its own: a later job on the loop, never inside the
    /// dispatch or drain that found it. None once the bot is stopping.
    func tellModeration(_ plugin: String, _ answer: Int64?, refused reason: String?) {
        guard let answer else { return }
        let reason = reason.map { redactor($0) }
        later { r in
            guard let host = r.host, r.failure == nil, !r.closing, !r.stopping else { return }
            do {
                let (actions, due) = try r.onLoop(host) { try $0.answer(plugin: plugin, moderation: answer, refused: reason) }
                r.accept(actions)
                r.rescheduleTimers(due)
            } catch {
                r.journalFailed(error)
            }
        }
    }
}

extension ModerationAction {
    var verb: String {
        switch self {
        case .kick: "kick"
        case .mute: "mute"
        case .delete: "delete"
        }
    }

    /// For the audit log: who, where, why.
    var summary: String {
        switch self {
        case .kick(let room, let user, let reason): "\(user) from \(room) (\(reason))"
        case .mute(let room, let user, let seconds, let reason): "\(user) in \(room) for \(Int(seconds)) s (\(reason))"
        case .delete(let room, let id): "message \(id) in \(room)"
        }
    }
}
