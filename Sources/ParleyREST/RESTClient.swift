import AsyncHTTPClient
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import ParleyCore
import ParleyNet
import ParleySocketIO
import ParleyWire

/// The REST API over async-http-client: every request carries the service
/// key and the access token, a 401 refreshes the token once and retries,
/// 429 waits its `Retry-After`, and 5xx or a failed request retries with
/// doubling backoff (`max_retries`, `retry_initial`, `retry_max`).
///
/// One per transport, so the tokens outlive a session: a reconnect reuses
/// them instead of logging in again. Tokens and the password never appear in
/// errors or logs; errors name the method, path and status.
final class RESTClient: Sendable {
    /// Who the bot is on the server (its own chats are filtered by `userId`).
    struct Account: Sendable, Equatable {
        var userId: String
        var nickname: String
    }

    private struct Tokens: Sendable {
        var access: String
        var refresh: String
        var account: Account
    }

    /// A request body.
    enum Body: Sendable {
        case json(JSONValue)
        /// `multipart/form-data` text fields, in order.
        case form([(String, String)])
    }

    let base: String
    let options: RESTOptions
    /// This transport's own client, for the API and the receive socket's
    /// polling; renewed when that socket goes silent (`RenewableHTTPClient`).
    let http: RenewableHTTPClient
    private let tokens = NIOLockedValueBox<Tokens?>(nil)
    /// Learns each token as the server hands it out.
    private let redactor: Redactor
    private let log: @Sendable (String) -> Void

    init(endpoint: SocketIOEndpoint, options: RESTOptions, redactor: Redactor, log: @escaping @Sendable (String) -> Void) {
        let host = endpoint.host.urlHost
        base = (endpoint.tls ? "https://" : "http://") + host + ":\(endpoint.port)"
        self.options = options
        http = RenewableHTTPClient(caFile: endpoint.tls ? options.caFile : nil)
        self.redactor = redactor
        self.log = log
    }

    /// The logged-in account, nil before the first login.
    var account: Account? { tokens.withLockedValue { $0?.account } }

    /// The current access token, for the socket's handshake headers.
    var accessToken: String? { tokens.withLockedValue { $0?.access } }

    // MARK: auth

    /// Logs in unless a previous session already did (its tokens are reused;
    /// an expired access token is refreshed by the first request that meets a 401).
    func ensureLoggedIn() async throws -> Account {
        if let a = account { return a }
        let body: JSONValue = .object([("email", .string(options.email)), ("password", .string(options.password))])
        let answer = try await send(.POST, options.apiPrefix + "/users/login", body: .json(body), authorized: false)
        if answer.status == 400 || answer.status == 401 || answer.status == 403 || answer.status == 404 {
            // Wrong credentials, service key or path: retrying would never help.
            throw TransportError(.refused, "login as \(options.email) refused: HTTP \(answer.status)\(Self.errorCode(answer))"
                + Self.loginHint(answer.status, path: options.apiPrefix + "/users/login"))
        }
        let json = try answer.json("POST \(options.apiPrefix)/users/login")
        guard let access = json["token"]?["accessToken"]?.string, let refresh = json["token"]?["refreshToken"]?.string,
              let userId = RESTChat.idText(json["user_id"]) else {
            throw TransportError(.protocolViolation, "the login answer has no token.accessToken, token.refreshToken or user_id")
        }
        let account = Account(userId: userId, nickname: json["nickname"]?.string ?? options.email)
        redactor.add(access)
        redactor.add(refresh)
        tokens.withLockedValue { $0 = Tokens(access: access, refresh: refresh, account: account) }
        log("rest: logged in as \(options.email) (user \(userId))")
        return account
    }

    /// Trades the refresh token for a new access token. Anything but a new
    /// token (the server refused the refresh token) is a `.kicked` error: the
    /// bot cannot act on this server any more. A refresh that did not get an
    /// answer (a 5xx, no connection) is an ordinary failure and is retried.
    private func refresh(replacing stale: String) async throws {
        guard let current = tokens.withLockedValue({ $0 }) else { throw TransportError(.kicked, "not logged in") }
        // Another request already refreshed: use its token.
        if current.access != stale { return }
        var headers = HTTPHeaders()
        headers.add(name: options.serviceKeyHeader, value: options.serviceKey)
        headers.add(name: options.authHeader, value: current.access)
        headers.add(name: options.refreshHeader, value: current.refresh)
        let path = options.apiPrefix + "/auth/refresh"
        let answer = try await execute(.GET, path, headers: headers, body: nil)
        if answer.status >= 500 || answer.status == 429 {
            throw TransportError(.closed, "GET \(path): HTTP \(answer.status)")
        }
        guard answer.status == 200, let access = (try? answer.json("GET \(path)"))?["accessToken"]?.string else {
            tokens.withLockedValue { $0 = nil }
            throw TransportError(.kicked, "the server refused to refresh the access token (HTTP \(answer.status)\(Self.errorCode(answer)))")
        }
        redactor.add(access)
        tokens.withLockedValue { $0?.access = access }
        log("rest: access token refreshed")
    }

    // MARK: requests

    /// An authorized request that must succeed (2xx); returns its JSON.
    /// 4xx other than 401 and 429 throw `.refused` (the request itself is
    /// wrong: retrying would not help); a 401 that outlives a refresh throws
    /// `.closed`.
    func call(_ method: HTTPMethod, _ path: String, body: Body? = nil) async throws -> JSONValue {
        try await perform(method, path, body: body).json("\(method) \(path)")
    }

    /// An authorized request that must succeed (2xx), whatever its body: a
    /// chat `POST` answered `201` with no body was delivered all the same.
    @discardableResult
    func perform(_ method: HTTPMethod, _ path: String, body: Body? = nil) async throws -> Answer {
        let answer = try await send(method, path, body: body, authorized: true)
        if answer.status == 401 {
            // Still refused with a token fresh from a refresh: the server's
            // state, not the request's; the next session tries again.
            throw TransportError(.closed, "\(method) \(path): HTTP 401 even after a token refresh\(Self.errorCode(answer))")
        }
        guard (200..<300).contains(answer.status) else {
            throw TransportError(.refused, "\(method) \(path): HTTP \(answer.status)\(Self.errorCode(answer))")
        }
        return answer
    }

    /// Sends with the retry policy; returns the first answer that is not a
    /// 401 (after one refresh), 429 or 5xx, or throws once retries run out.
    private func send(_ method: HTTPMethod, _ path: String, body: Body?, authorized: Bool) async throws -> Answer {
        var attempt = 0
        var delay = options.retryInitial
        var refreshed = false
        while true {
            var headers = HTTPHeaders()
            headers.add(name: options.serviceKeyHeader, value: options.serviceKey)
            let token = authorized ? accessToken : nil
            if authorized {
                guard let token else { throw TransportError(.kicked, "not logged in") }
                headers.add(name: options.authHeader, value: token)
            }
            let failure: TransportError
            var wait: Double?
            do {
                let answer = try await execute(method, path, headers: headers, body: body)
                switch answer.status {
                case 401 where authorized && !refreshed:
                    refreshed = true
                    try await refresh(replacing: token!)
                    continue
                case 429:
                    let after = answer.retryAfter
                    if let after, after > options.maxRetryAfter {
                        // Too long to hold a send: the session ends, and presence stays away that long.
                        throw TransportError(.closed, "\(method) \(path): HTTP 429, Retry-After \(Self.seconds(after)) s is longer than "
                                             + "max_retry_after (\(Self.seconds(options.maxRetryAfter)) s): reconnecting after it",
                                             retryAfter: min(after, 86_400))
                    }
                    failure = TransportError(.closed, "\(method) \(path): HTTP 429")
                    wait = after
                case 500..<600:
                    failure = TransportError(.closed, "\(method) \(path): HTTP \(answer.status)")
                default:
                    return answer
                }
            } catch let e as TransportError where e.kind == .connect || e.kind == .timeout {
                failure = e
            }
            // A connect given up (the bot stops) is no failure to retry or to log.
            try Task.checkCancellation()
            attempt += 1
            if attempt > options.maxRetries {
                throw TransportError(failure.kind, "\(failure.message) (after \(attempt) attempts)")
            }
            let pause = wait ?? delay
            log("rest: \(failure.message); retrying in \(Self.seconds(pause)) s")
            try await Task.sleep(for: .milliseconds(Int(pause * 1000)))
            if wait == nil { delay = min(options.retryMax, delay * 2) }
        }
    }

    /// One HTTP exchange, no policy.
    private func execute(_ method: HTTPMethod, _ path: String, headers: HTTPHeaders, body: Body?) async throws -> Answer {
        var req = HTTPClientRequest(url: base + path)
        req.method = method
        req.headers = headers
        switch body {
        case .json(let v)?:
            req.headers.replaceOrAdd(name: "Content-Type", value: "application/json")
            req.body = .bytes(ByteBuffer(string: v.text))
        case .form(let fields)?:
            let boundary = "parley-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
            req.headers.replaceOrAdd(name: "Content-Type", value: "multipart/form-data; boundary=\(boundary)")
            req.body = .bytes(ByteBuffer(string: Self.multipart(fields, boundary: boundary)))
        case nil:
            break
        }
        let (client, generation) = http.current()
        let response: HTTPClientResponse
        do {
            response = try await client.execute(req, timeout: .milliseconds(Int64(options.requestTimeout * 1000)))
        } catch let e as HTTPClientError where e == .deadlineExceeded || e == .readTimeout || e == .connectTimeout {
            throw TransportError(.timeout, "\(method) \(path): no answer within \(Self.seconds(options.requestTimeout)) s")
        } catch {
            throw TransportError(.connect, "\(method) \(path): \(stranded(generation) ?? NetworkErrors.describe(error))")
        }
        do {
            let bytes = try await response.body.collect(upTo: options.maxResponseBytes)
            return Answer(status: Int(response.status.code), headers: response.headers, body: bytes)
        } catch {
            if let why = stranded(generation) { throw TransportError(.connect, "\(method) \(path): \(why)") }
            throw TransportError(.protocolViolation, "\(method) \(path): answer over \(options.maxResponseBytes) bytes or cut short: \(error)")
        }
    }

    /// Why a request on the client of `generation` failed, when it was the
    /// renewal after a silent link that failed it.
    private func stranded(_ generation: Int) -> String? {
        http.renewed(since: generation) ? "its connection died with the silent link" : nil
    }

    static func multipart(_ fields: [(String, String)], boundary: String) -> String {
        var out = ""
        for (name, value) in fields {
            out += "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n"
            out += "Content-Type: text/plain; charset=utf-8\r\n\r\n\(value)\r\n"
        }
        return out + "--\(boundary)--\r\n"
    }

    /// The server's `errorCode`, when its error body has one (never the body itself: it could echo a token).
    /// What a refused login's status most likely means, for the one reading the log.
    private static func loginHint(_ status: Int, path: String) -> String {
        switch status {
        case 401: " (wrong email or password?)"
        case 403: " (the service key was refused? check service_key and service_key_header)"
        case 404: " (no login at POST \(path): check server and api_prefix)"
        default: " (the server did not take the login request)"
        }
    }

    private static func errorCode(_ a: Answer) -> String {
        guard let code = (try? JSONValue.parse(bytes: a.body.readableBytesView))?["errorCode"]?.string else { return "" }
        return " \(code)"
    }

    private static func seconds(_ d: Double) -> String {
        d == d.rounded() ? String(Int(d)) : String((d * 1000).rounded() / 1000)
    }

    struct Answer: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: ByteBuffer

        /// `Retry-After` in seconds (the delay form; an HTTP-date is left to the backoff).
        var retryAfter: Double? {
            headers.first(name: "Retry-After").flatMap { Double($0.filter { $0 != " " && $0 != "\t" }) }.map { max(0, $0) }
        }

        func json(_ what: String) throws -> JSONValue {
            do {
                return try JSONValue.parse(bytes: body.readableBytesView, maxDepth: 32)
            } catch {
                throw TransportError(.protocolViolation, "\(what): the answer is not JSON (\(error))")
            }
        }
    }
}
