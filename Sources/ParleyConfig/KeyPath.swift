/// One component of a (possibly dotted) key as written in the source.
struct KeyPart: Sendable {
    let name: String
    let position: TOMLPosition
}

/// Renders key paths for error messages the way a user would write them in TOML.
enum KeyPath {
    /// `a.b."c d"`: bare components stay bare, anything else is quoted so the path is
    /// unambiguous even when a key contains dots or spaces.
    static func display(_ components: [String]) -> String {
        var out = ""
        for (i, component) in components.enumerated() {
            if i > 0 { out += "." }
            out += isBare(component) ? component : quoted(component)
        }
        return out
    }

    static func isBare(_ key: String) -> Bool {
        !key.isEmpty && key.utf8.allSatisfy(isBareKeyByte)
    }

    /// A basic-string rendering, with control characters escaped so messages stay on one line.
    static func quoted(_ text: String, limit: Int = 60) -> String {
        var out = "\""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == limit { out += "…"; break }
            count += 1
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += "\\u" + hex(scalar.value, width: 4)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

/// Bare keys are ASCII letters, digits, `_` and `-`.
@inline(__always)
func isBareKeyByte(_ b: UInt8) -> Bool {
    switch b {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
         UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
        return true
    default:
        return false
    }
}

/// Upper-case hex, zero-padded to `width`.
func hex(_ value: UInt32, width: Int) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
}
