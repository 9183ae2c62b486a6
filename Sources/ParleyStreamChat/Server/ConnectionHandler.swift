import NIOCore
import ParleyCore
import ParleyWire

/// One client's side of the protocol, behind `StreamChatFrameDecoder`:
/// enforces the rules on its frames and turns what it may do into calls on
/// the hub.
///
/// Everything a client can get wrong ends here, in one of two ways. A frame
/// that is well formed but not allowed (text over the limit or with a
/// protocol token, `MSG` before `USR_NAME`, a `KICK` or `MUTE` from someone
/// who is not a moderator or about nobody) is *refused*: not acted on,
/// counted, logged (a moderation frame is also answered `::REFUSED::`), and
/// the client stays. Bytes that cannot be a frame, too
/// many bytes without a frame end, an invalid name, no name within the login
/// timeout or a full outbound queue *drop* the client: the stream can no
/// longer be trusted or the client costs the others too much.
final class StreamChatConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = StreamChat.ClientFrame

    private let hub: Hub
    private let config: StreamChatServer.Configuration
    private var id: Hub.ConnectionID?
    /// Set by a valid `USR_NAME`; cleared once `has left` went out.
    private var name: String?
    /// What a `TOKEN` frame before `USR_NAME` said.
    private var token: String?
    /// Once set, nothing more is read from this client.
    private var isClosing = false
    private var peer = "?"
    /// Drops a connection that never names itself (`loginTimeout`).
    private var loginDeadline: Scheduled<Void>?

    init(hub: Hub, config: StreamChatServer.Configuration) {
        self.hub = hub
        self.config = config
    }

    func channelActive(context: ChannelHandlerContext) {
        peer = context.channel.remoteAddress.map(Self.describe) ?? "?"
        switch hub.admit(context.channel) {
        case .admitted(let id):
            self.id = id
            if let timeout = config.loginTimeout {
                let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                loginDeadline = context.eventLoop.scheduleTask(in: TimeAmount(timeout)) {
                    let (handler, context) = loopBound.value
                    if handler.name == nil, !handler.isClosing {
                        handler.drop(context, "no USR_NAME within \(timeout)")
                    }
                }
            }
        case .full(let n):
            drop(context, "server full (\(n) connections)")
        case .closing:
            isClosing = true
            context.close(promise: nil)
        }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        isClosing = true
        loginDeadline?.cancel()
        if let id {
            if let name { hub.leave(id, channel: context.channel, name: name) }
            hub.release(id)
        }
        name = nil
        id = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // After a LEAVE or a drop, frames the same read carried are not acted on.
        guard !isClosing else { return }
        handle(unwrapInboundIn(data), context: context)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if !context.channel.isWritable, !isClosing {
            drop(context, "more than \(config.maxOutboundBytes) bytes queued: the client does not read")
        }
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // The decoder's: bytes that cannot be a frame, or too many without a frame end.
        if let bad = error as? StreamChat.FrameError {
            if !isClosing { drop(context, bad.message) }
            return
        }
        // Resets and broken pipes are how TCP clients often leave: not worth a log line.
        if !isClosing, !(error is IOError) {
            config.log("closed \(who): \(error)")
        }
        isClosing = true
        context.close(promise: nil)
    }

    /// A message as it is relayed: a control character becomes U+FFFD, so no
    /// one can set another client's window title or clear its screen.
    static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: StreamChat.isControl) else { return text }
        var out = String.UnicodeScalarView()
        for u in text.unicodeScalars { out.append(StreamChat.isControl(u) ? "\u{FFFD}" : u) }
        return String(out)
    }

    private func handle(_ frame: StreamChat.ClientFrame, context: ChannelHandlerContext) {
        guard let id else { return }
        switch frame {
        case .userName(let newName):
            if let name {
                // The new name is not quoted: it is unchecked and could forge log lines.
                refuse("USR_NAME", because: "already joined as '\(name)'")
            } else if let problem = StreamChat.checkName(newName) {
                // A control character too: every client prints the name in `has joined` lines.
                drop(context, "invalid name: \(problem)")
            } else if let secret = config.moderatorToken, config.moderators.contains(newName),
                      !(token.map { Redactor.matches($0, secret: secret) } ?? false) {
                let why = "\(Hub.quoted(newName)) is a moderator's name: only a client that sends the moderator token first may use it"
                drop(context, why, saying: .refused(why))
            } else {
                name = newName
                loginDeadline?.cancel()
                hub.join(id, channel: context.channel, name: newName)
            }
        case .message(let text):
            guard let name else {
                refuse("MSG", because: "sent before USR_NAME")
                return
            }
            if let problem = StreamChat.check(text, controls: true) {
                refuse("MSG", because: "\(problem)")
            } else if case .muted(let seconds, let reason) = hub.relay(from: id, user: name, text: Self.printable(text)) {
                // Answers the line as its echo would have, so a waiting sender is not left hanging.
                reply(.dropped(seconds: seconds, reason: reason), context)
            }
        case .leave:
            if let name { hub.leave(id, channel: context.channel, name: name) }
            name = nil
            isClosing = true
            // A client that sends `MSG…LEAVE` in one write still gets its echo:
            // the lines queued for it before the LEAVE wait in the hub's drain
            // task, already in this loop's queue, so the close goes in behind
            // it, and then behind the writes that drain made.
            // A client that never reads them gets a few seconds, not forever.
            Hub.closeAfterQueuedLines(context.channel)
        case .token(let presented):
            // Read once, before the name it vouches for; never logged.
            if name != nil { refuse("TOKEN", because: "sent after USR_NAME") } else { token = presented }
        case .kick(let user, let reason):
            moderate("KICK", reason: reason, context) { hub.kick(user, reason: reason, by: id) }
        case .mute(let user, let seconds, let reason):
            moderate("MUTE", reason: reason, context) {
                seconds > 0 ? hub.mute(user, seconds: seconds, reason: reason, by: id) : "seconds must be more than 0"
            }
        }
    }

    /// Runs a KICK or MUTE for a moderator and answers it, after the notices
    /// it caused: `::OK`, or `::REFUSED::{why}` (counted and logged as refused).
    private func moderate(_ frame: String, reason: String, _ context: ChannelHandlerContext, _ act: () -> String?) {
        let refusal: String?
        if let name {
            if !config.moderators.contains(name) {
                refusal = "\(Hub.quoted(name)) is not a moderator"
            } else if !reason.isEmpty, let problem = StreamChat.check(reason) {
                refusal = "reason: \(problem)"
            } else {
                refusal = act()
            }
        } else {
            refusal = "sent before USR_NAME"
        }
        if let refusal { refuse(frame, because: refusal) }
        reply(refusal.map { .refused($0) } ?? .ok, context)
    }

    /// A line for this client only, behind the room's lines already queued on
    /// its loop (the hub's drain task is ahead of this one).
    private func reply(_ line: StreamChat.ServerLine, _ context: ChannelHandlerContext) {
        let channel = context.channel
        let bytes = ByteBuffer(bytes: line.encoded)
        context.eventLoop.execute { channel.writeAndFlush(bytes, promise: nil) }
    }

    private func refuse(_ frame: String, because reason: String) {
        hub.countRefused()
        config.log("refused \(frame) from \(who): \(reason)")
    }

    /// Closes the client; `saying` is a last line it gets first (one not in
    /// the room yet has no room lines queued ahead of it).
    private func drop(_ context: ChannelHandlerContext, _ reason: String, saying last: StreamChat.ServerLine? = nil) {
        isClosing = true
        hub.countDropped()
        config.log("dropped \(who): \(reason)")
        guard let last else { return context.close(promise: nil) }
        let channel = context.channel
        context.writeAndFlush(NIOAny(ByteBuffer(bytes: last.encoded))).whenComplete { _ in channel.close(promise: nil) }
    }

    /// `127.0.0.1:5555 (bob)`, or just the address before a name is known.
    private var who: String {
        name.map { "\(peer) (\($0))" } ?? peer
    }

    static func describe(_ address: SocketAddress) -> String {
        switch address {
        case .v4: "\(address.ipAddress ?? "?"):\(address.port ?? 0)"
        case .v6: "[\(address.ipAddress ?? "?")]:\(address.port ?? 0)"
        case .unixDomainSocket: address.pathname ?? "unix"
        }
    }
}
