import Foundation

/// The bytes of a file the user named: a regular file, a pipe (`<(…)`) or a
/// device (`/dev/null`). `FileManager.contents(atPath:)` reads only the first.
enum InputFile {
    static func read(_ path: String) -> Data? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        do { return try handle.readToEnd() ?? Data() } catch { return nil }
    }
}
