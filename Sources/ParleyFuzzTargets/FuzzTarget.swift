/// One parser under fuzz: a name for the command line and a function that
/// feeds it one input.
///
/// `run` must swallow every error the parser throws: refusing bad bytes is the
/// parser's job, not a finding. The only findings are a crash (a trap, an
/// out-of-bounds access, a broken oracle reported through `FuzzCheck`) and an
/// input that takes longer than `FuzzLimits.perInput`.
public struct FuzzTarget: Sendable {
    public let name: String
    /// One line for `parley-fuzz` without arguments.
    public let summary: String
    public let run: @Sendable (UnsafeRawBufferPointer) -> Void

    public init(name: String, summary: String, run: @escaping @Sendable (UnsafeRawBufferPointer) -> Void) {
        self.name = name
        self.summary = summary
        self.run = run
    }
}

/// Every fuzz target. Adding a parser is one `static let` in its own file and
/// one entry here; the corpus goes in `Tests/Fuzz/Corpus/<name>/`, and
/// `make fuzz`, the replay tests and `parley-fuzz` pick it up by name.
public enum FuzzTargets {
    public static let all: [FuzzTarget] = [
        .engineIO,
        .socketIO,
        .streamChat,
        .json,
        .toml,
        .journal,
        .pattern,
        .stomp,
        .restChat,
        .cron,
        .luaJSON,
    ]

    public static func named(_ name: String) -> FuzzTarget? {
        all.first { $0.name == name }
    }
}

/// The promise every target is held to.
public enum FuzzLimits {
    /// Longest time one input may take: the "each input handled within 100 ms".
    public static let perInputNanoseconds: UInt64 = 100_000_000
}

/// Oracle failures. A target that can tell a wrong answer from a right one
/// (a round trip that does not come back equal, two decoders that disagree)
/// reports it here, which traps so libFuzzer saves the input as a crash.
public enum FuzzCheck {
    public static func require(
        _ condition: @autoclosure () -> Bool, _ target: String, _ message: @autoclosure () -> String
    ) {
        if !condition() { fatalError("parley-fuzz \(target): \(message())") }
    }
}
