import NIOCore
import ParleyCore

/// Sends waiting for the transport: each plugin's in the order it made them,
/// the plugins taking turns.
///
/// A send stays here until the transport confirms it (then its delivery is
/// recorded in the journal) or until it expires while the bot is offline
/// (then it is dropped with a log line, and recorded as done so a restart
/// does not send it either).
///
/// Why turns: the rate cap (`[bot.flow] send_rate`) makes sends wait here,
/// and one plugin with hundreds of sends queued (a moderator in a flood)
/// must not hold up another's single reply for minutes. Each plugin's own
/// sends keep their order; between plugins, one send each in rotation.
struct Outbox {
    struct Entry: Sendable, Equatable {
        var id: String
        var plugin: String
        var room: String
        var text: String
        /// When the plugin sent it (wall clock, seconds since 1970).
        var queued: Double
    }

    private var queues: [String: CircularBuffer<Entry>] = [:]
    /// Plugins with waiting sends; the first one's turn is next.
    private var turns: [String] = []
    private(set) var count = 0
    let expiry: Double

    init(expiry: Double) { self.expiry = expiry }

    var isEmpty: Bool { count == 0 }

    /// The send whose turn it is (`removeFirst()` takes this one, even if more were appended meanwhile).
    var first: Entry? { turns.first.flatMap { queues[$0]?.first } }

    mutating func append(_ e: Entry) {
        if queues[e.plugin, default: []].isEmpty { turns.append(e.plugin) }
        queues[e.plugin, default: []].append(e)
        count += 1
    }

    mutating func removeFirst() {
        guard !turns.isEmpty else { return }
        let plugin = turns.removeFirst()
        guard queues[plugin]?.popFirst() != nil else { return }
        count -= 1
        if queues[plugin]?.isEmpty == false { turns.append(plugin) }
    }

    /// Returns sends taken with `removeFirst()` that did not go out (a batch
    /// whose write failed), in their order:
    /// each goes back to the head of its plugin's queue, and those plugins
    /// get the next turns, so a reconnect sends them first, in order.
    mutating func putBack(_ entries: [Entry]) {
        for e in entries.reversed() {
            queues[e.plugin, default: []].prepend(e)
            count += 1
        }
        var order: [String] = []
        for e in entries where !order.contains(e.plugin) { order.append(e.plugin) }
        turns.removeAll { order.contains($0) }
        turns.insert(contentsOf: order, at: 0)
    }

    func isExpired(_ e: Entry, now: Double) -> Bool { now - e.queued > expiry }
}
