import ParleyConfig
import ParleyCore

extension StreamChatTransport {
    /// `transport = "streamchat"` and its `[bot.streamchat]` table.
    public static let driver = TransportDriver(name: "streamchat") { table, bot in
        let options = try table.map(StreamChatOptions.read) ?? StreamChatOptions()
        if bot.chosen {
            if bot.ownThread {
                // Its unterminated lines are cut by a quiet-period timer, which a
                // plugin holding the thread would fire before the rest is read.
                throw bot.table.error("own_thread", "own_thread is not available for the StreamChat transport (its quiet-period line timer needs the link's thread free); use it with socketio, rest or stomp")
            }
            try StreamChatOptions.check(names: bot.names, rooms: bot.rooms, in: bot.table)
        }
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
