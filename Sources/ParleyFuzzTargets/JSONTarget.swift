import ParleyWire

extension FuzzTarget {
    /// JSON, as the REST chat API and Socket.IO read it. Oracles: a parsed
    /// value's text parses back equal; the byte and `String` entry points
    /// agree on valid UTF-8.
    static let json = FuzzTarget(name: "json", summary: "JSONValue.parse and its round trip") { data in
        let parsed = try? JSONValue.parse(bytes: data)
        if let text = String(validating: data, as: UTF8.self) {
            let viaString = try? JSONValue.parse(text)
            FuzzCheck.require(viaString == parsed, "json", "parse(bytes:) and parse(_:) disagree")
        }
        guard let parsed else { return }
        let text = parsed.text
        let back: JSONValue?
        do { back = try JSONValue.parse(text) } catch {
            fatalError("parley-fuzz json: \(text.debugDescription), written from a parsed value, does not parse: \(error)")
        }
        FuzzCheck.require(back == parsed, "json", "\(text.debugDescription) does not parse back to the value it was written from")
    }
}
