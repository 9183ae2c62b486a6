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

    private struct State {
        var nextID: ConnectionID = 0
        var connections: [ConnectionID: any Channel] = [:]
        var loops: [ObjectIdentifier: LoopChannels] = [:]
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
    func join(_ id: ConnectionID, channel: any Channel, name: String) {
        let line = ByteBuffer(bytes: StreamChat.ServerLine.joined(name).encoded)
        state.withLock { s in
            guard !s.isClosing else { return }
            observe(.joined(name))
            let key = ObjectIdentifier(channel.eventLoop)
            let members = s.loops[key] ?? LoopChannels(loop: channel.eventLoop)
            s.loops[key] = members
            members.add(id, channel)
            s.stats.registeredClients += 1
            broadcast(line, in: s)
        }
    }

    /// Removes a member and tells the others; nothing is said while shutting down.
    func leave(_ id: ConnectionID, channel: any Channel, name: String) {
        let line = ByteBuffer(bytes: StreamChat.ServerLine.left(name).encoded)
        state.withLock { s in
            guard let members = s.loops[ObjectIdentifier(channel.eventLoop)], members.remove(id) else { return }
            s.stats.registeredClients -= 1
            if !s.isClosing {
                observe(.left(name))
                broadcast(line, in: s)
            }
        }
    }

    /// Sends `user::text` to every member, the sender included.
    func relay(from user: String, text: String) {
        let line = ByteBuffer(bytes: StreamChat.ServerLine.message(user: user, text: text).encoded)
        state.withLock { s in
            guard !s.isClosing else { return }
            observe(.message(user: user, text: text))
            s.stats.messagesRelayed += 1
            broadcast(line, in: s)
        }
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
