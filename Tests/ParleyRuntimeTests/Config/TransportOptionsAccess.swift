import ParleyREST
import ParleyRuntime
import ParleySTOMP
import ParleySocketIO
import ParleyStreamChat

/// The bot's transport options as their own type, for the config tests
/// (the defaults when the bot speaks another transport).
extension BotConfig {
    var streamchat: StreamChatOptions { options(StreamChatOptions.self) ?? StreamChatOptions() }
    var socketio: SocketIOOptions { options(SocketIOOptions.self) ?? SocketIOOptions() }
    var rest: RESTOptions { options(RESTOptions.self) ?? RESTOptions() }
    var stomp: STOMPOptions { options(STOMPOptions.self) ?? STOMPOptions() }
}
