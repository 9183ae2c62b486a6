/// Engine.IO v4, the transport under Socket.IO: one packet per WebSocket frame,
/// or several per long-polling body. A packet is a type digit and its payload.
///
/// The WebSocket client and the embedded server both read and write packets
/// here, so the two cannot drift apart on the framing.
public enum EngineIO {
    public static let version = 4

    /// The type digit in front of a message packet's text: a writer that
    /// builds a frame's bytes in place puts it there itself.
    public static let messageType = UInt8(ascii: "4")

    /// The open packet's JSON: `{"sid":…,"upgrades":[…],"pingInterval":…,"pingTimeout":…,"maxPayload":…}`.
    public struct Handshake: Sendable, Equatable {
        public var sid: String
        public var upgrades: [String]
        /// Milliseconds between the server's pings.
        public var pingInterval: Int
        /// Milliseconds the server waits for a pong (and a client, past the interval, for a ping).
        public var pingTimeout: Int
        /// The largest payload, in bytes, the peer accepts.
        public var maxPayload: Int

        public init(sid: String, upgrades: [String] = [], pingInterval: Int = 25000, pingTimeout: Int = 20000, maxPayload: Int = 1_000_000) {
            self.sid = sid
            self.upgrades = upgrades
            self.pingInterval = pingInterval
            self.pingTimeout = pingTimeout
            self.maxPayload = maxPayload
        }

        /// Reads the fields by key: servers send them in different orders. `upgrades`
        /// and `maxPayload` (which older servers leave out) default to `[]` and 1,000,000.
        public init(json: JSONValue) throws(EngineIO.DecodeError) {
            guard json.object != nil else { throw DecodeError("open packet data is not a JSON object") }
            guard let sid = json["sid"]?.string, !sid.isEmpty else { throw DecodeError("open packet has no sid") }
            guard let interval = json["pingInterval"]?.int, interval > 0 else { throw DecodeError("open packet has no valid pingInterval") }
            guard let timeout = json["pingTimeout"]?.int, timeout > 0 else { throw DecodeError("open packet has no valid pingTimeout") }
            var upgrades: [String] = []
            if let list = json["upgrades"] {
                guard let items = list.array else { throw DecodeError("open packet upgrades is not an array") }
                for item in items {
                    guard let name = item.string else { throw DecodeError("open packet upgrades holds a non-string") }
                    upgrades.append(name)
                }
            }
            var maxPayload = 1_000_000
            if let value = json["maxPayload"] {
                guard let n = value.int, n > 0 else { throw DecodeError("open packet has an invalid maxPayload") }
                maxPayload = n
            }
            self.init(sid: sid, upgrades: upgrades, pingInterval: interval, pingTimeout: timeout, maxPayload: maxPayload)
        }

        /// In the order the JavaScript server writes them.
        public var json: JSONValue {
            [
                "sid": .string(sid),
                "upgrades": .array(upgrades.map(JSONValue.string)),
                "pingInterval": .number(Double(pingInterval)),
                "pingTimeout": .number(Double(pingTimeout)),
                "maxPayload": .number(Double(maxPayload)),
            ]
        }
    }

    public enum Packet: Sendable, Equatable {
        case open(Handshake)
        case close
        /// Payload, usually `""` or `"probe"`. In v4 the server pings and the client pongs.
        case ping(String)
        case pong(String)
        /// A text message; Socket.IO packet text lives here, without the leading `4`.
        case message(String)
        /// A binary message: over WebSocket a raw binary frame; in polling `b` + base64.
        case binary([UInt8])
        case upgrade
        case noop
    }

    public struct DecodeError: Error, Sendable, Equatable, CustomStringConvertible {
        public var message: String
        public init(_ message: String) { self.message = message }
        public var description: String { "Engine.IO: \(message)" }
    }

    /// One WebSocket frame's worth of transport: text for every packet but `.binary`.
    public enum Frame: Sendable, Equatable {
        case text(String)
        case binary([UInt8])
    }

    /// One WebSocket text frame → packet. `4hello` → `.message("hello")`, `2` → `.ping("")`,
    /// `3probe` → `.pong("probe")`, `0{…}` → `.open`. A `b` + base64 text (the
    /// long-polling form) is a binary message. Data after `1`, `5` or `6` is ignored,
    /// as the JavaScript parser does.
    public static func decode(text: String) throws(DecodeError) -> Packet {
        var text = text
        return try text.withUTF8 { decode(utf8: UnsafeRawBufferPointer($0)) }.get()
    }

    /// `decode(text:)` on a frame's bytes as they came: a frame read from the
    /// network becomes one `String` (the payload), not one for the frame and
    /// another for its payload. Invalid UTF-8 becomes U+FFFD, as in a `String`
    /// made from the frame.
    public static func decode(utf8 bytes: UnsafeRawBufferPointer) -> Result<Packet, DecodeError> {
        guard let first = bytes.first else { return .failure(DecodeError("empty packet")) }
        let rest = UnsafeRawBufferPointer(rebasing: bytes.dropFirst())
        let payload = { String(decoding: rest, as: UTF8.self) }
        switch first {
        case UInt8(ascii: "0"):
            let json: JSONValue
            do { json = try JSONValue.parse(bytes: rest) } catch { return .failure(DecodeError("open packet: \(error)")) }
            do throws(DecodeError) { return .success(.open(try Handshake(json: json))) } catch { return .failure(error) }
        case UInt8(ascii: "1"): return .success(.close)
        case UInt8(ascii: "2"): return .success(.ping(payload()))
        case UInt8(ascii: "3"): return .success(.pong(payload()))
        case messageType: return .success(.message(payload()))
        case UInt8(ascii: "5"): return .success(.upgrade)
        case UInt8(ascii: "6"): return .success(.noop)
        case UInt8(ascii: "b"):
            guard let bytes = Base64.decode(Substring(payload())) else { return .failure(DecodeError("binary packet is not valid base64")) }
            return .success(.binary(bytes))
        default:
            return .failure(DecodeError("unknown packet type '\(Unicode.Scalar(first))'"))
        }
    }

    /// Packet → WebSocket frame.
    public static func encode(_ packet: Packet) -> Frame {
        switch packet {
        case .binary(let bytes): .binary(bytes)
        default: .text(text(of: packet))
        }
    }

    /// The packet's text form; binary is `b` + base64 (the long-polling form).
    private static func text(of packet: Packet) -> String {
        switch packet {
        case .open(let handshake): "0" + handshake.json.text
        case .close: "1"
        case .ping(let payload): "2" + payload
        case .pong(let payload): "3" + payload
        case .message(let text): String(Unicode.Scalar(messageType)) + text
        case .binary(let bytes): "b" + Base64.encode(bytes)
        case .upgrade: "5"
        case .noop: "6"
        }
    }

    /// The record separator between packets in a long-polling body. JSON escapes
    /// it inside strings, so it never appears in a Socket.IO packet's text.
    public static let separator: Character = "\u{1e}"

    /// A long-polling body → its packets. An empty body, or an empty packet
    /// between separators, is an error.
    public static func decodePayload(_ body: String) throws(DecodeError) -> [Packet] {
        if body.isEmpty { throw DecodeError("empty payload") }
        var packets: [Packet] = []
        for part in body.utf8.split(separator: 0x1E, omittingEmptySubsequences: false) {
            packets.append(try decode(text: String(Substring(part))))
        }
        return packets
    }

    /// Packets → a long-polling body: texts joined by `\u{1e}`, binary as `b` + base64.
    public static func encodePayload(_ packets: [Packet]) -> String {
        packets.map(text(of:)).joined(separator: String(separator))
    }
}
