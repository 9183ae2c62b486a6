import Foundation

/// What every test target needs, in one place: the repository's folder,
/// fresh scratch folders, waiting for a condition, an error's text.

/// The repository's root folder (where `Package.swift` is).
public let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

/// A fresh, empty folder under the system's temporary folder.
public func temporaryDirectory() throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
}

/// Polls `condition` until it holds or `seconds` pass; the result says which.
/// Generous by default: on a loaded CI machine one journal fsync has taken
/// seconds, and a deadline only costs time when something is really wrong.
public func eventually(_ seconds: Double = 20, _ condition: () async -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return await condition()
}

/// Runs blocking work (a socket read, a process's exit, journal I/O) on a
/// thread of its own. The cooperative pool has one thread per core (two
/// here): two tests blocked on it would stall every other test in the
/// process, the servers they wait on included.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { c in
        Thread { c.resume(with: Result { try body() }) }.start()
    }
}

/// `onOwnThread` for work that cannot fail.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { c in
        Thread { c.resume(returning: body()) }.start()
    }
}

/// What a throwing call says: its error's text, or "" when it did not throw
/// (the config tests check that a mistake names its key).
public func errorText(_ attempt: () throws -> Void) -> String {
    do {
        try attempt()
        return ""
    } catch {
        return "\(error)"
    }
}

/// A loopback TCP port that was free a moment ago (for a child process that
/// must be told its port up front).
public func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ok = withUnsafeMutablePointer(to: &addr) { p in
        p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
    }
    guard ok else { throw POSIXError(.EADDRINUSE) }
    return Int(UInt16(bigEndian: addr.sin_port))
}

/// A listening socket on a free loopback port, held until `close(fd)`. It
/// never accepts: a connection completes in its backlog and is never
/// answered (a port someone else holds, a server that hangs).
public func holdPort(backlog: Int32 = 1) throws -> (fd: Int32, port: Int) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && listen(fd, backlog) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard fd >= 0, bound else { throw POSIXError(.EADDRINUSE) }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
}

/// A CA certificate for config tests that name a `ca_file` (the config
/// parses it, as the handshake would); nothing is ever signed with it.
public let configTestCAPEM = """
-----BEGIN CERTIFICATE-----
MIIBljCCAT2gAwIBAgIUbFQX6d6TXU4cYJwOh1HTWXfKS8UwCgYIKoZIzj0EAwIw
IDEeMBwGA1UEAwwVcGFybGV5LWNvbmZpZy10ZXN0LWNhMCAXDTI2MTIwMjAwMDU1
NloYDzIxMjYxMTA4MDAwNTU2WjAgMR4wHAYDVQQDDBVwYXJsZXktY29uZmlnLXRl
c3QtY2EwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAASzm2MCyZoIu5bFsoNDYKVA
wWgjfB+wVrtrXJFY1/+0UnHc7QidjK7n0/aN/GvKQ22yWCFhM4TSvkmMecB8PXJw
o1MwUTAdBgNVHQ4EFgQU8O5eVUv2VJCdtmxUhjFF+WvvsBgwHwYDVR0jBBgwFoAU
8O5eVUv2VJCdtmxUhjFF+WvvsBgwDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQD
AgNHADBEAiA1Q93wPHV3JqdmBOafDCorVEYF7sApffwVh+roq+IiJAIgIVjRMs7D
1fZ20UupIEAwuNBcUSGCC1fANc1sLATBb6I=
-----END CERTIFICATE-----
"""
