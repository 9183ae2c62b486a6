import Foundation
import Logging
import ParleyCore
import ParleyJournal
import ParleyLua
import ParleyRuntime
import ParleyStreamChat
import ServiceLifecycle
import Synchronization

/// `parley demo`: the embedded server, the greeter and moderator bots, and
/// simulated people driven by the persona plugin, printed as a transcript.
///
/// Everything runs through the same runtime as `parley run` (same presence,
/// outbox and plugin host); only the config is built here instead of read
/// from a file.
public struct Demo: Sendable {
    /// The bots that run the room, not people in it.
    static let staff: Set<String> = ["greeter", "moderator"]

    public struct Options: Sendable {
        public var users = 6
        /// The whole run, arrivals included: the demo ends this long after it starts.
        public var seconds: Double = 20
        /// People arrive spread over this many seconds from the start; nil: a third of the run.
        public var ramp: Double?
        /// Fixes every persona's choices (and the reconnect jitter); nil: a random run.
        public var seed: UInt64?
        /// The folder with greeter.lua, moderator.lua and persona.lua.
        public var pluginsDirectory: String
        /// ANSI colours in the transcript.
        public var color = false
        /// `streamchat` (the default) or `socketio` (the embedded SocketChat
        /// server; people show typing before they speak).
        public var transport = StreamChatTransport.driver.name
        /// Bot loops for the staff and the people (see `BotLoops`).
        public var loops = RuntimeOptions().loops
        /// Print the address of the server's web chat (`parley demo --web`).
        public var web = false
        public init(pluginsDirectory: String) { self.pluginsDirectory = pluginsDirectory }
    }

    /// What the closing summary counts.
    public struct Summary: Sendable, Equatable {
        public var messages = 0
        public var joins = 0
        public var greetings = 0
        public var moderationActions = 0
        public var reconnects = 0
        public var pluginErrors = 0
        /// Distinct simulated people who joined, were greeted by name, and said something.
        public var peopleJoined = 0
        public var peopleGreeted = 0
        public var peopleSpoke = 0
    }

    static let names = ["amy", "ben", "cleo", "dev", "eli", "fay", "gus", "hana", "ivo", "jun", "kai", "lia"]

    public let options: Options
    private let print: @Sendable (String) -> Void
    private let early = EarlyEnd()

    public init(options: Options, print: @escaping @Sendable (String) -> Void) {
        self.options = options
        self.print = print
    }

    /// A persona's `bot.config`. The troll is in a hurry and swears in almost
    /// every line, so the moderator's whole escalation (warning, final
    /// warning, mute, kick) fits in a 20 s demo.
    static func personaConfig(style: String) -> [(String, LuaValue)] {
        guard style == "troll" else { return [("style", .string(style))] }
        return [("style", .string(style)), ("pace", .double(0.3)), ("away", .double(0)),
                ("lines", .list(["this chat is darn boring", "heck, nobody here knows anything", "crap, more of this?",
                                 "frak this", "{other} is wrong about everything"].map { .string($0) }))]
    }

    /// The simulated people: one troll, one shy person, the rest chatty.
    static func people(_ n: Int) -> [(name: String, style: String)] {
        (0..<n).map { i in
            let name = i < names.count ? names[i] : "user\(i + 1)"
            let style = i == 1 ? "troll" : i == 3 ? "shy" : "chatty"
            return (name, style)
        }
    }

    public func run() async throws -> Summary {
        guard EmbeddedServers.transports.contains(options.transport) else {
            throw DemoError("the demo runs on \(EmbeddedServers.transports.joined(separator: " or ")), not \(options.transport)")
        }
        // Each person and the two staff bots: a link and the server's end of it.
        if let problem = FileLimit.problem(needed: 64 + 2 * (options.users + 2)) { throw DemoError(problem) }
        let started = Date()
        // The staff moderate: their bot.kick, bot.mute and bot.delete are obeyed.
        let servers = try await EmbeddedServers.start([options.transport], moderators: [options.transport: ["greeter", "moderator"]])
        let port = servers.addresses[options.transport]?.port ?? 0
        let people = Self.people(options.users)
        let tally = Tally(people: people.map(\.name))
        let transcript = Transcript(color: options.color, print: print)
        let seed = options.seed ?? UInt64.random(in: 1...UInt64.max)
        let length = options.web && options.seconds >= 86_400 ? "until Ctrl-C" : "\(Int(options.seconds)) s"
        print(transcript.header("parley demo: \(options.transport) server on 127.0.0.1:\(port), \(options.users) simulated people, \(length), seed \(seed)"))
        if options.web {
            print(transcript.header("web chat: open http://127.0.0.1:\(port)/ and pick a nickname to join the room"))
        }

        var observer = RuntimeObserver { record in
            if record.plugin == "moderator", record.text.hasPrefix("audit") {
                // A decision counts once; the line of a step that failed is shown, not counted.
                if !record.text.contains(" result=") { tally.add(\.moderationActions) }
                transcript.show(record: record)
            } else if record.plugin == "moderator", ["kick", "mute"].contains(where: record.text.hasPrefix) {
                // What the server did (or refused) about it.
                transcript.show(record: record)
            } else if record.level == .error, record.plugin != nil {
                tally.add(\.pluginErrors)
                transcript.show(record: record)
            }
        }
        // The moderator hears everything said in the lobby: its ears are the
        // transcript. An event is shown before its plugins see it, so a
        // moderation follows the message it answers. Its own lines are shown
        // as it sends them: Parley's Socket.IO server does not echo a bot's
        // messages back to it, StreamChat's does (and those echoes are skipped).
        observer.event = { bot, event in
            guard bot == "moderator" else { return }
            if case .message(let m) = event, m.user == bot { return }
            switch event {
            case .message(let m): tally.said(by: m.user)
            case .join(_, let user, _): tally.joined(user)
            default: break
            }
            transcript.show(event: event)
        }
        // The transcript shows who types, which no staff plugin listens to.
        observer.hearsTyping = true
        observer.sent = { bot, _, room, text in
            if bot == "greeter" { tally.greeted(in: text) }
            if bot == "moderator" {
                tally.said(by: bot)
                transcript.show(event: .message(ChatMessage(room: room, user: bot, text: text)))
            }
        }

        let plugins = URL(fileURLWithPath: options.pluginsDirectory)
        func plugin(_ name: String) -> BotSpec.PluginFile {
            .init(name: name, path: plugins.appendingPathComponent("\(name).lua").path)
        }
        func spec(_ name: String, _ plugin: BotSpec.PluginFile, config: [(String, LuaValue)], seed: UInt64) -> BotSpec {
            var o = BotOptions(name: name)
            o.pluginConfig[plugin.name] = .record(config)
            o.randomSeed = Int64(bitPattern: seed)
            var presence = PresenceOptions()
            presence.backoffMax = 2
            // Started just above, so the server of this transport is there.
            let transport = servers.transport(options.transport, name: name)!
            // The embedded server limits no one: the staff may greet a crowd
            // arriving over a short ramp (the default cap suits real servers).
            var flow = FlowOptions()
            flow.sendRate = 200
            flow.sendBurst = 200
            return BotSpec(options: o, plugins: [plugin], presence: presence, transport: transport, flow: flow)
        }

        // The moderator comes in first, so the greeter only ever greets people.
        let staff = [
            spec("greeter", plugin("greeter"), config: [
                ("welcome", .string("Welcome to the lobby, {user}!")),
                ("welcome_back", .string("Good to see you again, {user}.")),
            ], seed: seed),
            spec("moderator", plugin("moderator"), config: [
                ("exempt", .list([.string("greeter")])),
                ("flood_messages", .int(4)), ("flood_seconds", .int(8)),
                // Short enough that a troll muted in a 20 s demo is back, and kicked, before the end.
                ("mute_seconds", .int(4)),
            ], seed: seed &+ 1),
        ]
        // The process's shared loops unless the demo asks for another number.
        let loops = options.loops == RuntimeOptions().loops ? BotLoops.shared : BotLoops(count: options.loops)
        // With --web the dashboard watches the staff and the people.
        let watch = FleetWatch()
        if options.web { observer = watch.observing(observer) }
        let staffRunners = staff.enumerated().map { i, s in BotRunner(spec: s, observer: observer, loops: loops, seed: seed &+ UInt64(i)) }
        let personRunners = people.enumerated().map { i, p in
            BotRunner(spec: spec(p.name, plugin("persona"), config: Self.personaConfig(style: p.style), seed: seed &+ 100 &+ UInt64(i)),
                      observer: observer, loops: loops, seed: seed &+ 200 &+ UInt64(i))
        }

        let end = started.addingTimeInterval(options.seconds)
        var dashboard: Task<Void, any Error>?
        if options.web {
            var quiet = Logger(label: "parley.http")
            quiet.logLevel = .warning
            let app = HTTPServer.application(host: "127.0.0.1", port: 0, runners: staffRunners + personRunners, logger: quiet,
                                             watch: watch) { port in
                print(transcript.header("dashboard: http://127.0.0.1:\(port)/"))
            }
            dashboard = Task { try await app.run() }
        }
        var tasks: [Task<BotOutcome, Never>] = []
        for r in staffRunners.reversed() {
            tasks.append(Task { await r.run() })
            _ = await waitOnline(r, until: min(end, Date().addingTimeInterval(5)))
        }
        // People arrive one after another over the ramp, as they would, each
        // at a fixed moment so a slow start cannot push the arrivals (and the
        // end) later.
        let ramp = Self.ramp(options)
        var arrival = SeededRandom(seed: seed)
        for (i, r) in personRunners.enumerated() {
            let at = started.addingTimeInterval(ramp * (Double(i) + Double.random(in: 0..<1, using: &arrival)) / Double(personRunners.count))
            await early.sleep(until: min(at, end))
            if Date() >= end || early.ended { break }
            tasks.append(Task { await r.run() })
        }
        await early.sleep(until: end)

        await withTaskGroup(of: Void.self) { group in
            for r in personRunners { group.addTask { await r.stop(drainTimeout: 1) } }
        }
        for r in staffRunners { await r.stop(drainTimeout: 1) }
        for t in tasks { _ = await t.value }
        dashboard?.cancel()
        _ = await dashboard?.result
        await servers.shutdown()

        var summary = tally.value
        for r in personRunners + staffRunners { summary.reconnects += await r.stats.reconnects }
        print(transcript.header("summary: \(summary.messages) messages, \(summary.joins) joins, \(summary.greetings) greetings, \(summary.moderationActions) moderation actions, \(summary.reconnects) reconnects, \(summary.pluginErrors) plugin errors"))
        print(transcript.header("people: \(summary.peopleJoined) of \(people.count) joined, \(summary.peopleGreeted) greeted, \(summary.peopleSpoke) spoke"))
        return summary
    }

    /// Ends the run now (Ctrl-C): everyone leaves and the summary is printed.
    public func endEarly() { early.end() }

    /// The arrival ramp: as asked, else a third of the run; never past its end.
    static func ramp(_ options: Options) -> Double {
        min(options.ramp ?? options.seconds / 3, options.seconds)
    }

    private func waitOnline(_ r: BotRunner, until deadline: Date) async -> Bool {
        while Date() < deadline {
            if await r.state == .online { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }
}

struct DemoError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// Ends a demo before its time: its waits are short steps that look at it.
private final class EarlyEnd: Sendable {
    private let flag = Atomic(false)

    var ended: Bool { flag.load(ordering: .relaxed) }
    func end() { flag.store(true, ordering: .relaxed) }

    /// Sleeps until `t`, or until the demo is ended early.
    func sleep(until t: Date) async {
        while !ended {
            let left = t.timeIntervalSinceNow
            if left <= 0 { return }
            try? await Task.sleep(for: .milliseconds(Int((min(left, 0.1) * 1000).rounded(.up))))
        }
    }
}

/// The summary's counters, updated from any thread.
private final class Tally: @unchecked Sendable {
    private let lock = NSLock()
    private var summary = Demo.Summary()
    private let people: Set<String>
    private var joined: Set<String> = [], greeted: Set<String> = [], spoke: Set<String> = []

    init(people: [String]) { self.people = Set(people) }

    func add(_ field: WritableKeyPath<Demo.Summary, Int>) {
        lock.withLock { summary[keyPath: field] += 1 }
    }

    /// Joins of people, simulated or in a browser: the staff's own are in the transcript, not the count.
    func joined(_ user: String) {
        guard !Demo.staff.contains(user) else { return }
        lock.withLock {
            summary.joins += 1
            if people.contains(user) { joined.insert(user) }
        }
    }

    func said(by user: String) {
        lock.withLock {
            summary.messages += 1
            if people.contains(user) { spoke.insert(user) }
        }
    }

    /// A greeting names the person it greets.
    func greeted(in text: String) {
        let named = text.split { !($0.isLetter || $0.isNumber) }.map(String.init).filter { people.contains($0) }
        lock.withLock {
            summary.greetings += 1
            greeted.formUnion(named)
        }
    }

    var value: Demo.Summary {
        lock.withLock {
            var s = summary
            // Joins are what the moderator heard, and it may have been
            // reconnecting when some came: whoever was greeted or spoke was there.
            s.peopleJoined = joined.union(greeted).union(spoke).count
            s.peopleGreeted = greeted.count
            s.peopleSpoke = spoke.count
            return s
        }
    }
}

/// Formats transcript lines, coloured per person when the output is a terminal.
private struct Transcript: Sendable {
    let color: Bool
    let print: @Sendable (String) -> Void
    let started = Date()

    private static let palette = [31, 32, 33, 34, 35, 36, 91, 92, 93, 94, 95, 96]

    private func paint(_ s: String, _ code: Int) -> String { color ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s }

    private func colour(for user: String) -> Int {
        if user == "greeter" { return 1 }
        if user == "moderator" { return 7 }
        var h: UInt32 = 2166136261
        for b in user.utf8 { h = (h ^ UInt32(b)) &* 16777619 }
        return Self.palette[Int(h % UInt32(Self.palette.count))]
    }

    private var stamp: String {
        let t = Date().timeIntervalSince(started)
        return paint(String(format: "%6.2f", t), 90)
    }

    func header(_ s: String) -> String { paint(s, 1) }

    func show(event: BotEvent) {
        switch event {
        case .message(let m): print("\(stamp) \(paint(m.user, colour(for: m.user))): \(m.text)")
        case .join(_, let user, _): print("\(stamp) \(paint("→ \(user) joined", 90))")
        case .leave(_, let user, _): print("\(stamp) \(paint("← \(user) left", 90))")
        case .typing(_, let user, let on) where on: print("\(stamp) \(paint("\(user) is typing…", 90))")
        default: break
        }
    }

    func show(record: LogRecord) {
        let who = record.plugin.map { "\(record.bot)[\($0)]" } ?? record.bot
        print("\(stamp) \(paint("\(who) \(record.level.rawValue): \(record.text)", record.level == .error ? 31 : 33))")
    }
}
