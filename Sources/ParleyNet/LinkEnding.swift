import NIOConcurrencyHelpers
import ParleyCore

/// How a link ended, for its inbound handler to tell once: the first error
/// or close wins, and a close the bot asked for (the link set `closing`) is
/// no error.
package struct LinkEnding {
    private let closing: NIOLockedValueBox<Bool>
    private var told = false

    package init(closing: NIOLockedValueBox<Bool>) { self.closing = closing }

    /// The bot closed the link itself.
    package var closedByBot: Bool { closing.withLockedValue { $0 } }

    /// What a connection that went inactive reports: nothing when the bot closed it.
    package var inactive: TransportError? {
        closedByBot ? nil : TransportError(.closed, "the server closed the connection")
    }

    /// True once the end has been told; reads after it are dropped.
    package var isTold: Bool { told }

    /// True the first time only: the caller then tells its owner.
    package mutating func tell() -> Bool {
        defer { told = true }
        return !told
    }
}
