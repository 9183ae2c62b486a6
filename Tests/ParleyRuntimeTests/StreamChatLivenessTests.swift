import Foundation
import ParleyCore
import ParleyNet
import ParleyRuntime
import ParleyStreamChat
import ParleyWire
import Synchronization
import Testing
import ParleyTestSupport

/// StreamChat has no heartbeat. A quiet room must not look like a dead link
/// (nobody sees a leave and a join), while a peer that vanishes without a FIN
/// must still be noticed, by TCP keepalive, within its bound.
@Suite(.timeLimit(.minutes(3)), .serialized)
struct StreamChatLivenessTests {
    /// Short probe settings, so several keepalive periods pass in seconds.
    static let probes = TCPKeepalive(idle: 1, interval: 1, count: 2)

    static func botTransport(host: String, port: Int) -> StreamChatTransport {
        var options = StreamChatOptions()
        options.keepalive = probes
        return StreamChatTransport(host: host, port: port, name: "quietbot", options: options, connectTimeout: 2)
    }

    @Test func aQuietRoomNeverSeesTheBotLeave() async throws {
        // 5 s: a Person names itself from the test's pool, which a loaded run
        // has kept busy past a 3 s login timeout.
        let server = try await StreamChatServer.start(.init(loginTimeout: .seconds(5), keepalive: Self.probes))
        defer { Task { await server.shutdown() } }
        let alice = try await Person("alice", port: server.port)
        let runner = BotRunner(spec: try botSpec(name: "quietbot", port: server.port, plugins: [], shippedPlugins: ["echo"],
                                                 transport: Self.botTransport(host: "127.0.0.1", port: server.port)),
                               observer: Recorder().observer)
        let run = Task { await runner.run() }
        #expect(await eventually { alice.joins(of: "quietbot") == 1 })
        // Eleven keepalive idle periods and two login timeouts of silence.
        try await Task.sleep(for: .seconds(11))
        #expect(alice.leaves(of: "quietbot") == 0)
        #expect(alice.joins(of: "quietbot") == 1)
        #expect(await runner.stats.reconnects == 0)
        #expect(server.stats.clientsDropped == 0)
        #expect(alice.isLinked)
        // Both are still really there.
        try await alice.say("!ping")
        #expect(await eventually(10) { alice.texts(from: "quietbot").contains("pong") })
        await runner.stop()
        _ = await run.value
        await alice.leave()
    }

    @Test func theBotNoticesAServerThatVanishedWithoutAFIN() async throws {
        let net = try NamespaceHost()
        defer { net.remove() }
        let port = Int.random(in: 20_000...29_999)
        // The server in the other namespace, with its own keepalive off: only the bot's probes can notice the cut.
        let server = try net.run([parleyBinary, "serve", "--streamchat", "\(net.guestAddress):\(port)", "--keepalive", "off"])
        defer { server.terminate() }
        let rec = Recorder()
        let runner = BotRunner(spec: try botSpec(name: "quietbot", port: port, plugins: [], shippedPlugins: ["echo"],
                                                 transport: Self.botTransport(host: net.guestAddress, port: port)),
                               observer: rec.observer)
        let run = Task { await runner.run() }
        #expect(await eventually { await runner.state == .online }, "the bot reached the server in the namespace")
        try await Task.sleep(for: .seconds(2))
        #expect(await runner.state == .online, "a quiet link stays up while the peer answers the probes")
        try net.cutLink()
        let cut = Date()
        #expect(await eventually(Double(Self.probes.bound) + 4) { await runner.state != .online },
                "the vanished server is noticed within the keepalive bound (\(Self.probes.bound) s)")
        let noticed = Date().timeIntervalSince(cut)
        #expect(noticed <= Double(Self.probes.bound) + 4, "noticed after \(noticed) s")
        await runner.stop(drainTimeout: 0.5)
        _ = await run.value
    }

    @Test func theServerNoticesAPersonWhoVanishedWithoutAFIN() async throws {
        let net = try NamespaceHost()
        defer { net.remove() }
        let server = try await StreamChatServer.start(.init(host: net.hostAddress, loginTimeout: .seconds(1), keepalive: Self.probes))
        defer { Task { await server.shutdown() } }
        let alice = try await Person("alice", transport: StreamChatTransport(host: net.hostAddress, port: server.port, name: "alice", connectTimeout: 5))
        // A person in the other namespace who names itself, then says nothing.
        let ghost = try net.run(["python3", "-c", """
            import socket, time
            s = socket.create_connection(("\(net.hostAddress)", \(server.port)))
            s.sendall(b"USR_NAME::ghost::END")
            time.sleep(120)
            """])
        defer { ghost.terminate() }
        #expect(await eventually { alice.joins(of: "ghost") == 1 })
        try await Task.sleep(for: .seconds(3))
        #expect(alice.leaves(of: "ghost") == 0, "a silent person who answers the probes stays")
        try net.cutLink()
        let cut = Date()
        #expect(await eventually(Double(Self.probes.bound) + 4) { alice.leaves(of: "ghost") == 1 },
                "the vanished person is dropped within the keepalive bound (\(Self.probes.bound) s)")
        #expect(Date().timeIntervalSince(cut) <= Double(Self.probes.bound) + 4)
        await alice.leave()
    }
}

/// A second host on this machine: a network namespace joined to this one by
/// a veth pair. Taking the pair's far end down drops every packet between
/// them without a FIN or a reset, as a peer that lost power would.
/// Needs root and iproute2 (CI and `make test` run as root).
final class NamespaceHost: Sendable {
    let name: String
    let hostAddress: String
    let guestAddress: String
    private let guestLink: String

    init() throws {
        let tag = String(UInt32.random(in: 0...0xFFFFFF), radix: 16)
        name = "parley-\(tag)"
        let near = "pv\(tag)a", far = "pv\(tag)b"
        guestLink = far
        let a = Int.random(in: 0...255), b = Int.random(in: 0...63) * 4
        hostAddress = "10.231.\(a).\(b + 1)"
        guestAddress = "10.231.\(a).\(b + 2)"
        try Self.ip(["netns", "add", name])
        try Self.ip(["link", "add", near, "type", "veth", "peer", "name", far])
        try Self.ip(["link", "set", far, "netns", name])
        try Self.ip(["addr", "add", "\(hostAddress)/30", "dev", near])
        try Self.ip(["link", "set", near, "up"])
        try Self.ip(["-n", name, "addr", "add", "\(guestAddress)/30", "dev", far])
        try Self.ip(["-n", name, "link", "set", far, "up"])
        try Self.ip(["-n", name, "link", "set", "lo", "up"])
    }

    /// Starts a program inside the namespace.
    func run(_ command: [String]) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["ip", "netns", "exec", name] + command
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        return p
    }

    /// Every packet between the two ends is dropped from now on.
    func cutLink() throws {
        try Self.ip(["-n", name, "link", "set", guestLink, "down"])
    }

    /// Deleting the namespace deletes the veth pair with it.
    func remove() {
        try? Self.ip(["netns", "pids", name]).split(separator: "\n").forEach { kill(pid_t($0) ?? 0, SIGKILL) }
        _ = try? Self.ip(["netns", "delete", name])
    }

    struct Failure: Error, CustomStringConvertible { var description: String }

    @discardableResult
    static func ip(_ args: [String]) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["ip"] + args
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw Failure(description: "ip \(args.joined(separator: " ")): \(String(decoding: e, as: UTF8.self)) (network namespaces need root and iproute2)")
        }
        return String(decoding: o, as: UTF8.self)
    }
}
