import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import ParleyCore
import ParleyNet

/// One `bot.http` request, carried out: every hop (the request and each
/// redirect) is checked against `[bot.http] allow` and then on the address
/// its name resolves to, and the connection goes to that checked address
/// (async-http-client's `dnsOverride`), so a name that resolves again
/// differently cannot slip past the check.
enum HTTPFetch {
    static func run(_ call: HTTPCall, options: HTTPOptions) async -> HTTPOutcome {
        do {
            let timeout = HTTPFailure("timed out after \(call.timeout.formatted(.number)) s")
            // One deadline for every hop: the client's own then runs out with
            // this one, and either way the plugin reads the same words.
            let deadline = NIODeadline.now() + .milliseconds(Int64(call.timeout * 1000))
            return try await withDeadline(.milliseconds(Int(call.timeout * 1000)), timeout: timeout) {
                try await follow(call, options: options, deadline: deadline, timeout: timeout)
            }
        } catch let failure as HTTPFailure {
            return .failed(failure.description)
        } catch {
            return .failed("\(error)")
        }
    }

    private static func follow(_ call: HTTPCall, options: HTTPOptions, deadline: NIODeadline, timeout: HTTPFailure) async throws -> HTTPOutcome {
        var url = call.url
        var method = call.method
        var body = call.body
        var headers = call.headers
        var origin: String?
        for _ in 0...HTTPOptions.maxRedirects {
            let target = try await check(url, options: options)
            // As curl and browsers do: the plugin's credentials stay with the
            // origin it gave them to, whatever an allowed server redirects to.
            if let origin, origin != target.origin {
                headers.removeAll(where: \.isCredential)
            }
            origin = origin ?? target.origin
            let (status, responseHeaders, bytes) = try await fetch(target, method: method, headers: headers, body: body,
                                                                   deadline: deadline, maxBytes: options.maxBytes, timeout: timeout)
            guard [301, 302, 303, 307, 308].contains(status),
                  let location = responseHeaders.first(where: { $0.name.lowercased() == "location" })?.value else {
                return .response(status: status, headers: responseHeaders, body: bytes)
            }
            guard let next = URL(string: location, relativeTo: URL(string: url))?.absoluteString else {
                throw HTTPFailure("redirect to an invalid URL: \(location)")
            }
            url = next
            // As browsers do: 303, and 301/302 after a POST, continue as a GET without the body.
            if status == 303 || ((status == 301 || status == 302) && method == "POST") {
                method = "GET"
                body = nil
            }
        }
        throw HTTPFailure("more than \(HTTPOptions.maxRedirects) redirects")
    }

    /// Where one hop goes: its URL (its host in lower case, as checked) and
    /// the address it may connect to.
    struct Target {
        var url: String
        var host: String
        var address: IPAddress
        /// Scheme, host and port: what a credential is given to.
        var origin: String
    }

    /// The allow list on the name, then the resolved addresses: an internal
    /// address is reachable only through an entry that names it.
    static func check(_ url: String, options: HTTPOptions) async throws -> Target {
        let parsed = try HTTPURL(url)
        guard let entry = options.entry(host: parsed.host, port: parsed.port) else {
            throw HTTPFailure("\(parsed.hostPort) is not in [bot.http] allow")
        }
        let host = parsed.host, port = parsed.port
        let addresses = try await NIOThreadPool.singleton.runIfActive { try IPAddress.resolve(host, port: port) }
        for a in addresses where a.isInternal && !entry.names(address: a) {
            throw HTTPFailure("\(parsed.hostPort) resolves to \(a), an internal address; only an allow entry naming that address reaches it")
        }
        return Target(url: parsed.canonical, host: host, address: addresses[0], origin: "\(parsed.scheme)://\(parsed.hostPort)")
    }

    static func fetch(_ target: Target, method: String, headers: [HTTPHeader], body: [UInt8]?,
                      deadline: NIODeadline, maxBytes: Int, timeout: HTTPFailure) async throws -> (Int, [HTTPHeader], [UInt8]) {
        var config = HTTPClient.Configuration(redirectConfiguration: .disallow)
        // A refused connection or a failed TLS handshake is the plugin's answer
        // at once, by its name: retried until the deadline, it would read as a timeout.
        config.connectionPool.retryConnectionEstablishment = false
        if IPAddress(target.host) == nil {
            // Pinned under the host as checked and as async-http-client reads
            // it from the URL: a lookup under any other spelling would
            // resolve the name again, past the check.
            let seen = URL(string: target.url)?.host ?? target.host
            config.dnsOverride[target.host] = "\(target.address)"
            config.dnsOverride[seen] = "\(target.address)"
        }
        let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: config)
        do {
            let result = try await exchange(client, target, method: method, headers: headers, body: body,
                                            deadline: deadline, maxBytes: maxBytes, timeout: timeout)
            try? await client.shutdown()
            return result
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    private static func exchange(_ client: HTTPClient, _ target: Target, method: String, headers: [HTTPHeader], body: [UInt8]?,
                                 deadline: NIODeadline, maxBytes: Int, timeout: HTTPFailure) async throws -> (Int, [HTTPHeader], [UInt8]) {
        var req = HTTPClientRequest(url: target.url)
        req.method = HTTPMethod(rawValue: method)
        for h in headers { req.headers.add(name: h.name, value: h.value) }
        if let body { req.body = .bytes(ByteBuffer(bytes: body)) }
        let response: HTTPClientResponse
        do {
            response = try await client.execute(req, deadline: deadline)
        } catch {
            if NIODeadline.now() >= deadline || (error as? HTTPClientError) == .deadlineExceeded { throw timeout }
            throw HTTPFailure("\(method) \(Redactor.url(target.url)): \(NetworkErrors.describe(error))")
        }
        var bytes: [UInt8] = []
        for try await chunk in response.body {
            // A body that drips forever: the body stream need not heed cancellation, so look at the clock.
            if NIODeadline.now() >= deadline { throw timeout }
            if Task.isCancelled { throw CancellationError() }
            if bytes.count + chunk.readableBytes > maxBytes {
                throw HTTPFailure("response larger than \(maxBytes) bytes ([bot.http] max_bytes)")
            }
            bytes += chunk.readableBytesView
        }
        let fields = response.headers.map { HTTPHeader($0.name, $0.value) }
        return (Int(response.status.code), fields, bytes)
    }
}

/// The parts of a URL the checks need; only http and https.
struct HTTPURL {
    var scheme: String
    var host: String
    var port: Int
    /// The URL with its scheme and host in lower case and no `user:password@`:
    /// what is requested, so the host the client connects for is the one that was checked.
    var canonical: String
    /// `user:password@` from the URL, decoded: sent as Basic credentials, as curl does.
    var userinfo: (user: String, password: String)?

    init(_ text: String) throws {
        guard var c = URLComponents(string: text), let scheme = c.scheme?.lowercased(), let rawHost = c.host, !rawHost.isEmpty else {
            throw HTTPFailure("invalid URL: \(Redactor.url(text))")
        }
        guard scheme == "http" || scheme == "https" else { throw HTTPFailure("only http and https URLs: \(scheme)") }
        var h = rawHost.lowercased()
        if h.hasPrefix("["), h.hasSuffix("]") { h = String(h.dropFirst().dropLast()) }
        self.scheme = scheme
        host = h
        port = c.port ?? (scheme == "https" ? 443 : 80)
        c.scheme = scheme
        if let encoded = c.percentEncodedHost { c.percentEncodedHost = encoded.lowercased() }
        if c.user != nil || c.password != nil {
            userinfo = (c.user ?? "", c.password ?? "")
            c.user = nil
            c.password = nil
        }
        canonical = c.string ?? text
    }

    /// `host:port` as an allow entry would name it.
    var hostPort: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
