/// What a STOMP byte stream carries: frames, and the bare end-of-lines
/// between them that are heart-beats.
public enum STOMPItem: Sendable, Equatable {
    case frame(STOMPFrame)
    case heartbeat
}

/// Cuts a STOMP byte stream into frames, however the bytes arrive: one frame
/// per WebSocket message (RabbitMQ ends each with `\0\n`), several frames in
/// one message, or a frame split across TCP reads.
///
/// A frame ends at `content-length` body bytes and a NUL when the header is
/// there (the body may then hold NULs), else at the first NUL. The EOLs after
/// a NUL are heart-beats. Limits keep a hostile peer from growing the buffer
/// without end: a frame whose headers or body pass `maxFrameBytes` is an error.
public struct STOMPDecoder: Sendable {
    public let maxFrameBytes: Int
    public let maxHeaders: Int
    private var buffer: [UInt8] = []
    private var start = 0

    public init(maxFrameBytes: Int = 1 << 20, maxHeaders: Int = 256) {
        self.maxFrameBytes = maxFrameBytes
        self.maxHeaders = maxHeaders
    }

    /// Bytes received and not yet returned as items.
    public var pendingCount: Int { buffer.count - start }

    public mutating func append<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        if start > 0, start * 2 >= buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete item, nil when more bytes are needed. After an error
    /// the stream is lost (there is no way to find the next frame), so the
    /// caller drops the connection.
    public mutating func next() throws(STOMPError) -> STOMPItem? {
        guard start < buffer.count else { return nil }
        // Between frames: EOLs are heart-beats.
        if buffer[start] == 0x0A {
            start += 1
            return .heartbeat
        }
        if buffer[start] == 0x0D {
            guard start + 1 < buffer.count else { return nil }
            guard buffer[start + 1] == 0x0A else { throw STOMPError("a carriage return without a line feed between frames") }
            start += 2
            return .heartbeat
        }
        guard let (frame, end) = try parseFrame() else {
            if pendingCount > maxFrameBytes { throw STOMPError("no frame end within \(maxFrameBytes) bytes") }
            return nil
        }
        start = end
        return .frame(frame)
    }

    /// Parses the frame at `start`; nil when it is not all here yet.
    private func parseFrame() throws(STOMPError) -> (STOMPFrame, Int)? {
        var lines: [ArraySlice<UInt8>] = []
        var i = start
        // Command and header lines, up to the blank line.
        while true {
            guard let nl = buffer[i...].firstIndex(of: 0x0A) else {
                if buffer[i...].contains(0) { throw STOMPError("a NUL before the end of the headers") }
                return nil
            }
            var line = buffer[i..<nl]
            if line.last == 0x0D { line = line.dropLast() }
            if line.contains(0) { throw STOMPError("a NUL before the end of the headers") }
            i = nl + 1
            if line.isEmpty {
                if lines.isEmpty { throw STOMPError("an empty command") }
                break
            }
            lines.append(line)
            if lines.count > maxHeaders + 1 { throw STOMPError("more than \(maxHeaders) headers") }
            if i - start > maxFrameBytes { throw STOMPError("headers longer than \(maxFrameBytes) bytes") }
        }
        let command = try text(lines[0], "command")
        guard STOMP.commands.contains(command) else {
            throw STOMPError("unknown command \(String(command.prefix(40)).debugDescription)")
        }
        let escapes = STOMP.escapes(command)
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: 0x3A) else {
                throw STOMPError("header line without a colon: \(String(try text(line, "header").prefix(40)).debugDescription)")
            }
            var name = try text(line[..<colon], "header name")
            var value = try text(line[(colon + 1)...], "header value")
            if escapes {
                name = try STOMP.unescape(name)
                value = try STOMP.unescape(value)
            }
            if name.isEmpty { throw STOMPError("a header with an empty name") }
            headers.append((name, value))
        }
        let bodyStart = i
        let bodyEnd: Int
        if let lengthText = headers.first(where: { $0.name == "content-length" })?.value {
            guard let length = Int(lengthText), length >= 0 else {
                throw STOMPError("content-length \(String(lengthText.prefix(20)).debugDescription) is not a byte count")
            }
            if length > maxFrameBytes { throw STOMPError("content-length \(length) is over the limit of \(maxFrameBytes) bytes") }
            guard bodyStart + length < buffer.count else { return nil }
            bodyEnd = bodyStart + length
            guard buffer[bodyEnd] == 0 else { throw STOMPError("no NUL after content-length (\(length)) body bytes") }
        } else {
            guard let nul = buffer[bodyStart...].firstIndex(of: 0) else { return nil }
            bodyEnd = nul
        }
        return (STOMPFrame(command, headers, body: Array(buffer[bodyStart..<bodyEnd])), bodyEnd + 1)
    }

    private func text(_ bytes: ArraySlice<UInt8>, _ what: String) throws(STOMPError) -> String {
        guard let s = String(validating: bytes, as: UTF8.self) else { throw STOMPError("the \(what) is not UTF-8") }
        return s
    }
}
