/// Timed wake-ups by deadline: a binary min-heap with lazy cancellation.
///
/// `LuaThreadExecutor` keeps one, so a bot's next plugin timer is an entry
/// of a few dozen bytes on its Lua thread instead of a sleeping task (a task
/// object plus its async frames, for every bot, for the whole wait).
struct WakeupHeap {
    struct Entry {
        /// `DispatchTime` uptime, nanoseconds.
        var deadline: UInt64
        var id: UInt64
        var action: @Sendable () -> Void
    }

    private var entries: [Entry] = []
    private var cancelled: Set<UInt64> = []
    /// Ids in the heap and not cancelled: a cancel is O(1), not a scan of
    /// the heap (thousands of bots share a thread, and a bot cancels its
    /// wake-up whenever a sooner timer replaces it).
    private var live: Set<UInt64> = []
    private var nextID: UInt64 = 0

    var isEmpty: Bool { entries.isEmpty }

    /// The soonest deadline, cancelled entries included (waking early for one is harmless).
    var earliest: UInt64? { entries.first?.deadline }

    mutating func insert(deadline: UInt64, _ action: @escaping @Sendable () -> Void) -> UInt64 {
        nextID &+= 1
        entries.append(Entry(deadline: deadline, id: nextID, action: action))
        live.insert(nextID)
        var i = entries.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard entries[i].deadline < entries[parent].deadline else { break }
            entries.swapAt(i, parent)
            i = parent
        }
        return nextID
    }

    /// Forgets an entry; a no-op for one already run or cancelled.
    mutating func cancel(_ id: UInt64) {
        guard live.remove(id) != nil else { return }
        cancelled.insert(id)
    }

    /// Removes and returns the actions due at `now`, soonest first, skipping cancelled ones.
    mutating func popDue(now: UInt64) -> [@Sendable () -> Void] {
        var due: [@Sendable () -> Void] = []
        while let top = entries.first, top.deadline <= now {
            let e = removeFirst()
            if cancelled.remove(e.id) == nil {
                live.remove(e.id)
                due.append(e.action)
            }
        }
        if entries.isEmpty { cancelled.removeAll() }
        return due
    }

    private mutating func removeFirst() -> Entry {
        let first = entries[0]
        let last = entries.removeLast()
        guard !entries.isEmpty else { return first }
        entries[0] = last
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < entries.count, entries[l].deadline < entries[m].deadline { m = l }
            if r < entries.count, entries[r].deadline < entries[m].deadline { m = r }
            if m == i { break }
            entries.swapAt(i, m)
            i = m
        }
        return first
    }
}
