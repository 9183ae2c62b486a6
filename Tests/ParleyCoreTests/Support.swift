import Foundation
import ParleyCore
import ParleyLua
import ParleyWire
import Synchronization

/// Test support: run a bot exactly as `parley plugin test` does, on the
/// big-stack Lua thread, and collect what it did.
let testExecutor = LuaThreadExecutor(name: "parley-tests")

let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

func fixture(_ path: String) -> URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(path)
}

func run(plugins: [(String, String)], script: String, options: BotOptions = BotOptions(name: "parley"),
         journal: String? = nil) async throws -> [BotAction] {
    let steps = try EventScript.parse(script, file: "test").map(\.step)
    let collected = Mutex<[BotAction]>([])
    let host = PluginTestHost(executor: testExecutor)
    try await host.run(options: options, plugins: plugins.map { ($0.0, Array($0.1.utf8)) }, steps: steps, journal: journal) { a in
        collected.withLock { $0.append(a) }
    }
    return collected.withLock { $0 }
}

/// JSONL for a list of events, built from compact tuples.
func message(_ text: String, user: String = "alice", room: String = "lobby") -> String {
    #"{"type":"message","room":"\#(room)","user":"\#(user)","text":\#(JSONText.string(text))}"#
}

extension BotAction {
    var sentText: String? { if case .send(_, let t) = kind { return t } else { return nil } }
    var errorKind: PluginErrorKind? { if case .error(let k, _) = kind { return k } else { return nil } }
    var logText: String? { if case .log(_, let t) = kind { return t } else { return nil } }
}

func temporaryDirectory() throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
}

/// What a throwing call says: its error's text, or "" when it did not throw
/// (the config tests check that a mistake names its key).
func errorText(_ attempt: () throws -> Void) -> String {
    do {
        try attempt()
        return ""
    } catch {
        return "\(error)"
    }
}
