/// Refusals in the log: at most one line a second per plugin (or webhook),
/// with a count of the ones held back. A plugin that meets a full outbox on
/// every event of a burst must not write a line per event, nor a flood of
/// badly signed webhook requests a line per request.
struct QuotaLog {
    private struct Entry {
        var logged: Double
        var heldBack = 0
        var latest: String
    }
    private var entries: [String: Entry] = [:]

    /// The line to log now, or nil when this plugin had one less than a second
    /// ago (this one is counted). A line that goes out carries the count of
    /// those held back since the last, if no flush has said it yet.
    mutating func report(plugin: String, _ message: String, now: Double) -> String? {
        if var e = entries[plugin] {
            if now - e.logged < 1 {
                e.heldBack += 1
                e.latest = message
                entries[plugin] = e
                return nil
            }
            entries[plugin] = Entry(logged: now, latest: message)
            return message + Self.more(e.heldBack, since: e.logged, now: now)
        }
        entries[plugin] = Entry(logged: now, latest: message)
        return message
    }

    private static func more(_ n: Int, since: Double, now: Double) -> String {
        n > 0 ? " (and \(n) more like it in the last \(max(1, Int(now - since))) s)" : ""
    }

    /// Whether some plugin has refusals no line has said yet.
    var holdsBack: Bool { entries.values.contains { $0.heldBack > 0 } }

    /// A line per plugin with refusals held back for a second (or any, when `force`).
    mutating func flush(now: Double, force: Bool) -> [(plugin: String, line: String)] {
        var out: [(plugin: String, line: String)] = []
        for (plugin, e) in entries where e.heldBack > 0 && (force || now - e.logged >= 1) {
            out.append((plugin, e.latest + Self.more(e.heldBack - 1, since: e.logged, now: now)))
            entries[plugin] = Entry(logged: now, latest: e.latest)
        }
        return out
    }
}
