import ParleyCore

/// Sends waiting for the transport, in the order plugins made them.
///
/// A send stays here until the transport confirms it (then its delivery is
/// recorded in the journal) or until it expires while the bot is offline
/// (then it is dropped with a log line, and recorded as done so a restart
/// does not send it either).
struct Outbox {
    struct Entry: Sendable, Equatable {
        var id: String
        var plugin: String
        var room: String
        var text: String
        /// When the plugin sent it (wall clock, seconds since 1970).
        var queued: Double
    }

    private(set) var entries: [Entry] = []
    private var head = 0
    let expiry: Double

    init(expiry: Double) { self.expiry = expiry }

    var isEmpty: Bool { head >= entries.count }
    var count: Int { entries.count - head }
    var first: Entry? { isEmpty ? nil : entries[head] }

    mutating func append(_ e: Entry) { entries.append(e) }

    mutating func removeFirst() {
        head += 1
        if head > 64 && head * 2 > entries.count {
            entries.removeFirst(head)
            head = 0
        }
    }

    func isExpired(_ e: Entry, now: Double) -> Bool { now - e.queued > expiry }
}
