import CSQLite
import Foundation
import ParleyJournal
import Synchronization

/// `make bench`, journal part: ParleyJournal against SQLite (WAL) on the same
/// machine in the same run, one 200-byte record per transaction, and the
/// speed of recovery.
///
/// Peers: `.always` ↔ `synchronous=FULL` (both durable on return),
/// `.interval` ↔ `NORMAL` (WAL: durable at checkpoint/interval, never torn),
/// `.never` ↔ `OFF`. SQLite writers are OS threads sharing ONE connection
/// behind a lock, each doing an autocommit INSERT of a prepared statement (a
/// connection per writer would only add SQLite's busy-wait back-off on its
/// single WAL write lock). Parley writers are Swift tasks calling `append`.
/// Every cell runs for a fixed time, so slow fsync cells stay bounded, and
/// the two sides alternate in slices within it: this VM's fsync latency
/// drifts by several times within a minute, and a ratio is only fair when
/// both sides see the same disk.
enum JournalBench {
    static let payloadSize = 200

    static func run(quick: Bool) async throws {
        BenchProcess.settleDisk()
        let cell: Duration = quick ? .milliseconds(200) : .seconds(2)
        let writerCounts = [1, 8, 64]
        let base = try BenchProcess.scratchDirectory("parley-journal-bench")
        defer { try? FileManager.default.removeItem(atPath: base) }

        print("== Journal: ParleyJournal vs SQLite \(String(cString: sqlite3_libversion())) WAL")
        let slices = quick ? 1 : 4
        print("   one \(payloadSize)-byte record per transaction, \(cell) per side per cell in \(slices) alternating slices, directory \(base)")
        print("   SQLite: one shared connection behind a lock, writers are threads, prepared autocommit INSERT")
        print("")
        print("   policy (SQLite peer)       writers   Parley txn/s   SQLite txn/s    ratio")
        let peers: [(FsyncPolicy, String, String)] = [
            (.always, "always   (FULL)  ", "FULL"),
            (.interval(milliseconds: 1000), "interval (NORMAL)", "NORMAL"),
            (.never, "never    (OFF)   ", "OFF"),
        ]
        var ratios: [String: Double] = [:]
        var cellIndex = 0
        for (policy, label, synchronous) in peers {
            for writers in writerCounts {
                cellIndex += 1
                let directory = base + "/parley-\(cellIndex)"
                let path = base + "/sqlite-\(cellIndex).db"
                let (journal, _) = try Journal.open(directory: directory, options: JournalOptions(fsync: policy))
                let connection = try SharedConnection(path: path, synchronous: synchronous)
                var parleyCount = (0, Duration.zero)
                var sqliteCount = (0, Duration.zero)
                for _ in 0..<slices {
                    let p = try await parleySlice(journal, writers: writers, duration: cell / slices)
                    let q = try sqliteSlice(connection, writers: writers, duration: cell / slices)
                    parleyCount = (parleyCount.0 + p.0, parleyCount.1 + p.1)
                    sqliteCount = (sqliteCount.0 + q.0, sqliteCount.1 + q.1)
                }
                try await journal.close()
                connection.close()
                try? FileManager.default.removeItem(atPath: directory)
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
                let parley = Double(parleyCount.0) / seconds(parleyCount.1)
                let sqlite = Double(sqliteCount.0) / seconds(sqliteCount.1)
                let ratio = parley / max(sqlite, 1e-9)
                ratios["\(synchronous)/\(writers)"] = ratio
                print("   \(label)    \(pad(writers, 6))   \(pad(Int(parley), 12))   \(pad(Int(sqlite), 12))   \(fmt(ratio, 1).leftPadded(7))×")
            }
        }
        let always64 = ratios["FULL/64"] ?? 0
        let always1 = ratios["FULL/1"] ?? 0
        let intervalMin = writerCounts.map { ratios["NORMAL/\($0)"] ?? 0 }.min() ?? 0
        print("")
        print("   target always/1 ≥ 1.0× SQLite FULL:      \(fmt(always1, 1))× \(always1 >= 1 ? "met" : "NOT met")")
        print("   target always/64 ≥ 20× SQLite FULL:      \(fmt(always64, 1))× \(always64 >= 20 ? "met" : "NOT met")")
        print("   target interval ≥ 5× SQLite NORMAL (min): \(fmt(intervalMin, 1))× \(intervalMin >= 5 ? "met" : "NOT met")")

        let records = quick ? 20_000 : 1_000_000
        try await recoveryBench(records: records, directory: base + "/recovery")
        try await snapshotBench(directory: base + "/snapshot")
    }

    // MARK: Parley

    /// `writers` tasks appending one record per transaction for `duration`.
    static func parleySlice(_ journal: Journal, writers: Int, duration: Duration) async throws -> (Int, Duration) {
        let payload = [UInt8](repeating: 0x5a, count: payloadSize)
        let start = ContinuousClock.now
        let deadline = start + duration
        let total = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<writers {
                group.addTask {
                    var n = 0
                    while ContinuousClock.now < deadline {
                        _ = try await journal.append([JournalRecord(type: 1, payload: payload)])
                        n += 1
                    }
                    return n
                }
            }
            return try await group.reduce(0, +)
        }
        return (total, ContinuousClock.now - start)
    }

    // MARK: SQLite

    struct SQLiteError: Error, CustomStringConvertible {
        var description: String
    }

    /// One connection, shared behind a lock by `writers` threads.
    final class SharedConnection: @unchecked Sendable {
        // Guarded by `lock`; SQLite is opened NOMUTEX because of it.
        let db: OpaquePointer
        let insert: OpaquePointer
        let lock = Mutex(())

        init(path: String, synchronous: String) throws {
            var handle: OpaquePointer?
            guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
                  let handle
            else { throw SQLiteError(description: "open \(path)") }
            db = handle
            for sql in [
                "PRAGMA journal_mode=WAL", "PRAGMA synchronous=\(synchronous)",
                "CREATE TABLE IF NOT EXISTS t(id INTEGER PRIMARY KEY, payload BLOB NOT NULL)",
            ] {
                guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
                    throw SQLiteError(description: "\(sql): \(String(cString: sqlite3_errmsg(db)))")
                }
            }
            var stmt: OpaquePointer?
            guard sqlite3_prepare_v2(db, "INSERT INTO t(payload) VALUES (?)", -1, &stmt, nil) == SQLITE_OK, let stmt else {
                throw SQLiteError(description: "prepare: \(String(cString: sqlite3_errmsg(db)))")
            }
            insert = stmt
        }

        /// One autocommit transaction of one row.
        func insertRow(_ payload: [UInt8]) -> Bool {
            lock.withLock { _ in
                let ok = payload.withUnsafeBytes { raw in
                    sqlite3_bind_blob(insert, 1, raw.baseAddress, Int32(raw.count), unsafeBitCast(-1, to: sqlite3_destructor_type.self)) == SQLITE_OK
                } && sqlite3_step(insert) == SQLITE_DONE
                sqlite3_reset(insert)
                return ok
            }
        }

        func close() {
            sqlite3_finalize(insert)
            sqlite3_close(db)
        }
    }

    /// `writers` threads inserting one row per transaction for `duration`.
    static func sqliteSlice(_ connection: SharedConnection, writers: Int, duration: Duration) throws -> (Int, Duration) {
        let payload = [UInt8](repeating: 0x5a, count: payloadSize)
        let start = ContinuousClock.now
        let deadline = start + duration
        let counts = Mutex([Int]())
        let failed = Atomic<Bool>(false)
        let done = DispatchGroup()
        for _ in 0..<writers {
            done.enter()
            Thread.detachNewThread {
                var n = 0
                while ContinuousClock.now < deadline {
                    guard connection.insertRow(payload) else {
                        failed.store(true, ordering: .relaxed)
                        break
                    }
                    n += 1
                }
                counts.withLock { $0.append(n) }
                done.leave()
            }
        }
        done.wait()
        let elapsed = ContinuousClock.now - start
        if failed.load(ordering: .relaxed) {
            throw SQLiteError(description: "INSERT failed: \(String(cString: sqlite3_errmsg(connection.db)))")
        }
        return (counts.withLock { $0.reduce(0, +) }, elapsed)
    }

    // MARK: recovery

    static func recoveryBench(records: Int, directory: String) async throws {
        print("")
        print("== Journal recovery: \(records) records of \(payloadSize) bytes, one per transaction")
        let buildStart = ContinuousClock.now
        do {
            let (journal, _) = try Journal.open(directory: directory, options: JournalOptions(fsync: .never))
            let payload = [UInt8](repeating: 0xa5, count: payloadSize)
            let writers = 16
            try await withThrowingTaskGroup(of: Void.self) { group in
                for w in 0..<writers {
                    group.addTask {
                        for _ in stride(from: w, to: records, by: writers) {
                            _ = try await journal.append([JournalRecord(type: 2, payload: payload)])
                        }
                    }
                }
                try await group.waitForAll()
            }
            try await journal.close()
        }
        let built = ContinuousClock.now - buildStart
        let summary = try Journal.verify(directory: directory)
        let megabytes = Double(summary.bytes) / 1_048_576
        print("   built in \(fmt(seconds(built), 2)) s (.never, 16 writers): \(summary.segments) segments, \(fmt(megabytes, 1)) MiB")

        // open + iterate every transaction (the API a bot uses).
        var start = ContinuousClock.now
        var count = 0
        var payloadBytes = 0
        do {
            let (journal, recovery) = try Journal.open(directory: directory)
            var reader = recovery.transactions()
            while let txn = try reader.next() {
                count += txn.records.count
                payloadBytes += txn.records[0].payload.count
            }
            try await journal.close()
        }
        var elapsed = seconds(ContinuousClock.now - start)
        guard count == records else { throw SQLiteError(description: "recovered \(count) records, expected \(records)") }
        print("   open + iterate transactions: \(fmt(elapsed, 3)) s, \(fmt(megabytes / elapsed, 0)) MiB/s, \(fmt(Double(count) / elapsed / 1e6, 2)) M records/s  (target < 1 s: \(elapsed < 1 ? "met" : "NOT met"))")

        // open + zero-copy record visit.
        start = ContinuousClock.now
        count = 0
        do {
            let (journal, recovery) = try Journal.open(directory: directory)
            try recovery.forEachRecord { _, _, payload, _ in
                count += 1
                payloadBytes &+= payload.count
            }
            try await journal.close()
        }
        elapsed = seconds(ContinuousClock.now - start)
        print("   open + forEachRecord (zero-copy): \(fmt(elapsed, 3)) s, \(fmt(megabytes / elapsed, 0)) MiB/s")

        start = ContinuousClock.now
        _ = try Journal.verify(directory: directory)
        elapsed = seconds(ContinuousClock.now - start)
        print("   verify alone (read + CRC every byte): \(fmt(elapsed, 3)) s, \(fmt(megabytes / elapsed, 0)) MiB/s  (page cache warm)")
    }

    // MARK: formatting

    static func seconds(_ d: Duration) -> Double {
        let c = d.components
        return Double(c.seconds) + Double(c.attoseconds) / 1e18
    }

    static func pad(_ n: Int, _ width: Int) -> String {
        let s = String(n)
        return String(repeating: " ", count: max(0, width - s.count)) + s
    }

    static func fmt(_ x: Double, _ decimals: Int) -> String {
        String(format: "%.\(decimals)f", x)
    }
}

private extension String {
    func leftPadded(_ width: Int) -> String {
        String(repeating: " ", count: max(0, width - count)) + self
    }
}
