import ParleyWire

extension FuzzTarget {
    /// Engine.IO: the input is one WebSocket text frame and, separately, one
    /// long-polling body. Oracle: what decodes must encode and decode back to
    /// the same packets.
    static let engineIO = FuzzTarget(
        name: "engineio", summary: "Engine.IO packets (WebSocket text) and long-polling payloads"
    ) { data in
        let text = String(decoding: data, as: UTF8.self)
        if let packet = try? EngineIO.decode(text: text) {
            switch EngineIO.encode(packet) {
            case .text(let again):
                let back = try? EngineIO.decode(text: again)
                FuzzCheck.require(back == packet, "engineio", "\(packet) encodes to \(again.debugDescription), which decodes to \(String(describing: back))")
            case .binary(let bytes):
                FuzzCheck.require(packet == .binary(bytes), "engineio", "binary packet changed when encoded")
            }
        }
        if let packets = try? EngineIO.decodePayload(text) {
            let body = EngineIO.encodePayload(packets)
            let back = try? EngineIO.decodePayload(body)
            FuzzCheck.require(back == packets, "engineio", "payload \(packets) encodes to \(body.debugDescription), which decodes to \(String(describing: back))")
        }
    }
}
