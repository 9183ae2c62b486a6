import NIOCore

/// The members of a broadcast audience that live on one event loop, and the
/// items queued for them: the batching both embedded servers broadcast with.
///
/// A broadcast queues its item, under the owner's lock, on every loop that has
/// members, so each loop receives items in lock order and every member sees
/// them in one order. A loop drains its queue in one task, and consecutive
/// items with the same audience share one batch, so a flood of N items costs
/// one task per loop and one write batch per member, not N of each.
///
/// A class, so that queueing does not copy the queue out of the owner's state
/// and back; only touched with the owner's lock held, hence `@unchecked Sendable`.
package final class LoopMembers<Key: Hashable, Member, Item>: @unchecked Sendable {
    /// Items that go to the same members.
    package struct Batch {
        package var items: [Item]
        package let members: [Key: Member]
        package let version: UInt64
    }

    package let loop: any EventLoop
    private var members: [Key: Member] = [:]
    /// Bumped on every membership change, so consecutive items with the same
    /// audience share one batch.
    private var version: UInt64 = 0
    private var pending: [Batch] = []
    private var drainScheduled = false

    package init(loop: any EventLoop) { self.loop = loop }

    /// True when `key` was not a member before.
    @discardableResult
    package func add(_ key: Key, _ member: Member) -> Bool {
        version &+= 1
        return members.updateValue(member, forKey: key) == nil
    }

    /// The member under `key`, if it is one.
    package func member(_ key: Key) -> Member? { members[key] }

    package func remove(_ key: Key) -> Bool {
        guard members.removeValue(forKey: key) != nil else { return false }
        version &+= 1
        return true
    }

    /// Queues an item for the current members; true when a drain must be scheduled.
    package func enqueue(_ item: Item) -> Bool {
        guard !members.isEmpty else { return false }
        if let last = pending.indices.last, pending[last].version == version {
            pending[last].items.append(item)
        } else {
            // Copy-on-write: the snapshot costs O(1) until membership changes.
            pending.append(Batch(items: [item], members: members, version: version))
        }
        if drainScheduled { return false }
        drainScheduled = true
        return true
    }

    package func take() -> [Batch] {
        defer { pending = [] }
        drainScheduled = false
        return pending
    }
}
