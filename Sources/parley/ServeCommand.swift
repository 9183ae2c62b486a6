import ArgumentParser
import Foundation
import Logging
import ParleyCore
import ParleyNet
import ParleyRuntime
import ParleySocketIO
import ParleyStreamChat
import ParleyWire
import ServiceLifecycle

/// `parley serve`: the embedded chat servers on their own, for bots and
/// people on other machines or processes to connect to. StreamChat (raw TCP)
/// and SocketChat (Socket.IO) each run when their address is given; with
/// neither, StreamChat runs on its usual address.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the embedded StreamChat and Socket.IO servers until SIGINT or SIGTERM.",
        discussion: "With neither --streamchat nor --socketio, StreamChat listens on 127.0.0.1:5080."
    )

    @Option(name: .customLong("streamchat"), help: ArgumentHelp("StreamChat address (port 0 picks a free port).", valueName: "host:port"))
    var streamchat: String?

    @Option(name: .customLong("socketio"), help: ArgumentHelp("Socket.IO (SocketChat) address; serves /socket.io/ (port 0 picks a free port).", valueName: "host:port"))
    var socketio: String?

    @Option(name: .customLong("login-timeout"), parsing: .unconditional, help: ArgumentHelp("StreamChat: drop a connection that has not sent USR_NAME this long after it opened (0: never). A named client may stay silent.", valueName: "seconds"))
    var loginTimeout: Double = 60

    @Option(name: .customLong("keepalive"), help: ArgumentHelp("StreamChat: TCP keepalive probes on client sockets, IDLE,INTERVAL,COUNT in seconds and probes (a vanished client is dropped within IDLE + INTERVAL × COUNT), or 'off'.", valueName: "idle,interval,count"))
    var keepalive = "60,10,3"

    @Option(name: .customLong("max-connections"), parsing: .unconditional, help: "Connections beyond this are closed on accept (per server; for Socket.IO also sessions).")
    var maxConnections = 20_000

    @Option(name: .customLong("max-queued-kb"), parsing: .unconditional, help: ArgumentHelp("A client with more than this many KiB waiting for it (it does not read, or does not poll) is dropped (per client, both servers).", valueName: "KiB"))
    var maxQueuedKB = 4096

    @Option(name: .customLong("max-payload"), parsing: .unconditional, help: ArgumentHelp("Socket.IO: the largest polling body or WebSocket message a client may send; more drops the client.", valueName: "bytes"))
    var maxPayload = 1_000_000

    @Option(name: .customLong("ping-interval"), parsing: .unconditional, help: ArgumentHelp("Socket.IO: how often the server pings each client.", valueName: "seconds"))
    var pingInterval: Double = 25

    @Option(name: .customLong("ping-timeout"), parsing: .unconditional, help: ArgumentHelp("Socket.IO: drop a client that does not answer a ping within this long.", valueName: "seconds"))
    var pingTimeout: Double = 20

    @Option(name: .customLong("moderator"), help: ArgumentHelp("A name whose kick, mute and delete requests the servers obey (repeat for several). Names are not authenticated, unless --moderator-token-env.", valueName: "name"))
    var moderators: [String] = []

    @Option(name: .customLong("moderator-token-env"), help: ArgumentHelp("The environment variable holding a token; a moderator's name (and its rights) is then only for a client that presents it: on Socket.IO a CONNECT carrying {\"token\": TOKEN} ([bot.socketio.auth] token), on StreamChat a TOKEN::TOKEN::END frame before USR_NAME ([bot.streamchat] moderator_token).", valueName: "NAME"))
    var moderatorTokenEnv: String?

    /// The token `--moderator-token-env` names: set and not empty, else a usage error.
    func moderatorToken() throws -> String? {
        guard let name = moderatorTokenEnv else { return nil }
        guard let token = ProcessInfo.processInfo.environment[name] else {
            throw ValidationError("--moderator-token-env: the environment variable \(name) is not set")
        }
        if token.isEmpty { throw ValidationError("--moderator-token-env: the environment variable \(name) is empty") }
        return token
    }

    /// `--keepalive IDLE,INTERVAL,COUNT` or `off`.
    static func keepalive(_ s: String) throws -> TCPKeepalive? {
        if s == "off" { return nil }
        let parts = s.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 3, let idle = parts[0], let interval = parts[1], let count = parts[2],
              idle > 0, interval > 0, count > 0 else {
            throw ValidationError("--keepalive must be IDLE,INTERVAL,COUNT (positive whole numbers, e.g. 60,10,3) or off")
        }
        return TCPKeepalive(idle: idle, interval: interval, count: count)
    }

    /// No server flag at all keeps the old behaviour: StreamChat on its usual address.
    private var streamchatAddress: String? {
        streamchat ?? (socketio == nil ? "127.0.0.1:5080" : nil)
    }

    func validate() throws {
        if let streamchat { _ = try Self.split(streamchat, key: "--streamchat") }
        if let socketio { _ = try Self.split(socketio, key: "--socketio") }
        guard loginTimeout >= 0, loginTimeout.isFinite else { throw ValidationError("--login-timeout must be 0 or more seconds") }
        _ = try Self.keepalive(keepalive)
        guard maxConnections > 0 else { throw ValidationError("--max-connections must be positive") }
        guard (1...(1 << 20)).contains(maxQueuedKB) else { throw ValidationError("--max-queued-kb must be 1 to 1048576") }
        guard (1...(1 << 30)).contains(maxPayload) else { throw ValidationError("--max-payload must be 1 to 1073741824 bytes") }
        guard pingInterval > 0, pingInterval.isFinite else { throw ValidationError("--ping-interval must be more than 0 seconds") }
        guard pingTimeout > 0, pingTimeout.isFinite else { throw ValidationError("--ping-timeout must be more than 0 seconds") }
        _ = try moderatorToken()
    }

    @OptionGroup var logging: LogOptions

    func run() async throws {
        let logger = logging.bootstrap()
        // A closed terminal or `systemctl reload` must not drop every client: a server has nothing to reload.
        signal(SIGHUP, SIG_IGN)
        let log: @Sendable (String) -> Void = { line in logger.info("\(line)") }
        var services: [any Service] = []
        var streamServer: StreamChatServer?
        if let address = streamchatAddress {
            let (host, port) = try Self.split(address, key: "--streamchat")
            let config = StreamChatServer.Configuration(
                host: host,
                port: port,
                loginTimeout: loginTimeout > 0 ? Self.duration(loginTimeout) : nil,
                keepalive: try Self.keepalive(keepalive),
                maxConnections: maxConnections,
                maxOutboundBytes: maxQueuedKB * 1024,
                moderators: moderators,
                moderatorToken: try moderatorToken(),
                log: log
            )
            let server = try await StreamChatServer.start(config)
            streamServer = server
            Self.announce("streamchat", host: host, port: server.port)
            services.append(StopOnShutdown(name: "streamchat") {
                await server.shutdown()
                let stats = server.stats
                logger.info("streamchat stopped; \(stats.messagesRelayed) messages relayed, \(stats.framesRefused) frames refused, \(stats.clientsDropped) clients dropped")
            })
        }
        if let address = socketio {
            do {
                let (host, port) = try Self.split(address, key: "--socketio")
                let config = SocketChatServer.Configuration(
                    host: host,
                    port: port,
                    pingInterval: Self.duration(pingInterval),
                    pingTimeout: Self.duration(pingTimeout),
                    maxPayload: maxPayload,
                    maxConnections: maxConnections,
                    maxOutboundBytes: maxQueuedKB * 1024,
                    moderators: moderators,
                    moderatorToken: try moderatorToken(),
                    log: log
                )
                let server = try await SocketChatServer.start(config)
                Self.announce("socketio", host: host, port: server.port)
                services.append(StopOnShutdown(name: "socketio") {
                    await server.shutdown()
                    let stats = server.stats
                    logger.info("socketio stopped; \(stats.messagesRelayed) messages relayed, \(stats.packetsRefused) packets refused, \(stats.clientsDropped) clients dropped")
                })
            } catch {
                // StreamChat started and Socket.IO could not bind: stop the first before failing.
                await streamServer?.shutdown()
                throw error
            }
        }
        try await ServiceGroup.parley(services, logger: logger).run()
    }

    /// `streamchat server listening on 127.0.0.1:5080`, on stdout, once the server accepts.
    private static func announce(_ name: String, host: String, port: Int) {
        let shown = host.contains(":") ? "[\(host)]" : host
        _ = StandardStream.output.write("\(name) server listening on \(shown):\(port)\n")
    }

    private static func duration(_ seconds: Double) -> Duration {
        .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// `host:port`, `[v6]:port` → (host, port); port 0 picks a free one.
    static func split(_ address: String, key: String) throws -> (String, Int) {
        do {
            let a = try HostPort.parse(address, key: key, allowAnyPort: true)
            return (a.host, a.port)
        } catch {
            throw ValidationError(error.message)
        }
    }
}
