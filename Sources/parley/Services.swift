import ArgumentParser
import Dispatch
import Foundation
import Logging
import ParleyNet
import ParleyRuntime
import ServiceLifecycle
import Synchronization

/// `--log-format` and `--log-level`, shared by `run`, `serve` and `demo`.
struct LogOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Log lines as text for people, or one JSON object per line for log shippers.", valueName: "text|json"))
    var logFormat: LogFormat = .text

    @Option(help: ArgumentHelp("The least important level logged.", valueName: "trace|debug|info|notice|warn|error|critical"))
    var logLevel: Logger.Level = .info

    /// Sends every `Logger` of the process to standard error in the chosen format; returns the command's own.
    func bootstrap() -> Logger {
        let format = logFormat, level = logLevel
        LoggingSystem.bootstrap { _ in ParleyLogHandler(format: format, level: level) }
        return Logger(label: "parley")
    }
}

/// `--loops`, shared by `run` and `demo`.
struct LoopOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: ArgumentHelp("Bot loops: the threads every bot's link and plugins run on (default: one per core; `run` reads [runtime] loops from its config first).", valueName: "n"))
    var loops: Int?

    func validate() throws {
        if let loops, !(1...1024).contains(loops) { throw ValidationError("--loops must be between 1 and 1024") }
    }
}

extension LogFormat: ExpressibleByArgument {}
extension Logger.Level: @retroactive ExpressibleByArgument {
    /// swift-log's names, and `warn`, the name the log lines print.
    public init?(argument: String) {
        self.init(rawValue: argument == ParleyLogHandler.name(.warning) ? Logger.Level.warning.rawValue : argument)
    }

    /// The names `--help` and a refused value list: `warn` for `warning`, as above.
    public static var allValueStrings: [String] { allCases.map(ParleyLogHandler.name) }
}

/// The bots of a config as one service: on graceful shutdown every bot stops
/// at once (each drains its outbox and leaves), rather than one after another
/// as separate services would, which for thousands of bots would take minutes.
final class FleetService: Service {
    let fleet: Fleet
    private let logger: Logger
    private let result = Mutex<[BotOutcome]>([])

    init(fleet: Fleet, logger: Logger) {
        self.fleet = fleet
        self.logger = logger
    }

    /// How each bot's run ended, in config order (once `run` returned).
    var outcomes: [BotOutcome] { result.withLock { $0 } }

    /// A bot loop held where no budget reaches never finishes its drain, and
    /// the group's cancellation (at 20 s) cannot reach it either: past this,
    /// the process exits with a line rather than wait for a SIGKILL.
    static let hardStopSeconds = 25

    private static func armHardStop(_ logger: Logger) {
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(hardStopSeconds)) {
            logger.error("""
                the shutdown did not finish \(hardStopSeconds) s after it began: a bot loop is still held \
                (/healthz names how many); exiting without the rest of the drain
                """)
            fflush(nil)
            exit(1)
        }
    }

    func run() async throws {
        let fleet = self.fleet, logger = self.logger
        if fleet.runners.isEmpty {
            // A shard the hash gave no bots: it still runs (and answers its
            // probes) until it is told to stop, or its pod would restart for ever.
            logger.info("no bots to run here: waiting for SIGTERM or SIGINT")
            try? await gracefulShutdown()
            return
        }
        let outcomes = await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await fleet.run(watchPlugins: true)
            } onGracefulShutdown: {
                logger.info(fleet.runners.count == 1 ? "shutting down: the bot drains its outbox and leaves"
                            : "shutting down: \(fleet.runners.count) bots drain their outboxes and leave")
                Self.armHardStop(logger)
                Task { await fleet.stop() }
            }
        } onCancel: {
            // A cancelled group (a graceful shutdown past its time limit) stops the
            // bots too: a reconnect loop whose sleeps are cancelled would otherwise spin.
            Task { await fleet.stop() }
        }
        result.withLock { $0 = outcomes }
    }
}

/// A service whose failure says which one failed: `http on 127.0.0.1:8080: Address already in use`.
struct Named<Wrapped: Service>: Service, CustomStringConvertible {
    let description: String
    let service: Wrapped

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    func run() async throws {
        do { try await service.run() } catch { throw Failure(description: "\(description): \(NetworkErrors.describe(error))") }
    }
}

/// Something that runs until the group shuts down, then stops (a server).
/// Its name is how the group's log lines call it.
struct StopOnShutdown: Service, CustomStringConvertible {
    let name: String
    let stop: @Sendable () async -> Void

    var description: String { name }

    func run() async throws {
        // Thrown only when the group is cancelled instead: stop all the same.
        try? await gracefulShutdown()
        await stop()
    }
}

extension ServiceGroup {
    /// The group `run`, `serve` and `demo` use: SIGTERM and SIGINT shut it
    /// down gracefully, services in the reverse of the order given (bots
    /// before the servers they talk to). `main`, when there is one, ends the
    /// group when it returns (the bots all ended, the demo's time is up).
    /// A service that fails shuts the others down the same way, and the group
    /// then throws its error. A shutdown that takes over 20 s is cancelled.
    static func parley(_ services: [any Service], main: (any Service)? = nil, logger: Logger) -> ServiceGroup {
        var configs = services.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0, failureTerminationBehavior: .gracefullyShutdownGroup) }
        if let main {
            configs.append(.init(service: main, successTerminationBehavior: .gracefullyShutdownGroup,
                                 failureTerminationBehavior: .gracefullyShutdownGroup))
        }
        var configuration = ServiceGroupConfiguration(services: configs, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        // Bots drain for at most 5 s; past this the group is cancelled, well
        // inside a container's usual 30 s between SIGTERM and SIGKILL.
        configuration.maximumGracefulShutdownDuration = .seconds(20)
        return ServiceGroup(configuration: configuration)
    }
}
