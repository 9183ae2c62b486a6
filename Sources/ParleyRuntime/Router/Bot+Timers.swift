import Foundation
import ParleyCore
import ParleyLua
import ParleyStore

/// The bot's clock: plugin timers and typing timeouts, fired in due order.
extension Bot {
    /// `[bot] timezone`: `bot.cron` reads its schedules in it.
    var timeZone: TimeZone { options.timeZone }

    /// When `advance` next has something to do (a timer or a typing timeout); nil when nothing is scheduled.
    public var nextDue: Double? {
        let typing = typingOn.values.lazy.map { $0.since + self.options.typingTimeout }.min()
        return Self.earlier(typing, timers.first?.due)
    }

    /// The earlier of two times, either of which may be absent (no array, as this runs every turn).
    static func earlier(_ a: Double?, _ b: Double?) -> Double? {
        guard let a else { return b }
        guard let b else { return a }
        return min(a, b)
    }

    /// Moves the clock forward to `time`, firing due timers and typing
    /// timeouts in time order. Timers that come due together are one
    /// transaction (`BotStore.beginEvent`).
    public func advance(to time: Double) throws(StoreError) -> [BotAction] {
        var firings = Int.max
        return try asOneTransaction { () throws(StoreError) in try fireDue(until: time, firings: &firings) }
    }

    /// As `advance(to:)`, but fires at most `limit` timers: `complete` is
    /// false when more were still due by `time` (the clock then stands at
    /// the last one fired). The bound of `parley plugin test`, whose virtual
    /// clock would otherwise fire an `every(1)` a billion times for a long advance.
    public func advance(to time: Double, firingAtMost limit: Int) throws(StoreError) -> (actions: [BotAction], complete: Bool) {
        var firings = limit
        let out = try asOneTransaction { () throws(StoreError) in try fireDue(until: time, firings: &firings) }
        return (out, firings >= 0)
    }

    /// `firings`: how many timers may still fire; -1 once one more was due.
    private func fireDue(until time: Double, firings: inout Int) throws(StoreError) -> [BotAction] {
        var out: [BotAction] = []
        while true {
            let typingDue = typingOn.min { $0.value.since < $1.value.since }
            let typingTime = typingDue.map { $0.value.since + options.typingTimeout }
            let timerTime = timers.first?.due
            guard let next = Self.earlier(typingTime, timerTime), next <= time else { break }
            now = max(now, next)
            if let typingDue, let typingTime, typingTime <= (timerTime ?? .infinity) {
                typingOn[typingDue.key] = nil
                out.append(BotAction(plugin: typingDue.value.plugin, .typing(room: typingDue.key, on: false)))
                continue
            }
            if firings == 0 {
                firings = -1
                return out
            }
            let entry = timers.removeFirst()
            let p = entry.plugin
            guard !p.isDisabled, p.liveTimers.contains(entry.id) else { continue }
            firings -= 1
            // Handlers before this one took real time: a timer they made late is late.
            if let clock { now = max(now, clock()) }
            // The firing itself is saved with the handler's transaction (even
            // if the handler fails): a once timer is gone, an every timer moves on.
            var fired: [TimerChange] = []
            if let next = nextDue(after: entry) {
                var again = entry
                again.due = next
                schedule(again)
                if let name = entry.name {
                    fired.append(.set(SavedTimer(name: name, due: next, seconds: entry.seconds, repeats: true, data: entry.data,
                                                 cron: entry.cron?.spec.text, atLoad: entry.atLoad)))
                }
            } else {
                p.forget(entry.id)
                if let name = entry.name { fired.append(.drop(name: name)) }
            }
            let publicName = entry.name.flatMap { $0.hasPrefix("#") ? nil : $0 }
            out += try deliver(to: p, kind: "timer", fired: fired) { w in
                w.beginTable(array: 0, pairs: 2 + (publicName == nil ? 0 : 1) + (entry.data == nil ? 0 : 1))
                w.key(.id); w.write(entry.id)
                w.key(.once); w.write(entry.interval == nil && entry.cron == nil)
                if let publicName { w.key(.name); w.write(publicName) }
                if let data = entry.data { w.key(.data); w.write(data) }
            }
        }
        now = max(now, time)
        return out
    }

    /// When a timer that fired now fires again; nil for a once timer. Late
    /// (the bot was stopped, or busy) it fired once: an every timer keeps its
    /// phase, but skips a slot less than half a period away (two firings in
    /// a moment read as one doubled), and a cron timer takes the first slot after now.
    func nextDue(after entry: TimerEntry) -> Double? {
        if let cron = entry.cron { return cron.next(after: now) }
        guard let interval = entry.interval else { return nil }
        var next = entry.due + interval
        if next <= now {
            next = entry.due + interval * (((now - entry.due) / interval).rounded(.down) + 1)
            if next <= now { next += interval }
        }
        if now > entry.due, next - now < interval / 2 { next += interval }
        return next
    }

    func schedule(_ e: TimerEntry) {
        var e = e
        timerOrder += 1
        e.order = timerOrder
        let i = timers.firstIndex { ($0.due, $0.order) > (e.due, e.order) } ?? timers.count
        timers.insert(e, at: i)
    }
}
