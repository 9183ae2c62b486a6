import Foundation
import NIOCore
import NIOPosix
import ParleyCore
import ParleySTOMP
import Testing

/// Every test that talks to the RabbitMQ node runs in here, one at a time:
/// one of them restarts the broker, which would cut the others' links.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct RabbitMQTests {}

/// The RabbitMQ node `Tests/Fixtures/rabbitmq/start.sh` starts (as `.ci/run` does):
/// Web-STOMP on `ws://127.0.0.1:15674/ws`, STOMP on `127.0.0.1:61613`, guest/guest.
enum RabbitMQ {
    static let webSTOMP = STOMPEndpoint(link: .websocket, host: "127.0.0.1", port: 15674, requestTarget: "/ws")
    static let tcpSTOMP = STOMPEndpoint(link: .tcp, host: "127.0.0.1", port: 61613)
    static let script = "Tests/Fixtures/rabbitmq/start.sh"

    struct Unavailable: Error, CustomStringConvertible {
        var description: String
    }

    /// Fails (never skips) when the broker is not there, naming the script that starts it.
    static func require() async throws {
        for e in [webSTOMP, tcpSTOMP] {
            do {
                let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .connectTimeout(.seconds(2)).connect(host: e.host, port: e.port).get()
                try? await channel.close()
            } catch {
                throw Unavailable(description: "RabbitMQ is not reachable at \(e) (\(error)); start it with \(script)")
            }
        }
    }

    /// Options for the broker: guest/guest, vhost `/`, quick receipts.
    static func options(_ change: (inout STOMPOptions) -> Void = { _ in }) -> STOMPOptions {
        var o = STOMPOptions()
        o.login = "guest"
        o.passcode = "guest"
        o.receiptTimeout = 5
        change(&o)
        return o
    }

    static func transport(_ name: String, room: String, endpoint: STOMPEndpoint = webSTOMP, options: STOMPOptions = options(),
                          log: @escaping @Sendable (String) -> Void = { _ in }) -> STOMPTransport {
        STOMPTransport(endpoint: endpoint, name: name, rooms: [room], options: options, connectTimeout: 5, log: log)
    }

    /// A room nobody else uses (topics are shared by every test on the broker).
    static func freshRoom() -> String { "t" + UUID().uuidString.prefix(8).lowercased() }

    /// `rabbitmqctl ARGS`, waiting for it without blocking a cooperative
    /// thread (stop_app takes seconds); throws with its output when it fails.
    static func ctl(_ args: String...) async throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["rabbitmqctl", "-q"] + args
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        try p.run()
        let (status, text) = await finish(p, stdout: out)
        if status != 0 {
            throw Unavailable(description: "rabbitmqctl \(args.joined(separator: " ")) failed: \(text)")
        }
    }
}
