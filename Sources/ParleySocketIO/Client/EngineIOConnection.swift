import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import ParleyCore
import ParleyNet
import ParleyWire

/// A way to carry Engine.IO packets: a WebSocket or HTTP long-polling.
protocol EngineIOLink: Sendable {
    /// Writes without waiting (pongs, acks, fire-and-forget emits).
    func enqueue(_ packets: [EngineIO.Packet])
    /// Writes; the future completes once the packets are handed to the network.
    func write(_ packets: [EngineIO.Packet]) -> EventLoopFuture<Void>
    /// Writes messages already written out, the `4` and the text, each in a
    /// buffer from `ClientFrame.payload` (`SocketIOClient.message`), as `write`.
    func write(messages: inout [ByteBuffer]) -> EventLoopFuture<Void>
    /// Ends the session politely.
    func close()
    /// Drops the link without a goodbye.
    func abort()
}

/// One Engine.IO v4 session, over whichever link the options and the server
/// allow, with the heartbeat kept and watched.
///
/// Order of attempts follows `transports`: `websocket` first connects a
/// WebSocket directly (no `sid`); `polling` does the polling handshake and,
/// when WebSocket is also allowed and the server offers it, upgrades
/// (`2probe` / `3probe` / `5`). A link that dies, a close packet, or no ping
/// within pingInterval + pingTimeout ends the session with an error; the
/// runtime's presence loop then reconnects.
package final class EngineIOConnection: Sendable {
    /// Which link a packet came from; `probe` is the WebSocket of a polling
    /// session's upgrade, which becomes the active link once the upgrade is done.
    private enum LinkID: Sendable { case websocket, polling, probe }

    private struct State {
        var handshake: EngineIO.Handshake?
        var openWaiter: CheckedContinuation<EngineIO.Handshake, Error>?
        /// Why the open failed, when it failed before anyone waited for it.
        var openFailure: TransportError?
        var probeWaiter: CheckedContinuation<Bool, Never>?
        var active: (any EngineIOLink)?
        var activeID: LinkID?
        var lastPing = NIODeadline.now()
        var ended = false
        var closing = false
    }

    private let state = NIOLockedValueBox(State())
    private let deliver: @Sendable (EngineIO.Packet) -> Void
    private let ended: @Sendable (TransportError?) -> Void
    private let log: @Sendable (String) -> Void
    private let watchdog = NIOLockedValueBox<Task<Void, Never>?>(nil)
    /// Renewed when the link goes silent (`Settings.http`).
    private let http: RenewableHTTPClient

    package var handshake: EngineIO.Handshake { state.withLockedValue { $0.handshake! } }

    /// What the session runs on now (`websocket` or `polling`), for logs and tests.
    package var linkName: String {
        state.withLockedValue { $0.activeID == .polling ? "polling" : "websocket" }
    }

    private init(deliver: @escaping @Sendable (EngineIO.Packet) -> Void, ended: @escaping @Sendable (TransportError?) -> Void,
                 log: @escaping @Sendable (String) -> Void, http: RenewableHTTPClient) {
        self.http = http
        self.deliver = deliver
        self.ended = ended
        self.log = log
    }

    package struct Settings: Sendable {
        package var endpoint: SocketIOEndpoint
        package var links: [SocketIOOptions.Link]
        package var headers: [String: String]
        /// Extra trusted CAs for `wss://` and `https://`.
        package var caFile: String?
        package var connectTimeout: Double
        /// Largest WebSocket frame accepted before the server's maxPayload is known.
        package var maxFrameBytes = 16 << 20
        /// The loop the WebSocket lives on (the bot's; nil: a shared one).
        package var loop: (any EventLoop)?
        /// The transport's HTTP client for long-polling, renewed when a link goes silent.
        package var http: RenewableHTTPClient

        package init(endpoint: SocketIOEndpoint, links: [SocketIOOptions.Link], headers: [String: String], caFile: String?,
                     connectTimeout: Double, maxFrameBytes: Int = 16 << 20, loop: (any EventLoop)? = nil,
                     http: RenewableHTTPClient) {
            self.http = http
            self.loop = loop
            self.endpoint = endpoint
            self.links = links
            self.headers = headers
            self.caFile = caFile
            self.connectTimeout = connectTimeout
            self.maxFrameBytes = maxFrameBytes
        }

        /// TLS for the WebSocket when the endpoint asks for it.
        package var tls: TLSConfiguration? { endpoint.tls ? TransportTLS.configuration(caFile: caFile) : nil }
    }

    /// Opens a session; `deliver` gets message and binary packets in order,
    /// `ended` is called once when the session is over (nil after `close()`).
    package static func open(_ settings: Settings, deliver: @escaping @Sendable (EngineIO.Packet) -> Void,
                     ended: @escaping @Sendable (TransportError?) -> Void,
                     log: @escaping @Sendable (String) -> Void) async throws -> EngineIOConnection {
        var failures: [String] = []
        var lastKind = TransportError.Kind.connect
        for link in settings.links {
            let c = EngineIOConnection(deliver: deliver, ended: ended, log: log, http: settings.http)
            do {
                switch link {
                case .websocket: try await c.openWebSocket(settings)
                case .polling: try await c.openPolling(settings, upgrade: settings.links.contains(.websocket))
                }
                c.startWatchdog()
                return c
            } catch {
                c.state.withLockedValue { $0.ended = true }
                c.state.withLockedValue { $0.active }?.abort()
                failures.append("\(link.rawValue): \(error)")
                lastKind = (error as? TransportError)?.kind ?? .connect
            }
        }
        // The last attempt's kind: a protocol violation or a refusal stays one.
        throw TransportError(lastKind, failures.joined(separator: "; "))
    }

    private func sink(_ id: LinkID) -> LinkSink {
        LinkSink(packet: { [weak self] p in self?.receive(p, from: id) },
                 closed: { [weak self] e in self?.linkClosed(id, e) },
                 malformed: log)
    }

    private func openWebSocket(_ s: Settings) async throws {
        let link = try await WebSocketLink.connect(endpoint: s.endpoint, sid: nil, headers: s.headers, tls: s.tls, loop: s.loop,
                                                   maxFrameSize: s.maxFrameBytes, timeout: s.connectTimeout, sink: sink(.websocket))
        state.withLockedValue { st in
            st.active = link
            st.activeID = .websocket
        }
        let handshake = try await waitForOpen(timeout: s.connectTimeout)
        link.frameLimit.set(handshake.maxPayload)
    }

    private func waitForOpen(timeout: Double) async throws -> EngineIO.Handshake {
        let timer = afterTimeout(timeout) { [weak self] in
            self?.failOpen(TransportError(.timeout, "no Engine.IO open packet within \(timeout) s"))
        }
        defer { timer.cancel() }
        return try await withCheckedThrowingContinuation { (c: CheckedContinuation<EngineIO.Handshake, Error>) in
            let ready = state.withLockedValue { st -> Result<EngineIO.Handshake, Error>? in
                if let h = st.handshake { return .success(h) }
                if let e = st.openFailure { return .failure(e) }
                if st.ended { return .failure(TransportError(.closed, "the link closed before the Engine.IO handshake")) }
                st.openWaiter = c
                return nil
            }
            if let ready { c.resume(with: ready) }
        }
    }

    private func failOpen(_ e: TransportError) {
        let waiter = state.withLockedValue { st -> CheckedContinuation<EngineIO.Handshake, Error>? in
            if st.handshake == nil, st.openFailure == nil { st.openFailure = e }
            defer { st.openWaiter = nil }
            return st.openWaiter
        }
        waiter?.resume(throwing: e)
    }

    private func openPolling(_ s: Settings, upgrade: Bool) async throws {
        let client = s.http.current().client
        let headers = HTTPHeaders(extra: s.headers)
        let (handshake, early) = try await PollingLink.handshake(endpoint: s.endpoint, headers: headers, client: client,
                                                                 timeout: s.connectTimeout)
        let getTimeout = Double(handshake.pingInterval + handshake.pingTimeout) / 1000 + 5
        let polling = PollingLink(endpoint: s.endpoint, sid: handshake.sid, headers: headers, client: client,
                                  sink: sink(.polling), getTimeout: getTimeout, maxPayload: handshake.maxPayload)
        state.withLockedValue { st in
            st.handshake = handshake
            st.active = polling
            st.activeID = .polling
            st.lastPing = .now()
        }
        for p in early { receive(p, from: .polling) }
        polling.start()
        if upgrade, handshake.upgrades.contains("websocket") {
            await tryUpgrade(s, polling: polling, handshake: handshake)
        }
    }

    /// polling → WebSocket. A failed probe is not an error: the session stays on polling.
    private func tryUpgrade(_ s: Settings, polling: PollingLink, handshake: EngineIO.Handshake) async {
        let ws: WebSocketLink
        do {
            ws = try await WebSocketLink.connect(endpoint: s.endpoint, sid: handshake.sid, headers: s.headers, tls: s.tls, loop: s.loop,
                                                 maxFrameSize: max(handshake.maxPayload, 1 << 16), timeout: s.connectTimeout,
                                                 sink: sink(.probe))
        } catch {
            log("socketio: staying on polling, the WebSocket upgrade failed: \(error)")
            return
        }
        let timer = afterTimeout(s.connectTimeout) { [weak self] in self?.endProbe(false) }
        let probed = await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
            state.withLockedValue { $0.probeWaiter = c }
            ws.enqueue([.ping("probe")])
        }
        timer.cancel()
        guard probed else {
            log("socketio: staying on polling, the server did not answer the WebSocket probe")
            ws.abort()
            return
        }
        // Let the running GET come back (the server ends it with a noop), so
        // nothing it carries is read after what arrives on the WebSocket.
        await polling.pause()
        state.withLockedValue { st in
            st.active = ws
            st.activeID = .probe
        }
        ws.enqueue([.upgrade])
        polling.abort()
    }

    private func endProbe(_ ok: Bool) {
        let waiter = state.withLockedValue { st -> CheckedContinuation<Bool, Never>? in
            defer { st.probeWaiter = nil }
            return st.probeWaiter
        }
        waiter?.resume(returning: ok)
    }

    // MARK: receiving

    private func receive(_ packet: EngineIO.Packet, from id: LinkID) {
        if id == .probe, state.withLockedValue({ $0.activeID != .probe }) {
            // Until the switch, the upgrade's WebSocket only answers the probe.
            if case .pong("probe") = packet { endProbe(true) }
            return
        }
        switch packet {
        case .open(let h):
            let waiter = state.withLockedValue { st -> CheckedContinuation<EngineIO.Handshake, Error>? in
                guard st.handshake == nil else { return nil }
                st.handshake = h
                st.lastPing = .now()
                defer { st.openWaiter = nil }
                return st.openWaiter
            }
            waiter?.resume(returning: h)
        case .ping(let payload):
            let link = state.withLockedValue { st -> (any EngineIOLink)? in
                st.lastPing = .now()
                return st.active
            }
            link?.enqueue([.pong(payload)])
        case .message, .binary:
            deliver(packet)
        case .close:
            end(TransportError(.closed, "the server closed the Engine.IO session"))
        case .pong, .upgrade, .noop:
            break
        }
    }

    private func linkClosed(_ id: LinkID, _ error: TransportError?) {
        let isActive = state.withLockedValue { $0.activeID == id }
        switch id {
        case .probe where !isActive:
            endProbe(false)
        case .websocket, .polling, .probe:
            // The open's failure first: a connect waiting from here on must
            // read why (a broken open packet), not only that the session ended.
            failOpen(error ?? TransportError(.closed, "the link closed before the Engine.IO handshake"))
            if isActive { end(error ?? (state.withLockedValue { $0.closing } ? nil : TransportError(.closed, "link closed"))) }
        }
    }

    private func end(_ error: TransportError?) {
        let first = state.withLockedValue { st -> Bool in
            if st.ended { return false }
            st.ended = true
            return true
        }
        guard first else { return }
        watchdog.withLockedValue { $0?.cancel() }
        if error != nil { state.withLockedValue { $0.active }?.abort() }
        // A silent link: the HTTP connections over its path are likely dead too.
        if error?.kind == .idle { http.renew() }
        ended(error)
    }

    /// Declares the link dead when no ping comes within pingInterval + pingTimeout.
    private func startWatchdog() {
        let h = handshake
        let allowance = TimeAmount.milliseconds(Int64(h.pingInterval + h.pingTimeout))
        let task = Task { [weak self] in
            while !Task.isCancelled {
                guard let self else { return }
                let deadline = self.state.withLockedValue { $0.lastPing } + allowance
                let left = deadline - .now()
                if left <= .zero {
                    self.end(TransportError(.idle, "no ping from the server within pingInterval + pingTimeout (\(h.pingInterval + h.pingTimeout) ms)"))
                    return
                }
                try? await Task.sleep(for: .nanoseconds(left.nanoseconds))
            }
        }
        watchdog.withLockedValue { $0 = task }
    }

    // MARK: sending

    /// The server's size limit, checked before anything is written.
    package func check(_ packets: [EngineIO.Packet]) throws {
        for p in packets {
            switch p {
            case .message(let s): try check(size: s.utf8.count + 1)  // the "4" in front
            case .binary(let b): try check(size: b.count)
            default: continue
            }
        }
    }

    /// Refuses a packet of `size` bytes over the server's maxPayload.
    package func check(size: Int) throws {
        let limit = handshake.maxPayload
        if size > limit { throw TransportError(.refused, "a packet of \(size) bytes is over the server's maxPayload (\(limit))") }
    }

    package func enqueue(_ packets: [EngineIO.Packet]) {
        state.withLockedValue { $0.active }?.enqueue(packets)
    }

    /// Writes on the active link; the future completes once the packets are
    /// handed to the network.
    package func write(_ packets: [EngineIO.Packet]) -> EventLoopFuture<Void> {
        onActiveLink { $0.write(packets) }
    }

    /// Writes messages written out in place (`SocketIOClient.message`) on the active link.
    package func write(messages: inout [ByteBuffer]) -> EventLoopFuture<Void> {
        onActiveLink { $0.write(messages: &messages) }
    }

    /// `write` on the active link, or a failed future once the session is over.
    private func onActiveLink(_ write: (any EngineIOLink) -> EventLoopFuture<Void>) -> EventLoopFuture<Void> {
        guard let link = state.withLockedValue({ $0.ended ? nil : $0.active }) else {
            return MultiThreadedEventLoopGroup.singleton.any().makeFailedFuture(TransportError(.closed, "the Engine.IO session is over"))
        }
        return write(link)
    }

    /// Ends the session on purpose: `ended(nil)`.
    package func close() {
        let link = state.withLockedValue { st -> (any EngineIOLink)? in
            st.closing = true
            return st.active
        }
        end(nil)
        link?.close()
    }
}
