import ArgumentParser
import Dispatch
import Foundation
import Logging
import ParleyConfig
import ParleyCore
import ParleyNet
import ParleyRuntime
import ServiceLifecycle

/// `parley run BOT.toml`: runs the config's bots until SIGINT/SIGTERM.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the bots of a config file until SIGINT or SIGTERM.",
        discussion: """
        Bots with no `server` in their config connect to an embedded server of their transport (StreamChat or Socket.IO) \
        started on a free loopback port. Exit status: 0 after a clean shutdown, 1 when a \
        bot stopped on an error (its message names the cause), 2 for a bad config, 3 when \
        every bot gave up reconnecting (`max_attempts`), 4 when every bot ended by itself and \
        one or more were kicked by the server, 64 for a bad command line.
        """
    )

    @Argument(help: "The bot config (TOML).")
    var config: String

    @Option(help: ArgumentHelp("Serve the dashboard at /, Prometheus metrics at /metrics and the plugins' webhooks at /hooks/BOT/PLUGIN/PATH on http://HOST:PORT (a bare PORT is on 127.0.0.1).",
                               valueName: "host:port"))
    var http: String?

    @Option(help: ArgumentHelp("With --http: the environment variable holding a token every request but a webhook's must carry (Authorization: Bearer TOKEN, or ?token=).",
                               valueName: "name"))
    var httpTokenEnv: String?

    @Option(help: ArgumentHelp("Run only shard I of N of the config's bots (rendezvous hashing of their names); auto/N takes I from the host name's -ORDINAL (a StatefulSet's parley-3 is shard 3).",
                               valueName: "I/N"))
    var shard: String?

    @OptionGroup var loopOptions: LoopOptions

    @OptionGroup var logging: LogOptions

    /// Usage mistakes are found here, before anything starts, so ArgumentParser prints `run`'s usage with them.
    func validate() throws {
        _ = try HTTPOptionsParsing.read(http: http, tokenEnv: httpTokenEnv)
        if let shard {
            do { _ = try Shard.parse(shard, hostname: ProcessInfo.processInfo.hostName) } catch { throw ValidationError(error.description) }
        }
    }

    func run() async throws {
        let logger = logging.bootstrap()
        var file: BotConfigFile
        let startedWith = InputFile.read(config)
        do {
            file = try BotConfigFile.load(path: config)
        } catch {
            logger.error("\(error.description)")
            throw ExitCode(2)
        }
        if let shard {
            let part: Shard
            do { part = try Shard.parse(shard, hostname: ProcessInfo.processInfo.hostName) } catch { throw ValidationError(error.description) }
            let all = file.bots.count
            file.bots = file.bots.filter { part.owns($0.name) }
            logger.info("shard \(part): \(file.bots.count) of \(all) bots")
        }
        // A journal `run` could not write would fail when it first needs a
        // new file, maybe hours from now: refused here, as `check` reports it.
        let problems = JournalAccess.problems(file.bots.compactMap(\.journal))
        let unwritable = file.bots.compactMap { bot in
            bot.journal.flatMap { problems[$0] }.map { "\(file.path):\(bot.journalLine): \($0)" }
        }
        if !unwritable.isEmpty {
            for line in unwritable.prefix(10) { logger.error("\(line)") }
            if unwritable.count > 10 { logger.error("… and \(unwritable.count - 10) more bots' journals") }
            throw ExitCode(2)
        }
        if let problem = FileLimit.problem(needed: FileLimit.needed(file.bots)) {
            logger.error("\(problem)")
            throw ExitCode(1)
        }
        let (listen, token) = try HTTPOptionsParsing.read(http: http, tokenEnv: httpTokenEnv)
        if let listen {
            do { try HTTPServer.probe(host: listen.host, port: listen.port) } catch {
                logger.error("--http \(listen.host):\(listen.port): \(NetworkErrors.describe(error)); no bot was started")
                throw ExitCode(1)
            }
        }
        // Metrics are recorded only when something serves them.
        if listen != nil { _ = HTTPServer.registry }
        var serverLog = logger
        serverLog[metadataKey: "server"] = "embedded"
        let servers = try await EmbeddedServers.start(for: file.bots) { [serverLog] line in serverLog.info("\(line)") }
        for (kind, address) in servers.addresses.sorted(by: { $0.key < $1.key }) {
            logger.info("embedded \(kind) server on \(address.host):\(address.port)")
        }
        let specs: [BotSpec]
        do {
            specs = try BotSpecs.make(file, embedded: servers.addresses, embeddedAuth: servers.auth) { bot, line in
                logger.info("\(line)", metadata: ["bot": .string(bot)])
            }
        } catch {
            logger.error("\(error.description)")
            await servers.shutdown()
            throw ExitCode(2)
        }
        let botLoops = BotLoops(count: loopOptions.loops ?? file.runtime.loops)
        logger.info("\(botLoops.loops.count) bot loop\(botLoops.loops.count == 1 ? "" : "s")")
        let watch = FleetWatch()
        let observer = listen == nil ? RuntimeObserver(logger: logger) : watch.observing(RuntimeObserver(logger: logger))
        let fleet = FleetService(fleet: Fleet(specs: specs, observer: observer, loops: botLoops), logger: logger)
        // SIGHUP reloads every plugin (file changes are picked up by themselves).
        signal(SIGHUP, SIG_IGN)
        let hangup = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        hangup.setEventHandler { [config] in
            Task {
                await fleet.fleet.reloadPlugins()
                Self.sayConfigChanges(config, startedWith: startedWith, logger: logger)
            }
        }
        hangup.resume()
        var services: [any Service] = []
        if let listen {
            let logger = logger
            let app = HTTPServer.application(host: listen.host, port: listen.port, runners: fleet.fleet.runners, logger: logger,
                                             watch: watch, token: token, readyBackoff: file.runtime.readyBackoff) { port in
                let host = listen.host.contains(":") ? "[\(listen.host)]" : listen.host
                logger.info("http at http://\(host):\(port)/ (the dashboard; metrics at /metrics, webhooks at /hooks/BOT/PLUGIN/PATH)")
            }
            services.append(Named(description: "--http \(listen.host):\(listen.port)", service: app))
        }
        services.append(StopOnShutdown(name: "embedded servers") { await servers.shutdown() })
        do {
            try await ServiceGroup.parley(services, main: fleet, logger: logger).run()
        } catch {
            // The bots have left by now (the group shut down gracefully).
            logger.error("stopped: \(error)")
            throw ExitCode(1)
        }
        hangup.cancel()
        throw ExitCode(Self.exitStatus(fleet.outcomes))
    }

    /// SIGHUP reloads plugin files only. A config edited since the start is
    /// said, so the operator who sent SIGHUP after editing it is not left to
    /// think it applied, and one that no longer loads is found now rather
    /// than at the next restart.
    static func sayConfigChanges(_ path: String, startedWith: Data?, logger: Logger) {
        guard let now = InputFile.read(path) else {
            logger.error("\(path) cannot be read now; the bots run on with the config they started with, and a restart would exit 2")
            return
        }
        guard now != startedWith else { return }
        do {
            _ = try BotConfigFile.load(path: path)
            logger.warning("\(path) changed since the start and is not applied: SIGHUP reloads plugin files only; restart to apply it")
        } catch {
            logger.error("\(path) changed since the start and no longer loads: \(error.description); the bots run on with the config they started with, and a restart would exit 2")
        }
    }

    /// 0 only when the bots were asked to stop (or some ran on until then):
    /// a fleet that ended by itself says how, for a supervisor to see.
    static func exitStatus(_ outcomes: [BotOutcome]) -> Int32 {
        if outcomes.contains(where: { if case .failed = $0 { true } else { false } }) { return 1 }
        if outcomes.isEmpty || outcomes.contains(.stopped) { return 0 }
        if outcomes.allSatisfy({ if case .gaveUp = $0 { true } else { false } }) { return 3 }
        // Every bot ended by itself, one or more of them kicked (the rest gave up).
        return 4
    }
}

/// `--http` and `--http-token-env`, checked: a bad address, or a token
/// variable that is unset or empty, is a usage error.
enum HTTPOptionsParsing {
    static func read(http: String?, tokenEnv: String?) throws -> (HostPort?, String?) {
        guard let http else {
            if tokenEnv != nil { throw ValidationError("--http-token-env needs --http") }
            return (nil, nil)
        }
        // A bare port listens on loopback: the dashboard and metrics are not for everyone.
        // Port 0 takes a free one; the log line `http at …` says which.
        let address = http.contains(":") ? http : "127.0.0.1:" + http
        let listen: HostPort
        do { listen = try HostPort.parse(address, key: "--http", allowAnyPort: true) } catch { throw ValidationError(error.message) }
        guard let tokenEnv else { return (listen, nil) }
        guard let token = ProcessInfo.processInfo.environment[tokenEnv] else {
            throw ValidationError("--http-token-env: the environment variable \(tokenEnv) is not set")
        }
        if token.isEmpty { throw ValidationError("--http-token-env: the environment variable \(tokenEnv) is empty") }
        return (listen, token)
    }
}
