import Foundation
import Synchronization
import ParleyTestSupport

/// A python fixture from `Tests/Fixtures/python/` (the SocketChat server, the
/// REST chat server, ...): a real third-party server, run as a child process
/// on loopback. Every fixture prints `LISTENING <port>` once it listens and
/// runs under `until_stdin_closes.py`.
///
/// `make test` creates the virtual environment (`.venv`) it runs in.
final class PythonPeer: Sendable {
    let process: Process
    let port: Int
    /// Our end of its stdin: when it closes (stop(), or this test process dies
    /// by any signal) the server stops instead of lingering on its port.
    private let stdin: Pipe

    static var python: String { packageRoot.appendingPathComponent(".venv/bin/python").path }

    private init(process: Process, port: Int, stdin: Pipe) {
        self.process = process
        self.port = port
        self.stdin = stdin
    }

    /// Starts `script` (a file in `Tests/Fixtures/python/`) with `--port`
    /// (0: a free one) and `arguments`, and waits for its `LISTENING <port>` line.
    static func start(script: String, _ arguments: [String] = [], port: Int = 0) async throws -> PythonPeer {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw PeerError("no \(python): run `make test`, or `bash Tests/Fixtures/python/setup-venv.sh`, to create it")
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: python)
        let fixtures = packageRoot.appendingPathComponent("Tests/Fixtures/python")
        p.arguments = [fixtures.appendingPathComponent("until_stdin_closes.py").path,
                       fixtures.appendingPathComponent(script).path, "--port", String(port)] + arguments
        let out = Pipe()
        let input = Pipe()
        p.standardOutput = out
        p.standardInput = input
        p.standardError = FileHandle.nullDevice
        try p.run()
        let reader = out.fileHandleForReading
        let port: Int? = await onOwnThread {
            var seen = ""
            while true {
                let chunk = reader.availableData
                if chunk.isEmpty { return nil }
                seen += String(decoding: chunk, as: UTF8.self)
                if let line = seen.split(separator: "\n").first(where: { $0.hasPrefix("LISTENING ") }) {
                    return Int(line.dropFirst("LISTENING ".count))
                }
            }
        }
        guard let port else {
            p.terminate()
            throw PeerError("the python fixture \(script) did not start (arguments: \(arguments))")
        }
        return PythonPeer(process: p, port: port, stdin: input)
    }

    /// SIGTERM, then wait for it to be gone (the port is free again).
    func stop() async {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGCONT)
        process.terminate()
        for _ in 0..<250 where process.isRunning { try? await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        let process = process
        await onOwnThread { process.waitUntilExit() }
    }

    /// Freezes the process: the TCP connections stay open but nothing is sent,
    /// no pings included (a server that stops answering).
    func freeze() { kill(process.processIdentifier, SIGSTOP) }
    func thaw() { kill(process.processIdentifier, SIGCONT) }
}

/// The python-socketio SocketChat fixture (`socketchat_server.py`).
enum PythonSocketChat {
    static func start(_ arguments: [String] = [], port: Int = 0) async throws -> PythonPeer {
        try await PythonPeer.start(script: "socketchat_server.py", arguments, port: port)
    }
}

struct PeerError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
