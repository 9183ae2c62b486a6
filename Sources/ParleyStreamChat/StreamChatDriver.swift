import ParleyConfig
import ParleyCore

extension StreamChatTransport {
    /// `transport = "streamchat"` and its `[bot.streamchat]` table.
    public static let driver = TransportDriver(name: "streamchat") { table, bot in
        let options = try table.map(StreamChatOptions.read) ?? StreamChatOptions()
        if bot.chosen { try StreamChatOptions.check(names: bot.names, rooms: bot.rooms, in: bot.table) }
        return options
    }
}

extension StreamChatOptions: TransportOptions {
    public func makeTransport(for bot: TransportTarget) throws(ConfigError) -> any Transport {
        let a = try bot.address(transport: StreamChatTransport.driver.name)
        return StreamChatTransport(host: a.host, port: a.port, name: bot.name, options: self,
                                   connectTimeout: bot.connectTimeout, log: bot.log)
    }
}
