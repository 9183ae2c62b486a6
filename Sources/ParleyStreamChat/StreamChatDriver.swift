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
        var options = self
        // On the embedded server the bot is a moderator: it sends the server's token.
        if bot.server == nil, let token = bot.embeddedAuth["token"] { options.moderatorToken = token }
        return StreamChatTransport(host: a.host, port: a.port, name: bot.name, options: options,
                                   connectTimeout: bot.connectTimeout, log: bot.log)
    }
}
