import Foundation
import NIOCore
import NIOPosix
import NIOWebSocket
import ParleyNet
#if canImport(Glibc)
import Glibc
#endif

/// The least a reply can cost a bot on this machine, measured beside the
/// echo bots: one thread that does nothing but the bot's system calls.
///
/// Parley's SocketChat server sends a bot that asks (`echo=false`, as
/// Parley's bots and the python echo bot do) everything said in its room
/// but its own messages, so an echo bot wakes once a reply: for the message.
/// Here a responder thread blocks in `poll` on a loopback TCP socket; a
/// driver process sends it a 60-byte message every millisecond and reads
/// each 60-byte answer, as the server does. The responder reads and
/// answers: one wake, one read and one write a reply, and no work at all.
/// Its CPU time and context switches (`RUSAGE_THREAD`) are the floor under
/// the paced targets, for any bot and any language.
///
/// The same exchange through a NIO channel on one event loop (`.nio`) is
/// the floor for a bot built on NIO: `epoll`, the loop's own bookkeeping and
/// a pipeline of one handler, and still no work. With `.webSocket` each
/// message and answer is a WebSocket text frame (the driver sends unmasked
/// frames as a server does, the responder masked ones as a client must),
/// read and written through NIOWebSocket's codec: the floor for a WebSocket
/// bot on NIO, before Engine.IO, Socket.IO and the bot itself. With
/// `.leanBot` the frames carry SocketChat messages and `LeanEcho` answers
/// them through a Lua function: not a floor, but the least a Lua bot does.
enum WakeFloor {
    /// What answers the driver: a bare `poll` loop, a NIO channel, a NIO
    /// channel speaking WebSocket frames, or `LeanEcho` behind the same codec.
    enum Responder {
        case poll, nio, webSocket, leanBot

        /// What the driver sends this responder.
        var framing: Framing {
            switch self {
            case .poll, .nio: .raw
            case .webSocket: .websocket
            case .leanBot: .socketio
            }
        }
    }

    /// What the driver sends: the bare 60 bytes, or a text frame holding them
    /// or a SocketChat message (`--wake-floor-driver`'s last argument).
    enum Framing: String { case raw, websocket, socketio }

    struct Figures {
        var cpuPerReply: Double
        var switchesPerReply: Double
        var replies: Int
    }

    static let frameBytes = 60

    static func measure(seconds: Double, perSecond: Int = 1_000, through responder: Responder = .poll) throws -> Figures {
        let (listener, port) = try Self.listener()
        defer { close(listener) }
        // The driver is a process of its own, as the server is for the bots:
        // a wake from another process costs more than one from a thread.
        let count = max(1, Int(seconds * Double(perSecond)))
        let driver = Process()
        driver.executableURL = URL(fileURLWithPath: BenchProcess.executable)
        driver.arguments = ["--wake-floor-driver", "\(port)", "\(count)", "\(perSecond)", responder.framing.rawValue]
        try driver.run()
        defer { if driver.isRunning { driver.terminate() }; driver.waitUntilExit() }
        // A driver that died before it connected must not hang the bench in `accept`.
        let fd = try acceptOne(listener, within: 10, who: "the driver process")
        let figures: Figures?
        switch responder {
        case .poll:
            defer { close(fd) }
            figures = respond(on: fd, replies: count)
        case .nio, .webSocket, .leanBot:
            figures = try respondThroughNIO(on: fd, replies: count, responder: responder)
        }
        guard let figures else { throw BenchError("wake floor: the driver went away") }
        return figures
    }

    /// Child mode `--wake-floor-driver PORT COUNT RATE FRAMING`: the server's side.
    static func driver(port: Int, messages: Int, perSecond: Int, framing: Framing) throws {
        let fd = try connected(port: port)
        defer { close(fd) }
        drive(fd, messages: messages, perSecond: perSecond, framing: framing)
    }

    /// Child mode `--lean-bot-replies N PORT`: `LeanEcho` connects to the
    /// driver on PORT and answers N messages (its instructions are counted
    /// under valgrind, where it cannot start the driver itself: Foundation's
    /// `Process` fails there on the descriptors valgrind keeps open).
    static func leanResponder(port: Int, replies: Int) throws {
        // The channel owns the descriptor from here on.
        let fd = try connected(port: port)
        guard try respondThroughNIO(on: fd, replies: replies, responder: .leanBot) != nil else { throw BenchError("lean bot: the driver went away") }
    }

    /// The driver's side in this process for `leanResponder` in another:
    /// `start` starts it with the port to connect to.
    static func driveLeanResponder(messages: Int, perSecond: Int, within seconds: Int32 = 120, start: (Int) throws -> Void) throws {
        let (listener, port) = try Self.listener()
        defer { close(listener) }
        try start(port)
        // Under valgrind the bot takes seconds to start (minutes under lackey).
        let fd = try acceptOne(listener, within: seconds, who: "the lean bot")
        defer { close(fd) }
        drive(fd, messages: messages, perSecond: perSecond, framing: .socketio)
    }

    /// The bot's side: wait, read, answer a message.
    private static func respond(on fd: Int32, replies: Int) -> Figures? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let reply = [UInt8](repeating: 0x72, count: frameBytes)
        let before = threadUsage()
        var frames = FrameCounter()
        while frames.messages < replies {
            // `poll` rather than epoll: one descriptor, the same sleep and wake.
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, -1) == 1 else { continue }
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { return nil }
            for i in 0..<n where frames.isMessage(buffer[i]) {
                _ = reply.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            }
        }
        return figures(since: before, answered: frames.messages)
    }

    /// Messages in the byte stream from the driver: a read may hold several
    /// or split one (TCP), so a message starts every `frameBytes` of the stream.
    private struct FrameCounter {
        private(set) var messages = 0
        private var position = 0

        /// Counts `byte`; true when it starts a message, which wants an answer.
        mutating func isMessage(_ byte: UInt8) -> Bool {
            defer { position += 1 }
            guard position % WakeFloor.frameBytes == 0 else { return false }
            messages += 1
            return true
        }
    }

    /// The bot's side on NIO: the accepted socket handed to a channel on a
    /// one-thread group, whose handler answers as `respond` does (behind
    /// NIOWebSocket's frame codec, or `LeanEcho` behind it).
    private static func respondThroughNIO(on fd: Int32, replies: Int, responder: Responder) throws -> Figures? {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let done = group.next().makePromise(of: Figures?.self)
        let channel = try ClientBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    if responder != .nio {
                        try pipeline.addHandler(ByteToMessageHandler(WebSocketFrameDecoder()))
                        try pipeline.addHandler(WebSocketFrameEncoder())
                    }
                    if responder == .leanBot {
                        try pipeline.addHandler(LeanEcho(replies: replies, done: done))
                    } else {
                        if responder == .webSocket { try pipeline.addHandler(FramePayloads()) }
                        try pipeline.addHandler(EchoResponder(replies: replies, done: done))
                    }
                }
            }
            .withConnectedSocket(fd).wait()
        defer { try? channel.close().wait() }
        return try done.futureResult.wait()
    }

    /// A NIO responder's measurement: it starts when the handler joins the
    /// pipeline (on the loop's thread) and ends once, with the figures, with
    /// nil when the driver went away, or with an error.
    struct Measurement {
        private let done: EventLoopPromise<Figures?>
        private var before = rusage()
        private var ended = false

        init(done: EventLoopPromise<Figures?>) { self.done = done }

        mutating func start() { before = WakeFloor.threadUsage() }
        mutating func end(answered: Int) { end(.success(WakeFloor.figures(since: before, answered: answered))) }
        mutating func end(_ result: Result<Figures?, any Error>) {
            guard !ended else { return }
            ended = true
            done.completeWith(result)
        }
    }

    /// `respond`'s loop body as a channel handler: one write and flush a message.
    private final class EchoResponder: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        private let replies: Int
        private let reply = ByteBuffer(repeating: 0x72, count: WakeFloor.frameBytes)
        private var measurement: Measurement
        private var frames = FrameCounter()

        init(replies: Int, done: EventLoopPromise<Figures?>) {
            self.replies = replies
            measurement = Measurement(done: done)
        }

        func handlerAdded(context: ChannelHandlerContext) { measurement.start() }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            for byte in unwrapInboundIn(data).readableBytesView where frames.isMessage(byte) {
                context.writeAndFlush(wrapOutboundOut(reply), promise: nil)
            }
            if frames.messages >= replies { measurement.end(answered: frames.messages) }
        }

        func channelInactive(context: ChannelHandlerContext) { measurement.end(.success(nil)) }
    }

    /// Frames to their payloads inbound, payloads to masked text frames
    /// outbound, so `EchoResponder` sees the same 60-byte units either way.
    private final class FramePayloads: ChannelDuplexHandler {
        typealias InboundIn = WebSocketFrame
        typealias InboundOut = ByteBuffer
        typealias OutboundIn = ByteBuffer
        typealias OutboundOut = WebSocketFrame

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            context.fireChannelRead(wrapInboundOut(unwrapInboundIn(data).unmaskedData))
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            let frame = WebSocketFrame(fin: true, opcode: .text, maskKey: .pooled(), data: unwrapOutboundIn(data))
            context.write(wrapOutboundOut(frame), promise: promise)
        }
    }

    /// This thread's CPU time and context switches so far.
    static func threadUsage() -> rusage {
        var usage = rusage()
        getrusage(rusageThread, &usage)
        return usage
    }

    static func figures(since before: rusage, answered: Int) -> Figures {
        let after = threadUsage()
        let cpu = seconds(after.ru_utime) + seconds(after.ru_stime) - seconds(before.ru_utime) - seconds(before.ru_stime)
        let switches = (after.ru_nvcsw + after.ru_nivcsw) - (before.ru_nvcsw + before.ru_nivcsw)
        return Figures(cpuPerReply: cpu / Double(answered) * 1e6, switchesPerReply: Double(switches) / Double(answered), replies: answered)
    }

    /// The server's side: a message on a fixed schedule, and each answer read
    /// whole (to everyone else, as the server relays it). In WebSocket frames
    /// messages go out unmasked and answers come in masked.
    private static func drive(_ fd: Int32, messages: Int, perSecond: Int, framing: Framing) {
        let payload = framing == .socketio ? LeanEcho.message : [UInt8](repeating: 0x6D, count: frameBytes)
        // A frame of up to 125 bytes: FIN and text, then the length (a client's also sets the mask bit and adds a key).
        let message = framing == .raw ? payload : [0x81, UInt8(payload.count)] + payload
        var buffer = [UInt8](repeating: 0, count: 4096)
        /// Exactly `count` bytes into `buffer`, or false when the link is gone.
        func read(_ count: Int) -> Bool {
            var got = 0
            while got < count {
                let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + got, count - got) }
                if n <= 0 { return false }
                got += n
            }
            return true
        }
        var due = timespec()
        clock_gettime(CLOCK_MONOTONIC, &due)
        let step = 1_000_000_000 / perSecond
        for _ in 0..<messages {
            _ = message.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            // The answer, whole (as a frame: two header bytes, the mask key, the payload).
            if framing == .raw {
                guard read(frameBytes) else { return }
            } else {
                guard read(2) else { return }
                let length = Int(buffer[1] & 0x7F)
                guard length < 126, read(4 + length) else { return }
            }
            due.tv_nsec += step
            if due.tv_nsec >= 1_000_000_000 { due.tv_sec += 1; due.tv_nsec -= 1_000_000_000 }
            clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &due, nil)
        }
    }

    /// Linux's `RUSAGE_THREAD`, which Glibc's Swift overlay does not name.
    private static let rusageThread = __rusage_who_t(1)

    private static func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }

    /// A socket listening on 127.0.0.1 at a free port, and the port.
    private static func listener() throws -> (fd: Int32, port: Int) {
        let fd = try tcpSocket()
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        do {
            try withSockaddr(&address) { guard bind(fd, $0, length) == 0 else { throw BenchError("wake floor: bind failed (errno \(errno))") } }
            try withSockaddr(&address) { guard getsockname(fd, $0, &length) == 0 else { throw BenchError("wake floor: getsockname failed") } }
            guard listen(fd, 1) == 0 else { throw BenchError("wake floor: listen failed") }
        } catch {
            close(fd)
            throw error
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// The one connection to `listener`, Nagle off; `who` did not connect within `seconds`, else.
    private static func acceptOne(_ listener: Int32, within seconds: Int32, who: String) throws -> Int32 {
        var incoming = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        guard poll(&incoming, 1, seconds * 1000) == 1 else { throw BenchError("wake floor: \(who) did not connect within \(seconds) s") }
        let fd = accept(listener, nil, nil)
        guard fd >= 0 else { throw BenchError("wake floor: accept failed (errno \(errno))") }
        noDelay(fd)
        return fd
    }

    /// A socket connected to 127.0.0.1:`port`, Nagle off.
    private static func connected(port: Int) throws -> Int32 {
        let fd = try tcpSocket()
        var address = loopback(port: port)
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        do {
            try withSockaddr(&address) { guard connect(fd, $0, length) == 0 else { throw BenchError("wake floor: connect to port \(port) failed (errno \(errno))") } }
        } catch {
            close(fd)
            throw error
        }
        noDelay(fd)
        return fd
    }

    private static func tcpSocket() throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError("wake floor: socket failed (errno \(errno))") }
        return fd
    }

    /// 127.0.0.1:`port` (0: any free port, for a listener).
    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        address.sin_port = UInt16(port).bigEndian
        return address
    }

    private static func noDelay(_ fd: Int32) {
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    private static func withSockaddr<T>(_ a: inout sockaddr_in, _ body: (UnsafeMutablePointer<sockaddr>) throws -> T) rethrows -> T {
        try withUnsafeMutablePointer(to: &a) { try $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
    }

}
