import Foundation
import Logging
import Metrics
import ParleyCore
import ParleyJournal
import ParleyLua
import ParleyTransports

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
    /// The bot gets a thread of its own that is also its link's event loop
    /// (`own_thread`; see `LoopLuaThread`) instead of a shared Lua thread.
    /// Not for StreamChat, whose quiet-period line timer needs the link's
    /// thread free (the config refuses it).
    public var ownThread: Bool

    public struct PluginFile: Sendable {
        public var name: String
        public var path: String
        public init(name: String, path: String) {
            self.name = name
            self.path = path
        }
    }

    public init(options: BotOptions, plugins: [PluginFile], presence: PresenceOptions, transport: any Transport,
                journal: String? = nil, fsync: FsyncPolicy = .always, flow: FlowOptions = FlowOptions(),
                ownThread: Bool = false) {
        self.options = options
        self.plugins = plugins
        self.presence = presence
        self.transport = transport
        self.journal = journal
        self.fsync = fsync
        self.flow = flow
        self.ownThread = ownThread
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

/// What a runner counted (what is worth watching over time is in `RuntimeMetrics`).
public struct BotStats: Sendable, Equatable {
    /// Times the bot came back online after losing its link.
    public var reconnects = 0
    public var connectFailures = 0
    /// Incoming events shed because a room's queue was full (`[bot.flow] room_queue`).
    public var eventsShed = 0
}

/// Runs one bot: the data path transport → presence → router → plugin host →
/// outbox → journal → transport, visible in this file.
///
/// - Presence: connect, go online, pump events; when the link dies go
///   offline, wait a backoff with full jitter and connect again, forever
///   unless `max_attempts` says otherwise. The bot's own join/leave lines
///   never reach plugins, so a reconnect is not an arrival.
/// - Router and plugin host: `BotHost` (on a Lua thread) turns each event into
///   actions; the events of one session are handled one at a time, in order.
/// - Outbox: sends wait here, in order, while offline (up to the expiry), go
///   out once online, and are recorded as delivered in the journal once the
///   transport confirmed them.
public actor BotRunner {
    public nonisolated let name: String
    private let spec: BotSpec
    private let observer: RuntimeObserver
    /// The Lua thread of this bot's plugins, which runs this actor too (see `unownedExecutor`).
    private let executor: any BotThread
    /// The transport's: every log line and outcome of this bot is masked with it.
    private let redactor: Redactor
    /// The observer's, with this bot's name and transport as metadata.
    private let logger: Logger

    private var host: BotHost?
    private var session: (any TransportSession)?
    private var outbox: Outbox
    private var typingQueue: [(room: String, on: Bool)] = []
    private var draining = false
    /// Sends handed to the transport and not yet confirmed (out of the outbox meanwhile).
    private var inFlight = 0
    /// Handlers' sends whose transaction is not yet durable (a pipelined
    /// journal is syncing), in commit order; each group goes to the outbox
    /// when the journal says its commit request is done.
    private var awaitingCommit: [(request: UInt64, sends: [Outbox.Entry], events: Int)] = []
    private var commitRequests: UInt64 = 0
    /// The pump, waiting for commits to catch up (`maxUncommittedEvents`).
    private var commitWaiters: [CheckedContinuation<Void, Never>] = []
    /// The pump, waiting for the outbox drain to catch up (`maxOutboxBacklog`).
    private var drainWaiters: [CheckedContinuation<Void, Never>] = []
    /// The drain's last batch stopped at the rate cap: a backlog is then the
    /// cap's doing, and it is for `outbox_sends` to bound, not for the pump to wait on.
    private var rateHeld = false
    private var quotaLog = QuotaLog()
    private var stopping = false
    /// Set once the run is over and the journal is about to close: no timer,
    /// reload or delivery record may reach the plugins or the journal after it.
    private var closing = false
    private var failure: String?
    private var awayUntil: Double?
    private var backoff: Backoff
    private var sendRate: SendRate
    /// The plugins' next timer, on the Lua thread.
    private var timerWakeup: BotWakeup?
    private var wakeAt = Double.infinity
    private var everOnline = false
    public private(set) var stats = BotStats()
    public private(set) var state: ConnectionState = .offline

    /// The runner lives on its bot's Lua thread, beside its `BotHost`. An
    /// event then crosses threads once on its way in (the event loop hands it
    /// to this thread) instead of hopping event loop → cooperative pool →
    /// Lua thread and back; the hops, not Lua, are where an echo's time goes
    /// (the Socket.IO bench). The runner only awaits, so it holds the thread no
    /// longer than the plugins' own work does.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// An own thread ends with its runner: nothing can ask the actor for
    /// work any more.
    deinit {
        (executor as? LoopLuaThread)?.shutdown()
    }

    public init(spec: BotSpec, observer: RuntimeObserver, executors: LuaExecutorPool = .shared, seed: UInt64? = nil) {
        self.name = spec.options.name
        self.spec = spec
        self.observer = observer
        self.executor = spec.ownThread ? LoopLuaThread(name: "parley-own") : executors.take()
        self.redactor = spec.transport.redactor
        var logger = observer.logger
        logger[metadataKey: "bot"] = .string(spec.options.name)
        logger[metadataKey: "transport"] = .string(spec.transport.capabilities.name)
        self.logger = logger
        self.outbox = Outbox(expiry: spec.presence.outboxExpiry)
        self.backoff = Backoff(options: spec.presence, seed: seed ?? UInt64.random(in: 1...UInt64.max))
        self.sendRate = SendRate(spec.flow, now: Self.monotonic())
    }

    // MARK: lifecycle

    /// Runs until `stop()`, until reconnects are given up, or until the bot cannot go on.
    public func run() async -> BotOutcome {
        // The whole run prefers the Lua thread, so an event or a completed
        // write resumes the runner here directly, not through the pool.
        await withTaskExecutorPreference(executor) {
            do {
                try await open()
            } catch {
                log(.error, "cannot start: \(error)")
                return .failed(redactor("\(error)"))
            }
            let outcome = masked(await presenceLoop())
            await quiesce()
            await host?.close()
            log(.info, "stopped: \(outcome)")
            return outcome
        }
    }

    /// Graceful shutdown: stop taking events, let the running handler finish,
    /// hand queued sends to the transport (bounded by `drainTimeout`), leave
    /// cleanly; `run()` then syncs the journal and returns.
    public func stop(drainTimeout: Double = 5) async {
        guard !stopping else { return }
        stopping = true
        let deadline = BotHost.now() + drainTimeout
        while session != nil, !outbox.isEmpty || inFlight > 0 || !awaitingCommit.isEmpty, BotHost.now() < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        await session?.leave()
    }

    /// Stops everything that could still write to the journal: timers stop
    /// firing, and a drain still finishing its last batch (the link has
    /// closed under it) records what was delivered before the journal closes.
    private func quiesce() async {
        closing = true
        timerWakeup?.cancel()
        timerWakeup = nil
        resumeCommitWaiters()
        resumeDrainWaiters()
        flushQuotaLog(force: true)
        let deadline = BotHost.now() + 5
        while draining, BotHost.now() < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    private func open() async throws {
        var options = spec.options
        options.transport = spec.transport.capabilities
        let host = BotHost(executor: executor, options: options, plugins: spec.plugins,
                           journal: spec.journal, fsync: spec.fsync)
        self.host = host
        let actions = try await host.start { [weak self] text in self?.log(.warn, text) }
        await accept(actions)
        rescheduleTimers(await host.nextDue)
    }

    // MARK: presence

    private func presenceLoop() async -> BotOutcome {
        while !stopping {
            if let failure { return .failed(failure) }
            await setState(.connecting)
            if stopping { break }
            let s: any TransportSession
            do {
                // The journal's last-seen cursors: a transport with catch-up
                // resumes from them, so nothing is missed across a reconnect or a restart.
                // An own-thread bot opens its link on that thread's loop;
                // any other keeps whatever loop its caller chose.
                let cursors = await host?.lastSeenCursors() ?? [:]
                s = try await ChatEventLoop.$preferred.withValue(executor.linkLoop ?? ChatEventLoop.preferred) {
                    try await spec.transport.connect(resumingAfter: cursors)
                }
            } catch let error as TransportError where error.kind == .refused {
                // The server is fine; the bot's own config is not (a name the
                // protocol cannot carry). Retrying would never help.
                log(.error, "cannot connect: \(error)")
                return .failed(error.message)
            } catch let error as TransportError where error.kind == .kicked {
                log(.error, "kicked by the server: \(error.message)")
                await setState(.kicked)
                return .kicked(error.message)
            } catch {
                stats.connectFailures += 1
                log(.warn, "cannot connect: \(error)")
                if let outcome = await waitBackoff() { return outcome }
                continue
            }
            if stopping {
                await s.leave()
                break
            }
            session = s
            backoff.reset()
            if everOnline {
                stats.reconnects += 1
                RuntimeMetrics.reconnects.increment()
            }
            everOnline = true
            await setState(.online)
            kickDrain()
            let kicked = await pump(s)
            session = nil
            typingQueue.removeAll()
            if let kicked {
                await s.close()
                await setState(.kicked)
                guard case .reclaim(let delay) = spec.transport.kickPolicy, !stopping else {
                    log(.error, "kicked by the server: \(kicked)")
                    return .kicked(kicked)
                }
                // The account is ours: take it back after the delay (no backoff: the server is fine).
                log(.warn, "kicked by the server: \(kicked); logging in again in \(delay) s (kick_policy reclaim)")
                await sleep(until: BotHost.now() + delay)
                continue
            }
            if let failure {
                await s.close()
                return .failed(failure)
            }
            if stopping { break }
            await setState(.offline)
            if let until = awayUntil {
                // A deliberate absence (`bot.away`): no backoff, come back on time.
                awayUntil = nil
                await sleep(until: until)
                continue
            }
            if let outcome = await waitBackoff() { return outcome }
        }
        if let failure { return .failed(failure) }
        return .stopped
    }

    /// Runs one session's events through the plugins until the link ends;
    /// returns the reason when the server kicked the bot out.
    ///
    /// The session pushes its events into the bounded per-room `Inbox` as
    /// they come, on the transport's own thread (dropping the bot's own
    /// echoes on the way); this loop hands them to the plugins in batches.
    /// So a flood meets the shedding policy instead of an unbounded queue.
    private func pump(_ s: any TransportSession) async -> String? {
        let options = spec.options
        let inbox = Inbox(bound: spec.flow.roomQueue, addressed: { options.isAddressed($0) })
        s.events.attach(Self.consumer(into: inbox, name: name, observer: observer))
        defer { s.events.detach() }
        var lastShedReport = BotHost.now()
        while true {
            switch await inbox.next(limit: spec.ownThread ? Self.ownThreadBatchLimit : Self.batchLimit) {
            case .end(let error):
                if let error, !stopping { log(.warn, "link lost: \(error)") }
                reportShed(inbox)
                return nil
            case .events(let events):
                var chats: [BotEvent] = []
                chats.reserveCapacity(events.count)
                for event in events {
                    switch event {
                    case .kicked(let reason):
                        await handle(chats)
                        return reason
                    case .backfill(let room, let messages, let through):
                        await handle(chats)
                        chats.removeAll()
                        await backfill(room: room, messages: messages, through: through)
                    case .chat(let chat):
                        chats.append(chat)
                    }
                    if failure != nil { return nil }
                }
                let started = spec.ownThread ? Self.monotonic() : 0
                await handle(chats)
                if failure != nil { return nil }
                // Commits catch up before more is taken in: meanwhile the
                // room queues fill and shed their oldest messages, at the door.
                while uncommittedEvents > Self.maxUncommittedEvents, failure == nil, !closing {
                    await withCheckedContinuation { commitWaiters.append($0) }
                }
                // Nor do handlers get ahead of a healthy link: replies queue
                // no deeper than a few write batches while the link keeps up.
                while outbox.count > Self.maxOutboxBacklog, draining, !rateHeld, failure == nil, !closing {
                    await withCheckedContinuation { drainWaiters.append($0) }
                }
                // Whatever else waits for this thread (the outbox drain resuming
                // after a write, a commit's release) gets its turn before the
                // next batch, however many events are queued.
                await Task.yield()
                // An own-thread bot's plugins hold up its link while they
                // run: after a long batch the link reads and answers pings
                // before the next one.
                if spec.ownThread, Self.monotonic() - started > Self.ownThreadSlice { await executor.letTheLinkIn() }
            }
            if BotHost.now() - lastShedReport >= 1 {
                lastShedReport = BotHost.now()
                reportShed(inbox)
                flushQuotaLog(force: false)
            }
        }
    }

    /// The session's consumer: never waits for the plugins, so a flood meets
    /// the inbox's bound (and its shedding policy) instead of piling up.
    private nonisolated static func consumer(into inbox: Inbox, name: String,
                                             observer: RuntimeObserver) -> TransportEvents.Consumer {
        { item in
            switch item {
            case .event(let event):
                if case .chat(let chat) = event {
                    observer.event(name, chat)
                    if Self.isOwn(chat, name: name) { return }
                }
                inbox.push(event)
            case .end(let error):
                inbox.finish(error: error)
            }
        }
    }

    /// Events handed to the Lua thread in one hop at most: enough to share the
    /// hop's cost under load, few enough that timers and sends are not held up.
    static let batchLimit = 64
    /// The same for an own-thread bot (`LoopLuaThread`), whose socket waits
    /// while a batch runs: at most this many plugin deadlines in a row.
    static let ownThreadBatchLimit = 8
    /// A batch longer than this (seconds) lets an own-thread bot's link in
    /// before the next one; shorter ones cannot starve it.
    static let ownThreadSlice = 0.005
    /// Events handled whose commit is not yet durable: past this the pump
    /// waits for the journal instead of taking more in.
    static let maxUncommittedEvents = 256
    /// Sends waiting in the outbox while the drain is writing (not held by
    /// the rate cap): past this the pump waits for the drain.
    static let maxOutboxBacklog = 4 * sendBatchLimit

    /// One log line per room that shed events since the last report.
    private func reportShed(_ inbox: Inbox) {
        for (room, n) in inbox.takeShed() {
            stats.eventsShed += n
            RuntimeMetrics.eventsShed.increment(by: n)
            log(.warn, "room \(room): shed \(n) incoming events (more than \(spec.flow.roomQueue) waiting; oldest messages dropped first)")
        }
    }

    /// Seconds on a clock that only moves forward (for the rate cap).
    static func monotonic() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    /// The outcome with the transport's secrets masked in its reason (a
    /// server's refusal can quote what it was sent).
    private nonisolated func masked(_ o: BotOutcome) -> BotOutcome {
        switch o {
        case .stopped: .stopped
        case .gaveUp(let why): .gaveUp(redactor(why))
        case .kicked(let why): .kicked(redactor(why))
        case .failed(let why): .failed(redactor(why))
        }
    }

    /// Waits before the next attempt; nil to try again, an outcome to give up.
    private func waitBackoff() async -> BotOutcome? {
        let delay = backoff.nextDelay()
        if backoff.gaveUp {
            let why = "gave up after \(backoff.attempt) failed connection attempts"
            log(.error, why)
            await setState(.gaveUp)
            return .gaveUp(why)
        }
        await setState(.backoff)
        await sleep(until: BotHost.now() + delay)
        return nil
    }

    /// Sleeps in short steps so `stop()` is never kept waiting by a backoff.
    private func sleep(until t: Double) async {
        while !stopping {
            let left = t - BotHost.now()
            if left <= 0 { return }
            try? await Task.sleep(for: .milliseconds(Int(min(left, 0.1) * 1000) + 1))
        }
    }

    /// The bot's own join and leave lines: the transport echoes them on every
    /// (re)connect, and a reconnect must not look like an arrival to plugins.
    /// Its own messages come back too (servers echo to the sender); the bot
    /// would drop them unseen, so they never make the trip to the Lua thread.
    private static func isOwn(_ e: BotEvent, name: String) -> Bool {
        switch e {
        case .join(_, let user, _), .leave(_, let user, _): user == name
        case .message(let m): m.user == name
        default: false
        }
    }

    private func setState(_ s: ConnectionState) async {
        state = s
        observer.connection(name, s)
        await handle(.connection(s))
    }

    // MARK: router and plugin host

    private func handle(_ event: BotEvent) async {
        await handle([event])
    }

    /// Delivers events in order, in one hop to the Lua thread.
    private func handle(_ events: [BotEvent]) async {
        guard let host, failure == nil, !closing, !events.isEmpty else { return }
        do {
            let started = ContinuousClock.now
            let (actions, due) = try await host.handle(events)
            // Per event: a batch's time is shared by its events.
            let each = (ContinuousClock.now - started) / events.count
            for e in events {
                RuntimeMetrics.handlerLatency.record(duration: each)
                RuntimeMetrics.events[e.kind]?.increment()
            }
            await accept(actions, events: events.count)
            rescheduleTimers(due)
        } catch {
            fail("journal failed: \(error)")
        }
    }

    /// History from before the bot joined a room: into the journal, not to plugins.
    private func backfill(room: String, messages: [ChatMessage], through: RoomCursor) async {
        guard let host, failure == nil else { return }
        do {
            try await host.backfill(room: room, messages: messages, through: through)
            if !messages.isEmpty { log(.info, "backfilled \(messages.count) messages of \(room) into history") }
        } catch {
            fail("journal failed: \(error)")
        }
    }

    /// The bot cannot keep its promises (its journal failed): stop it, saying why.
    private func fail(_ why: String) {
        guard failure == nil else { return }
        failure = why
        log(.error, "stopping: \(why)")
        stopping = true
        if let s = session { Task { await s.close() } }
    }

    // MARK: commits

    /// Takes a handler's actions: sends join the outbox once their transaction
    /// is durable (at once without a pipelined journal, else when the journal
    /// says so), in commit order; everything else is carried out now.
    private func accept(_ actions: [BotAction], events: Int = 0) async {
        guard let host else { return }
        var sends: [Outbox.Entry] = []
        for a in actions {
            if case .send(let room, let text) = a.kind, let id = a.outboxId {
                sends.append(Outbox.Entry(id: id, plugin: a.plugin, room: room, text: text, queued: BotHost.now()))
            }
        }
        dispatch(actions)
        guard !sends.isEmpty || events > 0 else { return }
        commitRequests += 1
        let request = commitRequests
        awaitingCommit.append((request, sends, events))
        if await host.isDurable { return release(through: request) }
        let executor = self.executor
        await host.whenDurable { [weak self] failure in
            Task(executorPreference: executor) { await self?.committed(through: request, failure) }
        }
    }

    private func committed(through request: UInt64, _ failure: StoreError?) {
        if let failure {
            fail("journal failed: \(failure)")
            resumeCommitWaiters()
            return
        }
        release(through: request)
    }

    /// Moves the sends of every commit up to `request` to the outbox, in order.
    private func release(through request: UInt64) {
        var released = 0
        while released < awaitingCommit.count, awaitingCommit[released].request <= request {
            for e in awaitingCommit[released].sends { outbox.append(e) }
            released += 1
        }
        awaitingCommit.removeFirst(released)
        if uncommittedEvents <= Self.maxUncommittedEvents { resumeCommitWaiters() }
        kickDrain()
    }

    private var uncommittedEvents: Int { awaitingCommit.reduce(0) { $0 + $1.events } }

    private func resumeDrainWaiters() {
        let waiters = drainWaiters
        drainWaiters.removeAll()
        for w in waiters { w.resume() }
    }

    private func resumeCommitWaiters() {
        let waiters = commitWaiters
        commitWaiters.removeAll()
        for w in waiters { w.resume() }
    }

    /// Carries out everything but sends (`accept` takes those).
    private func dispatch(_ actions: [BotAction]) {
        for a in actions {
            switch a.kind {
            case .send:
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
                    }
                } else {
                    log(.error, "\(kind.rawValue): \(message)", plugin: a.plugin)
                }
            case .away(let seconds):
                awayUntil = BotHost.now() + seconds
                log(.info, "away for \(Int(seconds)) s (plugin \(a.plugin))")
                if let s = session { Task { await s.leave() } }
            }
        }
    }

    private func flushQuotaLog(force: Bool) {
        for (plugin, line) in quotaLog.flush(now: BotHost.now(), force: force) {
            log(.error, "quota: \(line)", plugin: plugin)
        }
    }

    // MARK: outbox

    private func kickDrain() {
        guard !draining, session != nil, !outbox.isEmpty || !typingQueue.isEmpty else { return }
        draining = true
        // Starts on this thread at once: a plain `Task` would first wake a
        // cooperative-pool thread only to hop back here. An unstructured task
        // does not inherit the run's executor preference, so it names it:
        // each completed write then resumes the drain here, not on the pool,
        // and at the thread's next wake (the next event, usually) rather than
        // waking it (`LazyCompletion`).
        Task.immediate(executorPreference: executor) {
            await LazyCompletion.$resumer.withValue(self.executor) { await self.drain() }
        }
    }

    /// Sends handed to the transport in one batch at most: all of a busy
    /// moment's replies in one write, while a send failure (the link going
    /// down) puts back no more than this.
    static let sendBatchLimit = 64

    /// Hands queued sends to the transport in order, as many at a time as
    /// are waiting (up to `sendBatchLimit`) and the rate cap allows.
    private func drain() async {
        defer {
            draining = false
            resumeDrainWaiters()
        }
        while let s = session {
            if !typingQueue.isEmpty {
                let t = typingQueue.removeFirst()
                try? await s.typing(room: t.room, on: t.on)
                continue
            }
            // Expired sends are dropped on the way, and recorded as done with the batch.
            var batch: [Outbox.Entry] = [], done: [String] = []
            var wait = 0.0
            let now = BotHost.now()
            while batch.count < Self.sendBatchLimit, let e = outbox.first {
                if outbox.isExpired(e, now: now) {
                    outbox.removeFirst()
                    dropped(e, "expired after waiting \(Int(spec.presence.outboxExpiry)) s offline")
                    done.append(e.id)
                    continue
                }
                // The rate cap: stop at the first send without a token (the outbox keeps it meanwhile).
                wait = sendRate.take(now: Self.monotonic())
                if wait > 0 { break }
                outbox.removeFirst()
                batch.append(e)
            }
            rateHeld = wait > 0
            if outbox.count <= Self.maxOutboxBacklog || rateHeld { resumeDrainWaiters() }
            var linkFailed = false
            if !batch.isEmpty {
                inFlight = batch.count
                let outcomes = await s.send(batch.map { OutgoingMessage(room: $0.room, text: $0.text, id: $0.id) })
                inFlight = 0
                for (e, outcome) in zip(batch, outcomes) {
                    switch outcome {
                    case .delivered:
                        RuntimeMetrics.sends.increment()
                        observer.sent(name, e.plugin, e.room, e.text)
                        done.append(e.id)
                    case .refused(let error):
                        dropped(e, error.message)
                        done.append(e.id)
                    case .failed:
                        linkFailed = true
                    }
                }
                // The failed one and those after it: the link is going down;
                // presence reconnects and drains them again, first and in order.
                let unsent = batch.dropFirst(linkFailed ? outcomes.count - 1 : outcomes.count)
                if !unsent.isEmpty { outbox.putBack(Array(unsent)) }
                linkFailed = linkFailed || !unsent.isEmpty
            }
            if !done.isEmpty {
                do {
                    try await host?.markDelivered(done)
                } catch {
                    fail("journal failed: \(error)")
                }
            }
            if linkFailed { break }
            if batch.isEmpty, done.isEmpty {
                guard wait > 0 else { break }
                try? await Task.sleep(for: .milliseconds(Int((wait * 1000).rounded(.up))))
            }
        }
    }

    /// A send that will never go out: logged and counted here; the caller
    /// records it as done in the journal, so a restart does not retry it.
    private func dropped(_ e: Outbox.Entry, _ why: String) {
        RuntimeMetrics.sendsDropped.increment()
        log(.warn, "send to \(e.room) dropped: \(why)", plugin: e.plugin)
    }

    // MARK: timers

    private func rescheduleTimers(_ due: Double?) {
        guard let due, due < wakeAt, !closing else { return }
        wakeAt = due
        timerWakeup?.cancel()
        // A millisecond late rather than early: the host fires what is due by then.
        timerWakeup = executor.schedule(after: max(0, due - BotHost.now()) + 0.001) { [weak self] in
            Task(executorPreference: self?.executor) { await self?.fireTimers() }
        }
    }

    private func fireTimers() async {
        wakeAt = .infinity
        timerWakeup = nil
        guard let host, failure == nil, !closing else { return }
        do {
            let (actions, due) = try await host.tick()
            await accept(actions)
            rescheduleTimers(due)
        } catch {
            fail("journal failed: \(error)")
        }
    }

    // MARK: hot reload

    /// The plugins this bot loads, for whoever watches their files (`Fleet`).
    public nonisolated var plugins: [BotSpec.PluginFile] { spec.plugins }

    /// Reloads every plugin (SIGHUP).
    public func reloadPlugins() async {
        for p in spec.plugins { await reload(p.name) }
    }

    /// Loads a new version of one plugin; the old one keeps running if it fails.
    public func reload(_ plugin: String) async {
        guard let host, failure == nil, !closing else { return }
        do {
            let (ok, actions, due) = try await host.reload(plugin: plugin)
            log(ok ? .info : .error, ok ? "plugin \(plugin) reloaded" : "plugin \(plugin) not reloaded; the old version keeps running")
            await accept(actions)
            rescheduleTimers(due)
        } catch {
            fail("journal failed: \(error)")
        }
    }

    /// Every line is masked with the transport's redactor before it reaches a logger.
    private nonisolated func log(_ level: LogRecord.Level, _ text: String, plugin: String? = nil) {
        logger.log(level: level.logLevel, "\(redactor(text))", metadata: plugin.map { ["plugin": .string($0)] })
    }
}
