import ParleyCore
import ParleyRuntime
import ParleySocketIO
import ParleyStreamChat

/// The embedded chat servers `parley run` starts for bots whose config names
/// no `server`: one per transport that needs it, on loopback, on free ports.
public final class EmbeddedServers: Sendable {
    public let streamchat: StreamChatServer?
    public let socketio: SocketChatServer?
    /// Each server's moderators, by transport, and their token: only a client
    /// that presents it may use a moderator's name (a web chat visitor, or
    /// anyone else on the machine, cannot).
    private let moderators: [String: Set<String>]
    private let token: String?

    private init(streamchat: StreamChatServer?, socketio: SocketChatServer?, moderators: [String: Set<String>], token: String?) {
        self.streamchat = streamchat
        self.socketio = socketio
        self.moderators = moderators
        self.token = token
    }

    /// Starts what `bots` need: a server for each transport some bot without
    /// a `server` speaks, with those bots as its moderators (their `bot.kick`,
    /// `bot.mute`, `bot.delete` are obeyed). `log` gets each server's notable events.
    public static func start(for bots: [BotConfig], log: @escaping @Sendable (String) -> Void) async throws -> EmbeddedServers {
        let embedded = bots.filter { $0.server == nil }
        return try await start(Set(embedded.map(\.transport)),
                               moderators: Dictionary(grouping: embedded, by: \.transport).mapValues { $0.map(\.name) }, log: log)
    }

    /// The transports that have an embedded server.
    public static let transports = [StreamChatTransport.driver.name, SocketIOTransport.driver.name]

    /// Addresses standing in for the embedded servers, for `BotSpecs.make`
    /// where nothing connects (`check`, `plugin test --config`).
    static let placeholders = Dictionary(uniqueKeysWithValues: transports.map { ($0, HostPort(host: "127.0.0.1", port: 1)) })

    /// Starts one server of each transport named in `transports` that has one
    /// (StreamChat, Socket.IO); `moderators` names each one's moderators, by transport.
    public static func start(_ transports: Set<String>, moderators: [String: [String]] = [:],
                             log: @escaping @Sendable (String) -> Void = { _ in }) async throws -> EmbeddedServers {
        let sc = StreamChatTransport.driver.name, sio = SocketIOTransport.driver.name
        // Made per run and handed only to the bots: nobody outside the process knows it.
        let token = moderators.values.allSatisfy(\.isEmpty) ? nil : (0..<32).map { _ in
            let byte = UInt8.random(in: 0...255)
            return (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }.joined()
        let streamchat = transports.contains(sc)
            ? try await StreamChatServer.start(.init(moderators: moderators[sc] ?? [], moderatorToken: token,
                                                     log: { log("streamchat: \($0)") })) : nil
        let socketio: SocketChatServer?
        do {
            socketio = transports.contains(sio)
                ? try await SocketChatServer.start(.init(moderators: moderators[sio] ?? [], moderatorToken: token,
                                                         log: { log("socketio: \($0)") })) : nil
        } catch {
            await streamchat?.shutdown()
            throw error
        }
        return EmbeddedServers(streamchat: streamchat, socketio: socketio, moderators: moderators.mapValues(Set.init), token: token)
    }

    /// A transport with default options for `name` on the embedded server of
    /// `transport` (the demo's bots and people); nil when that server is not running.
    public func transport(_ transport: String, name: String) -> (any Transport)? {
        switch transport {
        case StreamChatTransport.driver.name:
            streamchat.map {
                var options = StreamChatOptions()
                if moderators[transport]?.contains(name) == true { options.moderatorToken = token }
                return StreamChatTransport(host: "127.0.0.1", port: $0.port, name: name, options: options)
            }
        case SocketIOTransport.driver.name:
            socketio.map {
                var options = SocketIOOptions()
                if moderators[transport]?.contains(name) == true { options.auth = token.map { ["token": $0] } }
                return SocketIOTransport(endpoint: SocketIOEndpoint(host: "127.0.0.1", port: $0.port), name: name, options: options)
            }
        default: nil
        }
    }

    /// What the bots on each server present, by transport name, for
    /// `BotSpecs.make`: the moderator token (a Socket.IO CONNECT's `auth`,
    /// StreamChat's `TOKEN` frame).
    public var auth: [String: [String: String]] {
        guard let token else { return [:] }
        return Dictionary(uniqueKeysWithValues: moderators.keys.map { ($0, ["token": token]) })
    }

    /// Where each one listens, by transport name, for `BotSpecs.make`.
    public var addresses: [String: HostPort] {
        var a: [String: HostPort] = [:]
        if let streamchat { a[StreamChatTransport.driver.name] = HostPort(host: "127.0.0.1", port: streamchat.port) }
        if let socketio { a[SocketIOTransport.driver.name] = HostPort(host: "127.0.0.1", port: socketio.port) }
        return a
    }

    public func shutdown() async {
        await streamchat?.shutdown()
        await socketio?.shutdown()
    }
}
