import NIOCore
import NIOHTTP1
import NIOWebSocket
import ParleyServers
import ParleyWire
import Testing

@Suite("SocketChat server: Engine.IO long-polling", .timeLimit(.minutes(1)))
struct EngineIOPollingTests {
    @Test func theHandshakeIsTheOpenPacket() async throws {
        let config = SocketChatServer.Configuration(pingInterval: .milliseconds(15_500), pingTimeout: .milliseconds(7_700), maxPayload: 4321)
        try await withSocketChatServer(config) { server in
            let r = try await RawHTTP.request(port: server.port, uri: eio("transport=polling&t=NbH3x1"))
            #expect(r.status == 200)
            #expect(r.headers.first(name: "Content-Type") == "text/plain; charset=UTF-8")
            #expect(r.headers.first(name: "Content-Length") == String(r.body.utf8.count))
            #expect(r.body.hasPrefix("0{\"sid\":\""))
            let json = try JSONValue.parse(String(r.body.dropFirst()))
            #expect(json["sid"]?.string?.count == 20)
            #expect(json["upgrades"] == ["websocket"])
            #expect(json["pingInterval"] == 15_500)
            #expect(json["pingTimeout"] == 7_700)
            #expect(json["maxPayload"] == 4321)
            #expect(server.stats.sessions == 1)
        }
    }

    @Test func withoutWebSocketNoUpgradeIsOffered() async throws {
        try await withSocketChatServer(.init(allowWebSocket: false)) { server in
            let open = try await pollingHandshake(port: server.port)
            #expect(open.upgrades == [])
            await #expect(throws: (any Error).self) {
                _ = try await RawWebSocketClient.connect(port: server.port)
            }
        }
    }

    @Test func postedPacketsAreAnsweredOnTheNextGet() async throws {
        try await withSocketChatServer { server in
            let sid = try await pollingHandshake(port: server.port).sid
            let post = try await RawHTTP.request(.POST, port: server.port, uri: eio("transport=polling&sid=\(sid)"), body: "40\u{1e}40/lab,{\"token\":\"t\"}")
            #expect(post.status == 200)
            #expect(post.body == "ok")
            let get = try await RawHTTP.request(port: server.port, uri: eio("transport=polling&sid=\(sid)"))
            #expect(get.status == 200)
            let parts = get.body.split(separator: "\u{1e}")
            try #require(parts.count == 2)
            #expect(parts[0].hasPrefix("40{\"sid\":\""))
            #expect(parts[1].hasPrefix("40/lab,{\"sid\":\""))
            #expect(parts[0].dropFirst(2) != parts[1].dropFirst(7))
        }
    }

    @Test func aGetWithNothingQueuedIsHeldUntilSomethingIs() async throws {
        try await withSocketChatServer { server in
            let sid = try await pollingConnect(port: server.port)
            let started = ContinuousClock.now
            let held = try await RawHTTP.start(port: server.port, uri: eio("transport=polling&sid=\(sid)"))
            try await Task.sleep(for: .milliseconds(300))
            _ = try await RawHTTP.request(.POST, port: server.port, uri: eio("transport=polling&sid=\(sid)"), body: #"42["startType","pat"]"#)
            let answer = try await held.get()
            #expect(ContinuousClock.now - started >= .milliseconds(300))
            #expect(answer.body == #"42["userTypingUpdate",{"pat":1}]"#)
        }
    }

    @Test func aSecondConcurrentGetIsRefusedAndEndsTheSession() async throws {
        let log = LogSink()
        try await withSocketChatServer(.init(log: log.log)) { server in
            let sid = try await pollingConnect(port: server.port)
            let first = try await RawHTTP.start(port: server.port, uri: eio("transport=polling&sid=\(sid)"))
            try await Task.sleep(for: .milliseconds(300))
            let second = try await RawHTTP.request(port: server.port, uri: eio("transport=polling&sid=\(sid)"))
            #expect(second.status == 400)
            #expect(second.body == #"{"code":3,"message":"Bad request"}"#)
            #expect(try await first.get().body == "1")
            let third = try await RawHTTP.request(port: server.port, uri: eio("transport=polling&sid=\(sid)"))
            #expect(third.body == #"{"code":1,"message":"Session ID unknown"}"#)
            #expect(server.stats.sessions == 0)
            #expect(server.stats.clientsDropped == 1)
            #expect(log.contains("a second long-poll while one is pending"))
        }
    }

    @Test func aPostOverMaxPayloadIs413AndEndsTheSession() async throws {
        try await withSocketChatServer(.init(maxPayload: 100)) { server in
            let sid = try await pollingConnect(port: server.port)
            let uri = eio("transport=polling&sid=\(sid)")
            // Exactly maxPayload is fine.
            let fits = #"42["startType","\#(String(repeating: "p", count: 100 - 18))"]"#
            #expect(fits.utf8.count == 100)
            #expect(try await RawHTTP.request(.POST, port: server.port, uri: uri, body: fits).body == "ok")
            let tooBig = try await RawHTTP.request(.POST, port: server.port, uri: uri, body: fits + " ")
            #expect(tooBig.status == 413)
            #expect(await eventually { server.stats.sessions == 0 })
            #expect(try await RawHTTP.request(port: server.port, uri: uri).status == 400)
        }
    }

    @Test func aPayloadThatDoesNotDecodeEndsTheSession() async throws {
        try await withSocketChatServer { server in
            let sid = try await pollingConnect(port: server.port)
            let r = try await RawHTTP.request(.POST, port: server.port, uri: eio("transport=polling&sid=\(sid)"), body: "40\u{1e}\u{1e}x")
            #expect(r.status == 400)
            #expect(await eventually { server.stats.sessions == 0 })
            #expect(server.stats.clientsDropped == 1)
        }
    }

    @Test func aClosePacketEndsTheSession() async throws {
        try await withSocketChatServer { server in
            let sid = try await pollingConnect(port: server.port)
            _ = try await RawHTTP.request(.POST, port: server.port, uri: eio("transport=polling&sid=\(sid)"), body: "1")
            #expect(await eventually { server.stats.sessions == 0 })
            #expect(server.stats.clientsDropped == 0)
        }
    }

    @Test func hangingUpOnAHeldGetEndsTheSession() async throws {
        try await withSocketChatServer { server in
            let sid = try await pollingConnect(port: server.port)
            let held = try await RawHTTP.start(port: server.port, uri: eio("transport=polling&sid=\(sid)"))
            try await Task.sleep(for: .milliseconds(100))
            try await held.channel.close()
            #expect(await eventually { server.stats.sessions == 0 })
        }
    }

    static let refusals: [(uri: String, status: Int, body: String)] = [
        ("/socket.io/?EIO=3&transport=polling", 400, #"{"code":5,"message":"Unsupported protocol version"}"#),
        ("/socket.io/?transport=polling", 400, #"{"code":5,"message":"Unsupported protocol version"}"#),
        ("/socket.io/?EIO=4&transport=carrier-pigeon", 400, #"{"code":0,"message":"Transport unknown"}"#),
        ("/socket.io/?EIO=4", 400, #"{"code":0,"message":"Transport unknown"}"#),
        ("/socket.io/?EIO=4&transport=polling&sid=nope", 400, #"{"code":1,"message":"Session ID unknown"}"#),
        ("/socket.io/?EIO=4&transport=websocket&sid=nope", 400, #"{"code":1,"message":"Session ID unknown"}"#),
        // A WebSocket request without the Upgrade header.
        ("/socket.io/?EIO=4&transport=websocket", 400, #"{"code":3,"message":"Bad request"}"#),
        ("/socket.io?EIO=4&transport=polling", 404, "Not Found"),
        ("/elsewhere/?EIO=4&transport=polling", 404, "Not Found"),
    ]

    @Test(arguments: refusals)
    func badRequestsAreRefused(uri: String, status: Int, body: String) async throws {
        try await withSocketChatServer { server in
            let r = try await RawHTTP.request(port: server.port, uri: uri)
            #expect(r.status == status)
            #expect(r.body == body)
            if status == 400 { #expect(r.headers.first(name: "Content-Type") == "application/json") }
            #expect(server.stats.sessions == 0)
        }
    }

    @Test func aHandshakeMustBeAGet() async throws {
        try await withSocketChatServer { server in
            let r = try await RawHTTP.request(.POST, port: server.port, uri: eio("transport=polling"), body: "40")
            #expect(r.status == 400)
            #expect(r.body == #"{"code":2,"message":"Bad handshake method"}"#)
        }
    }

    @Test func pollingCanBeTurnedOff() async throws {
        try await withSocketChatServer(.init(allowPolling: false)) { server in
            let r = try await RawHTTP.request(port: server.port, uri: eio("transport=polling"))
            #expect(r.body == #"{"code":0,"message":"Transport unknown"}"#)
            let ws = try await RawWebSocketClient.connect(port: server.port)
            #expect(try await ws.text().hasPrefix("0{"))
        }
    }

    @Test func sessionsBeyondTheLimitAreRefused() async throws {
        try await withSocketChatServer(.init(maxConnections: 2)) { server in
            _ = try await pollingHandshake(port: server.port)
            _ = try await pollingHandshake(port: server.port)
            let third = try await RawHTTP.request(port: server.port, uri: eio("transport=polling"))
            #expect(third.status == 503)
            #expect(server.stats.sessions == 2)
        }
    }
}

@Suite("SocketChat server: Engine.IO WebSocket and upgrade", .timeLimit(.minutes(1)))
struct EngineIOWebSocketTests {
    @Test func aWebSocketOnlyClientGetsTheOpenPacketFirst() async throws {
        try await withSocketChatServer { server in
            let ws = try await RawWebSocketClient.connect(port: server.port)
            let first = try await ws.text()
            guard case .open(let open) = try EngineIO.decode(text: first) else {
                Issue.record("first frame is not an open packet: \(first)")
                return
            }
            #expect(open.upgrades == [])
            #expect(open.pingInterval == 25_000 && open.pingTimeout == 20_000 && open.maxPayload == 1_000_000)
            ws.send("40")
            let connect = try await ws.text()
            #expect(connect.hasPrefix(#"40{"sid":""#))
            let socketSID = try JSONValue.parse(String(connect.dropFirst(2)))["sid"]?.string
            #expect(socketSID != nil && socketSID != open.sid)
        }
    }

    @Test func theProbeUpgradeMovesASessionToWebSocket() async throws {
        try await withSocketChatServer { server in
            let sid = try await pollingConnect(port: server.port)
            let uri = eio("transport=polling&sid=\(sid)")
            let held = try await RawHTTP.start(port: server.port, uri: uri)
            let ws = try await RawWebSocketClient.connect(port: server.port, query: "EIO=4&transport=websocket&sid=\(sid)")
            ws.send("2probe")
            #expect(try await ws.text() == "3probe")
            // The pending GET is released with a noop so the client can switch.
            #expect(try await held.get().body == "6")
            // Sent while the upgrade is under way: it waits for the WebSocket.
            #expect(try await RawHTTP.request(.POST, port: server.port, uri: uri, body: #"42["startType","pat"]"#).body == "ok")
            ws.send("5")
            #expect(try await ws.text() == #"42["userTypingUpdate",{"pat":1}]"#)
            // The session is the WebSocket's now; polling it is refused, and nothing came twice.
            #expect(try await RawHTTP.request(port: server.port, uri: uri).body == #"{"code":3,"message":"Bad request"}"#)
            ws.send(#"42["stopType","pat"]"#)
            #expect(try await ws.text() == #"42["userTypingUpdate",{}]"#)
            #expect(await ws.next(timeout: .milliseconds(200)) == nil)
            #expect(server.stats.sessions == 1)
        }
    }

    @Test func aFailedUpgradeLeavesTheSessionPolling() async throws {
        try await withSocketChatServer { server in
            let sid = try await pollingConnect(port: server.port)
            let uri = eio("transport=polling&sid=\(sid)")
            let ws = try await RawWebSocketClient.connect(port: server.port, query: "EIO=4&transport=websocket&sid=\(sid)")
            ws.send("2probe")
            #expect(try await ws.text() == "3probe")
            #expect(try await RawHTTP.request(.POST, port: server.port, uri: uri, body: #"42["startType","pat"]"#).body == "ok")
            await ws.disconnect()
            // What waited for the WebSocket goes to the next GET instead.
            #expect(try await RawHTTP.request(port: server.port, uri: uri).body == #"42["userTypingUpdate",{"pat":1}]"#)
        }
    }

    @Test func aSecondUpgradeIsRefused() async throws {
        try await withSocketChatServer { server in
            let sid = try await pollingConnect(port: server.port)
            let ws = try await RawWebSocketClient.connect(port: server.port, query: "EIO=4&transport=websocket&sid=\(sid)")
            ws.send("2probe")
            #expect(try await ws.text() == "3probe")
            ws.send("5")
            try await Task.sleep(for: .milliseconds(100))
            await #expect(throws: (any Error).self) {
                _ = try await RawWebSocketClient.connect(port: server.port, query: "EIO=4&transport=websocket&sid=\(sid)")
            }
            ws.send(#"42["startType","pat"]"#)
            #expect(try await ws.text() == #"42["userTypingUpdate",{"pat":1}]"#)
        }
    }

    @Test func theServerPingsOnTimeAndDropsAClientThatNeverPongs() async throws {
        let log = LogSink()
        // The timeout leaves room for a loaded machine: the suites share two cores.
        let config = SocketChatServer.Configuration(pingInterval: .milliseconds(300), pingTimeout: .seconds(1), log: log.log)
        try await withSocketChatServer(config) { server in
            // ann answers every ping; bob never does. Times are arrival times on the clients' event loop.
            let ann = try await RawWebSocketClient.connect(port: server.port, answeringPings: true, greeting: ["40", #"42["connectUser","ann"]"#])
            let bob = try await RawWebSocketClient.connect(port: server.port, greeting: ["40", #"42["connectUser","bob"]"#])
            var annOpened: ContinuousClock.Instant?
            var pings: [ContinuousClock.Instant] = []
            var bobGone: ContinuousClock.Instant?
            var heard: [ChatEvent] = []
            while bobGone == nil, let received = await ann.received() {
                guard case .text(let text) = received.event else { break }
                if text.hasPrefix("0{") {
                    annOpened = received.at
                } else if text == "2" {
                    pings.append(received.at)
                } else if let event = ChatEvent(text) {
                    heard.append(event)
                    if event == ChatEvent("userExitUpdate", ["bob"]) { bobGone = received.at }
                }
            }
            let bobOpened = try #require(await bob.received()).at
            #expect(await bob.closedByServer(within: .seconds(1)))
            let gone = try #require(bobGone) - bobOpened
            #expect(gone >= .milliseconds(1250) && gone < .seconds(4), "bob dropped after \(gone)")
            // The first ping comes an interval after the session opened (the open packet
            // may reach the client a little after that); each next one an interval after
            // the pong, so never sooner. Upper bounds allow for a loaded machine.
            let first = try #require(pings.first) - #require(annOpened)
            #expect(first >= .milliseconds(200) && first < .seconds(2), "first ping after \(first)")
            try #require(pings.count >= 2)
            for (before, ping) in zip(pings, pings.dropFirst()) {
                #expect(ping - before >= .milliseconds(300) && ping - before < .seconds(2), "ping after \(ping - before)")
            }
            #expect(heard.contains { $0.name == "userList" && $0.args[0][1]?["isConnected"] == false })
            #expect(log.all.contains { $0.hasPrefix("dropped 127.0.0.1:") && $0.hasSuffix("no pong within 1.0 seconds of a ping") })
            // ann, who answers, stays.
            try await Task.sleep(for: .milliseconds(700))
            ann.send(#"42["startType","ann"]"#)
            _ = try await ann.text { $0 == #"42["userTypingUpdate",{"ann":1}]"# }
            #expect(server.stats.clientsDropped == 1)
        }
    }

    @Test func aSessionThatNeverConnectsIsClosed() async throws {
        let log = LogSink()
        try await withSocketChatServer(.init(connectTimeout: .milliseconds(700), log: log.log)) { server in
            let silent = try await RawWebSocketClient.connect(port: server.port)
            let (ann, _) = try await connectChat(port: server.port)
            let opened = try #require(await silent.received()).at
            var closed: ContinuousClock.Instant?
            while closed == nil, let received = await silent.received() {
                if received.event == .closed { closed = received.at }
            }
            let after = try #require(closed) - opened
            #expect(after >= .milliseconds(650) && after < .seconds(2), "closed after \(after)")
            #expect(log.contains("no Socket.IO CONNECT within 0.7 seconds"))
            // ann connected in time and stays.
            try await Task.sleep(for: .milliseconds(300))
            ann.send(#"42["startType","ann"]"#)
            #expect(try await ann.event() == ChatEvent("userTypingUpdate", [["ann": 1]]))
        }
    }

    @Test func aFrameOverMaxPayloadClosesTheConnection() async throws {
        let log = LogSink()
        try await withSocketChatServer(.init(maxPayload: 1000, log: log.log)) { server in
            let (ann, _) = try await connectChat(port: server.port)
            let fits = #"42["startType","\#(String(repeating: "a", count: 1000 - 18))"]"#
            #expect(fits.utf8.count == 1000)
            ann.send(fits)
            #expect(try await ann.event().name == "userTypingUpdate")
            ann.send(fits + " ")
            #expect(await ann.closedByServer())
            #expect(log.contains("message larger than maxPayload (1000 bytes)"), "\(log.all)")
            #expect(await eventually { server.stats.sessions == 0 })
        }
    }

    @Test func fragmentsAreJoinedAndBoundedAsOneMessage() async throws {
        try await withSocketChatServer(.init(maxPayload: 1000)) { server in
            let (ann, _) = try await connectChat(port: server.port)
            ann.send(WebSocketFrame(fin: false, opcode: .text, maskKey: .random(), data: ByteBuffer(string: #"42["startTy"#)))
            ann.send(WebSocketFrame(fin: true, opcode: .continuation, maskKey: .random(), data: ByteBuffer(string: #"pe","ann"]"#)))
            #expect(try await ann.event() == ChatEvent("userTypingUpdate", [["ann": 1]]))
            let piece = ByteBuffer(string: String(repeating: "x", count: 400))
            ann.send(WebSocketFrame(fin: false, opcode: .text, maskKey: .random(), data: piece))
            ann.send(WebSocketFrame(fin: false, opcode: .continuation, maskKey: .random(), data: piece))
            ann.send(WebSocketFrame(fin: true, opcode: .continuation, maskKey: .random(), data: piece))
            #expect(await ann.closedByServer())
        }
    }

    @Test func webSocketPingsArePongedAndCloseFramesEchoed() async throws {
        try await withSocketChatServer { server in
            let (ann, _) = try await connectChat(port: server.port)
            ann.send(WebSocketFrame(fin: true, opcode: .ping, maskKey: .random(), data: ByteBuffer(string: "hey")))
            #expect(await ann.next() == .pong(Array("hey".utf8)))
            var code = ByteBuffer()
            code.write(webSocketErrorCode: .goingAway)
            ann.send(WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: code))
            #expect(await ann.next() == .closed)
            #expect(await eventually { server.stats.sessions == 0 })
            #expect(server.stats.clientsDropped == 0)
        }
    }

    @Test func connectionsBeyondTheLimitAreClosed() async throws {
        try await withSocketChatServer(.init(maxConnections: 2)) { server in
            let a = try await connectChat(port: server.port)
            let b = try await connectChat(port: server.port)
            await #expect(throws: (any Error).self) {
                _ = try await RawWebSocketClient.connect(port: server.port)
            }
            withExtendedLifetime((a, b)) {}
        }
    }

    @Test func shutdownClosesEveryoneAndThePortCanBeReused() async throws {
        var port = 0
        for round in 0..<2 {
            let server = try await SocketChatServer.start(.init(port: port), on: testGroup)
            if round > 0 { #expect(server.port == port) }
            port = server.port
            let (ann, _) = try await connectChat(port: port, nick: "ann")
            let sid = try await pollingConnect(port: port)
            let held = try await RawHTTP.start(port: port, uri: eio("transport=polling&sid=\(sid)"))
            // Time for the GET to reach its session (the whole suite runs in parallel on two cores).
            try await Task.sleep(for: .milliseconds(300))
            await server.shutdown()
            #expect(await ann.closedByServer())
            #expect(try await held.get().body == "1")
            #expect(server.stats.sessions == 0)
            await #expect(throws: (any Error).self) { _ = try await RawHTTP.request(port: port, uri: eio("transport=polling")) }
            await server.shutdown()  // twice is harmless
        }
    }
}

// MARK: helpers

/// Runs `body` against a fresh server and always shuts it down.
func withSocketChatServer(
    _ config: SocketChatServer.Configuration = .init(),
    _ body: (SocketChatServer) async throws -> Void
) async throws {
    let server = try await SocketChatServer.start(config, on: testGroup)
    do {
        try await body(server)
    } catch {
        await server.shutdown()
        throw error
    }
    await server.shutdown()
}

/// An Engine.IO request URI on the default path.
func eio(_ query: String) -> String { "/socket.io/?EIO=4&\(query)" }

/// A polling handshake; its open packet.
func pollingHandshake(port: Int) async throws -> EngineIO.Handshake {
    let r = try await RawHTTP.request(port: port, uri: eio("transport=polling"))
    guard r.status == 200, case .open(let open) = try EngineIO.decode(text: r.body) else {
        throw RawWebSocketClient.Failure(description: "handshake answered \(r.status): \(r.body)")
    }
    return open
}

/// A polling session connected to the `/` namespace, its CONNECT answer already
/// collected; the Engine.IO sid.
func pollingConnect(port: Int) async throws -> String {
    let sid = try await pollingHandshake(port: port).sid
    _ = try await RawHTTP.request(.POST, port: port, uri: eio("transport=polling&sid=\(sid)"), body: "40")
    let connect = try await RawHTTP.request(port: port, uri: eio("transport=polling&sid=\(sid)"))
    guard connect.body.hasPrefix("40{") else { throw RawWebSocketClient.Failure(description: "CONNECT answered \(connect.body)") }
    return sid
}
