import Foundation
import ParleyCore
import ParleyRuntime
@testable import ParleySocketIO
import Testing
import ParleyTestSupport

/// A throwaway certificate authority and a server certificate for 127.0.0.1
/// (an IP SAN; `subjectAltName` names another), made with the `openssl`
/// command-line tool in a temp folder.
struct TestPKI: Sendable {
    let caFile: String
    let certFile: String
    let keyFile: String

    static func make(subjectAltName: String = "IP:127.0.0.1") async throws -> TestPKI {
        let dir = try temporaryDirectory()
        func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try await openssl(["req", "-x509"] + ec + ["-keyout", path("ca.key"), "-out", path("ca.pem"), "-days", "2",
                     "-subj", "/CN=Parley Test CA", "-addext", "basicConstraints=critical,CA:TRUE",
                     "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
        try await openssl(["req", "-new"] + ec + ["-keyout", path("server.key"), "-out", path("server.csr"), "-subj", "/CN=127.0.0.1"])
        try """
        subjectAltName=\(subjectAltName)
        basicConstraints=critical,CA:FALSE
        keyUsage=critical,digitalSignature
        extendedKeyUsage=serverAuth

        """.write(toFile: path("server.ext"), atomically: true, encoding: .utf8)
        try await openssl(["x509", "-req", "-in", path("server.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"),
                     "-CAcreateserial", "-out", path("server.pem"), "-days", "2", "-extfile", path("server.ext")])
        return TestPKI(caFile: path("ca.pem"), certFile: path("server.pem"), keyFile: path("server.key"))
    }

    /// Runs `openssl`, waiting without blocking a cooperative thread.
    private static func openssl(_ arguments: [String]) async throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["openssl"] + arguments
        let err = Pipe()
        p.standardOutput = FileHandle.nullDevice
        p.standardError = err
        do {
            try p.run()
        } catch {
            throw PeerError("cannot run openssl (Debian: apt-get install openssl): \(error)")
        }
        let (status, said) = await finish(p, stdout: err)
        guard status == 0 else {
            throw PeerError("openssl \(arguments.first ?? "") failed (\(status)): \(said)")
        }
    }
}

/// Socket.IO over TLS against the python-socketio fixture serving a
/// certificate from a private CA: `wss://` and `https://` polling work when
/// `ca_file` names that CA, and fail with a clear certificate error when not.
@Suite(.timeLimit(.minutes(1)))
struct SocketIOTLSTests {
    static func transport(_ name: String, port: Int, links: [SocketIOOptions.Link], caFile: String?,
                          connectTimeout: Double = 5, log: @escaping @Sendable (String) -> Void = { _ in }) -> SocketIOTransport {
        var options = SocketIOOptions()
        options.transports = links
        options.caFile = caFile
        return SocketIOTransport(endpoint: SocketIOEndpoint(host: "127.0.0.1", port: port, tls: true), name: name,
                                 options: options, connectTimeout: connectTimeout, log: log)
    }

    /// Whether `error` is a TransportError whose message names TLS and the certificate.
    static func isCertificateError(_ error: any Error) -> Bool {
        guard let e = error as? TransportError else { return false }
        let m = e.message.lowercased()
        return m.contains("tls") && m.contains("certificate")
    }

    /// With `ca_file` set to the private CA, a session over wss, over https
    /// polling, and over polling upgraded to wss exchanges messages both ways
    /// with a person on wss. Without `ca_file` the private CA is not trusted:
    /// connecting over either link fails with a TransportError whose message
    /// says the certificate is the problem.
    @Test func aPrivateCAIsTrustedOnlyThroughCAFile() async throws {
        let pki = try await TestPKI.make()
        let server = try await PythonSocketChat.start(["--certfile", pki.certFile, "--keyfile", pki.keyFile])
        let alice = try await Person("alice", transport: Self.transport("alice", port: server.port, links: [.websocket], caFile: pki.caFile))
        for (i, links) in [[SocketIOOptions.Link.websocket], [.polling], [.polling, .websocket]].enumerated() {
            let what = links.map(\.rawValue).joined(separator: ",")
            let bot = try await Person("tlsbot\(i)", transport: Self.transport("tlsbot\(i)", port: server.port, links: links, caFile: pki.caFile))
            let client = (bot.session as! SocketIOSession).client
            #expect(await eventually(5) { client.linkName == (links.last == .websocket ? "websocket" : "polling") },
                    "\(what): on \(client.linkName)")
            try await bot.say("hello over \(what)")
            #expect(await eventually(5) { alice.texts(from: "tlsbot\(i)") == ["hello over \(what)"] }, "\(alice.messages)")
            try await alice.say("hi back \(i)")
            #expect(await eventually(5) { bot.texts(from: "alice").contains("hi back \(i)") }, "\(what): \(bot.messages)")
            // A long line that gzips well (python compresses polling answers over 1 KB).
            let long = String(repeating: "\(i)", count: 30_000)
            try await alice.say(long)
            #expect(await eventually(5) { bot.texts(from: "alice").contains(long) }, "\(what): \(bot.messages.map { ($0.user, $0.text.count) })")
            await bot.leave()
        }
        await alice.leave()

        // AsyncHTTPClient retries a failed TLS handshake until the request's
        // deadline, so over polling the error comes after connectTimeout: keep it short.
        for links in [[SocketIOOptions.Link.websocket], [.polling]] {
            await #expect {
                let session = try await Self.transport("doubter", port: server.port, links: links, caFile: nil, connectTimeout: 1).connect()
                await session.close()
            } throws: { error in
                Self.isCertificateError(error)
            }
        }
        await server.stop()
    }

    /// `wss://` or `https://` to a server that speaks no TLS: the error says
    /// so (BoringSSL's WRONG_VERSION_NUMBER), not that a certificate was
    /// refused, which would send the user to `ca_file`.
    @Test func aServerWithoutTLSIsNamedAsSuch() async throws {
        let server = try await PythonSocketChat.start()
        for links in [[SocketIOOptions.Link.websocket], [.polling]] {
            await #expect {
                let session = try await Self.transport("plain", port: server.port, links: links, caFile: nil, connectTimeout: 3).connect()
                await session.close()
            } throws: { error in
                let m = (error as? TransportError)?.message ?? "\(error)"
                return m.contains("the server does not speak TLS") && !m.contains("certificate") && !m.contains(".build")
            }
        }
        await server.stop()
    }

    /// The CA is trusted but the certificate is made out to another name
    /// (`DNS:elsewhere.example`, no IP): refused over either link, and the
    /// error says so. (NIOSSL matches an IP SAN against the address connected
    /// to, whatever name was asked for, so a certificate for 127.0.0.1 is
    /// good for `localhost` too.)
    @Test func aCertificateForAnotherNameIsRefused() async throws {
        let pki = try await TestPKI.make(subjectAltName: "DNS:elsewhere.example")
        let server = try await PythonSocketChat.start(["--certfile", pki.certFile, "--keyfile", pki.keyFile])
        for links in [[SocketIOOptions.Link.websocket], [.polling]] {
            await #expect {
                let session = try await Self.transport("wrongname", port: server.port, links: links, caFile: pki.caFile,
                                                       connectTimeout: 1).connect()
                await session.close()
            } throws: { error in
                Self.isCertificateError(error)
            }
        }
        await server.stop()
    }

    /// A bot facing an untrusted certificate does not crash or give up: it
    /// logs a TLS error each attempt and keeps retrying with backoff, and
    /// connects once it is pointed at the CA.
    @Test func aBotKeepsRetryingAnUntrustedCertificate() async throws {
        let pki = try await TestPKI.make()
        let server = try await PythonSocketChat.start(["--certfile", pki.certFile, "--keyfile", pki.keyFile])
        for links in [[SocketIOOptions.Link.websocket], [.polling]] {
            let rec = Recorder()
            let spec = try botSpec(name: "doubter", port: server.port, plugins: [],
                                   transport: Self.transport("doubter", port: server.port, links: links, caFile: nil, connectTimeout: 1))
            let runner = BotRunner(spec: spec, observer: rec.observer)
            let run = Task { await runner.run() }
            // Each attempt names the certificate; on a loaded machine one may
            // run out of its 1 s before the handshake is through, and says so.
            func named(_ r: LogRecord) -> Bool { r.text.contains("TLS") && r.text.contains("certificate") }
            #expect(await eventually { rec.logs(containing: "cannot connect").filter(named).count >= 3 },
                    "\(rec.logs(containing: "cannot connect").map(\.text))")
            let failures = rec.logs(containing: "cannot connect")
            #expect(failures.allSatisfy { named($0) || $0.text.contains("no answer") }, "\(failures.map(\.text))")
            await runner.stop()
            #expect(await run.value == .stopped)
        }
        await server.stop()
    }
}
