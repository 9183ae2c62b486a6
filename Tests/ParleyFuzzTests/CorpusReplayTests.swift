import ParleyFuzzTargets
import Testing

/// Replays the fuzz corpus and every saved crash through its target, in
/// process: the regression test for what `make fuzz` found. A crash here is
/// a crash of the test binary; a slow input fails its target's case.
@Suite struct CorpusReplayTests {
    static let fuzzDirectory: String = {
        // …/Tests/ParleyFuzzTests/CorpusReplayTests.swift → …/Tests/Fuzz
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(2)
        return parts.joined(separator: "/") + "/Fuzz"
    }()

    @Test(arguments: FuzzTargets.all.map(\.name))
    func corpusAndRegressionsPass(_ name: String) throws {
        let target = try #require(FuzzTargets.named(name))
        let corpus = FuzzReplay.files(in: ["\(Self.fuzzDirectory)/Corpus/\(name)"])
        let regressions = FuzzReplay.files(in: ["\(Self.fuzzDirectory)/Regressions/\(name)"])
        #expect(!corpus.isEmpty, "no seed corpus for \(name)")
        for result in FuzzReplay.run(target, files: corpus + regressions) {
            #expect(!result.slow, "\(result.path) took \(result.nanoseconds / 1_000_000) ms")
        }
    }

    @Test func everyCorpusDirectoryHasATarget() {
        let directories = FuzzReplay.directories(in: "\(Self.fuzzDirectory)/Corpus")
            + FuzzReplay.directories(in: "\(Self.fuzzDirectory)/Regressions")
        #expect(!directories.isEmpty)
        for directory in directories {
            let name = String(directory.split(separator: "/").last ?? "")
            #expect(FuzzTargets.named(name) != nil, "\(directory) names no fuzz target")
        }
    }
}
