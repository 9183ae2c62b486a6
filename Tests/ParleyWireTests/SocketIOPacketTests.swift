import ParleyJournal
import Testing
@testable import ParleyWire

private func decode(_ text: String) throws -> (packet: SocketIO.Packet, expectedAttachments: Int) {
    try SocketIO.decode(text)
}

@Suite("Socket.IO packets: the protocol's examples")
struct SocketIOExampleTests {
    @Test func connect() throws {
        #expect(try decode("0").packet == SocketIO.Packet(type: .connect))
        #expect(try decode(#"0{"token":"123"}"#).packet == SocketIO.Packet(type: .connect, data: ["token": "123"]))
        let admin = try decode(#"0/admin,{"sid":"oSO0OpakMV_3jnilAAAA"}"#).packet
        #expect(admin == SocketIO.Packet(type: .connect, namespace: "/admin", data: ["sid": "oSO0OpakMV_3jnilAAAA"]))
        #expect(admin.data?["sid"]?.string == "oSO0OpakMV_3jnilAAAA")
    }

    @Test func disconnect() throws {
        #expect(try decode("1/admin,").packet == SocketIO.Packet(type: .disconnect, namespace: "/admin"))
        #expect(try decode("1").packet == SocketIO.Packet(type: .disconnect))
    }

    @Test func event() throws {
        let hello = try decode(#"2["hello",1]"#)
        #expect(hello.packet == .event("hello", [1]))
        #expect(hello.expectedAttachments == 0)
        #expect(hello.packet.eventName == "hello")
        #expect(hello.packet.eventArguments == [1])

        let delete = try decode(#"2/admin,456["project:delete",123]"#).packet
        #expect(delete == .event("project:delete", [123], namespace: "/admin", id: 456))
        #expect(try decode(#"21["chatMessage","alice","hi"]"#).packet.id == 1)
        #expect(try decode(#"2/admin,1["tellme"]"#).packet == .event("tellme", [], namespace: "/admin", id: 1))
    }

    @Test func ack() throws {
        let ack = try decode("3/admin,456[]").packet
        #expect(ack == SocketIO.Packet(type: .ack, namespace: "/admin", id: 456, data: []))
        #expect(ack.eventArguments == [])
        #expect(try decode(#"31["ok",42]"#).packet.eventArguments == ["ok", 42])
        #expect(try decode(#"31["ok",42]"#).packet.eventName == nil)
    }

    @Test func connectErrorAsObjectOrBareString() throws {
        let refused = try decode(#"4{"message":"Not authorized"}"#).packet
        #expect(refused.type == .connectError)
        #expect(refused.connectErrorMessage == "Not authorized")
        let python = try decode(#"4/nope,"Unable to connect""#).packet
        #expect(python == SocketIO.Packet(type: .connectError, namespace: "/nope", data: "Unable to connect"))
        #expect(python.connectErrorMessage == "Unable to connect")
        #expect(SocketIO.Packet.event("x", []).connectErrorMessage == nil)
    }

    @Test func binaryEventWaitsForItsAttachment() throws {
        let (packet, expected) = try decode(#"51-["hello",{"_placeholder":true,"num":0}]"#)
        #expect(packet.type == .binaryEvent)
        #expect(packet.eventName == "hello")
        #expect(packet.attachments == [])
        #expect(expected == 1)

        var reassembler = SocketIO.Reassembler()
        #expect(reassembler.add(packet, expecting: expected) == nil)
        #expect(reassembler.waiting)
        let done = try #require(try reassembler.add(binary: [1, 2, 3]))
        #expect(!reassembler.waiting)
        #expect(done.attachments == [[1, 2, 3]])
        let placeholder = try #require(done.eventArguments.first)
        #expect(placeholder == SocketIO.placeholder(0))
        #expect(SocketIO.attachment(for: placeholder, in: done) == [1, 2, 3])
    }

    @Test func binaryAck() throws {
        let (packet, expected) = try decode(#"61-/admin,456[{"_placeholder":true,"num":0}]"#)
        #expect(packet == SocketIO.Packet(type: .binaryAck, namespace: "/admin", id: 456, data: [SocketIO.placeholder(0)]))
        #expect(expected == 1)
    }
}

@Suite("Socket.IO packets: encoding")
struct SocketIOEncodeTests {
    @Test func examplesEncodeToTheirText() {
        #expect(SocketIO.encode(SocketIO.Packet(type: .connect)).text == "0")
        #expect(SocketIO.encode(SocketIO.Packet(type: .connect, data: ["token": "123"])).text == #"0{"token":"123"}"#)
        #expect(SocketIO.encode(SocketIO.Packet(type: .connect, namespace: "/ws-channel-7", data: ["token": "t"])).text == #"0/ws-channel-7,{"token":"t"}"#)
        #expect(SocketIO.encode(SocketIO.Packet(type: .disconnect, namespace: "/admin")).text == "1/admin,")
        #expect(SocketIO.encode(.event("chatMessage", ["alice", "hi"], id: 1)).text == #"21["chatMessage","alice","hi"]"#)
        #expect(SocketIO.encode(.event("project:delete", [123], namespace: "/admin", id: 456)).text == #"2/admin,456["project:delete",123]"#)
        #expect(SocketIO.encode(SocketIO.Packet(type: .ack, namespace: "/admin", id: 456, data: [])).text == "3/admin,456[]")
        #expect(SocketIO.encode(SocketIO.Packet(type: .connectError, data: ["message": "Not authorized"])).text == #"4{"message":"Not authorized"}"#)
    }

    /// The send path writes an event straight into its frame's memory: the
    /// same text as `encode`, counted exactly, and a sink too small for it
    /// says so rather than cut the text short unnoticed.
    @Test(arguments: [
        ("chatMessage", ["alice", "hi"] as [JSONValue], "/", nil as Int?),
        ("project:delete", [123, true, JSONValue.null, ["a": [1.5, "b"]]], "/admin", 456),
        ("tellme", [], "/admin", 1),
        ("chatMessage", ["parley", "q\"uote \\ nl\n bell\u{7} ls\u{2028} snow \u{2603} \u{1F600}"], "/room-2", nil),
    ])
    func anEventWrittenInPlaceIsItsEncodedText(name: String, args: [JSONValue], namespace: String, id: Int?) {
        let text = SocketIO.encode(.event(name, args, namespace: namespace, id: id)).text
        var bytes: [UInt8] = []
        SocketIO.writeEvent(name, args, namespace: namespace, id: id, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == text)

        var count = JSONByteCount()
        SocketIO.writeEvent(name, args, namespace: namespace, id: id, to: &count)
        #expect(count.bytes == text.utf8.count)

        for room in [count.bytes, count.bytes + 7, count.bytes - 1, 0] {
            let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: room, alignment: 1)
            defer { memory.deallocate() }
            var sink = JSONMemorySink(memory)
            SocketIO.writeEvent(name, args, namespace: namespace, id: id, to: &sink)
            #expect(sink.overflowed == (room < count.bytes), "in \(room) bytes")
            if !sink.overflowed {
                #expect(String(decoding: UnsafeRawBufferPointer(rebasing: memory[..<sink.written]), as: UTF8.self) == text)
            }
            #expect(sink.written <= room)
        }
    }

    @Test func attachmentsMakeTheTypeBinaryAndAreCounted() {
        var blob = SocketIO.Packet.event("blob", [SocketIO.placeholder(0), SocketIO.placeholder(1)])
        blob.attachments = [[1], [2, 3]]
        let encoded = SocketIO.encode(blob)
        #expect(encoded.text == #"52-["blob",{"_placeholder":true,"num":0},{"_placeholder":true,"num":1}]"#)
        #expect(encoded.attachments == [[1], [2, 3]])

        let ack = SocketIO.Packet(type: .ack, namespace: "/admin", id: 456, data: [SocketIO.placeholder(0)], attachments: [[9]])
        #expect(SocketIO.encode(ack).text == #"61-/admin,456[{"_placeholder":true,"num":0}]"#)

        // A binary type with nothing attached goes out as the plain type.
        #expect(SocketIO.encode(SocketIO.Packet(type: .binaryEvent, data: ["x"])).text == #"2["x"]"#)
    }

    @Test func roundTripsThroughTheReassembler() throws {
        let packets: [SocketIO.Packet] = [
            SocketIO.Packet(type: .connect),
            SocketIO.Packet(type: .connect, namespace: "/a", data: ["sid": "x"]),
            SocketIO.Packet(type: .disconnect, namespace: "/a"),
            .event("e", ["α", ["k": [1, 2.5, nil, true]]], id: 0),
            .event("e", [], namespace: "/deep/ns", id: 999_999_999_999_999),
            SocketIO.Packet(type: .ack, id: 3, data: ["ok"]),
            SocketIO.Packet(type: .connectError, namespace: "/n", data: "nope"),
            SocketIO.Packet(type: .binaryEvent, namespace: "/b", id: 7, data: ["blob", SocketIO.placeholder(0), SocketIO.placeholder(1)], attachments: [[], [0, 255]]),
            SocketIO.Packet(type: .binaryAck, id: 8, data: [SocketIO.placeholder(0)], attachments: [[42]]),
        ]
        var reassembler = SocketIO.Reassembler()
        for packet in packets {
            let (text, attachments) = SocketIO.encode(packet)
            let (decoded, expected) = try SocketIO.decode(text)
            #expect(expected == attachments.count)
            var result = reassembler.add(decoded, expecting: expected)
            for bytes in attachments {
                #expect(result == nil)
                result = try reassembler.add(binary: bytes)
            }
            #expect(result == packet)
        }
    }

    @Test func placeholdersResolveOnlyToAttachmentsThePacketHas() {
        let packet = SocketIO.Packet(type: .binaryEvent, data: ["x", SocketIO.placeholder(0)], attachments: [[5]])
        #expect(SocketIO.attachment(for: SocketIO.placeholder(0), in: packet) == [5])
        #expect(SocketIO.attachment(for: SocketIO.placeholder(1), in: packet) == nil)
        #expect(SocketIO.attachment(for: SocketIO.placeholder(-1), in: packet) == nil)
        #expect(SocketIO.attachment(for: ["_placeholder": false, "num": 0], in: packet) == nil)
        #expect(SocketIO.attachment(for: "x", in: packet) == nil)
    }
}

@Suite("Socket.IO packets: refusals")
struct SocketIORejectTests {
    @Test(arguments: [
        ("", "empty"),
        ("7", "unknown type"),
        ("x", "non-digit type"),
        (#"5x-["a"]"#, "non-digit attachment count"),
        (#"51["a"]"#, "missing '-' after the count"),
        ("51", "count at the end"),
        (#"51001-["a"]"#, "more than 1000 attachments"),
        (#"599999999999999999999999-["a"]"#, "a count that would overflow"),
        (#"5["a"]"#, "binary event without a count"),
        (#"6-[]"#, "binary ack without a count"),
        (#"21234567890123456["a"]"#, "ack id of 16 digits"),
        ("4abc", "data that is not JSON"),
        (#"2["a""#, "cut JSON"),
        ("2{}", "event data not an array"),
        ("2[]", "empty event array"),
        ("2[1]", "event name not a string"),
        ("2", "event without data"),
        (#"2"x""#, "event data a string"),
        (#"3{"a":1}"#, "ack data not an array"),
        ("3/admin,1", "ack without data"),
        ("0[]", "connect data an array"),
        (#"0"tok""#, "connect data a string"),
        ("1{}", "disconnect with data"),
        ("4", "connect error without data"),
        ("4[1]", "connect error data an array"),
        ("4/nope,1", "connect error data a number"),
        (#"2["a"]x"#, "trailing garbage"),
        (#"2["a"]]"#, "trailing bracket"),
        ("1/admin,x", "garbage after the namespace"),
    ])
    func refused(text: String, why: String) {
        #expect(throws: SocketIO.DecodeError.self, "\(why)") { try SocketIO.decode(text) }
    }

    @Test func fifteenDigitAckIdIsTheLongestAccepted() throws {
        #expect(try SocketIO.decode(#"2999999999999999["a"]"#).packet.id == 999_999_999_999_999)
    }

    @Test func aThousandAttachmentsIsTheMostAccepted() throws {
        #expect(try SocketIO.decode(#"51000-["a"]"#).expectedAttachments == 1000)
    }

    @Test func aStrayBinaryFrameThrows() {
        var reassembler = SocketIO.Reassembler()
        #expect(throws: SocketIO.DecodeError.self) { try reassembler.add(binary: [1]) }
        // …and also once a binary packet has been completed.
        _ = reassembler.add(SocketIO.Packet(type: .binaryEvent, data: ["x", SocketIO.placeholder(0)]), expecting: 1)
        #expect((try? reassembler.add(binary: [1])) != nil)
        #expect(throws: SocketIO.DecodeError.self) { try reassembler.add(binary: [2]) }
    }

    @Test func aTextPacketReplacesAHalfBuiltBinaryOne() throws {
        var reassembler = SocketIO.Reassembler()
        _ = reassembler.add(SocketIO.Packet(type: .binaryEvent, data: ["x", SocketIO.placeholder(0), SocketIO.placeholder(1)]), expecting: 2)
        #expect(try reassembler.add(binary: [1]) == nil)
        let plain = SocketIO.Packet.event("y", [])
        #expect(reassembler.add(plain, expecting: 0) == plain)
        #expect(!reassembler.waiting)
        #expect(throws: SocketIO.DecodeError.self) { try reassembler.add(binary: [2]) }
    }

    @Test func randomInputNeverTrapsAndWhatDecodesReEncodes() throws {
        // Bytes from the header's and JSON's alphabets, so many inputs pass the header.
        let alphabet = Array(#"0123456-/,[]{}"":abn1 "#.utf8) + [0xC3, 0xA9, 0xFF]
        var rng = SeededRandom(seed: 5)
        var decoded = 0
        for _ in 0..<4_000 {
            let n = Int(rng.next() % 20) + 1
            let bytes = (0..<n).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }
            guard let (packet, expected) = try? SocketIO.decode(String(decoding: bytes, as: UTF8.self)) else { continue }
            decoded += 1
            var reassembler = SocketIO.Reassembler()
            var complete = reassembler.add(packet, expecting: expected)
            for _ in 0..<expected { complete = try reassembler.add(binary: [0]) }
            let whole = try #require(complete)
            // What decoded re-encodes to text that decodes to the same packet.
            let again = try SocketIO.decode(SocketIO.encode(whole).text).packet
            #expect(again.namespace == whole.namespace && again.id == whole.id && again.data == whole.data)
        }
        #expect(decoded > 0)
    }
}
