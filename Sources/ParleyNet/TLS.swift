import Foundation
import NIOHTTP1
import NIOSSL
import ParleyConfig
import ParleyCore

extension HTTPHeaders {
    /// The config's extra headers (`[bot.socketio.headers]`), in a stable order.
    public init(extra: [String: String]) {
        self.init(extra.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }
}

/// TLS for `wss://` and `https://`: the system trust store, plus the CAs of
/// `ca_file` when the config names one (a private or test CA).
public enum TransportTLS {
    /// A `ca_file` from a transport's table, made absolute and checked once,
    /// when the config is read: a missing file would otherwise fail every
    /// reconnect the same way.
    public static func caFile(_ path: String?, in bot: TransportBotKeys, table: String) throws(ConfigError) -> String? {
        guard let path else { return nil }
        let resolved = bot.resolve(path)
        if !FileManager.default.isReadableFile(atPath: resolved) {
            throw bot.table.error(table, "ca_file \(resolved) does not exist or cannot be read")
        }
        return resolved
    }

    public static func configuration(caFile: String?) -> TLSConfiguration {
        var c = TLSConfiguration.makeClientConfiguration()
        if let caFile { c.additionalTrustRoots = [.file(caFile)] }
        return c
    }

    /// `error` in words, naming TLS when it is a failed handshake or a refused
    /// certificate (an untrusted CA, a certificate for another host name), so
    /// the log says what to fix. Every transport's connect errors go through it.
    public static func describe(_ error: any Error) -> String {
        let text = "\(error)"
        let isTLS = error is NIOSSLError || error is NIOSSLExtraError
            || ["NIOSSL", "BoringSSL", "CERTIFICATE"].contains { text.contains($0) }
        guard isTLS else { return text }
        return "TLS handshake failed: the server's certificate was not accepted (not signed by a trusted CA, "
            + "or for another host name; ca_file adds trusted CAs): \(text)"
    }
}
