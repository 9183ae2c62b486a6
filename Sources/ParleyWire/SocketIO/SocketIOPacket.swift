/// Socket.IO v5 packets, carried in Engine.IO messages:
/// `<type>[<attachments>-][<nsp>,][<ackId>][JSON]`, then one Engine.IO binary
/// message per attachment for the binary types.
///
/// The client and the embedded server both encode and decode here. Decoding is
/// as strict as the JavaScript server's parser, because that server closes the
/// connection on anything it refuses and Parley's server should do the same.
public enum SocketIO {
    public static let version = 5

    public enum PacketType: Int, Sendable {
        case connect = 0, disconnect, event, ack, connectError, binaryEvent, binaryAck
    }

    public struct Packet: Sendable, Equatable {
        public var type: PacketType
        /// `/` when omitted on the wire.
        public var namespace: String
        /// The ack id: an event that carries one asks for an ack with the same id.
        public var id: Int?
        /// EVENT/ACK: an array; CONNECT: the auth object or `{"sid":…}`;
        /// CONNECT_ERROR: an object or a bare string.
        public var data: JSONValue?
        /// BINARY_*: the binary messages, in order; `data` holds `{"_placeholder":true,"num":N}` for each.
        public var attachments: [[UInt8]]

        public init(type: PacketType, namespace: String = "/", id: Int? = nil, data: JSONValue? = nil, attachments: [[UInt8]] = []) {
            self.type = type
            self.namespace = namespace
            self.id = id
            self.data = data
            self.attachments = attachments
        }

        /// An EVENT: `[name, args…]`.
        public static func event(_ name: String, _ args: [JSONValue], namespace: String = "/", id: Int? = nil) -> Packet {
            var items: [JSONValue] = []
            items.reserveCapacity(args.count + 1)
            items.append(.string(name))
            items += args
            return Packet(type: .event, namespace: namespace, id: id, data: .array(items))
        }

        /// The event name, for EVENT and BINARY_EVENT.
        public var eventName: String? {
            guard type == .event || type == .binaryEvent else { return nil }
            return data?[0]?.string
        }

        /// An event's arguments after its name, or all of an ack's values.
        public var eventArguments: [JSONValue] {
            guard let items = data?.array else { return [] }
            switch type {
            case .event, .binaryEvent: return Array(items.dropFirst())
            case .ack, .binaryAck: return items
            default: return []
            }
        }

        /// A CONNECT_ERROR's message: `{"message":…}` from the JavaScript server,
        /// a bare string from python-socketio for an unknown namespace.
        public var connectErrorMessage: String? {
            guard type == .connectError, let data else { return nil }
            return data.string ?? data["message"]?.string
        }
    }

    public struct DecodeError: Error, Sendable, Equatable, CustomStringConvertible {
        public var message: String
        public init(_ message: String) { self.message = message }
        public var description: String { "Socket.IO: \(message)" }
    }

    /// Most attachments one packet may announce: bounds what a peer can make us wait for.
    public static let maxAttachments = 1000
    /// Ack ids longer than this could not be held exactly by a JavaScript peer (2^53 has 16 digits).
    static let maxAckIdDigits = 15

    /// Encodes to the text that goes inside an Engine.IO message (no leading `4`), plus
    /// the attachments to send right after it, one Engine.IO binary message each.
    /// The binary types follow `attachments`: an event or ack with attachments is sent
    /// as BINARY_EVENT/BINARY_ACK, a binary type without any as plain EVENT/ACK.
    public static func encode(_ packet: Packet) -> (text: String, attachments: [[UInt8]]) {
        var type = packet.type
        switch (type, packet.attachments.isEmpty) {
        case (.event, false): type = .binaryEvent
        case (.ack, false): type = .binaryAck
        case (.binaryEvent, true): type = .event
        case (.binaryAck, true): type = .ack
        default: break
        }
        // Built as bytes and made a `String` once.
        // Room for a chat event's packet, made before the first byte: growing costs an allocation a step.
        var text: [UInt8] = []
        text.reserveCapacity(64)
        writeHeader(type, attachments: packet.attachments.count, namespace: packet.namespace, id: packet.id, to: &text)
        packet.data?.write(to: &text)
        return (String(decoding: text, as: UTF8.self), packet.attachments)
    }

    /// An EVENT's text, as `encode(.event(name, args, …))` writes it, straight
    /// into `out`: the send path writes it into the frame that carries it,
    /// with no packet, list or string in between.
    @inlinable
    public static func writeEvent<Sink: JSONSink>(_ name: String, _ args: [JSONValue], namespace: String = "/", id: Int? = nil,
                                                  to out: inout Sink) {
        writeHeader(.event, attachments: 0, namespace: namespace, id: id, to: &out)
        out.appendByte(UInt8(ascii: "["))
        JSONText.appendString(name, to: &out)
        for arg in args {
            out.appendByte(UInt8(ascii: ","))
            arg.write(to: &out)
        }
        out.appendByte(UInt8(ascii: "]"))
    }

    /// `<type>[<attachments>-][<nsp>,][<ackId>]`: everything before the JSON.
    @inlinable
    static func writeHeader<Sink: JSONSink>(_ type: PacketType, attachments: Int, namespace: String, id: Int?, to out: inout Sink) {
        out.appendByte(UInt8(ascii: "0") + UInt8(type.rawValue))
        if type == .binaryEvent || type == .binaryAck {
            out.appendUTF8(String(attachments))
            out.appendByte(UInt8(ascii: "-"))
        }
        if namespace != "/" {
            out.appendUTF8(namespace)
            out.appendByte(UInt8(ascii: ","))
        }
        if let id { out.appendUTF8(String(id)) }
    }

    /// Decodes the text of one Engine.IO message. For the binary types the result has
    /// `attachments == []` and `expectedAttachments` binary messages must follow
    /// (feed both to a `Reassembler`).
    public static func decode(_ text: String) throws(DecodeError) -> (packet: Packet, expectedAttachments: Int) {
        // Read where the string keeps its UTF-8, not from a copy.
        var text = text
        return try text.withUTF8 { bytes in Result { () throws(DecodeError) in try decode(bytes) } }.get()
    }

    private static func decode(_ bytes: UnsafeBufferPointer<UInt8>) throws(DecodeError) -> (packet: Packet, expectedAttachments: Int) {
        var i = 0
        guard let first = bytes.first else { throw DecodeError("empty packet") }
        guard first >= UInt8(ascii: "0"), let type = PacketType(rawValue: Int(first) - Int(UInt8(ascii: "0"))) else {
            throw DecodeError("unknown packet type")
        }
        i = 1

        var expected = 0
        if type == .binaryEvent || type == .binaryAck {
            let start = i
            while i < bytes.count, isDigit(bytes[i]) {
                expected = expected * 10 + Int(bytes[i] - UInt8(ascii: "0"))
                if expected > maxAttachments { throw DecodeError("more than \(maxAttachments) attachments") }
                i += 1
            }
            if i == start { throw DecodeError("binary packet without an attachment count") }
            guard i < bytes.count, bytes[i] == UInt8(ascii: "-") else { throw DecodeError("attachment count not followed by '-'") }
            i += 1
        }

        var namespace = "/"
        if i < bytes.count, bytes[i] == UInt8(ascii: "/") {
            // The namespace runs to the first ',' (or, as the JavaScript parser reads it, to the end).
            let start = i
            while i < bytes.count, bytes[i] != UInt8(ascii: ",") { i += 1 }
            namespace = String(decoding: bytes[start..<i], as: UTF8.self)
            if i < bytes.count { i += 1 }
        }

        var id: Int? = nil
        let idStart = i
        while i < bytes.count, isDigit(bytes[i]) {
            if i - idStart == maxAckIdDigits { throw DecodeError("ack id longer than \(maxAckIdDigits) digits") }
            id = (id ?? 0) * 10 + Int(bytes[i] - UInt8(ascii: "0"))
            i += 1
        }

        var data: JSONValue? = nil
        if i < bytes.count {
            do { data = try JSONValue.parse(bytes: UnsafeBufferPointer(rebasing: bytes[i...])) } catch { throw DecodeError("data: \(error)") }
        }

        try validate(type: type, data: data)
        return (Packet(type: type, namespace: namespace, id: id, data: data), expected)
    }

    /// The payload rules of the JavaScript parser's `isPayloadValid`.
    private static func validate(type: PacketType, data: JSONValue?) throws(DecodeError) {
        switch type {
        case .connect:
            if let data, data.object == nil { throw DecodeError("CONNECT data is not an object") }
        case .disconnect:
            if data != nil { throw DecodeError("DISCONNECT carries data") }
        case .event, .binaryEvent:
            guard let items = data?.array, items.first?.string != nil else {
                throw DecodeError("EVENT data is not an array starting with the event name")
            }
        case .ack, .binaryAck:
            guard data?.array != nil else { throw DecodeError("ACK data is not an array") }
        case .connectError:
            guard let data, data.object != nil || data.string != nil else {
                throw DecodeError("CONNECT_ERROR data is neither an object nor a string")
            }
        }
    }

    private static func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

    /// Collects a binary packet's attachments as they arrive.
    public struct Reassembler: Sendable {
        private var pending: Packet?
        private var expected = 0
        private var held = 0
        /// The most bytes one packet's attachments may hold together: each
        /// frame is bounded on its own, and a thousand of them would not be.
        private let maxBytes: Int

        public init(maxBytes: Int = .max) { self.maxBytes = maxBytes }

        /// Feed a decoded text packet. Returns it at once when it needs no attachments;
        /// otherwise holds it until `add(binary:)` completes it. A text packet that
        /// arrives while another still waits replaces it: the peer broke the sequence,
        /// and the half-built packet can no longer be completed correctly.
        public mutating func add(_ packet: Packet, expecting: Int) -> Packet? {
            guard expecting > 0 else {
                pending = nil
                return packet
            }
            var packet = packet
            packet.attachments = []
            pending = packet
            expected = expecting
            held = 0
            return nil
        }

        /// Feed a binary message. Returns the completed packet when the last attachment
        /// arrives; throws when no binary packet is waiting (a stray binary frame).
        public mutating func add(binary: [UInt8]) throws(DecodeError) -> Packet? {
            guard var packet = pending else { throw DecodeError("binary message with no binary packet waiting for it") }
            held += binary.count
            guard held <= maxBytes else {
                pending = nil
                throw DecodeError("a binary packet's attachments hold more than \(maxBytes) bytes")
            }
            packet.attachments.append(binary)
            guard packet.attachments.count == expected else {
                pending = packet
                return nil
            }
            pending = nil
            expected = 0
            return packet
        }

        /// True while a binary packet waits for attachments.
        public var waiting: Bool { pending != nil }
    }

    /// `{"_placeholder":true,"num":n}`: stands in `data` for attachment `n`.
    public static func placeholder(_ n: Int) -> JSONValue {
        ["_placeholder": true, "num": .number(Double(n))]
    }

    /// The attachment a placeholder stands for, or nil when `value` is no
    /// placeholder or names an attachment the packet does not have.
    public static func attachment(for value: JSONValue, in packet: Packet) -> [UInt8]? {
        guard value["_placeholder"]?.bool == true, let n = value["num"]?.int,
              packet.attachments.indices.contains(n) else { return nil }
        return packet.attachments[n]
    }
}
