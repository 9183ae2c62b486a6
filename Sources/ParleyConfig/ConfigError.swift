/// The single error type of ParleyConfig.
///
/// Why one type: a person fixing a config needs the same three facts whatever went
/// wrong (bad syntax, a table defined twice, a mistyped or unknown key): which file,
/// which line, which key. Callers can print `description` as is, or switch on `kind`.
public struct ConfigError: Error, CustomStringConvertible, Sendable, Hashable {
    /// What sort of mistake this is, for callers and tests that must not match on text.
    public enum Kind: Sendable, Hashable {
        /// The text is not valid TOML (including invalid UTF-8 and exceeded nesting limits).
        case syntax
        /// Valid syntax, but a key or table is defined twice, or an inline table or
        /// static array is extended; TOML forbids these so a value has one source.
        case redefinition
        /// A key the reading code did not ask for; usually a typo.
        case unknownKey
        /// A key the reading code requires is absent.
        case missingKey
        /// The value has the wrong TOML type.
        case typeMismatch
        /// A number outside the range the reading code allows.
        case outOfRange
        /// Any other rejected value (not one of the allowed choices, custom validation).
        case invalidValue
        /// The file could not be read.
        case io
    }

    public var kind: Kind
    /// The file name given to the parser, used verbatim in messages.
    public var file: String
    /// 1-based line; 0 when no line applies (the file could not be opened).
    public var line: Int
    /// 1-based column in Unicode scalars; 0 when unknown.
    public var column: Int
    /// The dotted key path concerned (`bot.fsync`), if any.
    public var key: String?
    /// What is wrong, without the location prefix.
    public var message: String

    public init(kind: Kind, file: String, line: Int, column: Int = 0, key: String? = nil, message: String) {
        self.kind = kind
        self.file = file
        self.line = line
        self.column = column
        self.key = key
        self.message = message
    }

    /// `FILE:LINE: message`, or `FILE:LINE: key 'a.b.c': message` when a key is concerned.
    /// Unknown keys read `FILE:LINE: unknown key 'a.b.c'` because the key is the message.
    public var description: String {
        var text = file
        if line > 0 { text += ":\(line)" }
        text += ": "
        if let key, kind != .unknownKey { text += "key '\(key)': " }
        return text + message
    }
}
