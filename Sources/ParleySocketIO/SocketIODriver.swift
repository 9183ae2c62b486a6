import ParleyConfig
import ParleyCore
import ParleyNet

extension SocketIOTransport {
    /// `transport = "socketio"` and its `[bot.socketio]` table.
    public static let driver = TransportDriver(name: "socketio") { table, bot in
        var options = try table.map(SocketIOOptions.read) ?? SocketIOOptions()
        options.caFile = try TransportTLS.caFile(options.caFile, in: bot, table: "socketio")
        if bot.chosen, !options.namespacePerRoom, bot.rooms.count > 1 {
            throw bot.table.error("rooms", "a Socket.IO bot in one namespace has one room; set socketio.namespace_per_room = true for several")
        }
        return options
    }
}

extension SocketIOOptions: TransportOptions {
    public func makeTransport(for bot: TransportTarget) throws(ConfigError) -> any Transport {
        var options = self
        // On the embedded server the bot is a moderator: its CONNECT carries the server's token.
        if bot.server == nil, !bot.embeddedAuth.isEmpty {
            options.auth = (options.auth ?? [:]).merging(bot.embeddedAuth) { _, embedded in embedded }
        }
        return SocketIOTransport(endpoint: try SocketIOEndpoint.of(bot, transport: SocketIOTransport.driver.name), name: bot.name,
                                 rooms: bot.rooms, options: options, connectTimeout: bot.connectTimeout, log: bot.log)
    }
}
