import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import ParleyCore
import ParleyRuntime
@testable import ParleySTOMP
import Synchronization
import Testing
import ParleyTestSupport

extension RabbitMQTests {
    /// What keeps a STOMP link honest on RabbitMQ: receipts, heart-beats,
    /// ERROR frames, kicks, discovery.
    @Suite struct STOMPLinkTests {
        static func proxied(_ port: Int) -> STOMPEndpoint {
            STOMPEndpoint(link: .websocket, host: "127.0.0.1", port: port, requestTarget: "/ws")
        }

        func startBot(name: String = "parley", room: String, endpoint: STOMPEndpoint? = RabbitMQ.webSTOMP,
                      options: STOMPOptions = RabbitMQ.options(), shipped: [String] = ["echo"],
                      recorder: Recorder, log: TransportLog = TransportLog()) throws -> (BotRunner, Task<BotOutcome, Never>) {
            let transport = STOMPTransport(endpoint: endpoint, name: name, rooms: [room], options: options, connectTimeout: 5, log: log.add)
            let spec = try botSpec(name: name, port: 0, plugins: [], shippedPlugins: shipped, transport: transport)
            let runner = BotRunner(spec: spec, observer: recorder.observer)
            return (runner, Task { await runner.run() })
        }

        /// `send` returns when the RECEIPT is in; with the broker cut off it
        /// throws after `receipt_timeout` and the link is dropped.
        @Test func aSendWaitsForItsReceipt() async throws {
            try await RabbitMQ.require()
            let proxy = try await LinkProxy.start(upstreamPort: RabbitMQ.webSTOMP.port)
            let room = RabbitMQ.freshRoom()
            // 2 s: the first send's receipt, through the proxy and the broker, must come within it.
            let options = RabbitMQ.options { $0.receiptTimeout = 2; $0.heartBeat = (0, 0) }
            let session = try await RabbitMQ.transport("sender", room: room, endpoint: Self.proxied(proxy.port), options: options).connect()
            try await session.send(OutgoingMessage(id: "1", room: room, text: "confirmed"))
            proxy.blackhole()
            let started = ContinuousClock.now
            await #expect(throws: TransportError.self) { try await session.send(OutgoingMessage(id: "2", room: room, text: "lost")) }
            // The 2 s set, not the 10 s default: a loaded 2-core machine has woken a timer 1.5 s late.
            #expect(ContinuousClock.now - started < .seconds(8))
            // The session is over: its event stream ends with the timeout.
            await #expect(throws: TransportError.self) { for try await _ in session.events {} }
            await session.close()
            await proxy.stop()
        }

        /// The bot's own beats keep an idle link open: RabbitMQ closes a
        /// client that promised beats and went quiet within a few periods.
        /// (RabbitMQ counts heart-beats in whole seconds: 500 ms becomes 1000.)
        @Test func beatsKeepAnIdleLinkOpen() async throws {
            try await RabbitMQ.require()
            let room = RabbitMQ.freshRoom()
            let options = RabbitMQ.options { $0.heartBeat = (500, 500) }
            let session = try await RabbitMQ.transport("idler", room: room, endpoint: RabbitMQ.tcpSTOMP, options: options).connect()
            let client = try #require(session as? STOMPSession).client
            #expect(client.periods.withLockedValue { $0 } == (1000, 1000))
            try await Task.sleep(for: .milliseconds(4000))
            try await session.send(OutgoingMessage(id: "1", room: room, text: "still here"))
            await session.leave()
        }

        /// A broker gone silent (no close, no bytes) is noticed after two
        /// missed heart-beats plus the margin, and presence reconnects. The
        /// bot promises no beats here, so RabbitMQ itself never closes the
        /// link and only the bot's watchdog can notice.
        @Test func heartbeatLossIsDetected() async throws {
            try await RabbitMQ.require()
            let proxy = try await LinkProxy.start(upstreamPort: RabbitMQ.webSTOMP.port)
            let room = RabbitMQ.freshRoom()
            let rec = Recorder()
            let log = TransportLog()
            let options = RabbitMQ.options { $0.heartBeat = (0, 1000); $0.heartBeatMargin = 0.5 }
            let (bot, run) = try startBot(room: room, endpoint: Self.proxied(proxy.port), options: options, recorder: rec, log: log)
            #expect(await eventually { await bot.state == .online })
            #expect(log.lines.contains { $0.contains("heart-beats: send 0 ms, expect 1000 ms") }, "\(log.lines)")
            // A healthy link with the server's beats stays up.
            try await Task.sleep(for: .milliseconds(3000))
            #expect(await bot.state == .online)
            #expect(await bot.stats.reconnects == 0)
            proxy.blackhole()
            let silencedAt = ContinuousClock.now
            #expect(await eventually(10) { await bot.state != .online })
            let detected = ContinuousClock.now - silencedAt
            // 2 × 1000 ms + 500 ms after the last byte, which came at most 1 s before the blackhole;
            // the upper bound allows a loaded machine 3 s more, and is still far from never.
            #expect(detected >= .milliseconds(1400) && detected < .milliseconds(6500), "dead link noticed after \(detected)")
            #expect(rec.logs(containing: "no heart-beat from the STOMP server").count >= 1, "\(rec.logs.map(\.text))")
            proxy.restore()
            #expect(await eventually(10) { await bot.state == .online })
            await bot.stop()
            _ = await run.value
            await proxy.stop()
        }

        /// A subscription RabbitMQ refuses fails the connect naming its room
        /// and destination: with many rooms, which one the broker refused.
        @Test func aRefusedSubscriptionNamesItsRoomAndDestination() async throws {
            try await RabbitMQ.require()
            let room = RabbitMQ.freshRoom()
            let rec = Recorder()
            let log = TransportLog()
            let options = RabbitMQ.options { $0.subscribe = "/topic/bad/{room}" }
            let (bot, run) = try startBot(room: room, options: options, recorder: rec, log: log)
            #expect(await eventually(15) { !rec.logs(containing: "room \(room): the SUBSCRIBE to /topic/bad/\(room) failed: ").isEmpty },
                    "\(rec.logs.map(\.text)) \(log.lines)")
            await bot.stop(drainTimeout: 0.2)
            _ = await run.value
        }

        /// A SEND to a destination RabbitMQ refuses (a `/` inside a topic key):
        /// the ERROR names no receipt and ends the session, so the first one
        /// looks like a lost link and the reply goes out again after the
        /// reconnect; the second ERROR for it is the broker's answer, and the
        /// reply is dropped with its words instead of ending sessions for ever.
        @Test func aSendTheBrokerRefusesIsDroppedAtItsSecondError() async throws {
            try await RabbitMQ.require()
            let room = RabbitMQ.freshRoom()
            let rec = Recorder()
            let log = TransportLog()
            let options = RabbitMQ.options { $0.send = "/topic/bad/{room}"; $0.announce = false }
            let (bot, run) = try startBot(room: room, options: options, recorder: rec, log: log)
            #expect(await eventually { await bot.state == .online })
            let alice = try await Person("alice", transport: RabbitMQ.transport("alice", room: room), room: room)
            try await alice.say("!ping")
            #expect(await eventually(15) { !rec.logs(containing: "dropped").isEmpty }, "\(rec.logs.map(\.text)) \(log.lines)")
            let dropped = rec.logs(containing: "dropped").map(\.text)
            #expect(dropped == ["send to \(room) dropped: the STOMP server answered it with ERROR twice: Invalid destination ('/bad/\(room)' is not a valid topic destination)"],
                    "\(dropped)")
            #expect(await eventually { await bot.state == .online })
            // Nothing is left to send there, so the link now holds.
            try await Task.sleep(for: .seconds(1))
            #expect(rec.logs(containing: "link lost").count == 2, "\(rec.logs.map(\.text))")
            #expect(await bot.stats.reconnects == 2)
            #expect(!rec.sent.contains { $0.text == "pong" })
            await alice.leave()
            await bot.stop(drainTimeout: 0.2)
            #expect(await run.value == .stopped)
        }

        /// The join announcement goes with a receipt: a send destination the
        /// broker refuses fails the connect with its reason, so presence backs
        /// off instead of ending each session a moment after it began.
        @Test func aRefusedAnnouncementFailsTheConnect() async throws {
            try await RabbitMQ.require()
            let transport = RabbitMQ.transport("parley", room: RabbitMQ.freshRoom(), options: RabbitMQ.options { $0.send = "/topic/bad/{room}" })
            await #expect {
                _ = try await transport.connect()
            } throws: { error in
                (error as? TransportError)?.message.contains("Invalid destination") == true
            }
        }

        /// A room whose topic RabbitMQ refuses fails the connect with the broker's reason.
        @Test func aRefusedSubscriptionFailsTheConnect() async throws {
            try await RabbitMQ.require()
            let transport = RabbitMQ.transport("parley", room: "a/b")
            await #expect {
                _ = try await transport.connect()
            } throws: { error in
                (error as? TransportError)?.message.contains("Invalid destination") == true
            }
        }

        /// A message on the kick destination: with `kick_policy = "stop"` the
        /// bot stops and says why.
        @Test func aKickStopsTheBot() async throws {
            try await RabbitMQ.require()
            let room = RabbitMQ.freshRoom()
            let rec = Recorder()
            let options = RabbitMQ.options { $0.kickDestination = "/topic/kick.{user}.\(room)" }
            let (bot, run) = try startBot(room: room, options: options, recorder: rec)
            #expect(await eventually { await bot.state == .online })
            let device = try await Person("server", transport: RabbitMQ.transport(
                "server", room: room, options: RabbitMQ.options { $0.send = "/topic/kick.parley.\(room)"; $0.announce = false }), room: room)
            try await device.say("logged in on another device")
            #expect(await run.value == .kicked("logged in on another device"))
            #expect(rec.connectionStates.last == .kicked)
            #expect(rec.logs(containing: "kicked by the server: logged in on another device").count == 1)
            await device.leave()
        }

        /// The same account logging in elsewhere (a `DUPLICATE_LOGIN` message
        /// with the bot's name as sender) under `kick_policy = "reclaim"`: the
        /// bot goes to `kicked`, then logs in again after the delay.
        @Test func aKickIsReclaimed() async throws {
            try await RabbitMQ.require()
            let room = RabbitMQ.freshRoom()
            let rec = Recorder()
            let options = RabbitMQ.options { $0.kickType = "DUPLICATE_LOGIN"; $0.kickPolicy = .reclaim(after: 0.3) }
            let (bot, run) = try startBot(room: room, options: options, recorder: rec)
            #expect(await eventually { await bot.state == .online })
            let other = try await Person("parley", transport: RabbitMQ.transport(
                "parley", room: room, options: RabbitMQ.options { $0.types.message = "DUPLICATE_LOGIN"; $0.types.join = "" }), room: room)
            try await other.say("")
            #expect(await eventually { rec.connectionStates.contains(.kicked) })
            #expect(await eventually { let s = await bot.stats; let st = await bot.state; return s.reconnects >= 1 && st == .online })
            let states = rec.connectionStates
            let kickedAt = try #require(states.firstIndex(of: .kicked))
            #expect(states[kickedAt...].contains(.online), "\(states)")
            #expect(rec.logs(containing: "logging in again in 0.3 s").count >= 1)
            // Still a working bot.
            let alice = try await Person("alice", transport: RabbitMQ.transport("alice", room: room), room: room)
            try await alice.say("!ping")
            #expect(await eventually { alice.texts(from: "parley").contains("pong") })
            await alice.leave()
            await other.close()
            await bot.stop()
            #expect(await run.value == .stopped)
        }

        /// Discovery is asked before every connect, and its answer is where the bot goes.
        @Test(arguments: [#"{"url":"ws://127.0.0.1:15674/ws"}"#, "stomp://127.0.0.1:61613\n"])
        func discoveryNamesTheServer(_ answer: String) async throws {
            try await RabbitMQ.require()
            let discovery = try await DiscoveryServer.start(answer: answer)
            let room = RabbitMQ.freshRoom()
            let rec = Recorder()
            let log = TransportLog()
            let options = RabbitMQ.options { $0.discovery = "http://127.0.0.1:\(discovery.port)/socket-server" }
            let (bot, run) = try startBot(room: room, endpoint: nil, options: options, recorder: rec, log: log)
            #expect(await eventually { await bot.state == .online }, "\(rec.logs.map(\.text))")
            #expect(discovery.requests == ["/socket-server"])
            let alice = try await Person("alice", transport: RabbitMQ.transport("alice", room: room), room: room)
            try await alice.say("!ping")
            #expect(await eventually { alice.texts(from: "parley").contains("pong") })
            await alice.leave()
            await bot.stop()
            _ = await run.value
            await discovery.stop()
        }

        /// A path that dies silently takes the keep-alive connection to the
        /// discovery server with it. The reconnect's discovery goes out on a
        /// new connection instead of waiting out its timeout on the dead one.
        @Test func aSilentPathDoesNotStrandTheNextDiscovery() async throws {
            try await RabbitMQ.require()
            let broker = try await LinkProxy.start(upstreamPort: RabbitMQ.webSTOMP.port)
            let discovery = try await DiscoveryServer.start(answer: #"{"url":"ws://127.0.0.1:\#(broker.port)/ws"}"#)
            let discoveryPath = try await LinkProxy.start(upstreamPort: discovery.port)
            let room = RabbitMQ.freshRoom()
            let rec = Recorder()
            let log = TransportLog()
            let options = RabbitMQ.options {
                $0.discovery = "http://127.0.0.1:\(discoveryPath.port)/socket-server"
                $0.heartBeat = (1000, 1000)
            }
            let (bot, run) = try startBot(room: room, endpoint: nil, options: options, recorder: rec, log: log)
            #expect(await eventually { await bot.state == .online }, "\(rec.logs.map(\.text))")
            broker.silenceExisting()
            discoveryPath.silenceExisting()
            #expect(await eventually(30) { let s = await bot.stats; let st = await bot.state; return s.reconnects >= 1 && st == .online })
            #expect(discovery.requests.count == 2)
            let logs = rec.logs.map(\.text) + log.lines
            #expect(!logs.contains { $0.contains("discovery failed") }, "\(logs)")
            await bot.stop()
            _ = await run.value
            await discoveryPath.stop()
            await discovery.stop()
            await broker.stop()
        }

        @Test func aDiscoveryAnswerThatIsNoAddressIsAnError() async throws {
            let discovery = try await DiscoveryServer.start(answer: #"{"host":"nowhere"}"#)
            var options = STOMPOptions()
            options.discovery = "http://127.0.0.1:\(discovery.port)/"
            await #expect {
                _ = try await STOMPTransport(endpoint: nil, name: "b", options: options, connectTimeout: 2).connect()
            } throws: { error in
                (error as? TransportError)?.message.contains("not {\"url\"") == true
            }
            await discovery.stop()
        }
    }
}

/// A tiny HTTP server answering every GET with one fixed body (the socket-server discovery endpoint).
final class DiscoveryServer: Sendable {
    let port: Int
    private let channel: Channel
    private let seen = Mutex<[String]>([])

    var requests: [String] { seen.withLock { $0 } }

    private init(port: Int, channel: Channel) {
        self.port = port
        self.channel = channel
    }

    static func start(answer: String) async throws -> DiscoveryServer {
        let box = RequestBox()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(Answer(answer: answer, box: box))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let server = DiscoveryServer(port: channel.localAddress!.port!, channel: channel)
        box.server.withLock { $0 = server }
        return server
    }

    func stop() async { try? await channel.close().get() }

    fileprivate func record(_ uri: String) { seen.withLock { $0.append(uri) } }

    fileprivate final class RequestBox: Sendable {
        let server = Mutex<DiscoveryServer?>(nil)
    }

    private final class Answer: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let answer: String
        let box: RequestBox

        init(answer: String, box: RequestBox) {
            self.answer = answer
            self.box = box
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                box.server.withLock { $0 }?.record(head.uri)
            case .body:
                break
            case .end:
                var headers = HTTPHeaders()
                headers.add(name: "Content-Length", value: String(answer.utf8.count))
                headers.add(name: "Content-Type", value: "application/json")
                context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
                context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: answer)))), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
        }
    }
}
