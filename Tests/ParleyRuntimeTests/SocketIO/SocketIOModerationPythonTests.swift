import Foundation
import ParleyCore
import ParleySocketIO
import Synchronization
import Testing
import ParleyTestSupport

/// Parley's moderation as a third-party client sees it: a python-socketio
/// client (`kick_watcher.py`) kicked by a Parley bot on the embedded server.
@Suite("SocketChat moderation seen by python-socketio", .timeLimit(.minutes(1)))
struct SocketIOModerationPythonTests {
    @Test func aPythonClientHearsItsKickAndIsDisconnected() async throws {
        let server = try await SocketChatServer.start(.init(moderators: ["bot"]))
        let bot = try await SocketIOTransport(endpoint: SocketIOEndpoint(host: "127.0.0.1", port: server.port), name: "bot",
                                              connectTimeout: 5).connect()
        let watcher = try Watcher(url: "http://127.0.0.1:\(server.port)", name: "bob")
        do {
            #expect(await watcher.waitFor("READY"))
            try await bot.moderate(.kick(room: "lobby", user: "bob", reason: "spam, twice"))
            #expect(await watcher.waitFor("DISCONNECTED"))
            #expect(watcher.lines.contains("KICKED spam, twice"))
            let process = watcher.process
            await onOwnThread { process.waitUntilExit() }
            #expect(watcher.process.terminationStatus == 0)
        } catch {
            watcher.process.terminate()
            await bot.close()
            await server.shutdown()
            throw error
        }
        await bot.leave()
        await server.shutdown()
    }

    /// `kick_watcher.py` as a child process, its stdout collected line by line.
    final class Watcher: Sendable {
        let process = Process()
        private let seen = Mutex<[String]>([])

        var lines: [String] { seen.withLock { $0 } }

        init(url: String, name: String) throws {
            guard FileManager.default.isExecutableFile(atPath: PythonPeer.python) else {
                throw PeerError("no \(PythonPeer.python): run `make test`, or `bash Tests/Fixtures/python/setup-venv.sh`, to create it")
            }
            process.executableURL = URL(fileURLWithPath: PythonPeer.python)
            process.arguments = [packageRoot.appendingPathComponent("Tests/Fixtures/python/kick_watcher.py").path,
                                 "--url", url, "--name", name]
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            let reader = out.fileHandleForReading
            // Reads until the watcher exits: a thread of its own, not Dispatch's few.
            Thread {
                var pending = ""
                while true {
                    let chunk = reader.availableData
                    if chunk.isEmpty { return }
                    pending += String(decoding: chunk, as: UTF8.self)
                    while let nl = pending.firstIndex(of: "\n") {
                        let line = String(pending[..<nl])
                        pending = String(pending[pending.index(after: nl)...])
                        self.seen.withLock { $0.append(line) }
                    }
                }
            }.start()
        }

        func waitFor(_ line: String) async -> Bool {
            await eventually(15) { self.lines.contains(line) }
        }
    }
}
