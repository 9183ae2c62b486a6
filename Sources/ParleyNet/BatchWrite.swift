import ParleyCore

/// The batch send of a transport that writes a whole batch at once:
/// `encode` adds one message to the pending write (throwing refuses that
/// message alone, and nothing of it may have been added), then `write`
/// sends what was encoded. A failed write fails the first encoded message
/// and everything after it.
public nonisolated(nonsending) func sendAsOneWrite(_ batch: [OutgoingMessage], encode: (OutgoingMessage) throws -> Void,
                                            write: () async throws -> Void) async -> [SendOutcome] {
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
    guard let first = firstWritten else { return outcomes }
    do {
        try await write()
    } catch {
        return Array(outcomes[..<first]) + [.failed(error)]
    }
    return outcomes
}
