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
            outcomes.append(.refused(refusal(error)))
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

/// The confirmed send of a transport (`TransportSession.write`): one
/// message at a time, each started from the confirmation of the one before
/// it (a RECEIPT, an ack), so a batch needs no task. `start` begins one send
/// and calls `confirmed` once; throwing refuses that message alone (nothing
/// of it went out). A confirmation that fails as `.refused` refuses its
/// message; any other failure fails it and ends the batch. The future never
/// fails.
public func writeInTurn(_ batch: [OutgoingMessage], on loop: any EventLoop,
                        start: @escaping @Sendable (OutgoingMessage, _ confirmed: @escaping @Sendable (Result<Void, any Error>) -> Void) throws -> Void)
    -> EventLoopFuture<[SendOutcome]> {
    let done = loop.makePromise(of: [SendOutcome].self)
    writeNext(batch[...], outcomes: [], start: start, done: done)
    return done.futureResult
}

/// `writeInTurn` from the first of `rest` that goes out.
private func writeNext(_ rest: ArraySlice<OutgoingMessage>, outcomes: [SendOutcome],
                       start: @escaping @Sendable (OutgoingMessage, @escaping @Sendable (Result<Void, any Error>) -> Void) throws -> Void,
                       done: EventLoopPromise<[SendOutcome]>) {
    var rest = rest, outcomes = outcomes
    while let m = rest.popFirst() {
        do {
            try start(m) { [rest, outcomes] result in
                switch result {
                case .success:
                    writeNext(rest, outcomes: outcomes + [.delivered], start: start, done: done)
                case .failure(let error as TransportError) where error.kind == .refused:
                    writeNext(rest, outcomes: outcomes + [.refused(error)], start: start, done: done)
                case .failure(let error):
                    done.succeed(outcomes + [.failed(error)])
                }
            }
            return
        } catch {
            outcomes.append(.refused(refusal(error)))
        }
    }
    done.succeed(outcomes)
}

/// Why a message that cannot go out was refused.
private func refusal(_ error: any Error) -> TransportError {
    error as? TransportError ?? TransportError(.refused, "\(error)")
}
