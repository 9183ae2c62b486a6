import ParleyLua

extension FuzzTarget {
    /// `bot.json.decode`: untrusted plugins and the servers they call hand it
    /// any text. Oracle: what decodes encodes, and decodes back to a value
    /// that encodes to the same text.
    static let luaJSON = FuzzTarget(name: "luajson", summary: "bot.json.decode and its round trip") { data in
        guard case .success(let value) = LuaJSON.decode(Array(data)) else { return }
        let text: String
        switch LuaJSON.encode(value) {
        case .success(let t): text = t
        case .failure(let e):
            // Only numbers that overflow to infinity have no way back.
            FuzzCheck.require(e.message.contains("no JSON form"), "luajson", "decoded, but does not encode: \(e.message)")
            return
        }
        guard case .success(let back) = LuaJSON.decode(Array(text.utf8)) else {
            fatalError("parley-fuzz luajson: \(text.debugDescription), encoded from a decoded value, does not decode")
        }
        // An object's members are written in a fixed order, not the decoded one:
        // the same value writes the same text again.
        FuzzCheck.require(LuaJSON.encode(back) == .success(text), "luajson", "\(text.debugDescription) does not decode back to the value it was written from")
    }
}
