import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// Network errors in words an operator can act on: NIO's own descriptions
/// name its internals (`SingleConnectionFailure(target: …)`, `bind(descriptor:ptr:bytes:)`).
public enum NetworkErrors {
    /// `error` in words: the system's text for a failed system call, the last
    /// attempt's cause for a failed connect, and a failed TLS handshake named
    /// as such, with what to fix. Every transport's connect errors go through it.
    /// `established`: the link was up, so a reset or a close is no sign of a wrong address.
    public static func describe(_ error: any Error, established: Bool = false) -> String {
        if let io = error as? IOError {
            if io.errnoCode == ECONNRESET {
                return established ? "the server reset the connection" : "the server reset the connection without an answer" + Self.wrongKind
            }
            return String(cString: strerror(io.errnoCode))
        }
        if let failed = error as? NIOConnectionError {
            if let last = failed.connectionErrors.last { return describe(last.error) }
            if let dns = failed.dnsAError ?? failed.dnsAAAAError { return "cannot resolve \(failed.host): \(dns)" }
            return "no address found for \(failed.host)"
        }
        let text = "\(error)"
        // A server of another kind (an HTTP port for StreamChat, a StreamChat
        // port for Socket.IO or REST) closes the link without an answer:
        // library type names say nothing about that.
        let closed = (error as? ChannelError).map { [.inappropriateOperationForState, .eof, .ioOnClosedChannel].contains($0) } ?? false
        if closed || text.hasSuffix("remoteConnectionClosed") {
            return established ? "the server closed the connection" : "the server closed the connection without an answer" + Self.wrongKind
        }
        let isTLS = error is NIOSSLError || error is NIOSSLExtraError
            || ["NIOSSL", "BoringSSL", "CERTIFICATE"].contains { text.contains($0) }
        guard isTLS else { return text }
        // BoringSSL's reason code says more than its message, which ends in a source path of the build.
        let reason = Self.boringSSLReason(in: text)
        switch reason {
        case "WRONG_VERSION_NUMBER", "HTTP_REQUEST", "UNKNOWN_PROTOCOL", "PACKET_LENGTH_TOO_LONG":
            return "TLS handshake failed: the server does not speak TLS (a plain server? then use http:// or ws://) (\(reason!))"
        case nil, "CERTIFICATE_VERIFY_FAILED"?:
            return "TLS handshake failed: the server's certificate was not accepted (not signed by a trusted CA, "
                + "or for another host name; ca_file adds trusted CAs): \(reason ?? text)"
        case let other?:
            return "TLS handshake failed: \(other)"
        }
    }

    static let wrongKind = " (is the address right, and is it a server of this transport?)"

    /// `WRONG_VERSION_NUMBER` from `…error:100000f7:SSL routines:OPENSSL_internal:WRONG_VERSION_NUMBER at /…`.
    static func boringSSLReason(in text: String) -> String? {
        guard let marker = text.range(of: "OPENSSL_internal:") else { return nil }
        let reason = text[marker.upperBound...].prefix { $0.isUppercase || $0.isNumber || $0 == "_" }
        return reason.isEmpty ? nil : String(reason)
    }
}

/// A socket that could not listen, saying where: `cannot listen on 127.0.0.1:5099: Address already in use`.
public struct ListenError: Error, CustomStringConvertible {
    public let description: String

    public init(host: String, port: Int, _ error: any Error) {
        description = "cannot listen on \(host):\(port): \(NetworkErrors.describe(error))"
    }
}
