/// An immutable value on the heap. A struct that keeps its fields in one
/// is copied with one reference count, however many strings it holds: the
/// messages that cross every stage of a reply (`ChatMessage`,
/// `OutgoingMessage`) do.
final class Shared<Value: Sendable & Equatable>: Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }

    /// A box holding `value` changed by `change` (the box itself never changes).
    func with(_ change: (inout Value) -> Void) -> Shared {
        var copy = value
        change(&copy)
        return Shared(copy)
    }

    static func same(_ a: Shared, _ b: Shared) -> Bool { a === b || a.value == b.value }
}
