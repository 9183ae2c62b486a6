import Foundation
import ParleyCore
import ParleyLua
import ParleyRuntime
import ParleyStreamChat
import Synchronization
import ParleyTestSupport

/// A person in the chat: a real client (StreamChat by default, or any
/// transport) that records what it hears.
final class Person: Sendable {
    let name: String
    let room: String
    let session: any TransportSession
    private let heard = Mutex<[BotEvent]>([])
    private let reader = Mutex<Task<Void, Never>?>(nil)
    private let linkEnded = Atomic(false)

    /// On StreamChat, returns once the server has announced the person: the
    /// server tells the newcomer too. StreamChat has no roster, so someone
    /// still on the way in would miss the joins of those who arrive next.
    convenience init(_ name: String, port: Int) async throws {
        try await self.init(name, transport: StreamChatTransport(host: "127.0.0.1", port: port, name: name, connectTimeout: 5))
        guard await eventually(10, { self.joins(of: name) >= 1 }) else {
            throw TransportError(.connect, "\(name) was not announced by the server within 10 s")
        }
    }

    init(_ name: String, transport: any Transport, room: String = "lobby") async throws {
        self.name = name
        self.room = room
        session = try await transport.connect()
        let events = session.events
        let task = Task { [self] in
            do {
                for try await e in events { if case .chat(let c) = e { self.heard.withLock { $0.append(c) } } }
            } catch {}
            self.linkEnded.store(true, ordering: .relaxed)
        }
        reader.withLock { $0 = task }
    }

    var messages: [(user: String, text: String)] {
        heard.withLock { $0.compactMap { if case .message(let m) = $0 { (m.user, m.text) } else { nil } } }
    }

    func joins(of user: String) -> Int {
        heard.withLock { $0.filter { if case .join(_, let u, _) = $0 { u == user } else { false } }.count }
    }

    func leaves(of user: String) -> Int {
        heard.withLock { $0.filter { if case .leave(_, let u, _) = $0 { u == user } else { false } }.count }
    }

    /// False once the session's event stream ended (the server went away, the
    /// link died): a person who wants to go on talking must connect again.
    var isLinked: Bool { !linkEnded.load(ordering: .relaxed) }

    /// Every event heard, in order.
    var events: [BotEvent] { heard.withLock { $0 } }

    func texts(from user: String) -> [String] { messages.filter { $0.user == user }.map(\.text) }

    func say(_ text: String) async throws { try await session.send(OutgoingMessage(id: UUID().uuidString, room: room, text: text)) }

    func typing(_ on: Bool) throws { try session.typing(room: room, on: on) }

    func leave() async { await session.leave() }
}

/// Log lines and confirmed sends of the bots under test.
final class Recorder: Sendable {
    private let records = Mutex<[LogRecord]>([])
    private let sends = Mutex<[(bot: String, text: String)]>([])
    private let states = Mutex<[(bot: String, state: ConnectionState)]>([])

    var observer: RuntimeObserver {
        var o = RuntimeObserver { [self] r in self.records.withLock { $0.append(r) } }
        o.sent = { [self] bot, _, _, text in self.sends.withLock { $0.append((bot, text)) } }
        o.connection = { [self] bot, s in self.states.withLock { $0.append((bot, s)) } }
        return o
    }

    var logs: [LogRecord] { records.withLock { $0 } }
    var sent: [(bot: String, text: String)] { sends.withLock { $0 } }
    var connectionStates: [ConnectionState] { states.withLock { $0.map(\.state) } }
    func logs(containing s: String) -> [LogRecord] { logs.filter { $0.text.contains(s) } }
}

/// Writes plugin sources to files and builds a spec for a bot on the given server.
func botSpec(name: String, port: Int, plugins: [(String, String)], config: [String: LuaValue] = [:],
             journal: String? = nil, presence: PresenceOptions? = nil, shippedPlugins: [String] = [],
             transport: (any Transport)? = nil,
             transportLog: @escaping @Sendable (String) -> Void = { _ in }) throws -> BotSpec {
    let dir = try temporaryDirectory()
    var files: [BotSpec.PluginFile] = []
    for (pname, source) in plugins {
        let path = dir.appendingPathComponent("\(pname).lua").path
        try source.write(toFile: path, atomically: true, encoding: .utf8)
        files.append(.init(name: pname, path: path))
    }
    for p in shippedPlugins {
        files.append(.init(name: p, path: packageRoot.appendingPathComponent("Plugins/\(p).lua").path))
    }
    var options = BotOptions(name: name)
    for (k, v) in config { options.pluginConfig[k] = v }
    var p = presence ?? PresenceOptions()
    if presence == nil {
        p.backoffInitial = 0.05
        p.backoffMax = 0.2
    }
    return BotSpec(options: options, plugins: files, presence: p,
                   transport: transport ?? StreamChatTransport(host: "127.0.0.1", port: port, name: name, connectTimeout: 2, log: transportLog),
                   journal: journal, fsync: .always)
}
