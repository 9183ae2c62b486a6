import ParleyConfig
import ParleyCore
import ParleyNet
import ParleyWire

/// `[bot.streamchat]`: the StreamChat transport's own keys.
public struct StreamChatOptions: Sendable, Equatable {
    /// Nothing read for this long ends the link (presence reconnects). Off
    /// (0) by default: a quiet room is not a dead link, and each reconnect
    /// shows everyone a leave and a join. Keepalive and the echo timeout find
    /// dead links; this is for links through middleboxes that swallow probes.
    public var idleTimeout: Double = 0
    /// TCP keepalive on the socket: the kernel's probes find a peer that
    /// vanished on an idle link (nil: off).
    public var keepalive: TCPKeepalive? = TCPKeepalive()
    /// A server that never ends its lines: after this long without more bytes,
    /// what arrived counts as one line (Parley's own server ends lines with `\n`).
    public var unterminatedFlush: Double = 0.25
    /// A send counts as delivered once the server's echo of it came back
    /// (the server relays to everyone, the sender included, in order); with
    /// no echo and no other line within this many seconds (or no echo within
    /// six times it while other lines come) the link counts as broken, is
    /// dropped, and the send stays in the outbox. 0: a send counts once written to the
    /// socket, and one written into a link that has silently died is lost.
    public var echoTimeout: Double = 10
    /// Sent before `USR_NAME` (`TOKEN::…::END`): on a Parley server with a
    /// moderator token, what lets a moderator's name in. Never logged.
    public var moderatorToken: String?

    public init() {}

    static func read(_ t: TableReader) throws(ConfigError) -> StreamChatOptions {
        var o = StreamChatOptions()
        o.echoTimeout = try t.double("echo_timeout", default: o.echoTimeout, range: 0...3600)
        o.idleTimeout = try t.double("idle_timeout", default: o.idleTimeout, range: 0...86_400)
        let probes = TCPKeepalive()
        let keepalive = TCPKeepalive(
            idle: try t.int("keepalive_idle", default: probes.idle, range: 1...86_400),
            interval: try t.int("keepalive_interval", default: probes.interval, range: 1...3600),
            count: try t.int("keepalive_count", default: probes.count, range: 1...100))
        o.keepalive = try t.bool("keepalive", default: true) ? keepalive : nil
        o.unterminatedFlush = try t.double("unterminated_flush", default: o.unterminatedFlush, range: 0.01...60)
        o.moderatorToken = try t.secret("moderator_token")
        if let token = o.moderatorToken, let problem = StreamChat.checkName(token) {
            throw t.error(t.contains("moderator_token") ? "moderator_token" : "moderator_token_env", "the token cannot go in a StreamChat frame: \(problem)")
        }
        return o
    }

    /// What StreamChat cannot carry, checked when the config is read: a bot
    /// name with a frame token, and any room but its one.
    static func check(names: [String], rooms: [String], in t: TableReader) throws(ConfigError) {
        for name in names {
            if let problem = StreamChat.checkName(name) {
                throw t.error("name", "'\(name)' cannot be a StreamChat name: \(problem)")
            }
        }
        if rooms != [StreamChat.room] {
            throw t.error("rooms", "StreamChat has one room, '\(StreamChat.room)'; remove rooms or set rooms = [\"\(StreamChat.room)\"]")
        }
    }
}
