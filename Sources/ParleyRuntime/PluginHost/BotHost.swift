import Foundation
import ParleyCore
import ParleyStore
import ParleyJournal
import ParleyLua

/// Owns one bot's `Bot` (its plugin VMs and its store) on the bot's loop.
///
/// Everything that touches a plugin VM or the bot's journal goes through this
/// actor, whose executor is the bot's `BotLoop`: Lua never runs on the
/// cooperative pool, and one bot's events are handled one at a time, in
/// arrival order.
actor BotHost: BotLoopActor {
    let executor: BotLoop
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    private let plugins: [BotSpec.PluginFile]
    private let journalDirectory: String?
    private let fsync: FsyncPolicy
    private var bot: Bot?
    private var journal: JournalStore?
    /// The journal's file layer, timed (for the dashboard's last sync).
    private var metered: MeteredFileLayer?
    /// Whether journal writes return before their sync (a journal with
    /// `fsync = "always"`): only then do sends have to wait for `whenDurable`.
    /// Under `interval` a write is acknowledged as it is made.
    nonisolated let pipelined: Bool

    /// The clock plugins see: wall time.
    static func now() -> Double { Date().timeIntervalSince1970 }

    init(executor: BotLoop, plugins: [BotSpec.PluginFile], journal: String?, fsync: FsyncPolicy) {
        self.executor = executor
        self.plugins = plugins
        self.journalDirectory = journal
        self.fsync = fsync
        self.pipelined = journal != nil && fsync == .always
    }

    /// Opens the store, loads the plugins in order, then hands back sends a
    /// previous run committed but never delivered (they go out again, once,
    /// with their ids).
    func start(options: BotOptions, log: @escaping @Sendable (String) -> Void) throws -> [BotAction] {
        var options = options
        let store: BotStore
        if let dir = journalDirectory {
            // `journal = "state/greeter"` on a fresh machine: make the parents.
            do { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) } catch {
                // Foundation's own text for these is "The operation could not be completed": the system's says why.
                let posix = ((error as NSError).userInfo[NSUnderlyingErrorKey] as? any Error).map { ($0 as NSError).code }
                let cause = posix.map { String(cString: strerror(Int32($0))) } ?? "\(error)"
                throw StoreError("cannot make the journal directory \(dir): \(cause)")
            }
            // A slow sync is told on the bot's loop, as its other lines are: never
            // does the journal's thread wait on standard error.
            let loop = executor.loop
            let layer = MeteredFileLayer(base: PosixFileLayer(), slow: SlowSyncs(repliesWait: pipelined) { line in loop.execute { log(line) } })
            metered = layer
            // Pipelined: the next event is handled while this one's commit syncs;
            // the runner holds sends until `whenDurable` says their commit is on disk.
            let j = try JournalStore.open(directory: dir, fsync: fsync, history: options.history,
                                          fileLayer: layer, pipelined: pipelined)
            for note in j.recoveryNotes { log("journal \(dir): \(note)") }
            // Ids the bot generates must not repeat those of earlier runs on this journal.
            options.messageIdPrefix = "\(options.name)-\(j.recoveredSequence)-"
            journal = j
            store = j
        } else {
            options.messageIdPrefix = "\(options.name)-\(UInt32.random(in: 0...UInt32.max))-"
            store = MemoryBotStore(history: options.history)
        }
        let bot = Bot(options: options, now: Self.now(), store: store)
        bot.clock = Self.now
        bot.log = log
        self.bot = bot
        var out: [BotAction] = []
        for p in plugins {
            switch Self.read(p) {
            case .success(let source): out += try bot.loadPlugin(name: p.name, source: source)
            case .failure(let unreadable): out.append(unreadable.action)
            }
        }
        out += bot.undeliveredSends()
        out += bot.pendingSteps()
        return out
    }

    var nextDue: Double? { bot?.nextDue }

    /// What a hot reload came to.
    enum Reload: Sendable, Hashable {
        case reloaded, loaded
        /// The new version failed; `running` says whether an old one runs on.
        case failed(running: Bool)
        /// The file could not be read (why); nothing changed.
        case unreadable(String, running: Bool)

        /// The log line, for one bot (`among` empty) or for more that load
        /// the same file (`among` " in 999 more bots that load it").
        func line(_ plugin: String, among: String = "") -> (level: LogRecord.Level, text: String) {
            switch self {
            case .reloaded: (.info, "plugin \(plugin) reloaded\(among)")
            case .loaded: (.info, "plugin \(plugin) loaded\(among) (it did not load at start)")
            case .failed(running: true): (.error, "plugin \(plugin) not reloaded\(among); the old version keeps running")
            case .failed(running: false): (.error, "plugin \(plugin) still does not load\(among), and does not run")
            case .unreadable(let why, let running):
                (.warn, "plugin \(plugin) not reloaded\(among): \(why); " + (running ? "the loaded version runs on" : "it does not run"))
            }
        }
    }

    /// Hot reload of one plugin from its file; the old version keeps running
    /// if the new one fails. A plugin that failed to load at start has no old
    /// version: its fixed file loads now, in its place in the load order.
    func reload(plugin name: String) throws -> (outcome: Reload, actions: [BotAction], nextDue: Double?) {
        guard let bot, let file = plugins.first(where: { $0.name == name }) else { return (.failed(running: false), [], nil) }
        let running = bot.plugins.contains { $0.name == name }
        var out = try bot.advance(to: Self.now())
        switch Self.read(file) {
        case .failure(let unreadable):
            // The file, not the plugin, is at fault: said as the outcome, not as a plugin error.
            return (.unreadable(unreadable.why, running: running), out, bot.nextDue)
        case .success(let source) where running:
            let (ok, actions) = try bot.reloadPlugin(name: name, source: source)
            out += actions
            return (ok ? .reloaded : .failed(running: true), out, bot.nextDue)
        case .success(let source):
            let before = plugins.prefix { $0.name != name }
            let position = before.filter { p in bot.plugins.contains { $0.name == p.name } }.count
            out += try bot.loadPlugin(name: name, source: source, at: position, reloading: true)
            return (bot.plugins.contains { $0.name == name } ? .loaded : .failed(running: false), out, bot.nextDue)
        }
    }

    /// A plugin's source, or why it cannot be read.
    private static func read(_ file: BotSpec.PluginFile) -> Result<[UInt8], Unreadable> {
        do {
            return .success(Array(try Data(contentsOf: URL(fileURLWithPath: file.path))))
        } catch {
            return .failure(Unreadable(plugin: file.name, why: "cannot read \(file.path): \(error.localizedDescription)"))
        }
    }

    struct Unreadable: Error {
        var plugin: String
        var why: String
        /// At start, the plugin's error: it does not run.
        var action: BotAction { BotAction(plugin: plugin, .error(.runtime, why)) }
    }

    /// Fires what is due, then delivers chats (a run of `.chat` events, as
    /// the inbox's batch holds them) in order until all are handled or
    /// `slice` seconds have passed; says how many it handled (at least one,
    /// when there is one), and whether a plugin listens to typing now (read
    /// here, where the runner would otherwise come back for it).
    func handle(_ events: ArraySlice<TransportEvent>, slice: Double) throws
        -> (actions: [BotAction], nextDue: Double?, handled: Int, typing: Bool) {
        guard let bot else { return ([], nil, events.count, true) }
        let start = BotRunner.monotonic()
        var out = try bot.advance(to: Self.now())
        var handled = 0
        for case .chat(let e) in events {
            let actions = try bot.handle(e)
            // Taken whole when first: appending to an empty list copies it.
            if out.isEmpty { out = actions } else { out += actions }
            handled += 1
            if BotRunner.monotonic() - start > slice { break }
        }
        return (out, bot.nextDue, handled, listensToTyping)
    }

    /// Fires due timers and typing timeouts.
    func tick() throws -> (actions: [BotAction], nextDue: Double?) {
        guard let bot else { return ([], nil) }
        let out = try bot.advance(to: Self.now())
        return (out, bot.nextDue)
    }

    /// The answer to a plugin's `bot.http` request, as its own event.
    func answer(plugin: String, id: Int64, _ outcome: HTTPOutcome) throws -> (actions: [BotAction], nextDue: Double?) {
        guard let bot else { return ([], nil) }
        var out = try bot.advance(to: Self.now())
        out += try bot.answer(plugin: plugin, request: id, outcome)
        return (out, bot.nextDue)
    }

    /// The outcome of a moderation step a plugin's function waits for, as its own event.
    func answer(plugin: String, moderation id: Int64, refused reason: String?) throws -> (actions: [BotAction], nextDue: Double?) {
        guard let bot else { return ([], nil) }
        var out = try bot.advance(to: Self.now())
        out += try bot.answer(plugin: plugin, moderation: id, refused: reason)
        return (out, bot.nextDue)
    }

    /// A request to a plugin's webhook, as its own event.
    func webhook(plugin: String, _ req: WebhookRequest) throws -> (actions: [BotAction], reply: WebhookReply, nextDue: Double?) {
        guard let bot else { return ([], WebhookReply(status: 503), nil) }
        var out = try bot.advance(to: Self.now())
        let (actions, reply) = try bot.webhook(plugin: plugin, req)
        out += actions
        return (out, reply, bot.nextDue)
    }

    func servesWebhook(plugin: String, path: String) -> WebhookRoute {
        bot?.servesWebhook(plugin: plugin, path: path) ?? .notFound
    }

    /// Whether a plugin listens to typing now; true before they are loaded
    /// (the link's default: nothing is asked of the server yet).
    var listensToTyping: Bool { bot?.plugins.contains { $0.listens(.typing) } ?? true }

    func pluginReports() -> [PluginReport] { bot?.pluginReports(files: plugins.map(\.name)) ?? [] }

    /// The journal's last sync in milliseconds; nil without a journal or before its first sync.
    var journalSyncMilliseconds: Double? {
        guard let ns = metered?.lastSync.nanoseconds.load(ordering: .relaxed), ns > 0 else { return nil }
        return Double(ns) / 1e6
    }

    /// Starts a compaction when retention dropped history the journal still holds.
    func compactTrimmedHistory() { journal?.compactIfTrimmed() }

    /// Every room's last-seen cursor, for a transport's catch-up.
    func lastSeenCursors() -> [String: RoomCursor] { bot?.store.lastSeenCursors() ?? [:] }

    /// History from before the bot joined a room (`TransportEvent.backfill`).
    func backfill(room: String, messages: [ChatMessage], through: RoomCursor) throws {
        try bot?.backfill(room: room, messages: messages, through: through)
    }

    /// Records deliveries; pipelined, they ride in the next group commit
    /// (the sends' intents are durable already, so nothing waits for them).
    func markDelivered(_ ids: [String]) throws {
        try bot?.markDelivered(ids: ids)
    }

    /// False while journal writes made so far are not yet on disk: the sends
    /// of those handlers must wait for `whenDurable`.
    var isDurable: Bool { !(journal?.hasUnacknowledgedWrites ?? false) }

    /// Calls `done` (on the journal's thread, or at once) when everything
    /// written so far is durable, with the journal's failure if it failed.
    func whenDurable(_ done: @escaping @Sendable (StoreError?) -> Void) {
        guard let journal else { return done(nil) }
        journal.whenDurable(done)
    }

    /// Syncs and closes the journal.
    func close() {
        journal?.close()
        journal = nil
    }
}
