import ParleyWire

extension FuzzTarget {
    /// The REST channel chat: one `channel` event's payload (or one element
    /// of a `…/chats` answer), read the way the transport reads it: JSON,
    /// then `RESTChat(json:)` with its `createdAt` date. Oracle: a chat's time
    /// formats to a date that parses back to the same millisecond (catch-up
    /// sends it back as `cursor_date`; a slip would skip or repeat a chat).
    static let restChat = FuzzTarget(name: "restchat", summary: "REST chat objects: JSON, RESTChat(json:), RESTDate") { data in
        if let text = String(validating: data, as: UTF8.self), let time = RESTDate.parse(text) {
            checkDate(time)
        }
        guard let json = try? JSONValue.parse(bytes: data) else { return }
        let chats: [JSONValue] = json.array ?? [json]
        for value in chats {
            guard let chat = try? RESTChat(json: value) else { continue }
            checkDate(chat.time)
        }
    }

    private static func checkDate(_ time: Double) {
        let written = RESTDate.format(time)
        guard let back = RESTDate.parse(written) else {
            fatalError("parley-fuzz restchat: \(written), formatted from \(time), does not parse")
        }
        FuzzCheck.require(RESTDate.format(back) == written, "restchat", "\(written) does not read back to the same millisecond")
    }
}
