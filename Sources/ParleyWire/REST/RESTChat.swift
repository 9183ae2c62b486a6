
/// One chat object of the REST server, reduced to what a bot needs:
/// `{"channel_id","channelName","chat_id","content","createdAt","files",
/// "user":{"user_id","email","nickname","profileImage"}}`. Unknown fields are
/// ignored (servers add some); a chat without an id, text, time or sender is
/// refused, since it could be neither deduplicated nor put in order.
public struct RESTChat: Sendable, Equatable {
    /// `chat_id`, as text (the server sends a number; a string is taken as is).
    public var id: String
    public var content: String
    /// `createdAt`, seconds since 1970 (millisecond precision).
    public var time: Double
    public var userId: String
    public var nickname: String

    public init(id: String, content: String, time: Double, userId: String, nickname: String) {
        self.id = id
        self.content = content
        self.time = time
        self.userId = userId
        self.nickname = nickname
    }

    /// Reads one chat object; the error says which field is missing or wrong.
    public init(json: JSONValue) throws(RESTChatError) {
        guard json.object != nil else { throw RESTChatError("not an object") }
        guard let id = Self.idText(json["chat_id"]) else { throw RESTChatError("no chat_id") }
        guard let content = json["content"]?.string else { throw RESTChatError("chat \(id): no content") }
        guard let created = json["createdAt"]?.string, let time = RESTDate.parse(created) else {
            throw RESTChatError("chat \(id): createdAt missing or not yyyy-MM-ddTHH:mm:ss.SSSZ")
        }
        guard let user = json["user"], let userId = Self.idText(user["user_id"]) else { throw RESTChatError("chat \(id): no user.user_id") }
        self.init(id: id, content: content, time: time, userId: userId,
                  nickname: user["nickname"]?.string ?? user["email"]?.string ?? "user-\(userId)")
    }

    /// Ids are numbers on the wire; strings are accepted as they are.
    public static func idText(_ v: JSONValue?) -> String? {
        if let n = v?.int { return String(n) }
        if let s = v?.string, !s.isEmpty { return s }
        return nil
    }

}

public struct RESTChatError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ d: String) { description = d }
}

/// The server's timestamps, `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'`, to and from
/// seconds since 1970. Integer milliseconds throughout, so a time read and
/// written back as a `cursor_date` is the same text (the server compares
/// at millisecond precision; a rounding slip would skip or repeat a chat).
public enum RESTDate {
    /// Also takes other fraction lengths and a `±hh:mm` offset; nil for anything else.
    public static func parse(_ s: String) -> Double? {
        let b = Array(s.utf8)
        func num(_ at: Int, _ n: Int) -> Int? {
            guard at + n <= b.count else { return nil }
            var v = 0
            for i in at..<(at + n) {
                guard b[i] >= 48, b[i] <= 57 else { return nil }
                v = v * 10 + Int(b[i] - 48)
            }
            return v
        }
        guard b.count >= 20, b[4] == 45, b[7] == 45, b[10] == 84 || b[10] == 116, b[13] == 58, b[16] == 58,
              let y = num(0, 4), let mo = num(5, 2), let d = num(8, 2), let h = num(11, 2), let mi = num(14, 2),
              let sec = num(17, 2), (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, sec < 61 else { return nil }
        var i = 19
        var ms = 0
        if i < b.count, b[i] == 46 {
            i += 1
            var digits = 0
            while i < b.count, b[i] >= 48, b[i] <= 57 {
                if digits < 3 { ms = ms * 10 + Int(b[i] - 48) }
                digits += 1
                i += 1
            }
            guard digits > 0 else { return nil }
            if digits < 3 { for _ in digits..<3 { ms *= 10 } }
        }
        var offset = 0
        guard i < b.count else { return nil }
        if b[i] == 90 || b[i] == 122 {
            i += 1
        } else if b[i] == 43 || b[i] == 45, let oh = num(i + 1, 2), i + 3 < b.count, b[i + 3] == 58, let om = num(i + 4, 2) {
            offset = (oh * 60 + om) * (b[i] == 43 ? 1 : -1)
            i += 6
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let days = daysFromCivil(y, mo, d)
        let seconds = ((days * 24 + h) * 60 + mi) * 60 + sec - offset * 60
        return Double(seconds * 1000 + ms) / 1000
    }

    public static func format(_ t: Double) -> String {
        let total = Int((t * 1000).rounded())
        let ms = ((total % 1000) + 1000) % 1000
        let seconds = (total - ms) / 1000
        var days = seconds / 86_400
        var rest = seconds % 86_400
        if rest < 0 { rest += 86_400; days -= 1 }
        let (y, m, d) = civilFromDays(days)
        func pad(_ v: Int, _ n: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, n - s.count)) + s
        }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(rest / 3600, 2)):\(pad(rest / 60 % 60, 2)):\(pad(rest % 60, 2)).\(pad(ms, 3))Z"
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civilFromDays(_ z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
