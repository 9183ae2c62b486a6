import NIOCore

/// The sockets of one room, grouped by their sessions' event loops, and the
/// packets queued for each loop.
///
/// Only touched with the room's lock held. A broadcast queues its packet, with
/// a snapshot of the members, on every loop that has members; so each loop
/// receives packets in lock order and every member sees the room's packets in
/// one order. Each loop drains its queue in one task: every session gets all
/// packets queued since the last drain and one flush, so a flood of N packets
/// costs one task per loop and one write batch per session, not N of each.
struct RoomAudience {
    private var loops: [ObjectIdentifier: LoopAudience] = [:]
    private(set) var count = 0

    mutating func add(_ socketID: String, _ session: EngineIOSession) {
        let key = ObjectIdentifier(session.loop)
        let members = loops[key] ?? LoopAudience(loop: session.loop)
        loops[key] = members
        if members.add(socketID, session) { count += 1 }
    }

    mutating func remove(_ socketID: String, _ session: EngineIOSession) -> Bool {
        guard let members = loops[ObjectIdentifier(session.loop)], members.remove(socketID) else { return false }
        count -= 1
        return true
    }

    /// Queues `packet` for every member; returns the loops that need a drain scheduled.
    func enqueue(_ packet: OutboundPacket) -> [LoopAudience] {
        loops.values.filter { $0.enqueue(packet) }
    }
}

/// The members on one event loop and the packets queued for them. A class, so
/// that queueing does not copy the queue out of the room's state and back;
/// only touched with the room's lock held, hence `@unchecked Sendable`.
final class LoopAudience: @unchecked Sendable {
    let loop: any EventLoop
    private var members: [String: EngineIOSession] = [:]
    /// Bumped on every membership change, so consecutive packets with the
    /// same audience share one batch.
    private var version: UInt64 = 0
    private var pending: [Batch] = []
    private var drainScheduled = false

    init(loop: any EventLoop) { self.loop = loop }

    func add(_ socketID: String, _ session: EngineIOSession) -> Bool {
        version &+= 1
        return members.updateValue(session, forKey: socketID) == nil
    }

    func remove(_ socketID: String) -> Bool {
        guard members.removeValue(forKey: socketID) != nil else { return false }
        version &+= 1
        return true
    }

    /// True when a drain must be scheduled.
    func enqueue(_ packet: OutboundPacket) -> Bool {
        guard !members.isEmpty else { return false }
        if let last = pending.indices.last, pending[last].version == version {
            pending[last].packets.append(packet)
        } else {
            // Copy-on-write: the snapshot costs O(1) until membership changes.
            pending.append(Batch(packets: [packet], members: members, version: version))
        }
        if drainScheduled { return false }
        drainScheduled = true
        return true
    }

    func take() -> [Batch] {
        defer { pending = [] }
        drainScheduled = false
        return pending
    }

    /// Packets that go to the same members.
    struct Batch {
        var packets: [OutboundPacket]
        let members: [String: EngineIOSession]
        let version: UInt64

        /// Runs on the members' event loop.
        func deliver() {
            for session in members.values { session.deliver(packets) }
        }
    }
}
