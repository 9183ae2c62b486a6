/// Unquoted values: booleans, integers, floats and dates/times.
///
/// Why one token first: these forms share characters (`1979-05-27` vs `-1`, `1e5` vs
/// `inf`), so the scanner takes the whole run of value characters and then decides,
/// which keeps error messages about the whole token ("invalid integer '0x'").
extension Scanner {
    /// Longest accepted unquoted token; configs never come close, and it keeps
    /// `Double` conversion and error messages cheap on hostile input.
    static let maxTokenLength = 1024

    mutating func scanBareValue() throws(ConfigError) -> TOMLNode.Kind {
        let start = position
        let from = index
        while let b = peek(), isValueByte(b) { advance() }
        guard index > from else { throw error("expected a value, got \(describeNext())") }
        // A date and a time may be separated by a single space: `1979-05-27 07:32:00`.
        if index - from == 10, Self.looksLikeDate(bytes[from..<index]), peek() == 0x20,
           let d1 = peek(1), let d2 = peek(2), isDigit(d1), isDigit(d2), peek(3) == UInt8(ascii: ":") {
            advance()
            while let b = peek(), isValueByte(b) { advance() }
        }
        guard index - from <= Self.maxTokenLength else {
            throw error("value is longer than \(Self.maxTokenLength) characters", at: start)
        }
        let token = Array(bytes[from..<index])
        let text = String(decoding: token, as: UTF8.self)
        switch text {
        case "true": return .bool(true)
        case "false": return .bool(false)
        default: break
        }
        if Self.looksLikeDate(token[...]) || token.contains(UInt8(ascii: ":")) {
            guard let value = TOMLDateTime(parsing: text) else {
                throw error("invalid date or time '\(text)'", at: start)
            }
            return .datetime(value)
        }
        if let first = token.first, isLetter(first), text != "inf", text != "nan" {
            throw error("expected a value, got '\(text)' (strings must be quoted)", at: start)
        }
        return try Self.parseNumber(token, text: text, start: start, scanner: self)
    }

    /// `YYYY-` prefix: the token is meant as a date even if the rest is malformed.
    static func looksLikeDate(_ token: ArraySlice<UInt8>) -> Bool {
        guard token.count >= 5 else { return false }
        let s = token.startIndex
        return token[s..<s + 4].allSatisfy(isDigit) && token[s + 4] == UInt8(ascii: "-")
    }

    private static func parseNumber(_ token: [UInt8], text: String, start: TOMLPosition, scanner: Scanner) throws(ConfigError) -> TOMLNode.Kind {
        var body = token[...]
        var negative = false
        var signed = false
        if let first = body.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") {
            signed = true
            negative = first == UInt8(ascii: "-")
            body = body.dropFirst()
        }
        if body.elementsEqual("inf".utf8) { return .float(negative ? -.infinity : .infinity) }
        if body.elementsEqual("nan".utf8) { return .float(negative ? -.nan : .nan) }

        // 0x, 0o, 0b
        if body.count >= 2, body.first == UInt8(ascii: "0") {
            let marker = body[body.startIndex + 1]
            let radix: UInt64? = switch marker {
            case UInt8(ascii: "x"): 16
            case UInt8(ascii: "o"): 8
            case UInt8(ascii: "b"): 2
            default: nil
            }
            if let radix {
                guard !signed else {
                    throw scanner.error("a sign is not allowed on hex, octal or binary integers: '\(text)'", at: start)
                }
                guard let digits = stripUnderscores(body.dropFirst(2), isDigit: { hexDigitValue($0).map { UInt64($0) < radix } ?? false }),
                      let magnitude = accumulate(digits, radix: radix)
                else { throw scanner.error("invalid integer '\(text)'", at: start) }
                guard magnitude <= UInt64(Int64.max) else {
                    throw scanner.error("integer '\(text)' does not fit in 64 bits", at: start)
                }
                return .integer(Int64(magnitude))
            }
        }

        let isFloat = body.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
        if isFloat {
            guard let clean = floatText(body) else { throw scanner.error("invalid float '\(text)'", at: start) }
            guard let value = Double((negative ? "-" : "") + clean), value.isFinite else {
                throw scanner.error("float '\(text)' is out of range", at: start)
            }
            return .float(value)
        }

        guard let digits = decimalDigits(body) else { throw scanner.error("invalid number '\(text)'", at: start) }
        guard let magnitude = accumulate(digits, radix: 10) else {
            throw scanner.error("integer '\(text)' does not fit in 64 bits", at: start)
        }
        if negative {
            if magnitude <= UInt64(Int64.max) { return .integer(-Int64(magnitude)) }
            if magnitude == UInt64(Int64.max) + 1 { return .integer(.min) }
        } else if magnitude <= UInt64(Int64.max) {
            return .integer(Int64(magnitude))
        }
        throw scanner.error("integer '\(text)' does not fit in 64 bits", at: start)
    }

    /// `1_000` → `1000`; nil unless every underscore sits between two digits.
    private static func stripUnderscores(_ text: ArraySlice<UInt8>, isDigit: (UInt8) -> Bool) -> [UInt8]? {
        guard let first = text.first, let last = text.last, isDigit(first), isDigit(last) else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var previousUnderscore = false
        for b in text {
            if b == UInt8(ascii: "_") {
                if previousUnderscore { return nil }
                previousUnderscore = true
            } else {
                guard isDigit(b) else { return nil }
                previousUnderscore = false
                out.append(b)
            }
        }
        return out
    }

    /// An unsigned decimal integer part: digits with underscores, no leading zeros.
    private static func decimalDigits(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        guard let digits = stripUnderscores(text, isDigit: isDigit) else { return nil }
        if digits.count > 1 && digits[0] == UInt8(ascii: "0") { return nil }
        return digits
    }

    private static func accumulate(_ digits: [UInt8], radix: UInt64) -> UInt64? {
        var value: UInt64 = 0
        for d in digits {
            guard let v = hexDigitValue(d) else { return nil }
            let (shifted, o1) = value.multipliedReportingOverflow(by: radix)
            let (sum, o2) = shifted.addingReportingOverflow(UInt64(v))
            if o1 || o2 { return nil }
            value = sum
        }
        return value
    }

    /// Validates `int[.frac][e[+-]exp]` (at least one of frac/exp) and returns it
    /// without underscores, ready for `Double(_:)`.
    private static func floatText(_ body: ArraySlice<UInt8>) -> String? {
        var mantissa = body
        var exponent: ArraySlice<UInt8>?
        if let e = body.firstIndex(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
            mantissa = body[body.startIndex..<e]
            exponent = body[(e + 1)...]
        }
        var integerPart = mantissa
        var fraction: ArraySlice<UInt8>?
        if let dot = mantissa.firstIndex(of: UInt8(ascii: ".")) {
            integerPart = mantissa[mantissa.startIndex..<dot]
            fraction = mantissa[(dot + 1)...]
        }
        guard let intDigits = decimalDigits(integerPart) else { return nil }
        var out = String(decoding: intDigits, as: UTF8.self)
        if let fraction {
            guard let digits = stripUnderscores(fraction, isDigit: isDigit) else { return nil }
            out += "." + String(decoding: digits, as: UTF8.self)
        }
        if var exponent {
            var sign = ""
            if let first = exponent.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") {
                sign = first == UInt8(ascii: "-") ? "-" : ""
                exponent = exponent.dropFirst()
            }
            // Exponents may have leading zeros (`1e06`).
            guard let digits = stripUnderscores(exponent, isDigit: isDigit) else { return nil }
            out += "e" + sign + String(decoding: digits, as: UTF8.self)
        }
        return out
    }
}

@inline(__always) func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

@inline(__always) func isLetter(_ b: UInt8) -> Bool {
    (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z"))
}

/// Characters that can appear in an unquoted value.
@inline(__always) func isValueByte(_ b: UInt8) -> Bool {
    isBareKeyByte(b) || b == UInt8(ascii: "+") || b == UInt8(ascii: ".") || b == UInt8(ascii: ":")
}
