import ParleyCore

/// A byte pipe that carries STOMP frames: a WebSocket (Web-STOMP) or a plain
/// TCP connection (RabbitMQ's port 61613). The STOMP client above it sees
/// only bytes, so framing, heart-beats and receipts are written once.
protocol STOMPLink: Sendable {
    /// Writes without waiting (heart-beats, typing).
    func enqueue(_ bytes: [UInt8])
    /// Writes and returns once the bytes are handed to the network.
    func send(_ bytes: [UInt8]) async throws
    /// Ends the connection politely (a WebSocket close frame); the sink hears `closed(nil)`.
    func close()
    /// Drops the connection without a goodbye.
    func abort()
}

/// Where a link hands what it receives: bytes in order, then exactly one
/// `closed` (nil: this side closed on purpose).
struct STOMPLinkSink: Sendable {
    /// Returns an error to drop the link with it (a malformed frame).
    var bytes: @Sendable ([UInt8]) -> TransportError?
    var closed: @Sendable (TransportError?) -> Void
}
