import Foundation
import Testing
import ParleyTestSupport

/// `parley journal verify | dump | compact` on journals the harness wrote.
struct JournalCLITests {
    let counter = #"bot.command("count", function(m) local n = (bot.state.get("n") or 0) + 1; bot.state.set("n", n); m:reply("ack " .. n) end)"#

    /// A journal with `runs` runs of two !count messages each.
    func makeJournal(runs: Int = 1) throws -> (dir: URL, journal: String, plugin: String) {
        let dir = try temporaryDirectory()
        let plugin = dir.appendingPathComponent("counter.lua")
        try counter.write(to: plugin, atomically: true, encoding: .utf8)
        let journal = dir.appendingPathComponent("journal").path
        let input = String(repeating: #"{"type":"message","room":"lobby","user":"u","text":"!count"}"# + "\n", count: 2)
        for _ in 0..<runs {
            let r = try CLITests.parley(["plugin", "test", plugin.path, "--events", "-", "--journal", journal], stdin: input)
            #expect(r.status == 0, "\(r.stderr)")
        }
        return (dir, journal, plugin.path)
    }

    @Test func verifySummarisesASoundJournal() throws {
        let (dir, journal, _) = try makeJournal()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try CLITests.parley(["journal", "verify", journal])
        #expect(r.status == 0)
        // Per !count: one transaction of the message, the state write and the send intent; the delivery record.
        #expect(r.stdout.contains("ok: 8 records in 4 transactions"), "\(r.stdout)")
        #expect(r.stdout.contains("rooms: 1, plugins: 1"))
    }

    @Test func verifyNamesFileAndOffsetOfDamageAndSalvageRecovers() throws {
        let (dir, journal, plugin) = try makeJournal(runs: 2)
        defer { try? FileManager.default.removeItem(at: dir) }
        let segment = try #require(try FileManager.default.contentsOfDirectory(atPath: journal).first { $0.hasSuffix(".seg") })
        let path = journal + "/" + segment
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        // Damage the middle of the segment, with valid records after it: real corruption, not a torn tail.
        bytes[bytes.count / 2] ^= 0x40
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let r = try CLITests.parley(["journal", "verify", journal])
        #expect(r.status == 1)
        #expect(r.stderr.contains(segment) && r.stderr.contains("offset"), "\(r.stderr)")
        // The harness refuses it too, naming the cause, rather than running on damaged state.
        let run = try CLITests.parley(["plugin", "test", plugin, "--events", "-", "--journal", journal], stdin: "")
        #expect(run.status == 1 && run.stderr.contains(segment))
        let s = try CLITests.parley(["journal", "verify", "--salvage", journal])
        #expect(s.status == 0, "\(s.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: journal).contains { $0.hasSuffix(".broken") })
        let again = try CLITests.parley(["plugin", "test", plugin, "--events", "-", "--journal", journal],
                                        stdin: #"{"type":"message","room":"lobby","user":"u","text":"!count"}"# + "\n")
        #expect(again.status == 0)
    }

    @Test func dumpPrintsRecordsAsJSONLinesWithFilters() throws {
        let (dir, journal, _) = try makeJournal()
        defer { try? FileManager.default.removeItem(at: dir) }
        let all = try CLITests.parley(["journal", "dump", journal])
        let lines = all.stdout.split(separator: "\n")
        #expect(lines.count == 8)
        #expect(lines[1] == #"{"seq":2,"type":"state","plugin":"counter","key":"n","value":1}"#)
        #expect(lines[2].hasPrefix(#"{"seq":3,"type":"send","id":"local-0-2","plugin":"counter","room":"lobby","user":"parley","text":"ack 1""#))
        #expect(lines[3] == #"{"seq":4,"type":"delivered","ids":["local-0-2"]}"#)
        let mine = try CLITests.parley(["journal", "dump", journal, "--plugin", "counter"])
        #expect(mine.stdout.split(separator: "\n").count == 4)
        #expect(mine.stdout.split(separator: "\n").allSatisfy { $0.contains(#""type":"state""#) || $0.contains(#""type":"send""#) })
        let room = try CLITests.parley(["journal", "dump", journal, "--room", "lobby"])
        #expect(room.stdout.split(separator: "\n").count == 4)
        // A filter naming nothing in the journal is a typo: it says what there is.
        let elsewhere = try CLITests.parley(["journal", "dump", journal, "--room", "elsewhere"])
        #expect(elsewhere.stdout.isEmpty && elsewhere.status == 1)
        #expect(elsewhere.stderr.contains("no room 'elsewhere' in journal") && elsewhere.stderr.contains("(rooms: lobby)"), "\(elsewhere.stderr)")
        let nosuch = try CLITests.parley(["journal", "dump", journal, "--plugin", "nosuch"])
        #expect(nosuch.stdout.isEmpty && nosuch.status == 1)
        #expect(nosuch.stderr.contains("no plugin 'nosuch' in journal") && nosuch.stderr.contains("(plugins: counter"), "\(nosuch.stderr)")
    }

    @Test func compactKeepsStateHistoryAndCursors() throws {
        let (dir, journal, plugin) = try makeJournal(runs: 2)
        defer { try? FileManager.default.removeItem(at: dir) }
        let before = try CLITests.parley(["journal", "dump", journal, "--room", "lobby"]).stdout
        let c = try CLITests.parley(["journal", "compact", journal])
        #expect(c.status == 0, "\(c.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: journal).contains { $0.hasSuffix(".snap") })
        let after = try CLITests.parley(["journal", "dump", journal, "--room", "lobby"]).stdout
        // Same messages, now served from the snapshot.
        func texts(_ s: String) -> [String] { s.split(separator: "\n").map { String($0.split(separator: "\"text\":")[1]) } }
        #expect(texts(before) == texts(after))
        let next = try CLITests.parley(["plugin", "test", plugin, "--events", "-", "--journal", journal],
                                       stdin: #"{"type":"message","room":"lobby","user":"u","text":"!count"}"# + "\n")
        #expect(next.stdout.contains("ack 5"))
    }

    /// Retention options apply to history already in a snapshot too.
    @Test func compactTrimsTheHistoryOfACompactedJournal() throws {
        let (dir, journal, _) = try makeJournal(runs: 2)
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(try CLITests.parley(["journal", "compact", journal]).status == 0)
        let c = try CLITests.parley(["journal", "compact", journal, "--history-max", "1"])
        #expect(c.status == 0, "\(c.stderr)")
        let kept = try CLITests.parley(["journal", "dump", journal, "--room", "lobby"]).stdout.split(separator: "\n")
        #expect(kept.count == 1, "\(kept)")
    }

    /// `verify` and `dump` change nothing, not even a torn tail; no command
    /// makes a journal where there was none.
    @Test func readingChangesNothingAndATypoIsNotAJournal() throws {
        let (dir, journal, _) = try makeJournal()
        defer { try? FileManager.default.removeItem(at: dir) }
        let segment = journal + "/" + (try #require(try FileManager.default.contentsOfDirectory(atPath: journal).first { $0.hasSuffix(".seg") }))
        let handle = try #require(FileHandle(forWritingAtPath: segment))
        handle.seekToEndOfFile()
        handle.write(Data([0x2a, 0, 0, 0, 7]))
        try handle.close()
        let size = try #require(try FileManager.default.attributesOfItem(atPath: segment)[.size] as? Int)
        let v = try CLITests.parley(["journal", "verify", journal])
        #expect(v.status == 0 && v.stdout.contains("torn tail: 5 bytes"), "\(v.stdout)\(v.stderr)")
        // A stopped bot leaves no torn tail: --strict, for a restored backup, fails on one.
        let strict = try CLITests.parley(["journal", "verify", "--strict", journal])
        #expect(strict.status == 1 && strict.stderr.contains("is not as a stopped bot leaves it (--strict)"), "\(strict.stderr)")
        #expect(try CLITests.parley(["journal", "dump", journal]).stdout.split(separator: "\n").count == 8)
        #expect(try FileManager.default.attributesOfItem(atPath: segment)[.size] as? Int == size)

        let empty = dir.appendingPathComponent("empty").path
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: false)
        let e = try CLITests.parley(["journal", "verify", empty])
        #expect(e.status == 1 && e.stderr.contains("parley: \(empty) holds no journal: no segment or snapshot files"), "\(e.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: empty).isEmpty)
        // A first segment whose header a crash cut short is an empty journal, as
        // the bot opens it; a copy cut short looks the same, so it is named,
        // and --strict fails on it.
        for size in [0, 10] {
            let short = dir.appendingPathComponent("short\(size)").path
            try FileManager.default.createDirectory(atPath: short, withIntermediateDirectories: false)
            try Data(repeating: 0x50, count: size).write(to: URL(fileURLWithPath: short + "/00000000000000000001.seg"))
            let r = try CLITests.parley(["journal", "verify", short])
            #expect(r.status == 0 && r.stdout.contains("0 records"), "\(size) bytes: \(r.stdout)\(r.stderr)")
            #expect(r.stdout.contains("torn segment: \(short)/00000000000000000001.seg has an incomplete header"), "\(r.stdout)")
            #expect(try CLITests.parley(["journal", "verify", "--strict", short]).status == 1)
        }
        // A sound journal passes --strict.
        let (soundDir, sound, _) = try makeJournal()
        defer { try? FileManager.default.removeItem(at: soundDir) }
        #expect(try CLITests.parley(["journal", "verify", "--strict", sound]).status == 0)
        let typo = dir.appendingPathComponent("jounral").path
        for command in [["verify"], ["dump"], ["compact"]] {
            let r = try CLITests.parley(["journal"] + command + [typo])
            #expect(r.status == 1 && r.stderr.contains("no such journal directory"), "\(command): \(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: typo))
        let file = dir.appendingPathComponent("afile").path
        try Data().write(to: URL(fileURLWithPath: file))
        for command in [["verify"], ["dump"], ["compact"]] {
            let r = try CLITests.parley(["journal"] + command + [file])
            #expect(r.status == 1 && r.stderr.contains("\(file) is a file; a journal is a directory"), "\(command): \(r.stderr)")
        }
    }
}
