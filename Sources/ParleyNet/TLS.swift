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
        var isFolder: ObjCBool = false
        if !FileManager.default.fileExists(atPath: resolved, isDirectory: &isFolder) || isFolder.boolValue
            || !FileManager.default.isReadableFile(atPath: resolved) {
            throw bot.table.error(in: table, key: "ca_file", "ca_file \(resolved) does not exist or cannot be read\(isFolder.boolValue ? " (it is a folder)" : "")")
        }
        // Parsed now, as the handshake would: not a certificate is a config error, not a failed reconnect for ever.
        guard let certificates = try? NIOSSLCertificate.fromPEMFile(resolved), !certificates.isEmpty else {
            throw bot.table.error(in: table, key: "ca_file", "ca_file \(resolved) holds no PEM certificate")
        }
        return resolved
    }

    public static func configuration(caFile: String?) -> TLSConfiguration {
        var c = TLSConfiguration.makeClientConfiguration()
        if let caFile { c.additionalTrustRoots = [.file(caFile)] }
        return c
    }
}
