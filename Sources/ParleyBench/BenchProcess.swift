import Foundation

/// Figures from /proc/PID/status.
enum BenchProcess {
    static func statusKiB(_ pid: Int32, _ field: String) -> Int? {
        guard let s = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = s.split(separator: "\n").first(where: { $0.hasPrefix(field) }) else { return nil }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    }

    static func highWaterKiB(_ pid: Int32) -> Int { statusKiB(pid, "VmHWM:") ?? 0 }
}
