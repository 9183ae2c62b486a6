import Foundation
import Testing

/// The chaos scenario (`ChaosRunner`) once per transport, one at a time:
/// each restarts its server 20 times, kills the bot 10 times and silences
/// its link 5 times, and the STOMP one restarts the shared RabbitMQ node, so
/// `make test` runs this suite in a pass of its own (nothing else may use
/// the broker meanwhile, and recovery times mean more on a quiet machine).
@Suite(.serialized, .timeLimit(.minutes(5)))
struct ChaosTests {
    func run(_ target: any ChaosTarget) async throws {
        let runner = try ChaosRunner(target: target)
        let report: ChaosRunner.Report
        do {
            report = try await runner.run()
        } catch {
            await target.stop()
            throw error
        }
        await target.stop()
        ChaosRunner.publish(report)
        ChaosRunner.check(report)
    }

    @Test func streamchat() async throws { try await run(try await StreamChatChaos.start()) }
    @Test func socketio() async throws { try await run(try await SocketIOChaos.start()) }
    @Test func rest() async throws { try await run(try await RESTChaos.start()) }
    @Test func stomp() async throws { try await run(try await STOMPChaos.start()) }
}
