import ArgumentParser
import Dispatch
import Foundation
import ParleyRuntime
import ParleyServers

/// `parley serve`: the embedded StreamChat server on its own, for bots and
/// people on other machines or processes to connect to.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the embedded StreamChat server until SIGINT or SIGTERM."
    )

    @Option(name: .customLong("streamchat"), help: ArgumentHelp("Address to listen on (port 0 picks a free port).", valueName: "host:port"))
    var streamchat = "127.0.0.1:5080"

    @Option(name: .customLong("idle-timeout"), help: ArgumentHelp("Drop a client that sends nothing for this long (0: never).", valueName: "seconds"))
    var idleTimeout: Double = 600

    @Option(name: .customLong("max-connections"), help: "Connections beyond this are closed on accept.")
    var maxConnections = 20_000

    func validate() throws {
        _ = try Self.split(streamchat)
        guard idleTimeout >= 0, idleTimeout.isFinite else { throw ValidationError("--idle-timeout must be 0 or more seconds") }
        guard maxConnections > 0 else { throw ValidationError("--max-connections must be positive") }
    }

    func run() async throws {
        let (host, port) = try Self.split(streamchat)
        let config = StreamChatServer.Configuration(
            host: host,
            port: port,
            idleTimeout: idleTimeout > 0 ? .milliseconds(Int64((idleTimeout * 1000).rounded())) : nil,
            maxConnections: maxConnections,
            log: { line in FileHandle.standardError.write(Data("parley serve: \(line)\n".utf8)) }
        )
        let signals = TerminationSignals()
        let server = try await StreamChatServer.start(config)
        let shown = host.contains(":") ? "[\(host)]" : host
        FileHandle.standardOutput.write(Data("streamchat server listening on \(shown):\(server.port)\n".utf8))

        let received = await signals.next()
        FileHandle.standardError.write(Data("parley serve: \(received == SIGINT ? "SIGINT" : "SIGTERM"), shutting down\n".utf8))
        await server.shutdown()
        let stats = server.stats
        FileHandle.standardError.write(Data("parley serve: stopped; \(stats.messagesRelayed) messages relayed, \(stats.framesRefused) frames refused, \(stats.clientsDropped) clients dropped\n".utf8))
    }

    /// `host:port`, `[v6]:port` → (host, port); port 0 picks a free one.
    static func split(_ address: String) throws -> (String, Int) {
        do {
            return try BotSpecs.parseAddress(address, key: "--streamchat", allowAnyPort: true)
        } catch {
            throw ValidationError(error.message)
        }
    }

}

/// SIGINT and SIGTERM, caught with Dispatch signal sources: the handlers run
/// on a queue, not in signal context. The default actions are ignored from
/// `init` on, so a signal that arrives while the server starts is not lost
/// and does not kill the process mid-bind.
final class TerminationSignals {
    private let sources: [any DispatchSourceSignal]
    private let stream: AsyncStream<Int32>

    init() {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        self.stream = stream
        self.sources = [SIGINT, SIGTERM].map { sig in
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { continuation.yield(sig) }
            source.resume()
            return source
        }
    }

    /// The first signal received.
    func next() async -> Int32 {
        for await sig in stream { return sig }
        return SIGTERM
    }

    deinit { sources.forEach { $0.cancel() } }
}
