import ParleyConfig
import ParleyCore

extension STOMPTransport {
    /// `transport = "stomp"` and its `[bot.stomp]` table.
    public static let driver = TransportDriver(name: "stomp") { table, bot in
        let options = try table.map(STOMPOptions.read) ?? STOMPOptions()
        // No embedded STOMP server: `server` or `stomp.discovery` names one.
        if bot.chosen, bot.server == nil, options.discovery == nil {
            throw bot.table.error("server", "a STOMP bot needs a server (ws://host:port/path or stomp://host:port) or stomp.discovery", kind: .missingKey)
        }
        return options
    }
}

extension STOMPOptions: TransportOptions {
    public func makeTransport(for bot: TransportTarget) throws(ConfigError) -> any Transport {
        var endpoint: STOMPEndpoint?
        if let server = bot.server {
            guard let e = STOMPEndpoint.parse(server) else {
                throw bot.serverError("'\(Redactor.url(server))' is not ws://host:port/path, wss://host:port/path, stomp://host:port or stomp+ssl://host:port")
            }
            endpoint = e
        }
        return STOMPTransport(endpoint: endpoint, name: bot.name, rooms: bot.rooms, options: self,
                              connectTimeout: bot.connectTimeout, log: bot.log)
    }
}
