import CLua
import NIOCore
import NIOWebSocket
import ParleyNet
import ParleyWire

/// The least an echo bot in Lua on NIOWebSocket does a reply, measured
/// beside the wake floors: what a path with nothing between the read and the
/// plugin would cost, so the paced targets can be judged against a design
/// rather than a guess.
///
/// Per frame: the Socket.IO event's JSON is parsed (Parley's parser) and
/// handed to a Lua function (a plain `lua_State`: no sandbox, no budget, no
/// state store, no journal, no outbox) whose answer goes out as a Socket.IO
/// event in a masked frame. The driver reads each answer and, as Parley's
/// server does for a bot that asks, does not send it back.
final class LeanEcho: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    /// What the driver sends: a SocketChat message, as the embedded server relays it.
    static let message = Array(#"42["newChatMessage","load","!echo hello there"]"#.utf8)
    /// The handler, as `Plugins/echo.lua` answers `!echo text`.
    static let plugin = #"function on_message(user, text) return text:match("^!echo (.+)") end"#

    private let replies: Int
    private let lua: OpaquePointer
    private var measurement: WakeFloor.Measurement
    private var answered = 0

    init(replies: Int, done: EventLoopPromise<WakeFloor.Figures?>) throws {
        guard let state = luaL_newstate() else { throw BenchError("lean echo: no Lua state") }
        luaL_openlibs(state)
        guard luaL_loadstring(state, Self.plugin) == LUA_OK, lua_pcallk(state, 0, 0, 0, 0, nil) == LUA_OK else {
            lua_close(state)
            throw BenchError("lean echo: the plugin did not load")
        }
        lua = state
        self.replies = replies
        measurement = WakeFloor.Measurement(done: done)
    }

    deinit { lua_close(lua) }

    func handlerAdded(context: ChannelHandlerContext) { measurement.start() }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let payload = unwrapInboundIn(data).unmaskedData
        // Engine.IO "4" (message), Socket.IO "2" (event), then the JSON array.
        guard payload.readableBytes > 2, payload.getInteger(at: payload.readerIndex, as: UInt16.self) == 0x3432,
              case .array(let args)? = try? JSONValue.parse(bytes: payload.readableBytesView.dropFirst(2)),
              args.count >= 3, case .string(let user) = args[1], case .string(let text) = args[2] else {
            // Unanswered, the driver would wait for the answer for ever: stop with why.
            return measurement.end(.failure(BenchError("lean echo: a frame that is not a SocketChat message")))
        }
        guard let reply = answer(user: user, text: text) else {
            return measurement.end(.failure(BenchError("lean echo: the Lua handler gave no answer to \"\(text)\"")))
        }
        var event = #"42["chatMessage","echo","#
        JSONText.appendString(reply, to: &event)
        event += "]"
        let frame = WebSocketFrame(fin: true, opcode: .text, maskKey: .pooled(), data: context.channel.allocator.buffer(string: event))
        context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
        answered += 1
        if answered >= replies { measurement.end(answered: answered) }
    }

    func channelInactive(context: ChannelHandlerContext) { measurement.end(.success(nil)) }

    /// `on_message(user, text)` in Lua; its string result, if any.
    private func answer(user: String, text: String) -> String? {
        defer { lua_settop(lua, 0) }
        lua_getglobal(lua, "on_message")
        lua_pushlstring(lua, user, user.utf8.count)
        lua_pushlstring(lua, text, text.utf8.count)
        guard lua_pcallk(lua, 2, 1, 0, 0, nil) == LUA_OK, lua_type(lua, -1) == LUA_TSTRING else { return nil }
        var length = 0
        guard let bytes = lua_tolstring(lua, -1, &length) else { return nil }
        return String(decoding: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self)
    }
}
