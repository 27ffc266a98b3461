import Foundation

/// Which of a sink's failed writes in a row are logged, so that a store down all night does not
/// write a warning a minute: the first `loud` failures, then one every `quietInterval` seconds,
/// and any failure whose error differs from the last one logged. `reset()` when a write works.
struct RetryWarningThrottle {
    var loud = 8
    var quietInterval: TimeInterval = 600
    private var lastMessage: String?
    private var lastLogged: Date?

    /// Whether failure number `attempt` in a row (from 1), failing with `message`, is logged.
    mutating func shouldLog(attempt: Int, message: String, now: Date = Date()) -> Bool {
        let due = attempt <= loud || message != lastMessage
            || lastLogged.map { now.timeIntervalSince($0) >= quietInterval } ?? true
        if due {
            lastMessage = message
            lastLogged = now
        }
        return due
    }

    mutating func reset() {
        lastMessage = nil
        lastLogged = nil
    }
}
