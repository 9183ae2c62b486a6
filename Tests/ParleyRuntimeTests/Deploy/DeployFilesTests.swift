import Foundation
import ParleyTestSupport
import Testing

/// `deploy/kubernetes/`: valid for a current Kubernetes, checked offline by
/// `kubernetes-validate` (the test venv), and consistent with itself.
struct DeployFilesTests {
    static let folder = packageRoot.appendingPathComponent("deploy/kubernetes")

    @Test func theManifestsAreValidForACurrentKubernetes() async throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter { $0.hasSuffix(".yaml") }.sorted()
        #expect(files == ["configmap.yaml", "poddisruptionbudget.yaml", "services.yaml", "statefulset.yaml"])
        let p = Process()
        p.executableURL = packageRoot.appendingPathComponent(".venv/bin/kubernetes-validate")
        p.arguments = ["--strict"] + files.map { Self.folder.appendingPathComponent($0).path }
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        try p.run()
        let r = await finish(p, stdout: out)
        #expect(r.status == 0, "\(r.stdout)")
        for kind in ["configmap/parley-config", "poddisruptionbudget/parley", "service/parley", "service/parley-metrics", "statefulset/parley"] {
            #expect(r.stdout.contains("passed for resource \(kind)"), "\(r.stdout)")
        }
    }

    /// The StatefulSet's replicas and its `--shard auto/N` agree, its probes
    /// are the server's, and the ConfigMap's bot.toml is a config `parley check` takes.
    @Test func theStatefulSetMatchesItsShardsAndTheConfigChecks() async throws {
        let set = try String(contentsOf: Self.folder.appendingPathComponent("statefulset.yaml"), encoding: .utf8)
        let replicas = set.split(separator: "\n").first { $0.contains("replicas:") }.flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }
        #expect(replicas != nil && set.contains(#""--shard", "auto/\#(replicas!)""#))
        #expect(set.contains("path: /healthz") && set.contains("path: /readyz") && set.contains("readOnlyRootFilesystem: true"))
        // The ConfigMap's files, as the pod sees them, through `parley check`.
        let map = try String(contentsOf: Self.folder.appendingPathComponent("configmap.yaml"), encoding: .utf8)
        let dir = try temporaryDirectory()
        func block(_ key: String) -> String {
            let lines = map.split(separator: "\n", omittingEmptySubsequences: false)
            guard let start = lines.firstIndex(where: { $0 == "  \(key): |" }) else { return "" }
            return lines[(start + 1)...].prefix { $0.hasPrefix("    ") || $0.isEmpty }.map { $0.dropFirst(min(4, $0.count)) }.joined(separator: "\n")
        }
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("plugins"), withIntermediateDirectories: true)
        try block("greeter.lua").write(to: dir.appendingPathComponent("plugins/greeter.lua"), atomically: true, encoding: .utf8)
        try block("bot.toml").replacingOccurrences(of: "/data/", with: dir.path + "/data/")
            .write(to: dir.appendingPathComponent("bot.toml"), atomically: true, encoding: .utf8)
        let out = Pipe()
        let check = try launchParley(["check", dir.appendingPathComponent("bot.toml").path, "--shards", "\(replicas ?? 1)"], stdout: out)
        let r = await finish(check, stdout: out)
        #expect(r.status == 0, "\(r.stdout)")
        #expect(r.stdout.contains("shard 0/3") && r.stdout.contains("ok: 30 bots"), "\(r.stdout)")
    }

    /// The image's default command runs the config the Dockerfile copies in,
    /// with the plugins where the Dockerfile puts them.
    @Test func theImagesDefaultConfigChecksAsTheImageLaysItOut() async throws {
        let docker = try String(contentsOf: packageRoot.appendingPathComponent("deploy/Dockerfile"), encoding: .utf8)
        #expect(docker.contains(#"CMD ["run", "/etc/parley/bot.toml""#))
        #expect(docker.contains("COPY deploy/bot.toml /etc/parley/bot.toml") && docker.contains("COPY Plugins /etc/parley/plugins"))
        let etc = try temporaryDirectory()
        try FileManager.default.copyItem(at: packageRoot.appendingPathComponent("Plugins"), to: etc.appendingPathComponent("plugins"))
        try String(contentsOf: packageRoot.appendingPathComponent("deploy/bot.toml"), encoding: .utf8)
            .replacingOccurrences(of: "\"/data/", with: "\"" + etc.path + "/data/")
            .write(to: etc.appendingPathComponent("bot.toml"), atomically: true, encoding: .utf8)
        let out = Pipe()
        let r = await finish(try launchParley(["check", etc.appendingPathComponent("bot.toml").path], stdout: out), stdout: out)
        #expect(r.status == 0 && r.stdout.contains("ok: 1 bot"), "\(r.stdout)")
    }
}
