import Foundation
import ParleyConfig

/// `[bot.rest]`: the REST channel transport's own keys.
///
/// Seeds 002/004's workspace chat: messages are sent with HTTP and received
/// over a Socket.IO namespace per channel. The defaults are that server's
/// (`Authorization` and `SesacKey` headers, `/v1` paths, namespace
/// `/ws-channel-{channel_id}`, event `channel`); each can be changed for a
/// server of the same shape.
public struct RESTOptions: Sendable, Equatable {
    /// The bot's account. Login with these gives the access and refresh tokens.
    public var email = ""
    /// Never logged. `password_env` names an environment variable to read it
    /// from instead, so it need not sit in the config file.
    public var password = ""
    /// The service key sent with every request (`service_key_env` works like `password_env`).
    public var serviceKey = ""
    public var authHeader = "Authorization"
    public var serviceKeyHeader = "SesacKey"
    /// The header carrying the refresh token on `GET {api_prefix}/auth/refresh`.
    public var refreshHeader = "RefreshToken"
    /// Prefix of every API path.
    public var apiPrefix = "/v1"
    /// The Engine.IO path of the receiving socket (trailing slash kept).
    public var socketPath = "/socket.io/"
    /// Each channel's namespace; `{channel_id}` is replaced.
    public var namespaceTemplate = "/ws-channel-{channel_id}"
    /// The Socket.IO event that carries one chat object.
    public var event = "channel"
    /// How the channel appears in API paths: its `name` (the seeds' apps) or its `id`.
    public var channelInPath = ChannelInPath.name
    public enum ChannelInPath: String, Sendable, CaseIterable { case name, id }
    /// Create a configured channel that does not exist yet (otherwise that is a config error).
    public var createChannels = false
    /// Messages of history stored in the journal (never shown to plugins) the
    /// first time the bot joins a channel; 0 stores none.
    public var backfill = 100
    /// Send as `multipart/form-data` (`content` field) instead of JSON.
    public var multipart = false
    /// Attempts after a 5xx or a failed request before the send waits in the
    /// outbox for the next connection.
    public var maxRetries = 5
    /// Backoff between those attempts: doubles from `retry_initial` up to `retry_max` seconds.
    public var retryInitial: Double = 0.25
    public var retryMax: Double = 8
    /// A 429's `Retry-After` is honoured up to this many seconds (longer:
    /// the send waits in the outbox for the next connection).
    public var maxRetryAfter: Double = 120
    /// Per request.
    public var requestTimeout: Double = 30
    /// Largest answer read (a catch-up of a busy channel is one answer).
    public var maxResponseBytes = 64 << 20
    /// A PEM file of extra trusted CAs for `https://` (the system trust store is always used).
    public var caFile: String?

    public init() {}

    static func read(_ t: TableReader) throws -> RESTOptions {
        var o = RESTOptions()
        o.email = try t.string("email", default: "")
        o.password = try t.secret("password") ?? ""
        o.serviceKey = try t.secret("service_key") ?? ""
        o.authHeader = try header(t, "auth_header", o.authHeader)
        o.serviceKeyHeader = try header(t, "service_key_header", o.serviceKeyHeader)
        o.refreshHeader = try header(t, "refresh_header", o.refreshHeader)
        o.apiPrefix = try t.string("api_prefix", default: o.apiPrefix)
        if !o.apiPrefix.isEmpty, !o.apiPrefix.hasPrefix("/") || o.apiPrefix.hasSuffix("/") {
            throw t.error("api_prefix", "the prefix starts with '/' and does not end with one (e.g. \"/v1\"), or is empty")
        }
        o.socketPath = try t.string("socket_path", default: o.socketPath)
        if !o.socketPath.hasPrefix("/") { throw t.error("socket_path", "the path must start with '/' (e.g. \"/socket.io/\")") }
        o.namespaceTemplate = try t.string("namespace_template", default: o.namespaceTemplate)
        if !o.namespaceTemplate.hasPrefix("/") || !o.namespaceTemplate.contains("{channel_id}") {
            throw t.error("namespace_template", "a namespace template starts with '/' and contains {channel_id}")
        }
        o.event = try t.string("event", default: o.event)
        if o.event.isEmpty { throw t.error("event", "the chat event needs a name") }
        o.channelInPath = try t.oneOf("channel_in_path", default: o.channelInPath)
        o.createChannels = try t.bool("create_channels", default: o.createChannels)
        o.backfill = try t.int("backfill", default: o.backfill, range: 0...10_000_000)
        o.multipart = try t.bool("multipart", default: o.multipart)
        o.maxRetries = try t.int("max_retries", default: o.maxRetries, range: 0...1000)
        o.retryInitial = try t.double("retry_initial", default: o.retryInitial, range: 0.001...3600)
        o.retryMax = try t.double("retry_max", default: o.retryMax, range: 0.001...86_400)
        o.maxRetryAfter = try t.double("max_retry_after", default: o.maxRetryAfter, range: 0...86_400)
        o.requestTimeout = try t.double("request_timeout", default: o.requestTimeout, range: 0.01...3600)
        o.maxResponseBytes = try t.int("max_response_mb", default: o.maxResponseBytes >> 20, range: 1...4096) << 20
        o.caFile = try t.optionalString("ca_file")
        return o
    }

    private static func header(_ t: TableReader, _ key: String, _ fallback: String) throws -> String {
        let name = try t.string(key, default: fallback)
        let allowed = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        if name.isEmpty || !name.allSatisfy(allowed.contains) { throw t.error(key, "'\(name)' is not an HTTP header name") }
        return name
    }

    /// A REST room is `workspace/channel`: a workspace's name or id, then a
    /// channel's name. Nil when `room` is not of that form.
    public static func splitRoom(_ room: String) -> (workspace: String, channel: String)? {
        guard let slash = room.firstIndex(of: "/") else { return nil }
        let w = String(room[..<slash]), c = String(room[room.index(after: slash)...])
        if w.isEmpty || c.isEmpty || c.contains("/") { return nil }
        return (w, c)
    }
}
