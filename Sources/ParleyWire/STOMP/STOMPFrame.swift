/// STOMP 1.2 (https://stomp.github.io/stomp-specification-1.2.html): the
/// frame, its header escaping and its encoding. Decoding is `STOMPDecoder`.
public enum STOMP {
    public static let version = "1.2"

    /// A heart-beat is a bare end of line between frames.
    public static let heartbeat: [UInt8] = [0x0A]

    /// Commands a client or a server may send; anything else is a malformed frame.
    public static let commands: Set<String> = [
        "CONNECT", "STOMP", "CONNECTED", "SEND", "SUBSCRIBE", "UNSUBSCRIBE", "ACK", "NACK", "BEGIN", "COMMIT", "ABORT",
        "DISCONNECT", "MESSAGE", "RECEIPT", "ERROR",
    ]

    /// CONNECT and CONNECTED carry their headers verbatim (1.0 clients and
    /// servers would not understand the escapes); every other frame escapes.
    static func escapes(_ command: String) -> Bool { command != "CONNECT" && command != "CONNECTED" && command != "STOMP" }

    /// `\r` `\n` `:` `\` as `\r` `\n` `\c` `\\`.
    public static func escape(_ s: String) -> String {
        guard s.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x3A || $0 == 0x5C }) else { return s }
        var out = ""
        out.reserveCapacity(s.utf8.count + 8)
        for c in s.unicodeScalars {
            switch c {
            case "\r": out += "\\r"
            case "\n": out += "\\n"
            case ":": out += "\\c"
            case "\\": out += "\\\\"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// The inverse of `escape`; any other escape (`\t`, a trailing `\`) is
    /// a fatal protocol error, as the spec says.
    public static func unescape(_ s: String) throws(STOMPError) -> String {
        guard s.utf8.contains(0x5C) else { return s }
        var out = ""
        var it = s.unicodeScalars.makeIterator()
        while let c = it.next() {
            guard c == "\\" else {
                out.unicodeScalars.append(c)
                continue
            }
            switch it.next() {
            case "r": out += "\r"
            case "n": out += "\n"
            case "c": out += ":"
            case "\\": out += "\\"
            case let other?: throw STOMPError("undefined header escape \\\(other)")
            case nil: throw STOMPError("a header ends in a lone backslash")
            }
        }
        return out
    }
}

/// Why bytes are not STOMP.
public struct STOMPError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { "malformed STOMP frame: \(message)" }
}

/// One STOMP frame. Headers keep their order and repeats; a reader sees the
/// first occurrence of a repeated header, as the spec says.
public struct STOMPFrame: Sendable, Equatable, CustomStringConvertible {
    public var command: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(_ command: String, _ headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.command = command
        self.headers = headers
        self.body = body
    }

    public init(_ command: String, _ headers: [(name: String, value: String)] = [], text: String) {
        self.init(command, headers, body: Array(text.utf8))
    }

    public subscript(header name: String) -> String? {
        headers.first { $0.name == name }?.value
    }

    /// The body as UTF-8 text (invalid bytes replaced).
    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    public static func == (a: STOMPFrame, b: STOMPFrame) -> Bool {
        a.command == b.command && a.body == b.body && a.headers.count == b.headers.count
            && zip(a.headers, b.headers).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    /// Wire bytes: command, headers (escaped unless CONNECT/CONNECTED), a blank
    /// line, the body, NUL. A frame with a body and no `content-length` gets
    /// one, so a NUL inside the body cannot end the frame early.
    public func encoded() -> [UInt8] {
        let escapes = STOMP.escapes(command)
        var head = command + "\n"
        for (name, value) in headers {
            head += escapes ? STOMP.escape(name) + ":" + STOMP.escape(value) + "\n" : name + ":" + value + "\n"
        }
        if !body.isEmpty, self[header: "content-length"] == nil { head += "content-length:\(body.count)\n" }
        head += "\n"
        var out = Array(head.utf8)
        out.reserveCapacity(out.count + body.count + 1)
        out += body
        out.append(0)
        return out
    }

    /// A short one-line form for logs: the command and its headers, never the body.
    /// Callers redact secrets first (see `redacted`).
    public var description: String {
        command + (headers.isEmpty ? "" : " " + headers.map { "\($0.name)=\($0.value)" }.joined(separator: " "))
    }

    /// The same frame with the values of `names` replaced by `***` (passcodes in logs).
    public func redacted(_ names: Set<String> = ["passcode"]) -> STOMPFrame {
        var f = self
        f.headers = headers.map { names.contains($0.name) ? ($0.name, "***") : $0 }
        return f
    }
}
