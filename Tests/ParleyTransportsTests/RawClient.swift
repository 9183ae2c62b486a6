#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A deliberately dumb StreamChat client on a blocking POSIX socket: it sends
/// exactly the bytes a test gives it, so tests can split, merge and corrupt
/// frames at will, and it reads lines with its own `\n` split so the
/// server's line endings are checked, not assumed.
final class RawClient {
    enum Read: Equatable {
        case line(String)
        case closed
        case timeout
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// -1 once closed: a throwing init still runs deinit, and closing a
    /// descriptor twice would close whatever socket reused the number.
    private var fd: Int32
    private var buffer: [UInt8] = []
    private var isClosed = false

    /// - Parameter receiveBuffer: a small SO_RCVBUF makes a client that does not read fill up quickly.
    init(port: Int, receiveBuffer: Int32? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard rc == 0 else {
            let e = errno
            Glibc.close(fd)
            fd = -1
            throw Failure(description: "connect to \(port): errno \(e)")
        }
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    /// Closes the socket without a LEAVE, like a crashed client.
    func disconnect() {
        shutdown(fd, Int32(SHUT_RDWR))
    }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "send: errno \(errno)")
            }
            sent += n
        }
    }

    /// The next line (without `\n`), `.closed` at end of stream, `.timeout` when nothing arrives in time.
    func read(timeout: Duration = .seconds(10)) -> Read {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let nl = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeFirst(nl + 1)
                return .line(line)
            }
            if isClosed { return .closed }
            if !fill(before: deadline) { return .timeout }
        }
    }

    /// Exactly `count` bytes as received, line ends included; fewer if the stream ends or time runs out.
    func raw(_ count: Int, timeout: Duration = .seconds(10)) -> [UInt8] {
        let deadline = ContinuousClock.now + timeout
        while buffer.count < count, !isClosed, fill(before: deadline) {}
        defer { buffer.removeFirst(min(count, buffer.count)) }
        return Array(buffer.prefix(count))
    }

    /// One `recv` into the buffer; false when the deadline passed first.
    private func fill(before deadline: ContinuousClock.Instant) -> Bool {
        let left = deadline - ContinuousClock.now
        if left <= .zero { return false }
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ms = Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
        let ready = poll(&pfd, 1, ms)
        if ready < 0 && errno != EINTR { isClosed = true }
        if ready <= 0 { return true }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n > 0 {
            buffer += chunk[..<n]
        } else if n == 0 || (errno != EINTR && errno != EAGAIN) {
            isClosed = true
        }
        return true
    }

    /// The next line; fails the test's expectation with a readable message otherwise.
    func line(timeout: Duration = .seconds(10)) throws -> String {
        switch read(timeout: timeout) {
        case .line(let l): return l
        case .closed: throw Failure(description: "connection closed while waiting for a line")
        case .timeout: throw Failure(description: "no line within \(timeout)")
        }
    }

    func lines(_ n: Int, timeout: Duration = .seconds(10)) throws -> [String] {
        try (0..<n).map { _ in try line(timeout: timeout) }
    }

    /// Reads until `wanted` arrives, returning the lines before it.
    @discardableResult
    func skip(until wanted: String, timeout: Duration = .seconds(10)) throws -> [String] {
        var before: [String] = []
        while true {
            let l = try line(timeout: timeout)
            if l == wanted { return before }
            before.append(l)
        }
    }

    /// True when the server closes the connection in time (lines before the close are discarded).
    func closedByServer(within timeout: Duration = .seconds(10)) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            switch read(timeout: deadline - ContinuousClock.now) {
            case .closed: return true
            case .timeout: return false
            case .line: continue
            }
        }
        return false
    }
}

/// Collects the server's log lines for assertions.
final class LogSink: Sendable {
    private let lines = Mutex<[String]>([])

    var log: @Sendable (String) -> Void { { line in self.lines.withLock { $0.append(line) } } }
    var all: [String] { lines.withLock { $0 } }

    func contains(_ fragment: String) -> Bool {
        all.contains { $0.contains(fragment) }
    }
}
