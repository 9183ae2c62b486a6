import CParleyLua
import Foundation
import Testing

/// Parley's budgeted matcher must agree with stock Lua 5.4 on every case of
/// the conformance table (captures, %b, %f, anchors, position captures,
/// gmatch, gsub with string/table/function replacements, every error), and
/// 4,000 random cases from a fixed seed.
@Test func patternMatcherConformsToStockLua() throws {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/pattern_conformance.lua")
    let source = try Data(contentsOf: url)
    var passed = 0, failed = 0
    var details = [CChar](repeating: 0, count: 1 << 16)
    let status = source.withUnsafeBytes { raw in
        parley_pattern_selfcheck(raw.baseAddress!.assumingMemoryBound(to: CChar.self), raw.count,
                                 &passed, &failed, &details, details.count)
    }
    let text = String(decoding: details.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    #expect(status == 0, "conformance script failed: \(text)")
    #expect(failed == 0, "mismatches:\n\(text)")
    #expect(passed >= 4_554)
}
