import ParleyConfig
import ParleyCore
import ParleyNet
import ParleySocketIO

extension RESTTransport {
    /// `transport = "rest"` and its `[bot.rest]` table.
    public static let driver = TransportDriver(name: "rest") { table, bot in
        var options = try table.map(RESTOptions.read) ?? RESTOptions()
        options.caFile = try TransportTLS.caFile(options.caFile, in: bot, table: "rest")
        if bot.chosen {
            // Checked here, once: a REST bot without these could never log in.
            // Said after the unknown keys: `email` at the bot's level is the likelier slip.
            if options.email.isEmpty || options.password.isEmpty {
                bot.table.missing(bot.table.error("rest", "a REST bot needs rest.email and rest.password (or rest.password_env)"))
            }
            if let bad = bot.rooms.first(where: { RESTOptions.splitRoom($0) == nil }) {
                throw bot.table.error("rooms", "'\(bad)' is not workspace/channel (REST rooms name a workspace and one of its channels)")
            }
        }
        return options
    }
}

extension RESTOptions: TransportOptions {
    public func makeTransport(for bot: TransportTarget) throws(ConfigError) -> any Transport {
        return RESTTransport(endpoint: try SocketIOEndpoint.of(bot, transport: RESTTransport.driver.name), name: bot.name,
                             rooms: bot.rooms, options: self, connectTimeout: bot.connectTimeout, log: bot.log)
    }
}
