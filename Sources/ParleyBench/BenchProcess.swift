import Foundation

/// Figures from /proc/PID/status, and what a bench needs to start a child.
enum BenchProcess {
    /// This binary, for the benches that run a bot in a child process of its own.
    static var executable: String { URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path }

    /// Writes out the machine's dirty pages before a bench that times
    /// `fdatasync`. On ext4 a sync can wait behind other files' writeback, and
    /// a build leaves hundreds of MB of freshly linked binaries that the
    /// kernel writes out some 30 s later: commits of tens of ms in whichever
    /// slice that meets, where the syncs sampled beside it may not.
    static func settleDisk() { sync() }

    /// An empty folder under the temporary directory (a stale one from an
    /// interrupted run is removed first); the caller removes it when done.
    static func scratchDirectory(_ name: String) throws -> String {
        let dir = scratchPath(name)
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Where `scratchDirectory(name)` is, for this bench process.
    static func scratchPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(getpid())").path
    }

    static func statusKiB(_ pid: Int32, _ field: String) -> Int? {
        guard let s = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = s.split(separator: "\n").first(where: { $0.hasPrefix(field) }) else { return nil }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    }

    static func highWaterKiB(_ pid: Int32) -> Int { statusKiB(pid, "VmHWM:") ?? 0 }
}
