import ArgumentParser
import Dispatch
import Foundation
import ParleyConfig
import ParleyCore
import ParleyRuntime
import ParleyServers

/// `parley run BOT.toml`: runs the config's bots until SIGINT/SIGTERM.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the bots of a config file until SIGINT or SIGTERM.",
        discussion: """
        Bots with no `server` in their config connect to an embedded server of their transport (StreamChat or Socket.IO) \
        started on a free loopback port. Exit status: 0 after a clean shutdown, 1 when a \
        bot stopped on an error (its message names the cause), 2 for a bad config, 3 when \
        every bot gave up reconnecting (`max_attempts`).
        """
    )

    @Argument(help: "The bot config (TOML).")
    var config: String

    @Option(help: ArgumentHelp("Serve Prometheus metrics at http://HOST:PORT/metrics.", valueName: "host:port"))
    var metrics: String?

    func run() async throws {
        let file: BotConfigFile
        do {
            file = try BotConfigFile.load(path: config)
        } catch {
            LogOutput.standardError.write("parley: \(error.description)")
            throw ExitCode(2)
        }
        let signals = TerminationSignals()
        let observer = RuntimeObserver.standardError
        let metricsServer = try await startMetrics(metrics)
        let servers = try await EmbeddedServers.start(for: file.bots) { line in
            LogOutput.standardError.write("embedded server: \(line)")
        }
        for (kind, address) in servers.addresses.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            LogOutput.standardError.write("parley: embedded \(kind.rawValue) server on \(address.host):\(address.port)")
        }
        let specs: [BotSpec]
        do {
            specs = try BotSpecs.make(file, embedded: servers.addresses) { line in
                LogOutput.standardError.write("\(line)")
            }
        } catch {
            LogOutput.standardError.write("parley: \(error.description)")
            await servers.shutdown()
            throw ExitCode(2)
        }
        let fleet = Fleet(specs: specs, observer: observer)
        let watcher = Task {
            let sig = await signals.next()
            if Task.isCancelled { return }
            LogOutput.standardError.write("parley: \(sig == SIGINT ? "SIGINT" : "SIGTERM"), shutting down")
            await fleet.stop()
        }
        // SIGHUP reloads every plugin (file changes are picked up by themselves).
        signal(SIGHUP, SIG_IGN)
        let hangup = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        hangup.setEventHandler { Task { await fleet.reloadPlugins() } }
        hangup.resume()
        let outcomes = await fleet.run(watchPlugins: true)
        hangup.cancel()
        watcher.cancel()
        await servers.shutdown()
        await metricsServer?.shutdown()
        throw ExitCode(Self.exitStatus(outcomes))
    }

    static func exitStatus(_ outcomes: [BotOutcome]) -> Int32 {
        if outcomes.contains(where: { if case .failed = $0 { true } else { false } }) { return 1 }
        if !outcomes.isEmpty, outcomes.allSatisfy({ if case .gaveUp = $0 { true } else { false } }) { return 3 }
        return 0
    }
}

/// Starts the `--metrics` listener when asked for; a bad address is a usage error.
func startMetrics(_ address: String?) async throws -> MetricsServer? {
    guard let address else { return nil }
    let (host, port): (String, Int)
    do {
        (host, port) = try BotSpecs.parseAddress(address, key: "--metrics")
    } catch {
        throw ValidationError(error.message)
    }
    let server = try await MetricsServer.start(host: host, port: port)
    LogOutput.standardError.write("parley: metrics at http://\(host):\(server.port)/metrics")
    return server
}
