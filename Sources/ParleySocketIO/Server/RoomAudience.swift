import NIOCore
import ParleyNet

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

    /// The session a member socket lives in; nil when it is not a member.
    func session(of socketID: String) -> EngineIOSession? {
        for members in loops.values {
            if let session = members.member(socketID) { return session }
        }
        return nil
    }

    func contains(_ socketID: String) -> Bool { session(of: socketID) != nil }

    /// Queues `packet` for every member; returns the loops that need a drain scheduled.
    func enqueue(_ packet: OutboundPacket) -> [LoopAudience] {
        loops.values.filter { $0.enqueue(packet) }
    }
}

/// A room's audience on one event loop: sockets, and the packets queued for them.
typealias LoopAudience = LoopMembers<String, EngineIOSession, OutboundPacket>

extension LoopMembers.Batch where Key == String, Member == EngineIOSession, Item == OutboundPacket {
    /// Runs on the members' event loop. A packet that skips a member (its
    /// own message, or a kind it asked not to get) is left out of that
    /// member's batch only: the others share the one array, however large
    /// the room.
    func deliver() {
        var skipped = Set(items.compactMap(\.skipping))
        for item in items where !item.unwanted.isEmpty { skipped.formUnion(item.unwanted) }
        for (socketID, session) in members {
            guard skipped.contains(socketID) else {
                session.deliver(items)
                continue
            }
            let mine = items.filter { !$0.skips(socketID) }
            if !mine.isEmpty { session.deliver(mine) }
        }
    }
}
