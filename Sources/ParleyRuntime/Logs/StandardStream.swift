#if canImport(Glibc)
import Glibc
#endif
import Metrics
import Synchronization

/// Standard output or standard error, written with `write(2)`.
///
/// Foundation's `FileHandle.write(_:)` traps when the write fails, so a
/// closed pipe (`parley demo | head`) or a full disk would kill the process.
/// Here a failed write is a value the caller decides about.
public struct StandardStream: Sendable {
    public let descriptor: Int32
    public static let output = StandardStream(descriptor: STDOUT_FILENO)
    public static let error = StandardStream(descriptor: STDERR_FILENO)

    /// Why a write did not go through.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// The reader went away (`EPIPE`): a pipe's other end was closed.
        case closed
        /// Any other error, with its `errno` (`ENOSPC` for a full disk).
        case failed(Int32)

        public var description: String {
            switch self {
            case .closed: "the reader closed the pipe"
            case .failed(let code): String(cString: strerror(code))
            }
        }
    }

    /// Writes every byte of `text`, retrying short writes and interrupts.
    public func write(_ text: String) -> Failure? {
        // A closed pipe must be an error we see, not a signal that kills us.
        _ = StandardStream.ignoreBrokenPipe
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return errno == EPIPE ? .closed : .failed(errno)
            }
            bytes = bytes.dropFirst(n)
        }
        return nil
    }

    private static let ignoreBrokenPipe: Void = { signal(SIGPIPE, SIG_IGN) }()
}

/// The output of a short-lived command (`demo`, `plugin test`, `journal`):
/// a closed pipe ends the process quietly, as it ends a Unix tool; any other
/// failure (a full disk) ends it with one line on standard error and status 1.
public enum CommandOutput {
    public static func print(_ line: String, to stream: StandardStream = .output) {
        guard let failure = stream.write(line + "\n") else { return }
        end(failure, writing: stream)
    }

    /// Does not return.
    static func end(_ failure: StandardStream.Failure, writing stream: StandardStream) -> Never {
        if failure == .closed {
            // Killed by SIGPIPE, exactly as `cat` is: the shell says nothing.
            signal(SIGPIPE, SIG_DFL)
            raise(SIGPIPE)
        }
        let name = stream.descriptor == STDERR_FILENO ? "standard error" : "standard output"
        _ = StandardStream.error.write("parley: cannot write to \(name): \(failure)\n")
        exit(1)
    }
}

/// The log of a long-running command (`run`, `serve`): a bot must outlive
/// its log consumer. When standard error fails (the reader restarted, the
/// disk filled) lines are dropped and counted, and that is said once on
/// standard output if it still works.
public final class LogOutput: Sendable {
    public static let standardError = LogOutput(primary: .error, fallback: .output)

    private let primary: StandardStream
    private let fallback: StandardStream
    private let announced = Atomic(false)

    init(primary: StandardStream, fallback: StandardStream) {
        self.primary = primary
        self.fallback = fallback
    }

    /// Writes one line (a newline is added).
    public func write(_ line: String) {
        guard let failure = primary.write(line + "\n") else { return }
        // Made here, not when the output is: the log exists before `--http` bootstraps the metrics.
        RuntimeMetrics.logLinesDropped.increment()
        if !announced.exchange(true, ordering: .relaxed) {
            _ = fallback.write("parley: log output failed (\(failure)); dropping log lines from now on (counted in parley_log_lines_dropped_total)\n")
        }
    }
}
