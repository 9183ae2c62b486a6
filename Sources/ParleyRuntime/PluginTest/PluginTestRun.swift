import ParleyCore
import ParleyStore
import ParleyLua

/// `parley plugin test`: one bot, its plugins, a script of events, and the
/// actions they produce, in order.
///
/// The bot is the same `Bot` the runtime uses (same sandbox, limits and API);
/// only the clock is virtual. It starts at `PluginTestRun.startTime` so
/// transcripts are reproducible.
public final class PluginTestRun {
    /// 2026-01-01T00:00:00Z: the virtual clock's start.
    public static let startTime: Double = 1_767_225_600
    /// Timer firings one `advance` step may make (about a second of work):
    /// past it the step fails instead of running for hours.
    public static let maxFiringsPerAdvance = 100_000

    /// An `advance` step whose timers would fire more than `maxFiringsPerAdvance` times.
    public struct TooManyFirings: Error, CustomStringConvertible {
        public var seconds: Double
        public var description: String {
            "advance of \(seconds.formatted()) s: the plugins' timers fired \(PluginTestRun.maxFiringsPerAdvance.formatted()) times "
                + "and were still due; advance in smaller steps"
        }
    }

    public let bot: Bot
    /// `http_reply` steps not yet taken by a request.
    private var replies: [ScriptedReply] = []
    /// `moderation_reply` steps not yet taken: a verb and the refusal.
    private var refusals: [(verb: String, error: String)] = []

    public init(options: BotOptions, store: BotStore = MemoryBotStore(), startTime: Double = PluginTestRun.startTime) {
        bot = Bot(options: options, now: startTime, store: store)
    }

    /// Loads plugins in order; each one's load diagnostics go to `emit`. Then
    /// sends and moderation steps that a previous run committed but never
    /// handed over go out, once, with their original ids.
    public func load(plugins: [(name: String, source: [UInt8])], emit: (BotAction) -> Void) throws(StoreError) {
        for p in plugins {
            try hand(try bot.loadPlugin(name: p.name, source: p.source), to: emit)
        }
        try hand(bot.undeliveredSends() + bot.pendingSteps(), to: emit)
    }

    /// Printing is this harness's transport: a send is printed only after its
    /// transaction committed, and its delivery is recorded after it was printed.
    /// A request is answered at once, after its handler's actions, as the
    /// event it is: by the first scripted reply whose URL starts its URL.
    /// A moderation step given a function is told it was done, or refused:
    /// for a room the config does not give the bot, or by the first scripted
    /// refusal of its verb.
    private func hand(_ actions: [BotAction], to emit: (BotAction) -> Void) throws(StoreError) {
        for a in actions { emit(a) }
        try bot.markDelivered(actions)
        for a in actions {
            if case .moderate(let m, let answer?) = a.kind {
                // A room outside the config's is refused, as every transport refuses it.
                let outside = !bot.options.rooms.isEmpty && !bot.options.rooms.contains(m.room)
                    ? "this bot is not in room '\(m.room)' (rooms: \(bot.options.rooms.sorted().joined(separator: ", ")))" : nil
                let refusal = outside ?? refusals.firstIndex { $0.verb == m.verb }.map { refusals.remove(at: $0).error }
                try hand(try bot.answer(plugin: a.plugin, moderation: answer, refused: refusal), to: emit)
                continue
            }
            guard case .http(let call) = a.kind else { continue }
            let outcome: HTTPOutcome
            if let i = replies.firstIndex(where: { call.url.hasPrefix($0.url) }) {
                let r = replies.remove(at: i)
                outcome = r.error.map { .failed($0) } ?? .response(status: r.status, headers: r.headers, body: Array(r.body.utf8))
            } else {
                outcome = .failed("no scripted reply")
            }
            try hand(try bot.answer(plugin: a.plugin, request: call.id, outcome), to: emit)
        }
    }

    /// Runs the script, handing every action to `emit` as it happens.
    public func run(_ steps: [ScriptStep], emit: (BotAction) -> Void) throws {
        for step in steps { try run(step, emit: emit) }
    }

    public func run(_ step: ScriptStep, emit: (BotAction) -> Void) throws {
        let actions: [BotAction]
        switch step {
        case .event(let e): actions = try bot.handle(e)
        case .advance(let s):
            let (fired, complete) = try bot.advance(to: bot.now + s, firingAtMost: Self.maxFiringsPerAdvance)
            guard complete else {
                try hand(fired, to: emit)
                throw TooManyFirings(seconds: s)
            }
            actions = fired
        case .httpReply(let r):
            replies.append(r)
            return
        case .moderationReply(let verb, let error):
            refusals.append((verb, error))
            return
        case .webhook(let plugin, let req):
            let (out, reply) = try bot.webhook(plugin: plugin, req)
            actions = out + [BotAction(plugin: plugin, .webhookReply(path: req.path, status: reply.status, body: reply.body))]
        }
        try hand(actions, to: emit)
    }
}

/// Runs a plugin test on a thread of its own with a big stack (a `BotLoop`,
/// as bots have): plugin VMs never run on the cooperative pool.
public actor PluginTestHost {
    private let executor: BotLoop
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    public init(executor: BotLoop = BotLoop(name: "parley-plugin-test")) {
        self.executor = executor
    }

    /// Like `run(options:plugins:steps:...)`, but reads the script a line at a
    /// time from `nextLine` (nil at the end), acting on each event as it arrives:
    /// how `--events -` drives a long-running harness. A bad line stops the run there.
    public func runStreaming(options: BotOptions, plugins: [(name: String, source: [UInt8])], file: String,
                             journal: String? = nil, nextLine: @Sendable () -> String?,
                             emit: @Sendable (BotAction) -> Void) throws {
        try withRun(options: options, plugins: plugins, journal: journal, emit: emit) { run in
            var lineNo = 0
            while let line = nextLine() {
                lineNo += 1
                if let step = try EventScript.parseLine(line, file: file, line: lineNo) { try run.run(step, emit: emit) }
            }
        }
    }

    /// Builds the run, loads the plugins and runs the steps; `emit` is called on the harness's thread.
    /// With a journal directory, state and history persist there between runs.
    /// Returns the roles the plugins' commands need (`Bot.commandsByRole`).
    @discardableResult
    public func run(options: BotOptions, plugins: [(name: String, source: [UInt8])], steps: [ScriptStep],
                    journal: String? = nil, emit: @Sendable (BotAction) -> Void) throws -> [String: [String]] {
        var roles: [String: [String]] = [:]
        try withRun(options: options, plugins: plugins, journal: journal, emit: emit) { run in
            try run.run(steps, emit: emit)
            roles = run.bot.commandsByRole
        }
        return roles
    }

    /// Opens the store (a journal, or memory), builds the run and loads the plugins.
    private func withRun(options: BotOptions, plugins: [(name: String, source: [UInt8])], journal: String?,
                         emit: (BotAction) -> Void, body: (PluginTestRun) throws -> Void) throws {
        var store: JournalStore?
        var options = options
        if let journal {
            let opened = try JournalStore.open(directory: journal, history: options.history)
            store = opened
            // Generated ids must not repeat those of earlier runs on the same journal.
            options.messageIdPrefix = "local-\(opened.recoveredSequence)-"
        }
        defer { store?.close() }
        let run = PluginTestRun(options: options, store: store ?? MemoryBotStore(history: options.history))
        try run.load(plugins: plugins, emit: emit)
        try body(run)
    }
}
