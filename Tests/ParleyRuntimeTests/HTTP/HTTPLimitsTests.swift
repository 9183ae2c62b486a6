import Foundation
import Logging
import ParleyRuntime
import Synchronization
import ParleyTestSupport
import Testing

/// The `--http` server against clients that hold connections: one that
/// stops halfway through its headers, one that drips its body, and more
/// connections than the cap. Each is cut off, and the probes still answer.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct HTTPLimitsTests {
    /// A raw client: connects, sends `text`, and reports how long until the
    /// server closed the connection (nil: still open after `wait` seconds), with what it read.
    static func hold(port: Int, _ text: String, wait: Double) async -> (closedAfter: Double?, read: String) {
        // Several wait at once, and the pool's threads stay free.
        await onOwnThread { holdBlocking(port: port, text, wait: wait) }
    }

    static func holdBlocking(port: Int, _ text: String, wait: Double) -> (closedAfter: Double?, read: String) {
        do {
            guard let fd = RawHTTP.connected(port: port) else { return (0, "cannot connect") }
            defer { close(fd) }
            _ = text.withCString { send(fd, $0, strlen($0), 0) }
            let start = Date()
            var read = [UInt8]()
            var buf = [UInt8](repeating: 0, count: 4096)
            while Date().timeIntervalSince(start) < wait {
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&p, 1, 100) > 0 else { continue }
                let n = recv(fd, &buf, buf.count, 0)
                if n <= 0 { return (Date().timeIntervalSince(start), String(decoding: read, as: UTF8.self)) }
                read += buf[0..<n]
            }
            return (nil, String(decoding: read, as: UTF8.self))
        }
    }

    static let limits: HTTPServer.Limits = {
        var l = HTTPServer.Limits()
        // Long enough that the cap's refusal of a fifth is seen while the four are open, on a loaded machine too.
        l.idleTimeout = .seconds(6)
        l.requestTimeout = .seconds(1)
        l.maxConnections = 4
        return l
    }()

    @Test func slowClientsAreCutOffAndTheCapHolds() async throws {
        let s = try await WebhookTests.start(limits: Self.limits)
        // Half the headers, then nothing: closed once idle for the timeout.
        let half = await Self.hold(port: s.port, "POST /hooks/parley/hooks/push HTTP/1.1\r\nHost: x\r\n", wait: 12)
        #expect(half.closedAfter.map { $0 < 10 } == true, "half-sent headers: \(half)")
        // The headers, then a body that never finishes: cut off at the request's deadline.
        let drip = await Self.hold(port: s.port, "POST /hooks/parley/hooks/push HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"ref\"", wait: 10)
        #expect(drip.closedAfter.map { $0 < 5 } == true, "a dripping body: \(drip)")
        // A declared length over the limit is answered 413 at once, none of the body waited for.
        let huge = await Self.hold(port: s.port, "POST /hooks/parley/hooks/push HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999\r\n\r\nabc", wait: 2)
        #expect(huge.read.hasPrefix("HTTP/1.1 413"), "a declared length over the limit: \(huge)")

        // Four idle connections fill the cap: a fifth is closed at once, unanswered.
        let holders = (0..<4).map { _ in Task { await Self.hold(port: s.port, "", wait: 12) } }
        // Time for a loaded server to take all four, well inside their idle timeout.
        try await Task.sleep(for: .seconds(2))
        let fifth = await Self.hold(port: s.port, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", wait: 2)
        #expect(fifth.closedAfter != nil && fifth.read.isEmpty, "over the cap: \(fifth)")
        // The idle four are closed by the timeout, and the server answers again.
        for h in holders { #expect(await h.value.closedAfter.map { $0 < 10 } == true) }
        #expect(try await RawHTTP.get(port: s.port, path: "/healthz").hasPrefix("HTTP/1.1 200"))
        await s.stop()
    }

    /// Dashboard streams never idle, so they have a cap of their own, under
    /// the connection cap: pages left open cannot shut the probes out.
    @Test func dashboardStreamsHaveACapOfTheirOwn() async throws {
        var limits = HTTPServer.Limits()
        limits.maxConnections = 4
        limits.maxStreams = 2
        let bound = Atomic(0)
        var quiet = Logger(label: "test")
        quiet.logLevel = .critical
        let app = HTTPServer.application(host: "127.0.0.1", port: 0, runners: [], logger: quiet, watch: FleetWatch(), limits: limits) {
            bound.store($0, ordering: .relaxed)
        }
        let http = Task { try await app.run() }
        defer { http.cancel() }
        #expect(await eventually(10) { bound.load(ordering: .relaxed) != 0 })
        let port = bound.load(ordering: .relaxed)
        let stream = "GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        let open = (0..<2).map { _ in Task { await Self.hold(port: port, stream, wait: 4) } }
        try await Task.sleep(for: .seconds(1.5))
        let third = await Self.hold(port: port, stream, wait: 2)
        #expect(third.read.hasPrefix("HTTP/1.1 503") && third.read.contains("2 dashboard streams are open already"), "\(third)")
        #expect(try await RawHTTP.get(port: port, path: "/healthz").hasPrefix("HTTP/1.1 200"))
        // The two streams ran all along; once they close, a new one is taken.
        for o in open { #expect(await o.value.read.contains("data: {"), "a stream sent no snapshot") }
        #expect(await eventually(5) { await Self.hold(port: port, stream, wait: 1.5).read.contains("data: {") })
    }

    /// Without a token only requests addressed to an IP address or localhost
    /// are answered (a DNS-rebinding page names a host of its own); the
    /// webhooks and probes answer whatever the name.
    @Test func withoutATokenOnlyAddressesAndLocalhostAreServed() async throws {
        let bound = Atomic(0)
        var quiet = Logger(label: "test")
        quiet.logLevel = .critical
        let app = HTTPServer.application(host: "127.0.0.1", port: 0, runners: [], logger: quiet, watch: FleetWatch()) {
            bound.store($0, ordering: .relaxed)
        }
        let http = Task { try await app.run() }
        defer { http.cancel() }
        #expect(await eventually(10) { bound.load(ordering: .relaxed) != 0 })
        let port = bound.load(ordering: .relaxed)
        func status(_ path: String, host: String) async -> String {
            let raw = await Self.hold(port: port, "GET \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n", wait: 3).read
            return String(raw.prefix(12))
        }
        for host in ["evil.example", "evil.example:\(port)", "127.0.0.1.evil.example", "localhost.evil.example"] {
            #expect(await status("/api/fleet", host: host) == "HTTP/1.1 403", "\(host)")
            #expect(await status("/metrics", host: host) == "HTTP/1.1 403", "\(host)")
        }
        for host in ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)", "10.0.0.7", "app.localhost"] {
            #expect(await status("/api/fleet", host: host) == "HTTP/1.1 200", "\(host)")
        }
        #expect(await status("/healthz", host: "evil.example") == "HTTP/1.1 200")
        #expect(await status("/hooks/nobody/x/y", host: "hooks.example.com") == "HTTP/1.1 404")
    }

    /// A flood of badly signed requests: each is refused, and the log gets a
    /// line a second with a count, not a line a request.
    @Test func badSignaturesDoNotFloodTheLog() async throws {
        let lines = Lines()
        let logger = Logger(label: "test") { _ in LineCollector(lines: lines) }
        let s = try await WebhookTests.start(logger: logger)
        let started = ContinuousClock.now
        for _ in 0..<30 { #expect(try await s.post("parley/hooks/push", "x", signed: false).status == 401) }
        try await Task.sleep(for: .milliseconds(1100))
        #expect(try await s.post("parley/hooks/push", "x", signed: false).status == 401)
        let refused = lines.all.withLock { $0 }.filter { $0.contains("bad or missing X-Hub-Signature-256") }
        // A line a second (and one to flush the count), however long a loaded machine took for the 31.
        let seconds = Int((ContinuousClock.now - started).components.seconds) + 1
        #expect(refused.count >= 2 && refused.count <= seconds + 1, "\(refused.count) lines in \(seconds) s: \(refused)")
        #expect(refused.contains { $0.contains("more like it in the last") }, "\(refused)")
        await s.stop()
    }
}

final class Lines: Sendable {
    let all = Mutex<[String]>([])
}

/// Keeps each log line's message.
struct LineCollector: LogHandler {
    let lines: Lines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) { lines.all.withLock { $0.append("\(event.message)") } }
}
