import ParleyWire

extension FuzzTarget {
    /// Socket.IO: the input is a packet's text, then its binary attachments,
    /// separated by NUL bytes (text frames and binary frames arrive apart on
    /// the wire). The decoded packet goes through a `Reassembler` as the
    /// transports use it. Oracle: a completed packet encodes and decodes back
    /// to the same namespace, id and data, announcing as many attachments as
    /// it carries.
    static let socketIO = FuzzTarget(
        name: "socketio", summary: "Socket.IO packets and their binary attachments (NUL-separated)"
    ) { data in
        var input = FuzzInput(data)
        let text = String(decoding: input.field(upTo: 0), as: UTF8.self)
        guard let (packet, expected) = try? SocketIO.decode(text) else { return }

        var reassembler = SocketIO.Reassembler()
        var done = reassembler.add(packet, expecting: expected)
        while done == nil, !input.isEmpty {
            done = try? reassembler.add(binary: Array(input.field(upTo: 0)))
        }
        guard let done else {
            FuzzCheck.require(reassembler.waiting, "socketio", "a packet waiting for attachments was lost")
            return
        }
        FuzzCheck.require(!reassembler.waiting, "socketio", "completed packet still waiting")
        var stray = reassembler
        FuzzCheck.require((try? stray.add(binary: [1])) == nil, "socketio", "a stray binary frame was accepted")

        // What the client does with a completed packet: resolve placeholders.
        for value in done.eventArguments { _ = SocketIO.attachment(for: value, in: done) }
        _ = done.eventName
        _ = done.connectErrorMessage

        let (again, attachments) = SocketIO.encode(done)
        guard let (back, count) = try? SocketIO.decode(again) else {
            fatalError("parley-fuzz socketio: \(done) encodes to \(again.debugDescription), which does not decode")
        }
        FuzzCheck.require(count == attachments.count, "socketio", "\(again.debugDescription) announces \(count) attachments, has \(attachments.count)")
        FuzzCheck.require(
            back.namespace == done.namespace && back.id == done.id && back.data == done.data, "socketio",
            "\(done) encodes to \(again.debugDescription), which decodes to \(back)")
    }
}
