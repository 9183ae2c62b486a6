import Foundation
import Testing
import ParleyTestSupport

/// The README is a front page and the docs describe the project as it is:
/// every relative link resolves (file and heading), and no work history
/// (numbered work items) appears in the docs, the code or the tests.
struct DocsTests {
    static func markdownFiles() throws -> [URL] {
        var files = [packageRoot.appendingPathComponent("README.md")]
        let docs = packageRoot.appendingPathComponent("docs")
        let walker = FileManager.default.enumerator(at: docs, includingPropertiesForKeys: nil)
        while let url = walker?.nextObject() as? URL { if url.pathExtension == "md" { files.append(url) } }
        return files
    }

    @Test func theReadmeIsAFrontPage() throws {
        let text = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count
        #expect(lines <= 250, "README.md has \(lines) lines")
        #expect(text.contains("make demo") && text.contains("make test"))
    }

    @Test func everyRelativeLinkResolves() throws {
        let link = try Regex(#"\]\(([^)\s]+)\)"#)
        var broken: [String] = []
        for file in try Self.markdownFiles() {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in text.matches(of: link) {
                let target = String(text[match.range].dropFirst(2).dropLast())
                if target.hasPrefix("http://") || target.hasPrefix("https://") || target.hasPrefix("mailto:") { continue }
                let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let path = parts[0], anchor = parts.count > 1 ? parts[1] : nil
                let resolved = path.isEmpty ? file : file.deletingLastPathComponent().appendingPathComponent(path).standardizedFileURL
                guard FileManager.default.fileExists(atPath: resolved.path) else {
                    broken.append("\(file.lastPathComponent): \(target) (no such file)")
                    continue
                }
                if let anchor, resolved.pathExtension == "md" {
                    let headings = try Self.anchors(in: String(contentsOf: resolved, encoding: .utf8))
                    if !headings.contains(anchor) { broken.append("\(file.lastPathComponent): \(target) (no such heading)") }
                }
            }
        }
        #expect(broken.isEmpty, "\(broken)")
    }

    /// Heading anchors as GitHub makes them: lower case, punctuation dropped, spaces to hyphens.
    static func anchors(in markdown: String) throws -> Set<String> {
        var out: Set<String> = []
        var inFence = false
        for line in markdown.split(separator: "\n") {
            if line.hasPrefix("```") { inFence.toggle() }
            guard !inFence, line.hasPrefix("#") else { continue }
            let title = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)
            let slug = String(title.lowercased().unicodeScalars.filter {
                CharacterSet.alphanumerics.contains($0) || $0 == " " || $0 == "-" || $0 == "_"
            }.map(Character.init)).replacingOccurrences(of: " ", with: "-")
            var candidate = slug, n = 1
            while out.contains(candidate) { candidate = "\(slug)-\(n)"; n += 1 }
            out.insert(candidate)
        }
        return out
    }

    @Test func noWorkHistoryInTheProject() throws {
        // Built from parts, so this file does not match itself.
        let history = try Regex("(st" + "op|iss" + "ue) [0-9]+")
        var hits: [String] = []
        for folder in ["README.md", "docs", "Sources", "Tests", "Plugins", "Examples"] {
            let root = packageRoot.appendingPathComponent(folder)
            var files: [URL] = []
            if folder.hasSuffix(".md") { files = [root] } else {
                let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
                while let url = walker?.nextObject() as? URL {
                    if ["swift", "md", "lua", "c", "h", "sh", "py", "toml", "jsonl"].contains(url.pathExtension) { files.append(url) }
                }
            }
            for file in files {
                guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
                for (i, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                where line.contains(history) {
                    hits.append("\(file.path.replacingOccurrences(of: packageRoot.path + "/", with: "")):\(i + 1)")
                }
            }
        }
        #expect(hits.isEmpty, "\(hits.prefix(10))")
    }
}
