#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs saved inputs through a target once each: how `make test` keeps the
/// corpus and every past crash passing, and how a crash file is reproduced
/// in a normal (uninstrumented) build.
public enum FuzzReplay {
    public struct Result: Sendable {
        public var path: String
        public var nanoseconds: UInt64
        public var slow: Bool { nanoseconds > FuzzLimits.perInputNanoseconds }
    }

    /// The files at `paths`: a file as itself, a directory as its regular
    /// files (sorted, not recursive, dot files skipped). Missing paths are left out.
    public static func files(in paths: [String]) -> [String] {
        var found: [String] = []
        for path in paths {
            var info = stat()
            guard stat(path, &info) == 0 else { continue }
            if info.st_mode & S_IFMT == S_IFDIR {
                guard let dir = opendir(path) else { continue }
                var names: [String] = []
                while let entry = readdir(dir) {
                    let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                    }
                    if !name.hasPrefix(".") { names.append(path + "/" + name) }
                }
                closedir(dir)
                found += names.sorted().filter { isRegularFile($0) }
            } else if info.st_mode & S_IFMT == S_IFREG {
                found.append(path)
            }
        }
        return found
    }

    /// The subdirectories of `path` (sorted): one per target under Corpus/ and Regressions/.
    public static func directories(in path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var found: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            var info = stat()
            if !name.hasPrefix("."), stat(path + "/" + name, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
                found.append(path + "/" + name)
            }
        }
        return found.sorted()
    }

    /// Runs each file through `target`, timing it in thread CPU time.
    public static func run(_ target: FuzzTarget, files: [String]) -> [Result] {
        files.map { path in
            let bytes = read(path) ?? []
            let ns = bytes.withUnsafeBytes { FuzzClock.time(target, $0) }
            return Result(path: path, nanoseconds: ns)
        }
    }

    public static func read(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if n == 0 { break }
            bytes += chunk[0..<n]
        }
        return bytes
    }

    private static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }
}
