import Foundation
import ParleyCore
import ParleyRuntime
import ParleyLua
import ParleyWire
import Synchronization
import ParleyTestSupport

/// Test support: run a bot exactly as `parley plugin test` does, on the
/// big-stack Lua thread, and collect what it did.
let testExecutor = BotLoop(name: "parley-tests")

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
    var errorText: String? { if case .error(_, let t) = kind { return t } else { return nil } }
}
