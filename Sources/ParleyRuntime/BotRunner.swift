import Foundation
import Logging
import Metrics
import ParleyCore
import ParleyJournal
import NIOCore
import ParleyLua
import ParleyStore
import Synchronization

/// Everything needed to run one bot.
public struct BotSpec: Sendable {
    public var options: BotOptions
    /// Plugin name and file, in load order.
    public var plugins: [PluginFile]
    public var presence: PresenceOptions
    public var transport: any Transport
    /// Journal directory and sync policy; nil keeps state in memory.
    public var journal: String?
    public var fsync: FsyncPolicy
    /// Incoming queue bounds and the outgoing rate cap.
    public var flow: FlowOptions
    /// `[bot.webhooks.PLUGIN] secret`, by plugin: its webhooks need signed requests.
    public var webhookSecrets: [String: String] = [:]
    /// How often a bot with a journal takes history that retention dropped
    /// off the disk (a compaction, only when something was dropped).
    public var trimCheckSeconds: Double = 3600

    public struct PluginFile: Sendable {
        public var name: String
        public var path: String
        public init(name: String, path: String) {
            self.name = name
            self.path = path
        }
    }

    public init(options: BotOptions, plugins: [PluginFile], presence: PresenceOptions, transport: any Transport,
                journal: String? = nil, fsync: FsyncPolicy = .always, flow: FlowOptions = FlowOptions()) {
        self.options = options
        self.plugins = plugins
        self.presence = presence
        self.transport = transport
        self.journal = journal
        self.fsync = fsync
        self.flow = flow
    }
}

/// How a bot's run ended.
public enum BotOutcome: Sendable, Equatable {
    /// Shutdown was asked for and completed.
    case stopped
    /// `max_attempts` reconnects failed in a row.
    case gaveUp(String)
    /// The server threw the bot out and the policy is to stop.
    case kicked(String)
    /// The bot could not go on (its journal failed, ...): the message names the cause.
    case failed(String)
}

extension BotOutcome: CustomStringConvertible {
    /// For the log: what ended the run, in words.
    public var description: String {
        switch self {
        case .stopped: "stopped"
        case .gaveUp(let why): why
        case .kicked(let why): "kicked (\(why))"
        case .failed(let why): why
        }
    }
}

/// What a runner counted (what is worth watching over time is in `RuntimeMetrics`).
public struct BotStats: Sendable, Equatable {
    /// Times the bot came back online after losing its link.
    public var reconnects = 0
    public var connectFailures = 0
    /// Incoming events shed because a room's queue was full (`[bot.flow] room_queue`).
    public var eventsShed = 0
}

/// Runs one bot: the data path transport → presence → router → plugin host →
/// outbox → journal → transport. This file holds the runner's state and its
/// lifecycle; each stage is an extension in the folder of its name:
///
/// - `Presence/`: connect, go online, reconnect with full-jitter backoff,
///   forever unless `max_attempts` says otherwise. The bot's own join/leave
///   lines never reach plugins, so a reconnect is not an arrival.
/// - `Router/`: the session's events into the per-room inbox, then to the
///   plugins in batches, one session's events in order.
/// - `PluginHost/`: `BotHost` (on the bot's loop) turns events into actions;
///   the plugins' timers and hot reload.
/// - `Outbox/`: sends wait for their commit, then in order for the link (up to
///   the expiry while offline), and are recorded as delivered once the
///   transport confirmed them.
public actor BotRunner: BotLoopActor {
    public nonisolated let name: String
    let spec: BotSpec
    let observer: RuntimeObserver
    /// This bot's loop: its link, its plugins and this actor all run on it (see `unownedExecutor`).
    let executor: BotLoop
    /// Where the loop came from; it gets it back when the runner is gone.
    let loops: BotLoops
    /// The transport's: every log line and outcome of this bot is masked with it.
    let redactor: Redactor
    /// The bot's fleet, when it has more bots than this one: what all of
    /// them say alike is said there once (coming online, a plain stop).
    let fleetLines: FleetLines?
    /// The observer's. Each line gets this bot's name and transport as
    /// metadata when it is logged: a logger of its own would hold them in a
    /// dictionary per bot for good.
    let logger: Logger

    var host: BotHost?
    var session: (any TransportSession)?
    /// Every send of this run from its commit to the transport's confirmation.
    var outbox: Outbox
    var typingQueue: [(room: String, on: Bool)] = []
    /// What the link last heard of the plugins' wish for typing updates (a
    /// new link starts with them on; see `syncTyping`).
    var typingReceived = true
    /// Moderation steps and `bot.away` calls waiting for a send their handler
    /// made before them, by that send's id (see `dispatch`).
    var heldActions: [String: [BotAction]] = [:]
    /// Moderation steps taken whose answer has not come (a stop waits for
    /// them), and whether the stop went on without them (see `stop`).
    var stepsInFlight = 0
    var stepsLeftBehind = false
    /// Counts the links this run had: an unanswered step is taken again on a later one.
    var linkGeneration = 0
    /// Moderation steps that wait for the link, not for a send: made while
    /// the bot was offline, found in the journal at the start, or made while
    /// the plugins loaded.
    var stepsAwaitingLink: [BotAction] = []
    /// The host's journal is closed: nothing more can be recorded as done.
    var hostClosed = false
    /// The transport sends each line of a text as a message (StreamChat):
    /// the rate cap charges per line.
    let linesAreMessages: Bool
    /// The drain has sends or typing to hand on, or a write in flight (see `Outbox/`).
    var draining = false
    /// `drainOn` is running: a write completed inside it leaves the rest to it.
    var drainRunning = false
    /// The write the drain waits for.
    var writing: Write?
    /// The session whose events the pump hands to the plugins (see `Router/`).
    var pump: Pump?
    /// A turn of the pump is queued on the loop.
    var turnQueued = false
    /// The pump waits for the journal or the drain to catch up (`mustHoldBack`).
    var pumpHeld = false
    /// Events shed per room that no log line has counted yet: a fleet's
    /// shed lines are held back past `HeldLines.perSecond`, and a bot held
    /// back counts its own in its next line.
    var shedUnsaid: [String: Int] = [:]
    /// The drain's last batch stopped at the rate cap: a backlog is then the
    /// cap's doing, and it is for `outbox_sends` to bound, not for the pump to wait on.
    var rateHeld = false
    var quotaLog = QuotaLog()
    /// Whether a flush of `quotaLog` is scheduled.
    var quotaFlushPending = false
    var stopping = false
    /// Why a stop's drain ended with sends still queued, said once nothing
    /// can send any more (`run`): a timer or a message taken during the drain counts too.
    var drainEnd: String?
    /// Set once the run is over and the journal is about to close: no timer,
    /// reload or delivery record may reach the plugins or the journal after it.
    var closing = false
    var failure: String?
    var awayUntil: Double?
    /// When the server said the bot may come back (a `Retry-After` that ended the session).
    var serverWaitUntil: Double?
    var backoff: Backoff
    var sendRate: SendRate
    /// The plugins' next timer, on the bot's loop.
    var timerWakeup: Scheduled<Void>?
    /// The journal's hourly check for dropped history still on disk.
    var trimCheck: RepeatedTask?
    var wakeAt = Double.infinity
    var everOnline = false
    /// When the current (or last) link came up: see `Backoff.provenAfter`.
    var onlineSince = 0.0
    /// When the last link was lost, for the "back online" line.
    var offlineSince = 0.0
    /// Gives up the connect in flight (see `connect()`): `stop()` must not
    /// wait on a server that does not answer.
    var abandonConnect: (@Sendable () -> Void)?
    /// The delay of the backoff the bot is in (or was last in), for `/readyz`.
    var backoffDelay: Double = 0
    public internal(set) var stats = BotStats()
    public internal(set) var state: ConnectionState = .offline
    /// The presence as the probes and the dashboard read it, from any thread:
    /// a loop busy with a join storm or a slow plugin must not hold `/readyz`.
    /// Written on each change of state, never per message.
    nonisolated let presence = Mutex(PresenceStatus())

    /// The runner lives on its bot's loop, beside its `BotHost` and its link:
    /// an event is read, handled and answered without crossing threads (the
    /// hops between threads, not Lua, are where an echo's time goes; see the
    /// Socket.IO bench). The runner only awaits, so it holds the loop no
    /// longer than the plugins' own work does.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    deinit {
        loops.release(executor)
        RuntimeMetrics.bots.move(from: state, to: nil)
    }

    public init(spec: BotSpec, observer: RuntimeObserver, loops: BotLoops = .shared, seed: UInt64? = nil) {
        self.init(spec: spec, observer: observer, loops: loops, seed: seed, fleetLines: nil)
    }

    init(spec: BotSpec, observer: RuntimeObserver, loops: BotLoops = .shared, seed: UInt64? = nil,
         fleetLines: FleetLines?) {
        self.name = spec.options.name
        self.fleetLines = fleetLines
        self.spec = spec
        self.observer = observer
        self.loops = loops
        self.executor = loops.assign()
        self.redactor = spec.transport.redactor
        self.logger = observer.logger
        self.outbox = Outbox(expiry: spec.presence.outboxExpiry)
        self.backoff = Backoff(options: spec.presence, seed: seed ?? UInt64.random(in: 1...UInt64.max))
        self.sendRate = SendRate(spec.flow, now: Self.monotonic())
        self.linesAreMessages = spec.transport.capabilities.linesAreMessages
        RuntimeMetrics.bots.move(from: nil, to: state)
    }

    // MARK: lifecycle

    /// Runs until `stop()`, until reconnects are given up, or until the bot cannot go on.
    public func run() async -> BotOutcome {
        // The whole run prefers the bot's loop, so an event or a completed
        // write resumes the runner here directly, not through the pool.
        await withTaskExecutorPreference(executor) {
            do {
                try open()
            } catch {
                log(.error, "cannot start: \(error)")
                let why = redactor("cannot start: \(error)")
                publishFailure(why)
                return .failed(why)
            }
            let outcome = masked(await presenceLoop())
            if case .failed(let why) = outcome { publishFailure(why) }
            await quiesce()
            // A bot that ended by itself (kicked, gave up, failed) says what it leaves unsent, as a stop does.
            warnUndelivered(because: outcome == .stopped ? drainEnd ?? "they were still waiting when the bot left" : "the bot stopped: \(outcome)",
                            plainStop: outcome == .stopped)
            if let host { onLoop(host) { $0.close() } }
            hostClosed = true
            if outcome != .stopped {
                log(.info, "stopped: \(outcome)")
            } else if fleetLines == nil {
                log(.info, "stopped")
            }
            return outcome
        }
    }

    /// Graceful shutdown: stop taking events, let the running handler finish,
    /// hand queued sends to the transport (bounded by `drainTimeout`), leave
    /// cleanly; `run()` then syncs the journal and returns.
    public func stop(drainTimeout: Double = 5) async {
        guard !stopping else { return }
        stopping = true
        abandonConnect?()
        let deadline = BotHost.now() + drainTimeout
        while session != nil, !outbox.isSettled, BotHost.now() < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        if !outbox.isSettled {
            drainEnd = session == nil ? "the bot is offline" : "the drain's \(drainTimeout.formatted()) s ran out"
        }
        // Moderation still waiting: for the link, or for its reason's send.
        // With a journal each waits for the restart, behind its send. Without
        // one a step would be lost, so one behind a send is taken now, before
        // the bot leaves. The steps go at once and share one deadline: a
        // silent server costs the stop that deadline once, not its answer
        // timeout per step.
        let fate = spec.journal == nil ? "lost, as the bot has no journal" : "the journal keeps it for the restart"
        for a in stepsAwaitingLink {
            log(.warn, "\(a.heldSummary) not taken: the bot stopped before it was online (\(fate))", plugin: a.plugin)
        }
        stepsAwaitingLink.removeAll()
        // In the order they were made (the table's order is none).
        var held = heldActions.values.joined().sorted { ($0.step?.time ?? 0, $0.step?.id ?? "") < ($1.step?.time ?? 0, $1.step?.id ?? "") }
        heldActions.removeAll()
        if spec.journal != nil {
            for a in held where a.step != nil {
                log(.warn, "\(a.heldSummary) not taken: it waits for its send, which the journal sends after the restart", plugin: a.plugin)
            }
            held.removeAll { $0.step != nil }
        }
        for a in held {
            guard case .moderate(let m, let answer) = a.kind, session != nil else {
                log(.warn, "\(a.heldSummary) not taken: the bot stopped before the send it waited for", plugin: a.plugin)
                continue
            }
            moderate(m, plugin: a.plugin, answer: answer, step: a.step, note: " (at the stop, before the send it waited for)")
        }
        // Every step taken and not answered yet, these and earlier ones. At
        // least a second, also for a stop that gives the drain no time: the
        // step frames must not race the leave.
        let stepsDeadline = BotHost.now() + max(drainTimeout, 1)
        while stepsInFlight > 0, BotHost.now() < stepsDeadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        if stepsInFlight > 0 {
            // Said once here; what they answer after the leave is not logged.
            let fate = spec.journal == nil ? "" : " (the journal takes them again after the restart)"
            log(.warn, "leaving with \(stepsInFlight) moderation step\(stepsInFlight == 1 ? "" : "s") unanswered after \(max(drainTimeout, 1).formatted()) s\(fate)")
            stepsLeftBehind = true
        }
        await session?.leave()
    }

    /// For `/readyz` and the dashboard: the bot stopped on an error, and why.
    func publishFailure(_ why: String) {
        presence.withLock { $0.failure = why; $0.failedAt = Date().timeIntervalSince1970 }
    }

    /// Said, not left to be found: whether unsent sends survive the stop depends on the journal.
    func warnUndelivered(because why: String, plainStop: Bool) {
        // Counted, not `isSettled`: a commit of state writes alone may still be on its way.
        let n = outbox.unsettledCount
        guard n > 0 else { return }
        // A fleet's stop says it once for all its bots (`Fleet.run`).
        if plainStop, let fleetLines { return fleetLines.leftUnsent(n, by: name, journaled: spec.journal != nil) }
        let fate = spec.journal == nil ? "they are lost, as the bot has no journal"
            : "the journal sends them after the restart (within outbox_expiry)"
        log(.warn, "stopping with \(n) send\(n == 1 ? "" : "s") not delivered (\(why)): \(fate)")
    }

    /// Stops everything that could still write to the journal: timers stop
    /// firing, and a drain still finishing its last batch (the link has
    /// closed under it) records what was delivered before the journal closes.
    /// Out of line: inlined, its locals would stay in the frame of `run`,
    /// under the pump for the bot's whole life.
    @inline(never)
    func quiesce() async {
        closing = true
        timerWakeup?.cancel()
        timerWakeup = nil
        trimCheck?.cancel()
        trimCheck = nil
        resumePump()
        flushQuotaLog(force: true)
        let deadline = BotHost.now() + 5
        while draining, BotHost.now() < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Makes the bot's host and starts it: the store opened, the plugins
    /// loaded, their first actions taken. Out of line, as `quiesce`.
    @inline(never)
    func open() throws {
        let host = BotHost(executor: executor, plugins: spec.plugins, journal: spec.journal, fsync: spec.fsync)
        self.host = host
        var options = spec.options
        options.transport = spec.transport.capabilities
        var actions = try onLoop(host) { [options] host in
            try host.start(options: options) { [weak self] text in self?.log(.warn, text) }
        }
        // The bot is not online yet: a step waits for the send it follows, if
        // that is still to go, else for the link.
        let pendingSends = Set(actions.compactMap(\.message?.id))
        for a in actions where a.step != nil {
            if let after = a.step?.after, pendingSends.contains(after) {
                heldActions[after, default: []].append(a)
            } else {
                stepsAwaitingLink.append(a)
            }
        }
        actions.removeAll { $0.step != nil }
        accept(actions)
        rescheduleTimers(onLoop(host) { $0.nextDue })
        if spec.journal != nil {
            let every = TimeAmount.nanoseconds(Int64(spec.trimCheckSeconds * 1e9))
            trimCheck = executor.loop.scheduleRepeatedTask(initialDelay: every, delay: every) { [weak self] _ in
                // Runs on the bot's loop, between events.
                self?.onLoopThread { r in
                    guard !r.closing, let host = r.host else { return }
                    r.onLoop(host) { $0.compactTrimmedHistory() }
                }
            }
        }
    }

    /// Runs `body` on the bot's host without an actor hop: the host and this
    /// runner share the bot's loop as their executor, so the runner's
    /// isolation is the host's too (checked by `onLoopThread`).
    func onLoop<T: Sendable, E: Error>(_ host: BotHost, _ body: @escaping (isolated BotHost) throws(E) -> T) throws(E) -> T {
        try host.onLoopThread(body)
    }

    /// Runs `body` isolated to this runner on its loop, from any thread,
    /// without a task: a job on the loop's queue (from the loop itself that
    /// costs no wake), for the journal's completions and the plugins' timers.
    nonisolated func later(_ body: @escaping @Sendable (isolated BotRunner) -> Void) {
        executor.loop.execute { [self] in self.onLoopThread(body) }
    }

    /// Seconds on a clock that only moves forward (for the rate cap).
    static func monotonic() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    /// The outcome with the transport's secrets masked in its reason (a
    /// server's refusal can quote what it was sent).
    nonisolated func masked(_ o: BotOutcome) -> BotOutcome {
        switch o {
        case .stopped: .stopped
        case .gaveUp(let why): .gaveUp(redactor(why))
        case .kicked(let why): .kicked(redactor(why))
        case .failed(let why): .failed(redactor(why))
        }
    }

    /// The journal failed: the bot stops, and a full disk says what to do, as
    /// the journal keeps nothing past its last good transaction and takes no
    /// more writes from this run.
    func journalFailed(_ error: any Error) {
        let full = (error as? StoreError)?.outOfSpace ?? false
        fail("journal failed: \(error)" + (full ? "; free space, then start the bot again (nothing acknowledged is lost)" : ""))
    }

    /// The bot cannot keep its promises (its journal failed): stop it, saying why.
    func fail(_ why: String) {
        guard failure == nil else { return }
        failure = why
        log(.error, "stopping: \(why)")
        stopping = true
        // A pump held for the journal or the drain goes on, to see the failure and end.
        resumePump()
        if let s = session { Task { await s.close() } }
    }

    /// Every line is masked with the transport's redactor before it reaches a logger.
    nonisolated func log(_ level: LogRecord.Level, _ text: String, plugin: String? = nil) {
        var metadata: Logger.Metadata = ["bot": .string(name), "transport": .string(spec.transport.capabilities.name)]
        if let plugin { metadata["plugin"] = .string(plugin) }
        logger.log(level: level.logLevel, "\(redactor(text))", metadata: metadata)
    }
}
