import ParleyCore
import ParleyLua
import ParleyStore

/// A request to one of a plugin's webhooks, as its handler reads it (the
/// HTTP server has checked signature, size and rate already).
public struct WebhookRequest: Sendable, Equatable {
    public var method: String
    /// The path the plugin registered (`bot.webhook("github", fn)`: `github`).
    public var path: String
    public var query: String
    /// Without `Authorization` and `Cookie`, names in lower case, repeated names joined with `, `.
    public var headers: [HTTPHeader]
    public var body: [UInt8]

    /// `headers` as the request carried them: made what the plugin sees here,
    /// for the server and the harness alike.
    public init(method: String, path: String, query: String, headers: [HTTPHeader], body: [UInt8]) {
        self.method = method
        self.path = path
        self.query = query
        self.body = body
        // Credentials of whoever calls never reach plugin code.
        var seen: [HTTPHeader] = []
        for field in headers {
            if field.isCredential { continue }
            let name = field.name.lowercased()
            if let i = seen.firstIndex(where: { $0.name == name }) { seen[i].value += ", " + field.value } else { seen.append(HTTPHeader(name, field.value)) }
        }
        self.headers = seen
    }
}

/// What the HTTP server answers a webhook request with.
public struct WebhookReply: Sendable, Equatable {
    public var status: Int
    public var body: String
    public init(status: Int, body: String = "") {
        self.status = status
        self.body = body
    }

    /// No plugin of that name serves that path.
    public static let notFound = WebhookReply(status: 404, body: "no such webhook\n")

    /// The plugin is there but disabled: said so, not "no such webhook", which reads as a wrong URL.
    public static func pluginTurnedOff(_ plugin: String) -> WebhookReply {
        WebhookReply(status: 503, body: "plugin \(plugin) is disabled (it failed too often); it serves again once reloaded\n")
    }
}

/// `bot.webhook(path, fn)`: the plugin's paths, and the answer its handler returns.
extension Plugin {
    /// `webhook_add(path)`: the path as the server matches it (no leading or trailing `/`).
    func webhookAdd(_ a: [LuaValue]) -> Result<[LuaValue], HostCallError> {
        guard var path = a.first?.stringValue else { return .failure(HostCallError("bot.webhook: the path must be a string")) }
        while path.hasPrefix("/") { path.removeFirst() }
        while path.hasSuffix("/") { path.removeLast() }
        guard !path.isEmpty, path.utf8.count <= 200,
              path.unicodeScalars.allSatisfy(Self.isPathCharacter) else {
            return .failure(HostCallError("bot.webhook: the path must be 1 to 200 of A-Z a-z 0-9 - . _ ~ /"))
        }
        // Browsers and HTTP clients resolve `.` and `..` and squeeze `//` before
        // they send: such a path could never be called.
        if path.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) {
            return .failure(HostCallError("bot.webhook: '\(path)' has an empty, '.' or '..' part, which no client sends as written"))
        }
        // A second handler would silently replace the first.
        guard webhooks.insert(path).inserted else {
            return .failure(HostCallError("bot.webhook: this plugin serves '\(path)' already"))
        }
        return .success([.string(path)])
    }

    /// What a webhook path may hold: URL-safe ASCII, so the server's path and the plugin's match byte for byte.
    static func isPathCharacter(_ c: Unicode.Scalar) -> Bool {
        (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || (c >= "0" && c <= "9") || "-._~/".unicodeScalars.contains(c)
    }

    /// `webhook_reply(res)`: what the handler returned; nil is 204. True, or
    /// nil and what is wrong with it: the prelude raises that at the line the
    /// handler was written at, as the handler is no longer running.
    func webhookReply(_ a: [LuaValue]) -> Result<[LuaValue], HostCallError> {
        func wrong(_ problem: String) -> Result<[LuaValue], HostCallError> {
            .success([.nil, .string("bot.webhook: the handler's answer: \(problem)")])
        }
        let res = a.first ?? .nil
        switch res {
        case .nil:
            webhookAnswer = WebhookReply(status: 204)
        case .table:
            if let e = HostCallError.unknownOption(in: res, who: "bot.webhook: the handler's answer", known: ["status", "body"]) {
                return .success([.nil, .string(e.message)])
            }
            var reply = WebhookReply(status: 200)
            let chosen = !res["status"].isNil
            if chosen {
                guard let s = res["status"].numberValue, s == s.rounded(), (200...599).contains(s) else {
                    return wrong("status must be a whole number from 200 to 599")
                }
                reply.status = Int(s)
            }
            if !res["body"].isNil {
                guard let b = res["body"].stringValue else { return wrong("body must be a string") }
                guard b.utf8.count <= 1 << 20 else { return wrong("body over 1 MiB") }
                // HTTP gives these no body: sending one would break the client's next response.
                if reply.status == 204 || reply.status == 304 { return wrong("a \(reply.status) has no body") }
                reply.body = b
            } else if !chosen {
                reply.status = 204
            }
            webhookAnswer = reply
        default:
            return wrong("return nil or {status=, body=}")
        }
        return .success([.bool(true)])
    }
}


extension Bot {
    /// Whether a plugin serves this webhook path: a disabled plugin's paths
    /// are said to be so, not "no such webhook", which reads as a wrong URL.
    public func servesWebhook(plugin: String, path: String) -> WebhookRoute {
        guard let p = plugins.first(where: { $0.name == plugin && $0.webhooks.contains(path) }) else { return .notFound }
        return p.isDisabled ? .pluginDisabled : .served
    }

    /// Delivers a webhook request to its plugin's handler as one event: the
    /// actions, and the answer (500 when the handler failed).
    public func webhook(plugin name: String, _ req: WebhookRequest) throws(StoreError) -> (actions: [BotAction], reply: WebhookReply) {
        guard let p = plugins.first(where: { $0.name == name }), p.webhooks.contains(req.path) else { return ([], .notFound) }
        guard !p.isDisabled else { return ([], .pluginTurnedOff(name)) }
        p.webhookAnswer = nil
        // A failure is answered 500 and logged, and counts for nothing more:
        // the request's sender chose what the handler saw, and must not be
        // able to switch the plugin off for the room.
        let actions = try deliver(to: p, kind: "webhook", breaker: false) { w in
            w.beginTable(array: 0, pairs: 5)
            w.key(.method); w.write(req.method)
            w.key(.path); w.write(req.path)
            w.key(.query); w.write(req.query)
            w.key(.headers)
            w.beginTable(array: 0, pairs: req.headers.count)
            for h in req.headers { w.write(h.name); w.write(h.value) }
            w.key(.body); w.write(bytes: req.body)
        }
        let failed = actions.contains { if case .error(let k, _) = $0.kind, k != .quota { true } else { false } }
        let reply = failed ? WebhookReply(status: 500, body: "the handler failed\n") : (p.webhookAnswer ?? WebhookReply(status: 204))
        p.webhookAnswer = nil
        return (actions, reply)
    }
}

/// What a webhook path is to its bot.
public enum WebhookRoute: Sendable {
    case served, pluginDisabled, notFound
}
