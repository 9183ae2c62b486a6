/// One record of a transaction: a caller-defined type tag and opaque bytes.
///
/// The journal never interprets `type` or `payload`; the layer above (the bot's
/// event and state records) owns their meaning.
public struct JournalRecord: Sendable, Hashable {
    public var type: UInt8
    public var payload: [UInt8]

    public init(type: UInt8, payload: [UInt8]) {
        self.type = type
        self.payload = payload
    }

    /// Bytes the record takes in a segment, frame included.
    public var framedSize: Int { FrameFormat.size(payload: payload.count) }
}

/// A recovered transaction: records that were appended together and are
/// returned all-or-nothing.
public struct JournalTransaction: Sendable, Hashable {
    /// Sequence number of `records[0]`; the records are numbered consecutively.
    public var firstSequence: UInt64
    public var records: [JournalRecord]

    public init(firstSequence: UInt64, records: [JournalRecord]) {
        self.firstSequence = firstSequence
        self.records = records
    }

    /// Sequence number of the last record: the value `append` returned for it.
    public var lastSequence: UInt64 {
        firstSequence &+ UInt64(records.count) &- 1
    }
}
