/// A line diff for `parley plugin test --expect`: the longest common
/// subsequence, printed as `-` (expected, missing) and `+` (actual, extra)
/// lines, with line numbers, and up to two lines of context around each change.
struct LineDiff {
    enum Line: Equatable {
        case same(String)
        case missing(expectedLine: Int, String)
        case extra(actualLine: Int, String)
    }

    let lines: [Line]

    init(expected: [String], actual: [String]) {
        let n = expected.count, m = actual.count
        // lcs[i][j]: the longest common subsequence of expected[i...] and actual[j...].
        var lcs = Array(repeating: Array(repeating: 0, count: m + 1), count: n + 1)
        for i in stride(from: n - 1, through: 0, by: -1) {
            for j in stride(from: m - 1, through: 0, by: -1) {
                lcs[i][j] = expected[i] == actual[j] ? lcs[i + 1][j + 1] + 1 : max(lcs[i + 1][j], lcs[i][j + 1])
            }
        }
        var out: [Line] = []
        var i = 0, j = 0
        while i < n || j < m {
            if i < n, j < m, expected[i] == actual[j] {
                out.append(.same(expected[i])); i += 1; j += 1
            } else if j < m, i == n || lcs[i][j + 1] >= lcs[i + 1][j] {
                out.append(.extra(actualLine: j + 1, actual[j])); j += 1
            } else {
                out.append(.missing(expectedLine: i + 1, expected[i])); i += 1
            }
        }
        lines = out
    }

    var isEmpty: Bool { lines.allSatisfy { if case .same = $0 { true } else { false } } }

    /// The changes with two lines of context, `…` between distant hunks.
    var text: String {
        let changed = lines.indices.filter { if case .same = lines[$0] { false } else { true } }
        var shown = Set<Int>()
        for c in changed { for k in max(0, c - 2)...min(lines.count - 1, c + 2) { shown.insert(k) } }
        var out: [String] = []
        var last = -1
        for k in shown.sorted() {
            if last >= 0, k > last + 1 { out.append("…") }
            switch lines[k] {
            case .same(let s): out.append("  \(s)")
            case .missing(let n, let s): out.append("- \(s)    (expected line \(n))")
            case .extra(let n, let s): out.append("+ \(s)    (action \(n))")
            }
            last = k
        }
        return out.joined(separator: "\n")
    }
}
