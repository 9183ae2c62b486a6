import Foundation

/// Figures from /proc/PID/status, and what a bench needs to start a child.
enum BenchProcess {
    /// This binary, for the benches that run a bot in a child process of its own.
    static var executable: String { URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path }

    /// An empty folder under the temporary directory (a stale one from an
    /// interrupted run is removed first); the caller removes it when done.
    static func scratchDirectory(_ name: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(getpid())").path
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    static func statusKiB(_ pid: Int32, _ field: String) -> Int? {
        guard let s = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = s.split(separator: "\n").first(where: { $0.hasPrefix(field) }) else { return nil }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    }

    static func highWaterKiB(_ pid: Int32) -> Int { statusKiB(pid, "VmHWM:") ?? 0 }
}
