import Foundation
import ParleyWire
import Synchronization

/// Keeps secrets out of everything a bot prints: log lines, error messages,
/// the reasons a bot stopped. The one place that knows what a secret looks
/// like; every transport owns one, fills it from its config (and, for REST,
/// with the tokens it is handed at login), and passes every line it logs
/// through it, and the runtime passes every line of that bot's log and every
/// outcome through the same one.
///
/// Two layers:
/// - **Values.** Every known secret (passwords, passcodes, service keys,
///   tokens, auth payload values, query values, header values whose name
///   says credential) is replaced by `***` wherever it appears, raw or
///   percent-encoded, so even a server that echoes a token into an error
///   body cannot make the bot print it.
/// - **URLs.** `Redactor.url` replaces the value of every query parameter but
///   the Engine.IO protocol's own (`EIO`, `transport`, `sid`) and any
///   `user:password@` part, so a URL can be named in an error without
///   carrying a token, whatever the parameter is called.
public final class Redactor: Sendable {
    /// What replaces a secret.
    public static let mask = "***"
    /// Shorter values are not treated as secrets: masking every `"a"` would
    /// make logs unreadable and a one- or two-character secret protects nothing.
    public static let minimumLength = 3
    /// Query parameters that are protocol, not credentials: kept in URLs.
    public static let protocolQueryKeys: Set<String> = ["EIO", "transport", "sid"]

    /// Longest first, so a secret that contains another is masked whole.
    private let secrets: Mutex<[String]>

    public init(secrets: [String] = []) {
        self.secrets = Mutex([])
        for s in secrets { add(s) }
    }

    /// Adds a value to mask from now on (with its percent-encoded form).
    public func add(_ secret: String) {
        guard secret.count >= Self.minimumLength else { return }
        var forms = [secret]
        let encoded = secret.percentEncoded
        if encoded != secret { forms.append(encoded) }
        // `Bearer abc…`: the credential alone may be printed too.
        if let space = secret.lastIndex(of: " ") {
            let credential = String(secret[secret.index(after: space)...])
            if credential.count >= Self.minimumLength { forms.append(credential) }
        }
        secrets.withLock { list in
            for f in forms where !list.contains(f) { list.append(f) }
            list.sort { $0.utf8.count > $1.utf8.count }
        }
    }

    /// Adds each value whose key names a credential (`[bot.socketio.headers]`,
    /// `query`, STOMP `connect_headers`); `all` adds every value (an auth payload).
    public func add(_ table: [String: String], all: Bool = false) {
        for (k, v) in table where all || Self.namesCredential(k) { add(v) }
    }

    /// Adds the values `Redactor.url` masks in `url` (every query value but
    /// the protocol's, and the password of any user info), so a server that
    /// echoes the URL back cannot make the bot print them either.
    public func add(credentialsIn url: String) {
        var rest = Substring(url)
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        if let scheme = rest.range(of: "://") {
            let authority = rest[scheme.upperBound...].prefix { $0 != "/" && $0 != "?" }
            if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
                add(String(authority[authority.index(after: colon)..<at]))
            }
        }
        guard let q = rest.firstIndex(of: "?") else { return }
        for pair in rest[rest.index(after: q)...].split(separator: "&") {
            guard let eq = pair.firstIndex(of: "="), !Self.protocolQueryKeys.contains(String(pair[..<eq])) else { continue }
            let value = String(pair[pair.index(after: eq)...])
            add(value.removingPercentEncoding ?? value)
            add(value)
        }
    }

    /// `text` with every known secret masked.
    public func callAsFunction(_ text: String) -> String {
        let list = secrets.withLock { $0 }
        var out = text
        for s in list where out.contains(s) { out = out.replacingOccurrences(of: s, with: Self.mask) }
        return out
    }

    /// `log`, with every line masked first.
    public func wrap(_ log: @escaping @Sendable (String) -> Void) -> @Sendable (String) -> Void {
        { [self] line in log(self(line)) }
    }

    /// Whether a header or parameter name says its value is a credential.
    public static func namesCredential(_ key: String) -> Bool {
        let k = key.lowercased()
        return ["auth", "token", "key", "secret", "pass", "cookie", "session", "signature", "credential", "bearer", "jwt", "apikey"]
            .contains { k.contains($0) }
    }

    /// `url` with its query values (but the protocol's) and any user info masked.
    public static func url(_ url: String) -> String {
        var head = Substring(url)
        var query: Substring?
        var fragment = ""
        if let hash = head.firstIndex(of: "#") {
            fragment = String(head[hash...])
            head = head[..<hash]
        }
        if let q = head.firstIndex(of: "?") {
            query = head[head.index(after: q)...]
            head = head[..<q]
        }
        var out = String(head)
        // scheme://user:password@host → scheme://***@host
        if let scheme = out.range(of: "://") {
            let authorityEnd = out[scheme.upperBound...].firstIndex(of: "/") ?? out.endIndex
            if let at = out[scheme.upperBound..<authorityEnd].lastIndex(of: "@") {
                out.replaceSubrange(scheme.upperBound..<at, with: mask)
            }
        }
        if let query {
            let pairs = query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
                guard let eq = pair.firstIndex(of: "=") else { return String(pair) }
                let key = pair[..<eq]
                return protocolQueryKeys.contains(String(key)) ? String(pair) : "\(key)=\(mask)"
            }
            out += "?" + pairs.joined(separator: "&")
        }
        return out + fragment
    }
}

extension Redactor {
    /// Whether `given` is `secret`, in time that does not depend on where they
    /// differ: a token or a key compared with `==` leaks its prefix by timing.
    public static func matches(_ given: String, secret: String) -> Bool {
        given.utf8.count == secret.utf8.count && zip(given.utf8, secret.utf8).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
