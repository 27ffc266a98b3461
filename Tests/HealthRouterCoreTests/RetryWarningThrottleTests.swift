import Foundation
import Testing
@testable import HealthRouterCore

/// A store down all night: the first failures are logged, then one a 10 minutes, and a new error at once.
@Suite struct RetryWarningThrottleTests {
    @Test func aLongOutageLogsFewLines() {
        var throttle = RetryWarningThrottle()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        // Nine hours of a failure a minute (the retry cap), one error throughout.
        var logged: [Int] = []
        for attempt in 1...540 where throttle.shouldLog(attempt: attempt, message: "connection refused",
                                                         now: start.addingTimeInterval(Double(attempt) * 60)) {
            logged.append(attempt)
        }
        #expect(logged.prefix(8) == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(logged.count == 8 + 532 / 10)
        #expect(zip(logged.dropFirst(8), logged.dropFirst(9)).allSatisfy { $1 - $0 == 10 })
        // Another error is said at once; after a recovery, the first failures are loud again.
        let changed = throttle.shouldLog(attempt: 541, message: "password authentication failed", now: start.addingTimeInterval(541 * 60))
        let same = throttle.shouldLog(attempt: 542, message: "password authentication failed", now: start.addingTimeInterval(542 * 60))
        // After a recovery (`reset`), a failure past the first few in a new row is said again at once.
        throttle.reset()
        let afterRecovery = throttle.shouldLog(attempt: 9, message: "password authentication failed",
                                               now: start.addingTimeInterval(543 * 60))
        #expect(changed && !same && afterRecovery)
    }
}
