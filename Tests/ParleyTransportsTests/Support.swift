import ParleyTestSupport
import ParleyStreamChat

/// Runs `body` against a fresh server and always shuts it down.
func withServer(
    _ config: StreamChatServer.Configuration = .init(),
    _ body: (StreamChatServer) async throws -> Void
) async throws {
    let server = try await StreamChatServer.start(config)
    do {
        try await body(server)
    } catch {
        await server.shutdown()
        throw error
    }
    await server.shutdown()
}

/// Connects, sends `USR_NAME` and reads the client's own `has joined`.
func join(_ name: String, port: Int, receiveBuffer: Int32? = nil) throws -> RawClient {
    let client = try RawClient(port: port, receiveBuffer: receiveBuffer)
    try client.send("USR_NAME::\(name)::END")
    try client.skip(until: "\(name) has joined")
    return client
}
