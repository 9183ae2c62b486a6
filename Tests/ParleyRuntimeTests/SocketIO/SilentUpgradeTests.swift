import NIOCore
import NIOPosix
import ParleyCore
import ParleySocketIO
import Testing

/// A server that accepts the TCP connection and never says a word: the
/// WebSocket upgrade must time out like the TCP connect does, or the bot's
/// connect (and its shutdown) would wait forever. Found when a blackholed
/// link swallowed a reconnect's upgrade request.
@Suite(.timeLimit(.minutes(1)))
struct SilentUpgradeTests {
    @Test func anUnansweredUpgradeTimesOut() async throws {
        let silent = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        defer { silent.close(promise: nil) }
        var options = SocketIOOptions()
        options.transports = [.websocket]
        let transport = SocketIOTransport(endpoint: SocketIOEndpoint(host: "127.0.0.1", port: silent.localAddress!.port!),
                                          name: "parley", options: options, connectTimeout: 1)
        let started = ContinuousClock.now
        do {
            _ = try await transport.connect()
            Issue.record("connected to a server that never answered")
        } catch let error as TransportError {
            #expect(error.kind == .timeout, "\(error)")
            #expect(error.message.contains("WebSocket upgrade"), "\(error)")
        }
        // What it guards against is waiting for ever; 10 s allows a loaded machine.
        #expect(ContinuousClock.now - started < .seconds(10))
    }
}
