import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import ParleyCore

/// The transports' HTTP clients, all alike: Socket.IO's long-polling, REST
/// and STOMP's discovery each keep one of their own (`RenewableHTTPClient`).
/// Not `HTTPClient.shared`: that one asks for gzip and refuses answers that
/// inflate more than 25×, which python-engineio's compressed polling answers
/// of repetitive text do.
package enum HTTPClients {
    /// A client configured for the transports; whoever makes one shuts it
    /// down (async-http-client traps on a client freed unshut).
    package static func makeClient(caFile: String?) -> HTTPClient {
        var config = HTTPClient.Configuration()
        config.tlsConfiguration = TransportTLS.configuration(caFile: caFile)
        // A refused or unreachable server fails the request at once: the
        // transports retry with their own backoff and jitter (presence), and
        // the client's retries would hold a connect for its whole timeout
        // (a fleet would then come back in one wave).
        config.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: config)
    }

    /// One request; non-200 answers are errors naming the status and body.
    /// Used for polling and for STOMP discovery; REST reads statuses itself.
    /// Errors name the URL with its query values masked (`Redactor.url`): a
    /// query may carry a token.
    package static func request(client: HTTPClient, url: String, method: HTTPMethod, headers: HTTPHeaders, body: String?,
                        timeout: TimeAmount, limit: Int) async throws -> String {
        var req = HTTPClientRequest(url: url)
        req.method = method
        req.headers = headers
        if let body {
            req.headers.replaceOrAdd(name: "Content-Type", value: "text/plain;charset=UTF-8")
            req.body = .bytes(ByteBuffer(string: body))
        }
        let named = Redactor.url(url)
        let response: HTTPClientResponse
        do {
            response = try await client.execute(req, timeout: timeout)
        } catch let e as HTTPClientError where e == .deadlineExceeded || e == .readTimeout || e == .connectTimeout {
            throw TransportError(.connect, "\(method) \(named): no answer within \(timeout.nanoseconds / 1_000_000) ms")
        } catch {
            throw TransportError(.connect, "\(method) \(named): \(NetworkErrors.describe(error))")
        }
        let bytes: ByteBuffer
        do {
            bytes = try await response.body.collect(upTo: limit)
        } catch {
            throw TransportError(.protocolViolation, "\(method) \(named): answer over \(limit) bytes or cut short: \(error)")
        }
        let text = String(buffer: bytes)
        guard response.status == .ok else {
            throw TransportError(.closed, "\(method) \(named): HTTP \(response.status.code) \(String(text.prefix(200)))")
        }
        return text
    }
}
