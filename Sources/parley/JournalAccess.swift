import Foundation

/// Whether `run` can write a bot's journal: `check` reports it, and `run`
/// refuses to start without it, rather than fail when the journal first
/// needs a new file, which may be hours later.
enum JournalAccess {
    /// Why `run` could not open each journal that has a problem, by path. A
    /// journal must be a directory whose files it may read and write, or one
    /// `run` can make (its nearest existing parent is a directory it may
    /// write to). Permission bits are not the whole answer (procfs refuses
    /// even root), so a directory is made there and removed: once per
    /// parent, which a fleet's journals (`/data/{bot}`) share.
    static func problems(_ paths: [String]) -> [String: String] {
        var probed: [String: String?] = [:], out: [String: String] = [:]
        for path in paths { out[path] = problem(path, probed: &probed) }
        return out
    }

    /// `probed`: each parent probed so far, with why it refused a directory.
    private static func problem(_ path: String, probed: inout [String: String?]) -> String? {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { return "journal \(path) is a file, not a directory" }
            // `run` appends to it: an existing directory must be writable too.
            guard access(path, W_OK | X_OK) == 0 else {
                return errno == EROFS ? "journal \(path) is on a read-only file system"
                    : "journal \(path) is a directory this user may not write to"
            }
            // And so must its files (a journal restored as another user, say): `run` reads, appends to, cuts and locks them.
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
            for name in names where access(path + "/" + name, R_OK | W_OK) != 0 {
                return "journal \(path) holds \(name), a file this user may not read and write"
            }
            return nil
        }
        var parent = URL(fileURLWithPath: path).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: parent.path, isDirectory: &isDirectory) { parent.deleteLastPathComponent() }
        guard isDirectory.boolValue, access(parent.path, W_OK) == 0 else {
            if isDirectory.boolValue, errno == EROFS { return "journal \(path) cannot be made: \(parent.path) is on a read-only file system" }
            return "journal \(path) cannot be made: \(parent.path) is not a directory this user may write to"
        }
        if probed[parent.path] == nil {
            var probe = Array((parent.path + "/.parley-check-XXXXXX").utf8CString)
            if let made = mkdtemp(&probe) {
                rmdir(made)
                probed[parent.path] = .some(nil)
            } else {
                probed[parent.path] = .some("refuses a directory (\(String(cString: strerror(errno))))")
            }
        }
        if let why = probed[parent.path] ?? nil { return "journal \(path) cannot be made: \(parent.path) \(why)" }
        return nil
    }
}
