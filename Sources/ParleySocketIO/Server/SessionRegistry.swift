import NIOCore
import Synchronization

/// The server's books: sessions by sid (a polling request may land on any
/// connection and any event loop), open TCP connections (so shutdown can close
/// them), and the counters.
///
/// Membership sits behind one lock; the counters are atomics, because the
/// message path bumps them on every event and must not contend with admissions.
final class SessionRegistry: Sendable {
    enum Admission {
        case admitted
        case full(Int)
        case closing
    }

    private struct State {
        var sessions: [String: EngineIOSession] = [:]
        var connections: [ObjectIdentifier: any Channel] = [:]
        var isClosing = false
    }

    private let state = Mutex(State())
    private let maxConnections: Int
    private let relayed = Atomic<Int>(0)
    private let refused = Atomic<Int>(0)
    private let dropped = Atomic<Int>(0)

    init(maxConnections: Int) {
        self.maxConnections = maxConnections
    }

    var stats: SocketChatServer.Stats {
        var stats = SocketChatServer.Stats()
        stats.sessions = state.withLock { $0.sessions.count }
        stats.messagesRelayed = relayed.load(ordering: .relaxed)
        stats.packetsRefused = refused.load(ordering: .relaxed)
        stats.clientsDropped = dropped.load(ordering: .relaxed)
        return stats
    }

    /// Counts a new TCP connection in, unless the server is full or shutting down.
    func admit(_ channel: any Channel) -> Admission {
        state.withLock { s in
            if s.isClosing { return .closing }
            if s.connections.count >= maxConnections { return .full(s.connections.count) }
            s.connections[ObjectIdentifier(channel)] = channel
            return .admitted
        }
    }

    func release(_ channel: any Channel) {
        _ = state.withLock { $0.connections.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// Makes a new session findable by its sid, unless the server is full or shutting down.
    func register(_ session: EngineIOSession) -> Admission {
        state.withLock { s in
            if s.isClosing { return .closing }
            if s.sessions.count >= maxConnections { return .full(s.sessions.count) }
            s.sessions[session.sid] = session
            return .admitted
        }
    }

    func session(_ sid: String) -> EngineIOSession? {
        state.withLock { $0.sessions[sid] }
    }

    func remove(_ session: EngineIOSession) {
        state.withLock { s in
            if s.sessions[session.sid] === session { s.sessions[session.sid] = nil }
        }
    }

    func countRelayed() { relayed.add(1, ordering: .relaxed) }
    func countRefused() { refused.add(1, ordering: .relaxed) }
    func countDropped() { dropped.add(1, ordering: .relaxed) }

    /// Stops all admissions and returns what is still open, for closing.
    func closeAll() -> (sessions: [EngineIOSession], connections: [any Channel]) {
        state.withLock { s in
            s.isClosing = true
            return (Array(s.sessions.values), Array(s.connections.values))
        }
    }

    /// A fresh random id for an Engine.IO session or a Socket.IO socket: 20
    /// URL-safe characters (120 bits), so ids can be neither guessed nor collide.
    static func makeID() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var rng = SystemRandomNumberGenerator()
        return String(decoding: (0..<20).map { _ in alphabet[Int(rng.next() % 64)] }, as: UTF8.self)
    }
}

/// What every handler, session and room of one server shares.
struct ServerContext: Sendable {
    let config: SocketChatServer.Configuration
    let registry: SessionRegistry
    let rooms: RoomDirectory

    func log(_ line: String) { config.log(line) }

    /// `127.0.0.1:5555`, for log lines.
    func peer(of channel: any Channel) -> String {
        guard let address = channel.remoteAddress else { return "?" }
        switch address {
        case .v4: return "\(address.ipAddress ?? "?"):\(address.port ?? 0)"
        case .v6: return "[\(address.ipAddress ?? "?")]:\(address.port ?? 0)"
        case .unixDomainSocket: return address.pathname ?? "unix"
        }
    }
}
