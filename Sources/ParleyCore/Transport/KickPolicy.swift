/// What a bot does when the server throws it out (`TransportEvent.kicked`),
/// typically because the same account logged in elsewhere.
public enum KickPolicy: Sendable, Equatable {
    /// Stop this bot and say why: fighting over one login is for an operator to settle.
    case stop
    /// Log in again after this many seconds, taking the account back.
    case reclaim(after: Double)
}
