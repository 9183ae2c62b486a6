import ParleyJournal
import Testing
@testable import ParleyConfig

let testFile = "test.toml"

/// Parses and returns the plain document.
func parse(_ text: String) throws -> TOMLValue.Table {
    try TOMLDocument(parsing: text, file: testFile).plain
}

/// The error parsing `text` throws, or nil when it parses.
func parseError(_ text: String) -> ConfigError? {
    do {
        _ = try TOMLDocument(parsing: text, file: testFile)
        return nil
    } catch {
        return error
    }
}

/// Runs `body` and returns the ConfigError it throws (recording an issue otherwise).
func configError(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) -> ConfigError? {
    do {
        try body()
        Issue.record("expected a ConfigError", sourceLocation: sourceLocation)
    } catch let error as ConfigError {
        return error
    } catch {
        Issue.record("expected a ConfigError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// An invalid document and where/how it must fail.
struct InvalidCase: Sendable, CustomTestStringConvertible {
    let text: String
    let line: Int
    let kind: ConfigError.Kind
    let fragment: String
    let key: String?

    init(_ text: String, line: Int, _ kind: ConfigError.Kind = .syntax, _ fragment: String = "", key: String? = nil) {
        self.text = text
        self.line = line
        self.kind = kind
        self.fragment = fragment
        self.key = key
    }

    var testDescription: String { text.debugDescription }
}

func check(_ c: InvalidCase, sourceLocation: SourceLocation = #_sourceLocation) {
    guard let error = parseError(c.text) else {
        Issue.record("parsed without error: \(c.text.debugDescription)", sourceLocation: sourceLocation)
        return
    }
    #expect(error.file == testFile, sourceLocation: sourceLocation)
    #expect(error.line == c.line, "\(error)", sourceLocation: sourceLocation)
    #expect(error.kind == c.kind, "\(error)", sourceLocation: sourceLocation)
    #expect(error.description.hasPrefix("\(testFile):\(c.line): "), "\(error)", sourceLocation: sourceLocation)
    if !c.fragment.isEmpty {
        #expect(error.message.contains(c.fragment), "\(error)", sourceLocation: sourceLocation)
    }
    if let key = c.key {
        #expect(error.key == key, "\(error)", sourceLocation: sourceLocation)
        #expect(error.description.contains("key '\(key)': "), "\(error)", sourceLocation: sourceLocation)
    }
}

