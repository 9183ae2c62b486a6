import Foundation
import ParleyConfig
import ParleyCore
import ParleyTransports

/// Turns a config file's bots into runnable specs.
public enum BotSpecs {
    /// - Parameter embedded: the address of each embedded server, used by
    ///   bots whose config names no `server`.
    /// - Parameter log: where each bot's transport logs, with the bot's name.
    public static func make(_ file: BotConfigFile, embedded: [TransportKind: (host: String, port: Int)],
                            log: @escaping @Sendable (_ bot: String, _ line: String) -> Void) throws(ConfigError) -> [BotSpec] {
        try file.bots.map { b throws(ConfigError) in
            let botLog: @Sendable (String) -> Void = { [name = b.name] line in log(name, line) }
            func address(allowScheme: Bool) throws(ConfigError) -> (host: String, port: Int, tls: Bool) {
                guard let server = b.server else {
                    guard let e = embedded[b.transport] else {
                        throw ConfigError(kind: .missingKey, file: file.path, line: b.line, key: "bot.server",
                                          message: "no server and no embedded \(b.transport.rawValue) server")
                    }
                    return (e.host, e.port, false)
                }
                guard allowScheme else {
                    let a = try parseAddress(server, file: file.path, line: b.line)
                    return (a.host, a.port, false)
                }
                guard let (tls, hostPort) = SocketIOEndpoint.parse(server) else {
                    throw ConfigError(kind: .invalidValue, file: file.path, line: b.line, key: "bot.server",
                                      message: "'\(server)' is not ws://host:port, wss://host:port, http(s)://host:port or host:port")
                }
                let a = try parseAddress(hostPort, file: file.path, line: b.line)
                return (a.host, a.port, tls)
            }
            let transport: any Transport
            switch b.transport {
            case .streamchat:
                let a = try address(allowScheme: false)
                transport = StreamChatTransport(host: a.host, port: a.port, name: b.name, options: b.streamchat,
                                                connectTimeout: b.presence.connectTimeout, log: botLog)
            case .socketio:
                let a = try address(allowScheme: true)
                transport = SocketIOTransport(endpoint: SocketIOEndpoint(host: a.host, port: a.port, tls: a.tls), name: b.name,
                                              rooms: b.rooms, options: b.socketio, connectTimeout: b.presence.connectTimeout, log: botLog)
            case .stomp:
                // No embedded STOMP server: `server` or `stomp.discovery` names one (checked when the file was read).
                var endpoint: STOMPEndpoint?
                if let server = b.server {
                    guard let e = STOMPEndpoint.parse(server) else {
                        throw ConfigError(kind: .invalidValue, file: file.path, line: b.line, key: "bot.server",
                                          message: "'\(server)' is not ws://host:port/path, wss://host:port/path, stomp://host:port or stomp+ssl://host:port")
                    }
                    endpoint = e
                }
                transport = STOMPTransport(endpoint: endpoint, name: b.name, rooms: b.rooms, options: b.stomp,
                                           connectTimeout: b.presence.connectTimeout, log: botLog)
            case .rest:
                let a = try address(allowScheme: true)
                transport = RESTTransport(endpoint: SocketIOEndpoint(host: a.host, port: a.port, tls: a.tls), name: b.name,
                                          rooms: b.rooms, options: b.rest, connectTimeout: b.presence.connectTimeout, log: botLog)
            }
            let plugins = b.plugins.map {
                BotSpec.PluginFile(name: pluginName(ofFile: $0), path: $0)
            }
            var options = b.botOptions
            // Every bot of a fleet gets its own seed, so 1,000 simulated users do not all say the same thing.
            options.randomSeed = Int64.random(in: Int64.min...Int64.max)
            return BotSpec(options: options, plugins: plugins, presence: b.presence, transport: transport,
                           journal: b.journal, fsync: b.fsync, flow: b.flow, ownThread: b.ownThread)
        }
    }

    /// `host:port`, with a bracketed IPv6 host allowed (`[::1]:5080`); port 0
    /// (pick a free one) only where `allowAnyPort` says a listener is meant.
    public static func parseAddress(_ s: String, file: String = "", line: Int = 0, key: String = "bot.server",
                                    allowAnyPort: Bool = false) throws(ConfigError) -> (host: String, port: Int) {
        let ports = allowAnyPort ? 0...65535 : 1...65535
        guard let colon = s.lastIndex(of: ":"), let port = Int(s[s.index(after: colon)...]), ports.contains(port) else {
            throw ConfigError(kind: .invalidValue, file: file, line: line, key: key,
                              message: "'\(s)' is not host:port (e.g. 127.0.0.1:5080)")
        }
        var host = String(s[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.isEmpty {
            throw ConfigError(kind: .invalidValue, file: file, line: line, key: key, message: "'\(s)' has no host")
        }
        return (host, port)
    }
}

/// Many bots in one process: each runs on its own, different bots concurrently.
public actor Fleet {
    public nonisolated let runners: [BotRunner]
    private var stopped = false

    public init(specs: [BotSpec], observer: RuntimeObserver, executors: LuaExecutorPool = .shared) {
        runners = specs.map { BotRunner(spec: $0, observer: observer, executors: executors) }
    }

    /// Runs every bot until all have ended; outcomes in config order. With
    /// `watchPlugins`, a changed plugin file is reloaded in every bot that
    /// loads it (`parley run`).
    public func run(watchPlugins: Bool = false) async -> [BotOutcome] {
        let watcher = watchPlugins ? Task { await self.watchPluginFiles() } : nil
        defer { watcher?.cancel() }
        return await withTaskGroup(of: (Int, BotOutcome).self) { group in
            for (i, r) in runners.enumerated() {
                group.addTask { (i, await r.run()) }
            }
            var out = [BotOutcome](repeating: .stopped, count: runners.count)
            for await (i, o) in group { out[i] = o }
            return out
        }
    }

    /// Graceful shutdown of every bot, concurrently.
    public func stop() async {
        guard !stopped else { return }
        stopped = true
        await withTaskGroup(of: Void.self) { group in
            for r in runners { group.addTask { await r.stop() } }
        }
    }

    /// Reloads every bot's plugins from their files (SIGHUP).
    public func reloadPlugins() async {
        for r in runners { await r.reloadPlugins() }
    }

    /// Polls each distinct plugin file once a second, however many bots load
    /// it (a fleet of 1,000 simulated users shares one persona file).
    private func watchPluginFiles() async {
        var users: [String: [(runner: BotRunner, plugin: String)]] = [:]
        for r in runners {
            for p in r.plugins { users[p.path, default: []].append((r, p.name)) }
        }
        func stamp(_ path: String) -> [Double] {
            guard let a = try? FileManager.default.attributesOfItem(atPath: path) else { return [] }
            return [(a[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0, Double((a[.size] as? Int) ?? 0)]
        }
        var seen = users.keys.reduce(into: [String: [Double]]()) { $0[$1] = stamp($1) }
        while !Task.isCancelled, !stopped {
            try? await Task.sleep(for: .seconds(1))
            for (path, loaders) in users {
                let now = stamp(path)
                guard now != seen[path], !now.isEmpty else { continue }
                seen[path] = now
                for l in loaders { await l.runner.reload(l.plugin) }
            }
        }
    }
}
