import Foundation
import TestSupport
import Testing
@testable import HealthRouterCore

@Suite struct LiveFeedTests {
    @Test func workersTakeJustAppendedEntriesAndFallBackOutsideTheWindow() throws {
        let journal = try Journal(stateDirectory: makeTemporaryDirectory())
        let feed = LiveFeed(window: 2)
        for batch in 0..<3 {
            let items = (0..<10).map { HealthItem.sample(heartRate(60, at: Int64(batch * 10 + $0))) }
            let appended = try journal.appendCollecting(items, source: "s")
            #expect(appended.entries.map(\.sequence) == Array(Int64(batch * 10 + 1)...Int64(batch * 10 + 10)))
            feed.publish(appended.entries)
        }
        // The first batch left the window: a worker at 0 reads the journal.
        #expect(feed.entries(after: 0, limit: 100) == nil)
        // Consecutive batches come together, up to the limit.
        #expect(feed.entries(after: 10, limit: 100)?.map(\.sequence) == Array(11...30))
        #expect(feed.entries(after: 14, limit: 3)?.map(\.sequence) == [15, 16, 17])
        #expect(feed.entries(after: 30, limit: 100) == nil)
        // What the feed hands out is what the journal stored.
        let stored = try journal.entries(after: 20, limit: 10).map { try $0.decoded() }
        #expect(feed.entries(after: 20, limit: 10) == stored)
    }
}
