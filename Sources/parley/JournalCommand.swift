import ArgumentParser
import Foundation
import ParleyCore
import ParleyStore
import ParleyJournal
import ParleyRuntime
import ParleyWire

/// `parley journal`: look after a bot's journal directory.
struct JournalCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "journal",
        abstract: "Verify, dump and compact a bot journal.",
        subcommands: [Verify.self, Dump.self, Compact.self]
    )

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check every record; exit 0 with a summary when sound, 1 naming the file and offset when not.")
        @Argument(help: "The journal directory.") var directory: String
        @Flag(help: "Keep everything before the first damage and move the rest to a .broken file.")
        var salvage = false
        @Flag(help: "Also exit 1 on a torn tail or a torn segment header, which a crash leaves but a stopped bot's journal never has (check a restored backup with it).")
        var strict = false

        func run() async throws {
            do {
                _ = try existingDirectory(directory)
                if salvage {
                    let report = try Journal.salvage(directory: directory)
                    for d in report.damage { CommandOutput.print("damage: \(d)") }
                    for f in report.brokenFiles { CommandOutput.print("moved to: \(f)") }
                    CommandOutput.print("salvaged: \(report.bytesMoved) bytes moved aside")
                }
                // A bot writing the journal may compact it under the two reads: read again.
                let (s, rooms, plugins) = try againIfChanged(attempts: 5) { () throws -> (JournalSummary, Int, Int) in
                    let s = try Journal.verify(directory: directory)
                    // Rooms and plugins come from the records themselves.
                    var names = JournalNames()
                    try forEachEntry(directory) { _, entry in names.add(entry) }
                    return (s, names.rooms.count, names.plugins.count)
                }
                CommandOutput.print("ok: \(s.records) records in \(s.transactions) transactions, \(s.segments) segments, \(s.bytes) bytes")
                CommandOutput.print("last sequence: \(s.lastSequence)" + (s.snapshotSequence.map { ", snapshot through \($0)" } ?? ""))
                CommandOutput.print("rooms: \(rooms), plugins: \(plugins)")
                if s.tornTailBytes > 0 {
                    CommandOutput.print("torn tail: \(s.tornTailBytes) bytes (an interrupted write, or its last record damaged; the next open truncates it)")
                }
                if let torn = s.tornHeaderSegment {
                    CommandOutput.print("torn segment: \(torn) has an incomplete header (a crash while it was made, or a copy cut short; the next open removes it)")
                }
                for w in s.warnings { CommandOutput.print("warning: \(w)") }
                if strict, s.tornTailBytes > 0 || s.tornHeaderSegment != nil {
                    CommandOutput.print("parley: journal \(directory) is not as a stopped bot leaves it (--strict): see the torn lines above", to: .error)
                    throw ExitCode(1)
                }
            } catch let exit as ExitCode {
                throw exit
            } catch {
                CommandOutput.print("parley: \(error)", to: .error)
                throw ExitCode(1)
            }
        }
    }

    struct Dump: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the journal's records as JSON lines.")
        @Argument(help: "The journal directory.") var directory: String
        @Option(help: "Only this room's messages, sends, moderation steps and cursors.") var room: String?
        @Option(help: "Only this plugin's records: its state, sends, moderation steps and timers.") var plugin: String?

        func run() async throws {
            var printed = 0
            var names = JournalNames()
            do {
                // Read again when a bot compacted the journal under the read before any line went out.
                try againIfChanged(attempts: 5, while: { printed == 0 }) { try forEachEntry(directory) { seq, entry in
                    names.add(entry)
                    var o = JSONObjectWriter()
                    o.add("seq", Int(seq))
                    switch entry {
                    case .state(let p, let key, let value):
                        if room != nil || (plugin != nil && plugin != p) { return }
                        o.add("type", "state"); o.add("plugin", p); o.add("key", key)
                        o.add("value", raw: value?.json ?? "null")
                    case .message(let r, let id, let user, let text, let time, let lastSeen):
                        if plugin != nil || (room != nil && room != r) { return }
                        o.add("type", "message"); o.add("room", r); o.add("id", id); o.add("user", user)
                        o.add("text", text); o.add("time", time)
                        if lastSeen { o.add("last_seen", true) }
                    case .outbox(let e, let sender):
                        if (plugin != nil && plugin != e.plugin) || (room != nil && room != e.room) { return }
                        o.add("type", "send"); o.add("id", e.id); o.add("plugin", e.plugin); o.add("room", e.room)
                        // Left out when the snapshot did not record it.
                        if !sender.isEmpty { o.add("user", sender) }
                        o.add("text", e.text); o.add("time", e.time)
                    case .step(let m):
                        if (plugin != nil && plugin != m.plugin) || (room != nil && room != m.action.room) { return }
                        o.add("type", "moderation"); o.add("id", m.id); o.add("plugin", m.plugin); o.add("room", m.action.room)
                        switch m.action {
                        case .kick(_, let user, let reason):
                            o.add("verb", "kick"); o.add("user", user); o.add("reason", reason)
                        case .mute(_, let user, let seconds, let reason):
                            o.add("verb", "mute"); o.add("user", user); o.add("seconds", seconds); o.add("reason", reason)
                        case .delete(_, let message):
                            o.add("verb", "delete"); o.add("message", message)
                        }
                        if let after = m.after { o.add("after", after) }
                        o.add("time", m.time)
                    case .delivered(let ids):
                        if plugin != nil || room != nil { return }
                        o.add("type", "delivered"); o.add("ids", raw: "[" + ids.map(JSONText.string).joined(separator: ",") + "]")
                    case .timer(let p, let t):
                        if room != nil || (plugin != nil && plugin != p) { return }
                        o.add("type", "timer"); o.add("plugin", p); o.add("name", t.name); o.add("due", t.due)
                        o.add(t.repeats ? "every" : "after", t.seconds)
                        if let data = t.data { o.add("data", raw: data.json) }
                    case .timerDrop(let p, let name):
                        if room != nil || (plugin != nil && plugin != p) { return }
                        o.add("type", "timer_drop"); o.add("plugin", p); o.add("name", name)
                    case .lastSeen(let r, let c):
                        if plugin != nil || (room != nil && room != r) { return }
                        o.add("type", "last_seen"); o.add("room", r); o.add("cursor", c.cursor); o.add("time", c.time)
                    }
                    CommandOutput.print(o.finish())
                    printed += 1
                } }
                // A filter that names nothing in the journal is a typo, not an empty answer.
                if let plugin, !names.plugins.contains(plugin) {
                    CommandOutput.print("parley: no plugin '\(plugin)' in journal \(directory) (plugins: \(names.list(names.plugins)))", to: .error)
                    throw ExitCode(1)
                }
                if let room, !names.rooms.contains(room) {
                    CommandOutput.print("parley: no room '\(room)' in journal \(directory) (rooms: \(names.list(names.rooms)))", to: .error)
                    throw ExitCode(1)
                }
            } catch let exit as ExitCode {
                throw exit
            } catch JournalError.changedWhileRead(let dir) where printed > 0 {
                CommandOutput.print("""
                    parley: journal \(dir) changed while it was read (the bot writing it compacted it): \
                    the \(printed) lines above are right but the rest is not printed; dump it again, or dump a stopped bot's journal
                    """, to: .error)
                throw ExitCode(1)
            } catch {
                CommandOutput.print("parley: \(error)", to: .error)
                throw ExitCode(1)
            }
        }
    }

    struct Compact: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the bot's state and history as one snapshot and drop the segments it covers.")
        @Argument(help: "The journal directory.") var directory: String
        @Option(parsing: .unconditional, help: "Also drop history older than this many days (the bot's history_days). Default: keep it all.")
        var historyDays: Double?
        @Option(parsing: .unconditional, help: "Also keep at most this many messages per room (the bot's history_max). Default: keep them all.")
        var historyMax: Int?

        func validate() throws {
            let days = HistoryRetention.days, messages = HistoryRetention.messages
            if let d = historyDays, !days.contains(d) {
                throw ValidationError("--history-days must be from \(days.lowerBound) to \(Int(days.upperBound)), as the config's history_days")
            }
            if let m = historyMax, !messages.contains(m) {
                throw ValidationError("--history-max must be from 1 to \(messages.upperBound), as the config's history_max")
            }
        }

        func run() async throws {
            do {
                // Retention is the bot's setting: without the options nothing is trimmed here.
                let history = HistoryRetention(maxMessagesPerRoom: historyMax ?? .max, maxAge: (historyDays ?? .infinity) * 86_400)
                // Only a journal that is there: opening a typo would create one.
                _ = try Journal.read(directory: try existingDirectory(directory))
                let store = try JournalStore.open(directory: directory, history: history, compaction: .off)
                defer { store.close() }
                try store.compact()
                let s = try? Journal.verify(directory: directory)
                CommandOutput.print("compacted: snapshot through \(s?.snapshotSequence ?? 0), \(s?.segments ?? 0) segments left")
            } catch {
                CommandOutput.print("parley: \(error)", to: .error)
                throw ExitCode(1)
            }
        }
    }
}

/// Every entry of a journal in order: the snapshot's (at its sequence) then each record's.
/// Reads without changing a byte (`Journal.read`), so it may look at a running bot's journal.
private func forEachEntry(_ directory: String, _ body: (UInt64, JournalStore.Entry) throws -> Void) throws {
    let recovery = try Journal.read(directory: try existingDirectory(directory))
    if let snap = recovery.snapshot {
        for e in try JournalStore.decode(snapshot: snap.bytes) { try body(snap.sequence, e) }
    }
    try recovery.forEachTransaction { txn in
        for (i, r) in txn.records.enumerated() {
            if let e = try JournalStore.decode(r) { try body(txn.firstSequence + UInt64(i), e) }
        }
    }
}

/// `body`, run again (up to `attempts` times in all) when it failed because a
/// bot changed the journal under the read and `again` still allows it.
private func againIfChanged<T>(attempts: Int, while again: () -> Bool = { true }, _ body: () throws -> T) throws -> T {
    var attempt = 1
    while true {
        do {
            return try body()
        } catch JournalError.changedWhileRead where attempt < attempts && again() {
            attempt += 1
        }
    }
}

/// `directory`, or a plain error when it is not one: every `journal` command
/// starts with this, so a typo never creates or reads an empty journal.
private func existingDirectory(_ directory: String) throws -> String {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else {
        throw ValidationError("\(directory): no such journal directory")
    }
    guard isDirectory.boolValue else { throw ValidationError("\(directory) is a file; a journal is a directory") }
    return directory
}

/// The rooms and plugins a journal's records name, for `verify`'s summary
/// and for `dump`'s check of its filters.
struct JournalNames {
    var rooms: Set<String> = []
    var plugins: Set<String> = []

    mutating func add(_ entry: JournalStore.Entry) {
        switch entry {
        case .state(let p, _, _), .timer(let p, _), .timerDrop(let p, _): plugins.insert(p)
        case .message(let r, _, _, _, _, _), .lastSeen(let r, _): rooms.insert(r)
        case .outbox(let e, _): rooms.insert(e.room); plugins.insert(e.plugin)
        case .step(let m): rooms.insert(m.action.room); plugins.insert(m.plugin)
        case .delivered: break
        }
    }

    /// At most ten names, sorted, for an error line.
    func list(_ names: Set<String>) -> String {
        if names.isEmpty { return "none" }
        let sorted = names.sorted()
        return sorted.prefix(10).joined(separator: ", ") + (sorted.count > 10 ? ", … \(sorted.count - 10) more" : "")
    }
}
