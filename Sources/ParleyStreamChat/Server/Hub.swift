import NIOCore
import ParleyNet
import ParleyWire
import Synchronization

/// The room: who is connected, who has a name, and the broadcast.
///
/// Connections live on several event loops, so membership sits behind one
/// lock. A broadcast encodes its line once and queues it, with a snapshot of
/// the members, on every event loop that has members, all while holding the
/// lock: each loop therefore receives lines in lock order, and every client
/// sees the same lines in the same order (a join before the messages that
/// follow it, its own echo among the others).
///
/// Each loop drains its queue in one task: every client gets all the lines
/// queued since the last drain and one flush, so under load N lines cost one
/// `writev` per client instead of N `write`s, and N lines cost one task per
/// loop instead of one per client.
final class Hub: Sendable {
    typealias ConnectionID = UInt64

    enum Admission {
        case admitted(ConnectionID)
        case full(Int)
        case closing
    }

    /// What became of a `MSG`.
    enum Relay: Equatable {
        case relayed
        /// The sender is muted this many more seconds, for `reason`: it gets `::DROPPED::`.
        case muted(seconds: Double, reason: String)
        /// The sender is not in the room (kicked, its close on the way): nothing happens.
        case notMember
    }

    private struct Mute {
        var until: NIODeadline
        var reason: String
    }

    private struct State {
        var nextID: ConnectionID = 0
        var connections: [ConnectionID: any Channel] = [:]
        var loops: [ObjectIdentifier: LoopChannels] = [:]
        /// The members' names, one connection each (`join` takes a name over).
        var names: [ConnectionID: String] = [:]
        /// The same, by name: a join finds the connection it takes over
        /// without walking a room of thousands.
        var holders: [String: ConnectionID] = [:]
        /// By name; an expired entry goes when its user next speaks.
        var mutes: [String: Mute] = [:]
        var stats = StreamChatServer.Stats()
        var isClosing = false
    }

    private let state = Mutex(State())
    private let maxConnections: Int
    private let observe: @Sendable (StreamChat.ServerLine) -> Void

    init(maxConnections: Int, observe: @escaping @Sendable (StreamChat.ServerLine) -> Void = { _ in }) {
        self.maxConnections = maxConnections
        self.observe = observe
    }

    var stats: StreamChatServer.Stats { state.withLock { $0.stats } }

    /// Counts a new connection in, unless the server is full or shutting down.
    func admit(_ channel: any Channel) -> Admission {
        state.withLock { s in
            if s.isClosing { return .closing }
            if s.connections.count >= maxConnections { return .full(s.connections.count) }
            s.nextID += 1
            s.connections[s.nextID] = channel
            s.stats.connectedClients = s.connections.count
            return .admitted(s.nextID)
        }
    }

    /// Forgets a closed connection.
    func release(_ id: ConnectionID) {
        state.withLock { s in
            s.connections[id] = nil
            s.stats.connectedClients = s.connections.count
        }
    }

    /// Makes the connection a member and tells everyone, the newcomer included.
    /// A name another connection holds is taken over: that one is told
    /// (`::TAKEN::`), leaves and is closed, so no two connections speak as
    /// one person and a client back from a link the server still holds (a
    /// bot reconnecting after a silent drop) gets its name at once.
    func join(_ id: ConnectionID, channel: any Channel, name: String) {
        let line = StreamChat.ServerLine.joined(name)
        let bytes = ByteBuffer(bytes: line.encoded)
        state.withLock { s in
            guard !s.isClosing else { return }
            if let old = s.holders[name], old != id, let held = s.connections[old], remove(old, channel: held, in: &s) {
                let taken = ByteBuffer(bytes: StreamChat.ServerLine.taken("another connection joined as \(Self.quoted(name))").encoded)
                held.eventLoop.execute { held.writeAndFlush(taken, promise: nil) }
                Self.closeAfterQueuedLines(held)
                s.stats.clientsDropped += 1
                emit(.left(name), in: s)
            }
            let key = ObjectIdentifier(channel.eventLoop)
            let members = s.loops[key] ?? LoopChannels(loop: channel.eventLoop)
            s.loops[key] = members
            members.add(id, channel)
            s.names[id] = name
            s.holders[name] = id
            s.stats.registeredClients += 1
            emit(line, bytes, in: s)
        }
    }

    /// Removes a member and tells the others; nothing is said while shutting down.
    /// A member already gone (kicked) is not announced twice.
    func leave(_ id: ConnectionID, channel: any Channel, name: String) {
        let line = StreamChat.ServerLine.left(name)
        let bytes = ByteBuffer(bytes: line.encoded)
        state.withLock { s in
            guard remove(id, channel: channel, in: &s), !s.isClosing else { return }
            emit(line, bytes, in: s)
        }
    }

    /// Called with the lock held: true when `id` was a member.
    private func remove(_ id: ConnectionID, channel: any Channel, in s: inout State) -> Bool {
        guard let members = s.loops[ObjectIdentifier(channel.eventLoop)], members.remove(id) else { return false }
        if let name = s.names[id], s.holders[name] == id { s.holders[name] = nil }
        s.names[id] = nil
        s.stats.registeredClients -= 1
        return true
    }

    /// Sends `user::text` to every member, the sender included, unless the
    /// sender is muted or no longer in the room.
    func relay(from id: ConnectionID, user: String, text: String) -> Relay {
        let line = StreamChat.ServerLine.message(user: user, text: text)
        let bytes = ByteBuffer(bytes: line.encoded)
        return state.withLock { s in
            guard !s.isClosing, s.names[id] != nil else { return .notMember }
            if let mute = s.mutes[user] {
                let left = mute.until - .now()
                if left > .zero { return .muted(seconds: (Double(left.nanoseconds) / 1e9).rounded(.up), reason: mute.reason) }
                s.mutes[user] = nil
            }
            s.stats.messagesRelayed += 1
            emit(line, bytes, in: s)
            return .relayed
        }
    }

    /// A moderator (member `by`) removes `user`: the room, `user` included,
    /// gets `::KICKED::`, then `user`'s connection is closed behind it and
    /// the others get `has left`. Returns why not, or nil.
    func kick(_ user: String, reason: String, by moderator: ConnectionID) -> String? {
        state.withLock { s in
            guard !s.isClosing, s.names[moderator] != nil else { return "you are not in the room" }
            guard let victim = s.holders[user] else { return "no user \(Self.quoted(user)) in the room" }
            emit(.kicked(user: user, reason: reason), in: s)
            if let channel = s.connections[victim], remove(victim, channel: channel, in: &s) {
                Self.closeAfterQueuedLines(channel)
                emit(.left(user), in: s)
            }
            return nil
        }
    }

    /// A moderator (member `by`) silences `user` for `seconds`: the room hears
    /// it once (`::MUTED::`), and each `MSG` of theirs until then is dropped.
    func mute(_ user: String, seconds: Double, reason: String, by moderator: ConnectionID) -> String? {
        state.withLock { s in
            guard !s.isClosing, s.names[moderator] != nil else { return "you are not in the room" }
            guard s.holders[user] != nil else { return "no user \(Self.quoted(user)) in the room" }
            s.mutes[user] = Mute(until: .now() + .milliseconds(Int64(seconds * 1000)), reason: reason)
            emit(.muted(user: user, seconds: seconds, reason: reason), in: s)
            return nil
        }
    }

    /// Closes a connection once the lines already queued for it are written (its
    /// loop drains them first), or after 5 s if the client does not read them.
    static func closeAfterQueuedLines(_ channel: any Channel) {
        channel.eventLoop.execute {
            channel.writeAndFlush(ByteBuffer()).whenComplete { _ in channel.close(promise: nil) }
        }
        channel.eventLoop.scheduleTask(in: .seconds(5)) { channel.close(promise: nil) }
    }

    /// Client text in a reply or log line: escaped, so it cannot forge lines, and cut short.
    static func quoted(_ text: String) -> String {
        (text.count > 64 ? String(text.prefix(64)) + "…" : text).debugDescription
    }

    func countRefused() { state.withLock { $0.stats.framesRefused += 1 } }
    func countDropped() { state.withLock { $0.stats.clientsDropped += 1 } }

    /// Stops all admissions and broadcasts and returns every open connection for closing.
    func closeAll() -> [any Channel] {
        state.withLock { s in
            s.isClosing = true
            return Array(s.connections.values)
        }
    }

    /// Called with the lock held: shows the line to `observe`, then broadcasts
    /// it; `bytes` is the line already encoded outside the lock, for the frequent ones.
    private func emit(_ line: StreamChat.ServerLine, _ bytes: ByteBuffer? = nil, in s: State) {
        observe(line)
        broadcast(bytes ?? ByteBuffer(bytes: line.encoded), in: s)
    }

    /// Called with the lock held; see the type's comment for why.
    private func broadcast(_ line: ByteBuffer, in s: State) {
        for members in s.loops.values where members.enqueue(line) {
            members.loop.execute {
                // Taken under the lock so no broadcast slips between take and reschedule.
                let batches = self.state.withLock { _ in members.take() }
                for batch in batches { batch.write() }
            }
        }
    }
}

/// A hub's audience on one event loop: connections, and the lines queued for them.
typealias LoopChannels = LoopMembers<Hub.ConnectionID, any Channel, ByteBuffer>

extension LoopMembers.Batch where Member == any Channel, Item == ByteBuffer {
    /// Runs on the members' event loop: one flush per client for all its lines.
    func write() {
        for channel in members.values {
            for line in items { channel.write(line, promise: nil) }
            channel.flush()
        }
    }
}
