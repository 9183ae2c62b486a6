import Foundation
import NIOCore
import ParleyCore
import ParleyNet
import ParleyREST
@testable import ParleyRuntime
import ParleySocketIO
import ParleyStreamChat
import ParleyTestSupport
import Testing

/// A bot pointed at a server of another kind (a StreamChat port in a
/// Socket.IO or REST bot's config) is told so in words, not in the names of
/// the HTTP and NIO libraries' error types.
struct WrongServerTests {
    @Test func aServerOfAnotherKindIsSaidToBeOne() async throws {
        let server = try await StreamChatServer.start(.init())
        defer { Task { await server.shutdown() } }
        let endpoint = SocketIOEndpoint(host: "127.0.0.1", port: server.port)
        var rest = RESTOptions()
        rest.email = "bot@example.com"
        rest.password = "secret"
        rest.serviceKey = "key"
        rest.maxRetries = 0
        rest.requestTimeout = 5
        let transports: [(String, any Transport)] = [
            ("socketio", SocketIOTransport(endpoint: endpoint, name: "bot", connectTimeout: 5)),
            ("rest", RESTTransport(endpoint: endpoint, name: "bot", rooms: ["acme/general"], options: rest, connectTimeout: 5, log: { _ in })),
        ]
        for (name, transport) in transports {
            do {
                let session = try await transport.connect(resumingAfter: [:], on: nil)
                await session.close()
                Issue.record("\(name): connected to a StreamChat server")
            } catch {
                let text = "\(error)"
                #expect(text.contains("without an answer (is the address right, and is it a server of this transport?)"), "\(name): \(text)")
                #expect(!text.contains("HTTPClientError") && !text.contains("Inappropriate operation"), "\(name): \(text)")
            }
        }
    }

    /// A StreamChat bot at an HTTP server's address gets the server's status
    /// line for its login: the link is dropped saying so, not kept online.
    @Test func aStreamChatBotAtAnHTTPServerSaysSo() async throws {
        let server = try await SocketChatServer.start(.init())
        defer { Task { await server.shutdown() } }
        let rec = Recorder()
        let transport = StreamChatTransport(host: "127.0.0.1", port: server.port, name: "bot", connectTimeout: 5)
        let runner = BotRunner(spec: try botSpec(name: "bot", port: 0, plugins: [], transport: transport), observer: rec.observer)
        let run = Task { await runner.run() }
        #expect(await eventually { !rec.logs(containing: "the server answered in HTTP").isEmpty }, "\(rec.logs.map(\.text))")
        #expect(rec.logs(containing: "is the address a StreamChat server's?").count >= 1)
        await runner.stop()
        _ = await run.value
    }

    /// A reset or a close in words: before any answer it hints at a wrong
    /// address; on a link that was up it says only what happened, and never
    /// NIO's own names for its calls.
    @Test func aResetIsSaidInWords() {
        let reset = IOError(errnoCode: ECONNRESET, reason: "read(descriptor:pointer:size:)")
        #expect(NetworkErrors.describe(reset) == "the server reset the connection without an answer (is the address right, and is it a server of this transport?)")
        #expect(NetworkErrors.describe(reset, established: true) == "the server reset the connection")
        #expect(NetworkErrors.describe(ChannelError.ioOnClosedChannel, established: true) == "the server closed the connection")
    }
}
