import ParleyCore
import ParleyWire

/// A pipe that carries STOMP frames: a WebSocket (Web-STOMP) or a plain TCP
/// connection (RabbitMQ's port 61613). Each link cuts what it reads into
/// frames (TCP in its channel pipeline, `STOMPFrameDecoder`; Web-STOMP per
/// message); the STOMP client above sees only frames, so heart-beats and
/// receipts are written once.
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

/// Where a link hands what it receives: frames and heart-beats in order,
/// then exactly one `closed` (nil: this side closed on purpose). Bytes that
/// are not STOMP close the link with a `.protocolViolation`.
struct STOMPLinkSink: Sendable {
    var item: @Sendable (STOMPItem) -> Void
    var closed: @Sendable (TransportError?) -> Void
}
