import AsyncHTTPClient
import NIOConcurrencyHelpers

/// One transport's own HTTP client, renewed when its link goes silent. A
/// link with no ping within its allowance usually means the path to the
/// server died (a NAT entry dropped, a cable pulled), and the keep-alive
/// connections pooled over that path died with it, just as silently: a
/// request on one waits out its whole timeout. `renew` shuts the old client
/// down, which fails the requests still waiting on it at once, so their
/// callers retry on new connections (a send the server already took then
/// goes out twice: at-least-once). Each transport has its own: a shared
/// one could not be shut down.
package final class RenewableHTTPClient: Sendable {
    private let caFile: String?
    /// Made on first use: a WebSocket-only Socket.IO bot never makes one.
    private let state = NIOLockedValueBox<(client: HTTPClient?, generation: Int)>((nil, 0))

    package init(caFile: String?) {
        self.caFile = caFile
    }

    deinit {
        if let c = state.withLockedValue({ $0.client }) { _ = c.shutdown() }
    }

    /// The client to make a request with, and its generation for `renewed(since:)`.
    package func current() -> (client: HTTPClient, generation: Int) {
        state.withLockedValue { s in
            if s.client == nil { s.client = HTTPClients.makeClient(caFile: caFile) }
            return (s.client!, s.generation)
        }
    }

    /// Whether the client of `generation` was renewed since: a request of it
    /// that failed was failed by `renew`, not by the server.
    package func renewed(since generation: Int) -> Bool {
        state.withLockedValue { $0.generation != generation }
    }

    /// Later requests go out on new connections; those waiting on the old ones fail now.
    package func renew() {
        let old = state.withLockedValue { s in
            defer { s = (nil, s.generation + 1) }
            return s.client
        }
        if let old { _ = old.shutdown() }
    }
}
