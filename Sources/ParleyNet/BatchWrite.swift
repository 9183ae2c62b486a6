import NIOCore
import ParleyCore

/// The one-write send of a transport (`TransportSession.write`): `encode`
/// adds one message to the pending write (throwing refuses that message
/// alone, and nothing of it may have been added), then `write` sends what
/// was encoded. A failed write fails the first encoded message and
/// everything after it. `done` is called once: in the call when nothing
/// was encoded, else when the write completes.
public func writeAsOne(_ batch: [OutgoingMessage], encode: (OutgoingMessage) throws -> Void,
                       write: () -> EventLoopFuture<Void>, then done: @escaping @Sendable ([SendOutcome]) -> Void) {
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
    guard let first = firstWritten else { return done(outcomes) }
    write().whenComplete { [outcomes] result in
        switch result {
        case .success: done(outcomes)
        case .failure(let error): done(Array(outcomes[..<first]) + [.failed(error)])
        }
    }
}

/// The confirmed send of a transport (`TransportSession.write`): one
/// message at a time, each started from the confirmation of the one before
/// it (a RECEIPT, an ack), so a batch needs no task. `start` begins one send
/// and calls `confirmed` once; throwing refuses that message alone (nothing
/// of it went out). A confirmation that fails as `.refused` refuses its
/// message; any other failure fails it and ends the batch. `done` is called
/// once, from the last confirmation (in the call when nothing went out).
public func writeInTurn(_ batch: [OutgoingMessage],
                        start: @escaping @Sendable (OutgoingMessage, _ confirmed: @escaping @Sendable (Result<Void, any Error>) -> Void) throws -> Void,
                        then done: @escaping @Sendable ([SendOutcome]) -> Void) {
    writeNext(batch[...], outcomes: [], start: start, done: done)
}

/// `writeInTurn` from the first of `rest` that goes out.
private func writeNext(_ rest: ArraySlice<OutgoingMessage>, outcomes: [SendOutcome],
                       start: @escaping @Sendable (OutgoingMessage, @escaping @Sendable (Result<Void, any Error>) -> Void) throws -> Void,
                       done: @escaping @Sendable ([SendOutcome]) -> Void) {
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
                    done(outcomes + [.failed(error)])
                }
            }
            return
        } catch {
            outcomes.append(.refused(refusal(error)))
        }
    }
    done(outcomes)
}

/// Why a message that cannot go out was refused.
private func refusal(_ error: any Error) -> TransportError {
    error as? TransportError ?? TransportError(.refused, "\(error)")
}
