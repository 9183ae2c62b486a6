import Glibc
import ParleyJournal
import ParleyStreamChat
import ParleyWire
import Testing
import ParleyTestSupport

#if canImport(Glibc)
#endif

@Suite("StreamChat server: the protocol", .timeLimit(.minutes(2)))
struct StreamChatProtocolTests {
    @Test func joinAndLeaveAreBroadcastToEveryone() async throws {
        try await withServer { server in
            let ann = try RawClient(port: server.port)
            try ann.send("USR_NAME::ann::END")
            #expect(try ann.line() == "ann has joined")
            let bob = try RawClient(port: server.port)
            try bob.send("USR_NAME::bob::END")
            #expect(try bob.line() == "bob has joined")
            #expect(try ann.line() == "bob has joined")
            try bob.send("LEAVE::::END")
            #expect(bob.closedByServer())
            #expect(try ann.line() == "bob has left")
            #expect(await eventually { server.stats.registeredClients == 1 && server.stats.connectedClients == 1 })
            #expect(server.stats.clientsDropped == 0)
        }
    }

    @Test func everyLineEndsWithNewline() async throws {
        try await withServer { server in
            let ann = try RawClient(port: server.port)
            try ann.send("USR_NAME::ann::ENDMSG::hi::END")
            #expect(ann.raw(23) == Array("ann has joined\nann::hi\n".utf8))
        }
    }

    @Test func aDisconnectWithoutLeaveIsALeave() async throws {
        try await withServer { server in
            let ann = try join("ann", port: server.port)
            let bob = try join("bob", port: server.port)
            #expect(try ann.line() == "bob has joined")
            bob.disconnect()
            #expect(try ann.line() == "bob has left")
        }
    }

    @Test func messagesReachEveryoneAndEchoToTheSender() async throws {
        try await withServer { server in
            let ann = try join("ann", port: server.port)
            let bob = try join("bob", port: server.port)
            try ann.skip(until: "bob has joined")
            try ann.send("MSG::hello, lobby 👋::END")
            #expect(try ann.line() == "ann::hello, lobby 👋")
            #expect(try bob.line() == "ann::hello, lobby 👋")
            #expect(server.stats.messagesRelayed == 1)
        }
    }

    @Test func aFrameSplitAcrossWrites() async throws {
        try await withServer { server in
            let ann = try join("ann", port: server.port)
            for piece in ["M", "SG::hel", "lo::", "E", "ND"] {
                try ann.send(piece)
                usleep(20_000)
            }
            #expect(try ann.line() == "ann::hello")
        }
    }

    @Test func severalFramesInOneWrite() async throws {
        try await withServer { server in
            let ann = try RawClient(port: server.port)
            try ann.send("USR_NAME::ann::ENDMSG::one::END\nMSG::two::ENDMSG::three::ENDLEAVE::::END")
            #expect(try ann.lines(4) == ["ann has joined", "ann::one", "ann::two", "ann::three"])
            #expect(ann.closedByServer())
        }
    }

    @Test func everyoneSeesTheSameOrder() async throws {
        // Connections land on different event loops; the hub must still give
        // every client one order.
        try await withServer { server in
            let clients = try (0..<4).map { try join("u\($0)", port: server.port) }
            for c in clients.dropLast() { try c.skip(until: "u3 has joined") }
            try clients[0].send((0..<100).map { "MSG::a\($0)::END" }.joined())
            try clients[1].send((0..<100).map { "MSG::b\($0)::END" }.joined())
            try clients[2].send((0..<100).map { "MSG::c\($0)::END" }.joined())
            let seen = try clients.map { try $0.lines(300) }
            for s in seen.dropFirst() { #expect(s == seen[0]) }
            #expect(seen[0].filter { $0.hasPrefix("u1::") } == (0..<100).map { "u1::b\($0)" })
        }
    }

    @Test func aSecondUserNameIsRefused() async throws {
        let log = LogSink()
        try await withServer(.init(log: log.log)) { server in
            let ann = try join("ann", port: server.port)
            try ann.send("USR_NAME::anna::ENDMSG::still ann::END")
            #expect(try ann.line() == "ann::still ann")
            #expect(server.stats.framesRefused == 1)
            #expect(log.all.contains { $0.hasPrefix("refused USR_NAME from") && $0.hasSuffix("(ann): already joined as 'ann'") })
        }
    }

    @Test func aMessageBeforeUserNameIsRefused() async throws {
        let log = LogSink()
        try await withServer(.init(log: log.log)) { server in
            let ann = try join("ann", port: server.port)
            let cat = try RawClient(port: server.port)
            try cat.send("MSG::early::END")
            try cat.send("USR_NAME::cat::END")
            #expect(try cat.line() == "cat has joined")
            #expect(try ann.line() == "cat has joined")
            try cat.send("MSG::now::END")
            #expect(try ann.line() == "cat::now")
            #expect(server.stats.framesRefused == 1)
            #expect(log.contains("refused MSG from 127.0.0.1:") && log.contains(": sent before USR_NAME"))
        }
    }

    @Test(arguments: ["", "a::b", "::", "x\ny", "MSG::", "a USR_NAME:: b", String(repeating: "n", count: 301),
                      "x\u{1B}]0;pwned\u{07}", "c\u{9B}2J"])
    func anInvalidNameDropsTheClient(name: String) async throws {
        let log = LogSink()
        try await withServer(.init(log: log.log)) { server in
            let ann = try join("ann", port: server.port)
            let bad = try RawClient(port: server.port)
            try bad.send("USR_NAME::\(name)::END")
            #expect(bad.closedByServer())
            #expect(log.contains("invalid name"))
            #expect(server.stats.clientsDropped == 1)
            // Nobody heard of the bad client.
            try ann.send("MSG::still here::END")
            #expect(try ann.line() == "ann::still here")
        }
    }
}

@Suite("StreamChat server: text rules", .timeLimit(.minutes(2)))
struct StreamChatTextRuleTests {
    /// A terminal escape in a message reaches nobody's terminal: each control
    /// character goes out as U+FFFD (a tab stays).
    @Test func controlCharactersAreRelayedAsReplacements() async throws {
        try await withServer(.init()) { server in
            let ann = try join("ann", port: server.port)
            try ann.send("MSG::hi\u{1B}[2J\tthere\u{7F}::END")
            #expect(try ann.line() == "ann::hi\u{FFFD}[2J\tthere\u{FFFD}")
        }
    }

    @Test func theLimitIs300CharactersNotBytes() async throws {
        let log = LogSink()
        try await withServer(.init(log: log.log)) { server in
            let ann = try join("ann", port: server.port)
            let max = String(repeating: "👍🏽", count: 300)  // 2,400 bytes
            try ann.send("MSG::\(max)::END")
            #expect(try ann.line() == "ann::\(max)")
            try ann.send("MSG::\(max)👍🏽::END")
            try ann.send("MSG::\(String(repeating: "x", count: 301))::END")
            try ann.send("MSG::ok::END")
            #expect(try ann.line() == "ann::ok")
            #expect(server.stats.framesRefused == 2)
            #expect(server.stats.messagesRelayed == 2)
            #expect(log.all.contains { $0.hasPrefix("refused MSG from 127.0.0.1:") && $0.hasSuffix("(ann): message is 301 characters; StreamChat allows 300") })
        }
    }

    @Test(arguments: ["USR_NAME::x", "a MSG:: b", "LEAVE::", "MSG::\u{301}", "", "line\rbreak"])
    func forbiddenTextIsRefusedAndTheClientStays(text: String) async throws {
        try await withServer { server in
            let ann = try join("ann", port: server.port)
            let bob = try join("bob", port: server.port)
            try ann.skip(until: "bob has joined")
            try ann.send("MSG::\(text)::END")
            try ann.send("MSG::after::END")
            #expect(try ann.line() == "ann::after")
            #expect(try bob.line() == "ann::after")
            #expect(server.stats.framesRefused == 1)
        }
    }

    @Test func theEndTokenCannotBeSmuggledIntoText() async throws {
        // "::END" inside text ends the frame early; what follows is not a frame.
        try await withServer { server in
            let ann = try join("ann", port: server.port)
            let bob = try join("bob", port: server.port)
            try ann.skip(until: "bob has joined")
            try bob.send("MSG::a::END b::END")
            #expect(try ann.line() == "bob::a")
            #expect(try ann.line() == "bob has left")
            #expect(bob.closedByServer())
        }
    }
}

@Suite("StreamChat server: defences", .timeLimit(.minutes(3)))
struct StreamChatDefenceTests {
    @Test func sixtyFourKiBWithoutAFrameEndDropsTheClient() async throws {
        let log = LogSink()
        try await withServer(.init(log: log.log)) { server in
            let ann = try join("ann", port: server.port)
            let dan = try join("dan", port: server.port)
            try ann.skip(until: "dan has joined")
            try dan.send("MSG::" + String(repeating: "a", count: 65_536 - 5))
            #expect(dan.closedByServer())
            #expect(try ann.line() == "dan has left")
            #expect(log.all.contains { $0.hasPrefix("dropped 127.0.0.1:") && $0.hasSuffix("(dan): 65536 bytes without a frame end") })
            #expect(server.stats.clientsDropped == 1)
        }
    }

    @Test func justUnder64KiBIsStillAFrame() async throws {
        try await withServer { server in
            let eve = try join("eve", port: server.port)
            try eve.send("MSG::" + String(repeating: "a", count: 65_535 - 5))
            usleep(100_000)
            try eve.send("::ENDMSG::ok::END")
            #expect(try eve.line() == "eve::ok")  // the long one was refused (too long), not dropped
            #expect(server.stats.framesRefused == 1)
            #expect(server.stats.clientsDropped == 0)
        }
    }

    static let garbage: [[UInt8]] = [
        [0x00],
        [0xFF, 0xFE, 0xFD],
        Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8),
        Array("\u{1B}[2J".utf8),
        Array("LEAVE::now::END".utf8),
        Array("MSG::".utf8) + [0xC0, 0x80, 0xED, 0xA0, 0x80] + Array("::END".utf8),
        Array("MSG::fine::END\u{0}".utf8),
    ]

    @Test(arguments: garbage)
    func garbageDropsOnlyThatClient(bytes: [UInt8]) async throws {
        let log = LogSink()
        try await withServer(.init(log: log.log)) { server in
            let ann = try join("ann", port: server.port)
            let gus = try join("gus", port: server.port)
            try ann.skip(until: "gus has joined")
            try gus.send(bytes)
            #expect(gus.closedByServer())
            try ann.skip(until: "gus has left")
            #expect(log.all.contains { $0.contains("(gus): ") && $0.hasPrefix("dropped") })
            try ann.send("MSG::still serving::END")
            #expect(try ann.line() == "ann::still serving")
            let hal = try join("hal", port: server.port)
            try hal.send("MSG::me too::END")
            #expect(try hal.line() == "hal::me too")
        }
    }

    @Test func randomBytesNeverHurtTheServer() async throws {
        try await withServer { server in
            let ann = try join("ann", port: server.port)
            var rng = SeededRandom(seed: 7)
            var fuzzers: [RawClient] = []
            for i in 0..<100 {
                let c = try RawClient(port: server.port)
                var bytes: [UInt8] = []
                if i % 3 == 0 { bytes += Array("USR_NAME::f\(i)::END".utf8) }
                let n = Int(rng.next() % 2_000)
                let random = (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                bytes += i % 2 == 0 ? Array("MSG::".utf8) + random + Array("::END".utf8) : random
                try? c.send(bytes)
                fuzzers.append(c)
            }
            fuzzers.removeAll()
            try ann.send("MSG::survived::END")
            try ann.skip(until: "ann::survived")
            #expect(await eventually { server.stats.connectedClients == 1 })
        }
    }

    @Test func aConnectionThatNeverNamesItselfIsDropped() async throws {
        let log = LogSink()
        try await withServer(.init(loginTimeout: .seconds(1), log: log.log)) { server in
            let nameless = try RawClient(port: server.port)
            // Bytes that are not a name do not keep it in.
            try nameless.send("MSG::hello::END")
            #expect(nameless.closedByServer(within: .seconds(5)))
            #expect(log.all.contains { $0.contains("no USR_NAME within") })
        }
    }

    /// Lurking is normal in chat: a named client that says nothing for many
    /// login timeouts stays, and nobody sees it leave.
    @Test func aSilentNamedClientStays() async throws {
        try await withServer(.init(loginTimeout: .milliseconds(300))) { server in
            let ann = try join("ann", port: server.port)
            let bob = try join("bob", port: server.port)
            #expect(bob.read(timeout: .milliseconds(1500)) == .timeout)
            #expect(ann.read(timeout: .milliseconds(100)) == .line("bob has joined"))
            #expect(ann.read(timeout: .milliseconds(100)) == .timeout)
            try ann.send("MSG::still here::END")
            #expect(try bob.line() == "ann::still here")
            #expect(server.stats.clientsDropped == 0)
        }
    }

    @Test func aClientThatDoesNotReadIsDropped() async throws {
        let log = LogSink()
        try await withServer(.init(maxOutboundBytes: 64 * 1024, log: log.log)) { server in
            let rex = try join("rex", port: server.port, receiveBuffer: 4096)
            let ann = try join("ann", port: server.port)
            let text = String(repeating: "z", count: 290)
            let batch = (0..<50).map { _ in "MSG::\(text)::END" }.joined()
            var batches = 0
            var others: [String] = []
            while !others.contains("rex has left"), batches < 2_000 {
                try ann.send(batch)
                for _ in 0..<50 { others += try ann.skip(until: "ann::\(text)") }
                batches += 1
            }
            #expect(others == ["rex has left"])
            #expect(log.all.contains { $0.contains("(rex): more than 65536 bytes queued") })
            #expect(rex.closedByServer())
            #expect(server.stats.clientsDropped == 1)
        }
    }

    @Test func connectionsBeyondTheLimitAreClosed() async throws {
        let log = LogSink()
        try await withServer(.init(maxConnections: 2, log: log.log)) { server in
            let ann = try join("ann", port: server.port)
            let bob = try join("bob", port: server.port)
            let third = try RawClient(port: server.port)
            #expect(third.closedByServer())
            #expect(log.contains("server full (2 connections)"))
            try ann.send("MSG::fine::END")
            #expect(try ann.skip(until: "ann::fine") == ["bob has joined"])
            withExtendedLifetime(bob) {}
        }
    }
}

@Suite("StreamChat server: lifecycle and scale", .timeLimit(.minutes(3)))
struct StreamChatLifecycleTests {
    @Test func restartsOnTheSamePortRightAway() async throws {
        var port = 0
        for round in 0..<3 {
            let server = try await StreamChatServer.start(.init(port: port))
            if round > 0 { #expect(server.port == port) }
            port = server.port
            let ann = try join("ann", port: port)
            try ann.send("MSG::round \(round)::END")
            #expect(try ann.line() == "ann::round \(round)")
            await server.shutdown()
            #expect(ann.closedByServer())
            #expect(server.stats.connectedClients == 0)
            #expect(throws: RawClient.Failure.self) { try RawClient(port: port) }
            await server.shutdown()  // twice is harmless
        }
    }

    @Test func aPortInUseFailsToStart() async throws {
        try await withServer { server in
            await #expect(throws: (any Error).self) {
                _ = try await StreamChatServer.start(.init(port: server.port))
            }
        }
    }

    @Test func fiveHundredClientsAllReceiveABroadcast() async throws {
        try await withServer { server in
            let n = 500
            var clients: [RawClient] = []
            for i in 0..<n {
                let c = try RawClient(port: server.port)
                try c.send("USR_NAME::u\(i)::END")
                clients.append(c)
            }
            #expect(await eventually(60) { server.stats.registeredClients == n })
            try clients[n - 1].send("MSG::hello, all \(n)::END")
            let seen = try clients.map { try $0.skip(until: "u\(n - 1)::hello, all \(n)") }
            // Joins on different event loops race, so the order is the hub's,
            // not 0..<n; but it is one order: each client saw the joins from
            // its own onwards.
            let order = try #require(seen.max { $0.count < $1.count })
            #expect(Set(order) == Set((0..<n).map { "u\($0) has joined" }))
            #expect(order.count == n)
            for (i, lines) in seen.enumerated() {
                let own = try #require(order.firstIndex(of: "u\(i) has joined"))
                #expect(lines == Array(order[own...]), "client \(i)")
            }
            #expect(server.stats.messagesRelayed == 1)
        }
    }

    @Test func statsFollowTheClients() async throws {
        try await withServer { server in
            #expect(server.stats == StreamChatServer.Stats())
            let ann = try join("ann", port: server.port)
            let lurker = try RawClient(port: server.port)
            #expect(await eventually { server.stats.connectedClients == 2 })
            #expect(server.stats.registeredClients == 1)
            ann.disconnect()
            lurker.disconnect()
            #expect(await eventually { server.stats.connectedClients == 0 })
            #expect(server.stats.registeredClients == 0)
        }
    }
}

