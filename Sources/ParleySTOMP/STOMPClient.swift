import NIOConcurrencyHelpers
import NIOCore
import ParleyCore
import ParleyNet
import ParleyWire

/// One STOMP 1.2 session over a link: CONNECT, heart-beats both ways,
/// receipts, and MESSAGE frames handed on in order.
///
/// Liveness is STOMP's own heart-beat: the bot beats at the negotiated
/// period, and when nothing at all (frame or beat) has come from the server
/// for two of its periods plus `margin`, the session ends with `.idle` and
/// presence reconnects. An ERROR frame ends the session too (the server
/// closes the connection after one anyway), with its `message` header in the
/// error so the log says what the broker refused.
final class STOMPClient: Sendable {
    struct Settings: Sendable {
        var host: String
        var login: String?
        var passcode: String?
        var connectHeaders: [String: String] = [:]
        /// Milliseconds: what the bot offers to send and asks to receive (0: none).
        var heartBeat: (send: Int, receive: Int)
        var heartBeatMargin: Double
        var connectTimeout: Double
    }

    private struct State {
        var link: (any STOMPLink)?
        var connected: STOMPFrame?
        var connectWaiter: CheckedContinuation<STOMPFrame, Error>?
        /// Who waits for each RECEIPT: called once, with it, a timeout or the end.
        var receipts: [String: Receipt] = [:]
        /// The DISCONNECT's receipt: the socket closing also answers it.
        var disconnectReceipt: String?
        var nextReceipt = 0
        var lastReceived = NIODeadline.now()
        var ended: TransportError??
        /// What an ERROR frame that ended the session said.
        var serverError: String?
        var closing = false
    }

    private let state: NIOLockedValueBox<State>
    private let deliver: @Sendable (STOMPFrame) -> Void
    private let ended: @Sendable (TransportError?) -> Void
    private let log: @Sendable (String) -> Void
    private let heartbeat = NIOLockedValueBox<Task<Void, Never>?>(nil)
    /// The negotiated periods in milliseconds (0: off), for logs and tests.
    let periods = NIOLockedValueBox((send: 0, receive: 0))

    private init(deliver: @escaping @Sendable (STOMPFrame) -> Void,
                 ended: @escaping @Sendable (TransportError?) -> Void, log: @escaping @Sendable (String) -> Void) {
        state = NIOLockedValueBox(State())
        self.deliver = deliver
        self.ended = ended
        self.log = log
    }

    /// Connects the link, sends CONNECT and waits for CONNECTED. `deliver`
    /// gets every MESSAGE frame in order; `ended` is called once when the
    /// session is over (nil after `disconnect()`), never when `open` throws.
    static func open(_ s: Settings, link makeLink: (STOMPLinkSink) async throws -> any STOMPLink,
                     deliver: @escaping @Sendable (STOMPFrame) -> Void, ended: @escaping @Sendable (TransportError?) -> Void,
                     log: @escaping @Sendable (String) -> Void) async throws -> STOMPClient {
        // Until CONNECTED, an ending is the open's failure, not the session's.
        let opened = NIOLockedValueBox(false)
        let client = STOMPClient(deliver: deliver,
                                 ended: { e in if opened.withLockedValue({ $0 }) { ended(e) } }, log: log)
        let link = try await makeLink(STOMPLinkSink(
            item: { [weak client] item in client?.receive(item) },
            closed: { [weak client] e in client?.linkClosed(e) }))
        client.state.withLockedValue { $0.link = link }
        var headers: [(name: String, value: String)] = [("accept-version", STOMP.version), ("host", s.host)]
        if let login = s.login { headers.append(("login", login)) }
        if let passcode = s.passcode { headers.append(("passcode", passcode)) }
        headers.append(("heart-beat", "\(s.heartBeat.send),\(s.heartBeat.receive)"))
        headers += s.connectHeaders.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        link.enqueue(STOMPFrame("CONNECT", headers).encoded())
        let connected: STOMPFrame
        do {
            connected = try await client.waitConnected(timeout: s.connectTimeout)
        } catch {
            client.end(error as? TransportError ?? TransportError(.connect, "\(error)"))
            throw error
        }
        opened.withLockedValue { $0 = true }
        // A link that died between CONNECTED and now must still be reported.
        if let e = client.state.withLockedValue({ $0.ended }) { ended(e) }
        client.startHeartbeat(connected, s)
        return client
    }

    private func waitConnected(timeout: Double) async throws -> STOMPFrame {
        let timer = afterTimeout(timeout) { [weak self] in
            self?.end(TransportError(.timeout, "no CONNECTED frame within \(timeout) s"))
        }
        defer { timer.cancel() }
        return try await withCheckedThrowingContinuation { (c: CheckedContinuation<STOMPFrame, Error>) in
            let ready = state.withLockedValue { st -> Result<STOMPFrame, Error>? in
                if let f = st.connected { return .success(f) }
                if let e = st.ended { return .failure(e ?? TransportError(.closed, "the link closed before CONNECTED")) }
                st.connectWaiter = c
                return nil
            }
            if let ready { c.resume(with: ready) }
        }
    }

    // MARK: receiving

    /// A frame or a heart-beat from the link, in order; either shows the server is alive.
    private func receive(_ item: STOMPItem) {
        state.withLockedValue { $0.lastReceived = .now() }
        if case .frame(let f) = item { handle(f) }
    }

    private func handle(_ f: STOMPFrame) {
        switch f.command {
        case "CONNECTED":
            let waiter = state.withLockedValue { st -> CheckedContinuation<STOMPFrame, Error>? in
                guard st.connected == nil else { return nil }
                st.connected = f
                defer { st.connectWaiter = nil }
                return st.connectWaiter
            }
            waiter?.resume(returning: f)
        case "RECEIPT":
            guard let id = f[header: "receipt-id"] else { return }
            state.withLockedValue { $0.receipts.removeValue(forKey: id) }?(.success(()))
        case "MESSAGE":
            deliver(f)
        case "ERROR":
            let message = f[header: "message"] ?? "(no message header)"
            let details = f.bodyText.split(whereSeparator: \.isNewline).first.map { " (\($0.prefix(200)))" } ?? ""
            let connected = state.withLockedValue { st -> Bool in
                if st.ended == nil { st.serverError = "\(message)\(details)" }
                return st.connected != nil
            }
            guard connected else {
                // The answer to CONNECT: a passcode, login or vhost the broker
                // refuses, which a retry would only send again. The bot stops
                // and presence logs it, once.
                end(TransportError(.refused, """
                    the STOMP server sent ERROR to the login: \(message)\(details); \
                    check [bot.stomp] login, passcode and host (the vhost)
                    """))
                return
            }
            log("stomp: the server sent ERROR: \(message)\(details)")
            end(TransportError(.closed, "the STOMP server sent ERROR: \(message)\(details)"))
        default:
            log("stomp: ignored a \(f.command) frame from the server")
        }
    }

    private func linkClosed(_ error: TransportError?) {
        let (closing, receipt) = state.withLockedValue { ($0.closing, $0.disconnectReceipt) }
        if closing {
            // After DISCONNECT the socket closing is the acknowledgement (RabbitMQ sends no RECEIPT).
            if let receipt { state.withLockedValue { $0.receipts.removeValue(forKey: receipt) }?(.success(())) }
            end(nil)
        } else {
            end(error ?? TransportError(.closed, "the STOMP link closed"))
        }
    }

    /// Ends the session once: waiters fail, the heart-beat stops, the link goes.
    private func end(_ error: TransportError?) {
        let taken = state.withLockedValue { st -> (CheckedContinuation<STOMPFrame, Error>?, [Receipt], (any STOMPLink)?)? in
            if st.ended != nil { return nil }
            st.ended = .some(error)
            defer {
                st.connectWaiter = nil
                st.receipts = [:]
            }
            return (st.connectWaiter, Array(st.receipts.values), st.link)
        }
        guard let (connectWaiter, receipts, link) = taken else { return }
        heartbeat.withLockedValue { $0?.cancel() }
        let why = Self.over(error)
        connectWaiter?.resume(throwing: why)
        for r in receipts { r(.failure(why)) }
        if error != nil { link?.abort() }
        ended(error)
    }

    // MARK: heart-beats

    /// Spec: the client beats every max(cx, sy) ms, the server every max(sx, cy) ms; 0 on either side is off.
    static func negotiate(client: (send: Int, receive: Int), server: String?) -> (send: Int, receive: Int) {
        let parts = (server ?? "0,0").split(separator: ",").map { Int($0.trimmingSpaces) ?? 0 }
        let sx = parts.count == 2 ? parts[0] : 0
        let sy = parts.count == 2 ? parts[1] : 0
        return (client.send > 0 && sy > 0 ? max(client.send, sy) : 0,
                client.receive > 0 && sx > 0 ? max(client.receive, sx) : 0)
    }

    private func startHeartbeat(_ connected: STOMPFrame, _ s: Settings) {
        let p = Self.negotiate(client: s.heartBeat, server: connected[header: "heart-beat"])
        periods.withLockedValue { $0 = p }
        guard p.send > 0 || p.receive > 0 else { return }
        let sendEvery = TimeAmount.milliseconds(Int64(p.send))
        let allowance = TimeAmount.milliseconds(Int64(2 * p.receive)) + .milliseconds(Int64(s.heartBeatMargin * 1000))
        let task = Task { [weak self] in
            var nextBeat = NIODeadline.now() + sendEvery
            while !Task.isCancelled {
                guard let self else { return }
                let now = NIODeadline.now()
                var wake = p.send > 0 ? nextBeat : now + .seconds(3600)
                if p.receive > 0 {
                    let deadline = self.state.withLockedValue { $0.lastReceived } + allowance
                    if now >= deadline {
                        self.end(TransportError(.idle, "no heart-beat from the STOMP server for \((allowance.nanoseconds / 1_000_000)) ms (2 × \(p.receive) ms + margin)"))
                        return
                    }
                    wake = min(wake, deadline)
                }
                if p.send > 0, now >= nextBeat {
                    self.state.withLockedValue { $0.link }?.enqueue(STOMP.heartbeat)
                    nextBeat = max(nextBeat + sendEvery, now)
                    continue
                }
                try? await Task.sleep(for: .nanoseconds(max(1_000_000, (wake - now).nanoseconds)))
            }
        }
        heartbeat.withLockedValue { $0 = task }
    }

    // MARK: sending

    /// Writes a frame and waits for the write (no receipt asked).
    func send(_ frame: STOMPFrame) async throws {
        let (link, ended) = state.withLockedValue { ($0.link, $0.ended) }
        if let ended { throw Self.over(ended) }
        guard let link else { throw TransportError(.closed, "the STOMP link is not open") }
        try await link.send(frame.encoded())
    }

    /// Writes a frame without waiting (typing).
    func enqueue(_ frame: STOMPFrame) {
        state.withLockedValue { $0.ended == nil ? $0.link : nil }?.enqueue(frame.encoded())
    }

    /// What waits for a RECEIPT.
    typealias Receipt = @Sendable (Result<Void, any Error>) -> Void

    /// Writes a frame with a `receipt` header and returns when its RECEIPT
    /// arrives; throws `.timeout` after `timeout` seconds, or the session's
    /// end if it ends first.
    nonisolated(nonsending) func request(_ frame: STOMPFrame, timeout: Double) async throws {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, Error>) in
            request(frame, timeout: timeout) { c.resume(with: $0) }
        }
    }

    /// Writes a frame with a `receipt` header; `done` is called once: when
    /// its RECEIPT arrives (on the link's loop), with `.timeout` after
    /// `timeout` seconds, or with the session's end if it ends first.
    func request(_ frame: STOMPFrame, timeout: Double, done: @escaping Receipt) {
        var f = frame
        let id = state.withLockedValue { st -> String in
            st.nextReceipt += 1
            return "r\(st.nextReceipt)"
        }
        f.headers.append(("receipt", id))
        if f.command == "DISCONNECT" { state.withLockedValue { $0.disconnectReceipt = id } }
        let timer = afterTimeout(timeout) { [weak self] in
            self?.state.withLockedValue { $0.receipts.removeValue(forKey: id) }?(
                .failure(TransportError(.timeout, "no RECEIPT for \(frame.command) within \(timeout) s")))
        }
        let outcome = state.withLockedValue { st -> Result<(any STOMPLink)?, TransportError> in
            if let ended = st.ended { return .failure(Self.over(ended)) }
            st.receipts[id] = { result in
                timer.cancel()
                done(result)
            }
            return .success(st.link)
        }
        // Registered before the write, so a fast RECEIPT finds its waiter.
        switch outcome {
        case .failure(let e):
            timer.cancel()
            done(.failure(e))
        case .success(let link):
            link?.enqueue(f.encoded())
        }
    }

    /// DISCONNECT with a receipt; the RECEIPT or the socket closing (RabbitMQ)
    /// ends the session cleanly, and so does `timeout` without either.
    func disconnect(timeout: Double) async {
        let link = state.withLockedValue { st -> (any STOMPLink)? in
            st.closing = true
            return st.ended == nil ? st.link : nil
        }
        guard let link else { return }
        try? await request(STOMPFrame("DISCONNECT"), timeout: timeout)
        end(nil)
        link.close()
    }

    /// Why a write after the end fails: the end's own reason when there was one.
    private static func over(_ ended: TransportError?) -> TransportError {
        ended ?? TransportError(.closed, "the STOMP session is over")
    }

    /// The words of the ERROR frame that ended the session; nil while it
    /// runs, or when something else ended it.
    var serverError: String? { state.withLockedValue { $0.serverError } }

    /// True once the session has ended.
    var isOver: Bool { state.withLockedValue { $0.ended != nil } }

    /// Ends the session now with `error` (a receipt that never came).
    func fail(_ error: TransportError) { end(error) }

    /// Drops the link without DISCONNECT.
    func abort() {
        let link = state.withLockedValue { st -> (any STOMPLink)? in
            st.closing = true
            return st.link
        }
        end(nil)
        link?.abort()
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return s
    }
}
