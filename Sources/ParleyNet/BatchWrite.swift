import NIOCore
import ParleyCore

/// The one-write send of a transport (`TransportSession.write`): `encode`
/// adds one message to the pending write (throwing refuses that message
/// alone, and nothing of it may have been added), then `write` sends what
/// was encoded. A failed write fails the first encoded message and
/// everything after it. The future never fails.
public func writeAsOne(_ batch: [OutgoingMessage], on loop: any EventLoop, encode: (OutgoingMessage) throws -> Void,
                       write: () -> EventLoopFuture<Void>) -> EventLoopFuture<[SendOutcome]> {
    var outcomes: [SendOutcome] = []
    outcomes.reserveCapacity(batch.count)
    var firstWritten: Int?
    for m in batch {
        do {
            try encode(m)
            if firstWritten == nil { firstWritten = outcomes.count }
            outcomes.append(.delivered)
        } catch {
            outcomes.append(.refused(error as? TransportError ?? TransportError(.refused, "\(error)")))
        }
    }
    guard let first = firstWritten else { return loop.makeSucceededFuture(outcomes) }
    let done = loop.makePromise(of: [SendOutcome].self)
    write().whenComplete { [outcomes] result in
        switch result {
        case .success: done.succeed(outcomes)
        case .failure(let error): done.succeed(Array(outcomes[..<first]) + [.failed(error)])
        }
    }
    return done.futureResult
}
