import AsyncHTTPClient
import Foundation
import NIOCore
import ParleyCore
@testable import ParleyNet
@testable import ParleyREST
@testable import ParleySocketIO
import ParleyWire

/// The python REST chat fixture (`Tests/Fixtures/python/rest_server.py`) with
/// the bot's account and channels, and its `/_test/…` controls.
final class RESTServer: Sendable {
    static let botEmail = "bot@example.com"
    static let botPassword = "hunter2-not-logged"
    static let serviceKey = "test-service-key"

    let peer: PythonPeer
    /// The test CA when the server speaks TLS.
    let pki: TestPKI?
    /// The test's own client for a TLS server (it trusts the test CA).
    private let tlsClient: RenewableHTTPClient?
    var port: Int { peer.port }
    private var base: String { (pki == nil ? "http" : "https") + "://127.0.0.1:\(port)" }

    private init(peer: PythonPeer, pki: TestPKI?) {
        self.peer = peer
        self.pki = pki
        tlsClient = pki.map { RenewableHTTPClient(caFile: $0.caFile) }
    }

    /// Starts the server with the bot's account (`parley`) and `channels` (`workspace/name`);
    /// with `pki`, over TLS with its certificate; `arguments` go to the fixture as they are
    /// (`--state FILE`, `--record FILE`, `--ping-interval S`, ...).
    static func start(channels: [String] = ["acme/general"], pki: TestPKI? = nil, port: Int = 0,
                      arguments: [String] = []) async throws -> RESTServer {
        var args = ["--user", "\(botEmail):\(botPassword):parley", "--service-key", serviceKey] + arguments
        for c in channels { args += ["--channel", c] }
        if let pki { args += ["--certfile", pki.certFile, "--keyfile", pki.keyFile] }
        return RESTServer(peer: try await PythonPeer.start(script: "rest_server.py", args, port: port), pki: pki)
    }

    func stop() async { await peer.stop() }

    /// The bot's transport on this server (through a proxy on `port` when given).
    func transport(rooms: [String] = ["acme/general"], port: Int? = nil, configure: (inout RESTOptions) -> Void = { _ in },
                   log: @escaping @Sendable (String) -> Void = { _ in }) -> RESTTransport {
        var o = RESTOptions()
        o.email = Self.botEmail
        o.password = Self.botPassword
        o.serviceKey = Self.serviceKey
        o.retryInitial = 0.05
        o.retryMax = 0.2
        configure(&o)
        if o.caFile == nil { o.caFile = pki?.caFile }
        return RESTTransport(endpoint: SocketIOEndpoint(host: "127.0.0.1", port: port ?? self.port, tls: pki != nil), name: "parley", rooms: rooms,
                             options: o, connectTimeout: 5, log: log)
    }

    // MARK: test controls

    @discardableResult
    func control(_ path: String, _ body: JSONValue) async throws -> JSONValue {
        var req = HTTPClientRequest(url: "\(base)/_test/\(path)")
        req.method = .POST
        req.headers.add(name: "Content-Type", value: "application/json")
        req.body = .bytes(ByteBuffer(string: body.text))
        return try await execute(req)
    }

    func get(_ pathAndQuery: String) async throws -> JSONValue {
        try await execute(HTTPClientRequest(url: "\(base)/_test/\(pathAndQuery)"))
    }

    private func execute(_ req: HTTPClientRequest) async throws -> JSONValue {
        let client = tlsClient?.current().client ?? HTTPClient.shared
        let response = try await client.execute(req, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 64 << 20)
        guard response.status == .ok else { throw PeerError("\(req.url): HTTP \(response.status.code) \(String(buffer: body))") }
        return try JSONValue.parse(bytes: body.readableBytesView)
    }

    /// A person posts (the server makes the account on first use) and the chat is broadcast.
    @discardableResult
    func post(_ user: String, _ text: String, room: String = "acme/general", extra: JSONValue? = nil) async throws -> JSONValue {
        var body: [(String, JSONValue)] = [("room", .string(room)), ("user", .string(user)), ("text", .string(text))]
        if let extra { body.append(("extra", extra)) }
        return try await control("post", .object(body))
    }

    /// Every chat of the room, oldest first, as (nickname, text).
    func chats(room: String = "acme/general") async throws -> [(user: String, text: String)] {
        let list = try await get("chats?room=\(room.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? room)")
        return (list.array ?? []).map { ($0["user"]?["nickname"]?.string ?? "?", $0["content"]?.string ?? "?") }
    }

    func texts(from user: String, room: String = "acme/general") async throws -> [String] {
        try await chats(room: room).filter { $0.user == user }.map(\.text)
    }

    func stats() async throws -> JSONValue { try await get("stats") }
}
