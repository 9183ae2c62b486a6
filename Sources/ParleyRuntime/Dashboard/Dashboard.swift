import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ParleyCore
import ParleyWire
import ServiceLifecycle
import Synchronization

/// The dashboard's routes on the `--http` server: the page, its two files,
/// one snapshot as JSON, and the live stream of snapshots.
enum Dashboard {
    /// How often `/events` sends a snapshot.
    static let period = Duration.seconds(1)

    static let files: [(path: String, body: [UInt8], type: String)] = [
        ("/", PackageResources.dashboard_html, "text/html; charset=utf-8"),
        ("/dashboard.js", PackageResources.dashboard_js, "text/javascript; charset=utf-8"),
        ("/dashboard.css", PackageResources.dashboard_css, "text/css; charset=utf-8"),
    ]

    /// No inline script, nothing from elsewhere, no framing: log lines and
    /// names are shown as text, and even so could not run.
    static let security: HTTPFields = [
        .contentSecurityPolicy: "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        HTTPField.Name("X-Content-Type-Options")!: "nosniff",
        .cacheControl: "no-cache",
    ]

    /// The paths `routes` serves, all GET.
    static var paths: [String] { files.map(\.path) + ["/api/fleet", "/events"] }

    static func routes(_ router: Router<BasicRequestContext>, watch: FleetWatch, runners: [BotRunner], maxStreams: Int) {
        let streams = StreamCount()
        for file in files {
            let body = ByteBuffer(bytes: file.body)
            var fields = security
            fields[.contentType] = file.type
            let headers = fields
            router.get(RouterPath(file.path)) { request, _ in
                guard file.path == "/" else { return Response(status: .ok, headers: headers, body: .init(byteBuffer: body)) }
                // The page's own requests carry the token it was opened with (checked already).
                let query = request.uri.queryParameters.get("token").map { "?token=" + $0.percentEncoded } ?? ""
                let page = String(buffer: body).replacingOccurrences(of: "@QUERY@", with: query)
                return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: page)))
            }
        }
        router.get("/api/fleet") { _, _ in
            let json = try JSONEncoder().encode(await watch.report(runners))
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: json)))
        }
        router.get("/events") { _, _ in
            guard let slot = StreamCount.Slot(streams, max: maxStreams) else {
                return HTTPServer.text(.serviceUnavailable, "\(maxStreams) dashboard streams are open already: close a page, or poll /api/fleet\n")
            }
            // X-Accel-Buffering: a reverse proxy in front must not hold the stream back.
            let headers: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-cache", HTTPField.Name("X-Accel-Buffering")!: "no"]
            return Response(status: .ok, headers: headers, body: ResponseBody { writer in
                // Held while the stream runs; released with the body, run or not.
                _ = slot
                let encoder = JSONEncoder()
                // Ends with the server's graceful shutdown (the bots have
                // stopped by then): an open page must not hold the process up.
                while !Task.isCancelled, !Task.isShuttingDownGracefully {
                    let json = try encoder.encode(await watch.report(runners))
                    var event = ByteBuffer(string: "data: ")
                    event.writeBytes(json)
                    event.writeString("\n\n")
                    try await writer.write(event)
                    do {
                        try await cancelWhenGracefulShutdown { try await Task.sleep(for: period) }
                    } catch {
                        break
                    }
                }
                try await writer.finish(nil)
            })
        }
    }
}

/// `--http-token-env`: every request but a webhook's and a probe's carries the token.
struct BearerToken: RouterMiddleware {
    typealias Context = BasicRequestContext
    let token: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // Webhooks carry their own signatures; the probes carry nothing but say little.
        let path = request.uri.path
        if path.hasPrefix("/hooks/") || path == "/healthz" || path == "/readyz" { return try await next(request, context) }
        let header = request.headers[.authorization] ?? ""
        // The scheme is case-insensitive (RFC 9110).
        let given = header.lowercased().hasPrefix("bearer ") ? String(header.dropFirst(7)) : request.uri.queryParameters.get("token") ?? ""
        guard Redactor.matches(given, secret: token) else {
            return Response(status: .unauthorized, headers: [.contentType: "text/plain; charset=utf-8", .wwwAuthenticate: "Bearer"],
                            body: .init(byteBuffer: ByteBuffer(string: "a token is needed: Authorization: Bearer TOKEN, or ?token=\n")))
        }
        return try await next(request, context)
    }
}

/// Without a token, a web page from anywhere could read the dashboard and
/// the metrics through DNS rebinding (a name of its own that it points at
/// 127.0.0.1): so only requests addressed to an IP address or to localhost
/// are answered. A server reached by a name needs `--http-token-env`.
struct AddressedByIP: RouterMiddleware {
    typealias Context = BasicRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        // Webhooks come through tunnels and proxies under their names, and carry signatures; the probes say little.
        if path.hasPrefix("/hooks/") || path == "/healthz" || path == "/readyz" || Self.allowed(request.head.authority) {
            return try await next(request, context)
        }
        return Response(status: .forbidden, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: """
            this server answers requests addressed to its IP address or to localhost; to serve it under a name, \
            give it a token (--http-token-env)\n
            """)))
    }

    /// Whether a Host (with its port, if any) is an IP address or localhost; no Host at all is no browser's.
    static func allowed(_ authority: String?) -> Bool {
        guard var host = authority?.lowercased(), !host.isEmpty else { return true }
        if host.hasPrefix("[") { return host.contains("]") }   // an IPv6 address
        if let colon = host.lastIndex(of: ":") { host = String(host[..<colon]) }
        if host == "localhost" || host.hasSuffix(".localhost") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isNumber) && Int($0)! <= 255 }
    }
}

/// The `/events` streams open on one server.
final class StreamCount: Sendable {
    let open = Atomic(0)

    /// One stream's place, given back when the last reference to it goes.
    final class Slot: Sendable {
        private let count: StreamCount

        init?(_ count: StreamCount, max: Int) {
            guard count.open.wrappingAdd(1, ordering: .relaxed).newValue <= max else {
                count.open.wrappingSubtract(1, ordering: .relaxed)
                return nil
            }
            self.count = count
        }

        deinit { count.open.wrappingSubtract(1, ordering: .relaxed) }
    }
}
