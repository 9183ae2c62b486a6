import ParleyRuntime
import Testing

/// A text log record is one line, whatever a chat user put in a name or a
/// message that a plugin logs: no forged lines, no terminal escapes.
struct LogLineTests {
    @Test func controlCharactersAreWrittenEscaped() {
        let forged = "audit user=mallory\n2026-12-01T23:59:59.000Z parley critical: FORGED\r\u{1B}[31mred\u{85}\u{2028}\u{7F} tab\tescaped"
        let line = ParleyLogHandler.oneLine(forged)
        #expect(line == #"audit user=mallory\n2026-12-01T23:59:59.000Z parley critical: FORGED\r\u{1b}[31mred\u{85}\u{2028}\u{7f} tab\tescaped"#)
        #expect(!line.contains { $0.isNewline })
    }

    @Test func printableTextIsUntouched() {
        for text in ["plain", "é ✓ 日本 🙂", "a \\n that was typed", "¡hola! £5 – fine"] {
            #expect(ParleyLogHandler.oneLine(text) == text)
        }
    }
}
