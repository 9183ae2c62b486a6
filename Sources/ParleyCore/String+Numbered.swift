extension String {
    /// `prefix` followed by `number` in `radix` (2 to 36, lowercase digits):
    /// a send's id, a history cursor. Written as bytes in one go, where
    /// `prefix + String(number, radix:)` costs several times as much, and
    /// ids are made for every reply.
    public init(prefix: String, number: Int, radix: Int = 10) {
        precondition(number >= 0 && (2...36).contains(radix), "a numbered name takes a non-negative number in radix 2 to 36")
        var digits = 1
        var rest = number / radix
        while rest > 0 { digits += 1; rest /= radix }
        let head = prefix.utf8.count
        self.init(unsafeUninitializedCapacity: head + digits) { out in
            _ = out.initialize(fromContentsOf: prefix.utf8)
            var n = number
            for i in stride(from: head + digits - 1, through: head, by: -1) {
                let d = UInt8(n % radix)
                out[i] = d < 10 ? UInt8(ascii: "0") + d : UInt8(ascii: "a") + d - 10
                n /= radix
            }
            return head + digits
        }
    }
}
