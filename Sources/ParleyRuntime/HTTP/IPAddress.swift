import Foundation

/// An IPv4 or IPv6 address, as 4 or 16 bytes: what `bot.http` checks after
/// resolving a name, so a public name cannot lead a plugin into the bot's
/// own network (cloud metadata at 169.254.169.254, a database on loopback).
struct IPAddress: Hashable, CustomStringConvertible {
    let bytes: [UInt8]

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// Parses a literal (`10.0.0.1`, `::1`, `[::1]`); nil for a name.
    init?(_ text: String) {
        var t = text
        if t.hasPrefix("["), t.hasSuffix("]") { t = String(t.dropFirst().dropLast()) }
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, t, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
        } else if inet_pton(AF_INET6, t, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
        } else {
            return nil
        }
    }

    var description: String {
        var out = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        var b = bytes
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        _ = b.withUnsafeMutableBytes { inet_ntop(family, $0.baseAddress, &out, socklen_t(out.count)) }
        return String(cString: out)
    }

    /// Loopback, private, link-local, unique-local, carrier-grade NAT,
    /// unspecified, multicast or broadcast: not the public internet.
    var isInternal: Bool {
        if bytes.count == 4 {
            let (a, b) = (bytes[0], bytes[1])
            return a == 0 || a == 10 || a == 127 || a >= 224
                || (a == 169 && b == 254) || (a == 172 && (16...31).contains(b)) || (a == 192 && b == 168)
                || (a == 100 && (64...127).contains(b))
        }
        // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible addresses are their IPv4 address.
        if bytes[0..<10].allSatisfy({ $0 == 0 }), (bytes[10] == 0xff && bytes[11] == 0xff) || (bytes[10] == 0 && bytes[11] == 0) {
            return IPAddress(bytes: Array(bytes[12...])).isInternal
        }
        return bytes[0] == 0xff                           // multicast
            || (bytes[0] & 0xfe) == 0xfc                  // unique local fc00::/7
            || (bytes[0] == 0xfe && (bytes[1] & 0xc0) == 0x80)  // link local fe80::/10
            || (bytes[0] == 0x20 && bytes[1] == 0x01 && bytes[2] == 0x0d && bytes[3] == 0xb8)  // documentation
    }

    /// Every address `host` resolves to (blocking: call it off the bot's loop).
    static func resolve(_ host: String, port: Int) throws -> [IPAddress] {
        if let literal = IPAddress(host) { return [literal] }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            throw HTTPFailure("cannot resolve \(host): \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(first) }
        var out: [IPAddress] = []
        var p: UnsafeMutablePointer<addrinfo>? = first
        while let a = p {
            if a.pointee.ai_family == AF_INET, let sa = a.pointee.ai_addr {
                var sin = sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                out.append(IPAddress(bytes: withUnsafeBytes(of: &sin) { Array($0) }))
            } else if a.pointee.ai_family == AF_INET6, let sa = a.pointee.ai_addr {
                var sin6 = sa.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                out.append(IPAddress(bytes: withUnsafeBytes(of: &sin6) { Array($0) }))
            }
            p = a.pointee.ai_next
        }
        if out.isEmpty { throw HTTPFailure("cannot resolve \(host): no address") }
        var seen = Set<IPAddress>()
        return out.filter { seen.insert($0).inserted }
    }
}

/// Why a request failed, as the plugin's `fn(nil, reason)` reads it.
struct HTTPFailure: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
