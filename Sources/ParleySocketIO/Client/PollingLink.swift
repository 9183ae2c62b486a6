import AsyncHTTPClient
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import ParleyCore
import ParleyNet
import ParleyWire

/// Engine.IO over HTTP long-polling: one GET outstanding to receive, one POST
/// at a time to send (packets queued meanwhile go out together in the next).
///
/// Used where WebSocket is refused or not wanted, and as the first leg of the
/// polling → WebSocket upgrade.
final class PollingLink: EngineIOLink {
    private struct State {
        var queue: [([EngineIO.Packet], EventLoopPromise<Void>?)] = []
        var posting = false
        var stopped = false
        /// Set while an upgrade waits for the running GET to come back.
        var pauseWaiter: CheckedContinuation<Void, Never>?
        var getRunning = false
        var reported = false
        /// The receive loop; cancelled on close, because python-engineio never
        /// answers a GET that is pending when the session closes.
        var receiver: Task<Void, Never>?
    }

    let endpoint: SocketIOEndpoint
    let sid: String
    private let headers: HTTPHeaders
    private let client: HTTPClient
    private let sink: LinkSink
    private let getTimeout: TimeAmount
    private let maxPayload: Int
    private let state = NIOLockedValueBox(State())

    init(endpoint: SocketIOEndpoint, sid: String, headers: HTTPHeaders, client: HTTPClient, sink: LinkSink,
         getTimeout: Double, maxPayload: Int) {
        self.endpoint = endpoint
        self.sid = sid
        self.headers = headers
        self.client = client
        self.sink = sink
        self.getTimeout = .milliseconds(Int64(getTimeout * 1000))
        self.maxPayload = maxPayload
    }

    /// The opening GET: returns the handshake and any packets that came with it.
    static func handshake(endpoint: SocketIOEndpoint, headers: HTTPHeaders, client: HTTPClient,
                          timeout: Double) async throws -> (EngineIO.Handshake, [EngineIO.Packet]) {
        let body = try await HTTPClients.request(client: client, url: endpoint.url(transport: .polling, sid: nil), method: .GET,
                                     headers: headers, body: nil, timeout: .milliseconds(Int64(timeout * 1000)), limit: 1 << 20)
        let packets: [EngineIO.Packet]
        do {
            packets = try EngineIO.decodePayload(body)
        } catch {
            throw TransportError(.protocolViolation, "the polling handshake is not Engine.IO: \(error)")
        }
        guard case .open(let handshake)? = packets.first else {
            throw TransportError(.protocolViolation, "the polling handshake did not start with an open packet")
        }
        return (handshake, Array(packets.dropFirst()))
    }

    /// Starts the receive loop.
    func start() {
        let task = Task { await receiveLoop() }
        state.withLockedValue { $0.receiver = task }
    }

    private func receiveLoop() async {
        while true {
            let go = state.withLockedValue { s -> Bool in
                if s.stopped || s.pauseWaiter != nil { return false }
                s.getRunning = true
                return true
            }
            if !go { break }
            do {
                let body = try await HTTPClients.request(client: client, url: endpoint.url(transport: .polling, sid: sid), method: .GET,
                                                  headers: headers, body: nil, timeout: getTimeout, limit: maxPayload + 4096)
                let packets: [EngineIO.Packet]
                do {
                    packets = try EngineIO.decodePayload(body)
                } catch {
                    sink.malformed("dropped a polling payload that is not Engine.IO (\(error)): \(String(body.prefix(80)).debugDescription)")
                    packets = []
                }
                for p in packets where !state.withLockedValue({ $0.stopped }) { sink.packet(p) }
            } catch {
                state.withLockedValue { $0.getRunning = false }
                report(error as? TransportError ?? TransportError(.closed, "polling failed: \(error)"))
                break
            }
            let waiter = state.withLockedValue { s -> CheckedContinuation<Void, Never>? in
                s.getRunning = false
                return s.pauseWaiter
            }
            if let waiter {
                waiter.resume()
                break
            }
        }
    }

    /// Stops receiving once the running GET returns (the server answers it with
    /// a noop when the WebSocket probe succeeds); returns when it has.
    func pause() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLockedValue { s -> Bool in
                s.pauseWaiter = c
                return !s.getRunning
            }
            if resumeNow { c.resume() }
        }
    }

    func enqueue(_ packets: [EngineIO.Packet]) {
        state.withLockedValue { $0.queue.append((packets, nil)) }
        kick()
    }

    func write(_ packets: [EngineIO.Packet]) -> EventLoopFuture<Void> {
        let written = client.eventLoopGroup.any().makePromise(of: Void.self)
        state.withLockedValue { $0.queue.append((packets, written)) }
        kick()
        return written.futureResult
    }

    /// Messages written out in place, sent as the text packets they hold.
    func write(messages: inout [ByteBuffer]) -> EventLoopFuture<Void> {
        write(messages.map { m in
            .message(String(decoding: m.readableBytesView.dropFirst(), as: UTF8.self))  // after the "4"
        })
    }

    /// Packets one POST carries at most: python-engineio refuses more (its
    /// `max_decode_packets`) by dropping the whole POST while answering 200.
    static let maxPacketsPerPost = 16

    /// Sends what is queued, one POST at a time, until the queue is empty.
    private func kick() {
        let start = state.withLockedValue { s -> Bool in
            if s.posting || s.queue.isEmpty { return false }
            s.posting = true
            return true
        }
        guard start else { return }
        Task {
            while true {
                let (batch, stopped) = state.withLockedValue { s -> ([([EngineIO.Packet], EventLoopPromise<Void>?)], Bool) in
                    // Whole writes, up to a POST's packets (one bigger write alone, cut below).
                    var n = 0, packets = 0
                    while n < s.queue.count, n == 0 || packets + s.queue[n].0.count <= Self.maxPacketsPerPost {
                        packets += s.queue[n].0.count
                        n += 1
                    }
                    let b = Array(s.queue.prefix(n))
                    s.queue.removeFirst(n)
                    if b.isEmpty { s.posting = false }
                    return (b, s.stopped)
                }
                if batch.isEmpty { return }
                if stopped {
                    for (_, p) in batch { p?.fail(TransportError(.closed, "the polling session is closed")) }
                    continue
                }
                let packets = batch.flatMap(\.0)
                do {
                    for start in stride(from: 0, to: packets.count, by: Self.maxPacketsPerPost) {
                        let body = EngineIO.encodePayload(Array(packets[start..<min(start + Self.maxPacketsPerPost, packets.count)]))
                        _ = try await HTTPClients.request(client: client, url: endpoint.url(transport: .polling, sid: sid), method: .POST,
                                                   headers: headers, body: body, timeout: getTimeout, limit: 4096)
                    }
                    for (_, p) in batch { p?.succeed() }
                } catch {
                    let e = error as? TransportError ?? TransportError(.closed, "polling send failed: \(error)")
                    for (_, p) in batch { p?.fail(e) }
                    report(e)
                }
            }
        }
    }

    /// Ends the session: a close packet, then nothing more is read.
    func close() {
        let (wasStopped, receiver) = state.withLockedValue { s -> (Bool, Task<Void, Never>?) in
            defer { s.stopped = true; s.reported = true }
            return (s.stopped, s.receiver)
        }
        if wasStopped { return }
        receiver?.cancel()
        let url = endpoint.url(transport: .polling, sid: sid)
        let (client, headers) = (self.client, self.headers)
        Task { _ = try? await HTTPClients.request(client: client, url: url, method: .POST, headers: headers, body: "1", timeout: .seconds(5), limit: 4096) }
        sink.closed(nil)
    }

    /// Stops without a close packet (the session moved to WebSocket, or was dropped).
    func abort() {
        let receiver = state.withLockedValue { s -> Task<Void, Never>? in
            s.stopped = true
            s.reported = true
            return s.receiver
        }
        receiver?.cancel()
    }

    private func report(_ error: TransportError) {
        let first = state.withLockedValue { s -> Bool in
            if s.reported { return false }
            s.reported = true
            s.stopped = true
            return true
        }
        if first { sink.closed(error) }
    }
}
