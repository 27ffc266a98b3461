import Foundation
import Synchronization
import Testing
import TestSupport
@testable import HTTPPushSource

struct ParseBudgetTests {
    /// A request waits while its bytes do not fit, and requests go in the order they asked: a
    /// small one that would fit does not pass a large one waiting before it.
    @Test func requestsWaitInTheOrderTheyAsked() {
        let budget = ParseBudget(capacity: 8)
        let order = Mutex<[String]>([])
        let first = budget.take(3)
        order.withLock { $0.append("first") }
        let done = DispatchGroup()
        let held = Mutex<[String: Int]>([:])
        func start(_ name: String, _ bytes: Int) {
            done.enter()
            Thread.detachNewThread {
                let taken = budget.take(bytes)
                order.withLock { $0.append(name) }
                held.withLock { $0[name] = taken }
                done.leave()
            }
        }
        start("large", 20)   // more than the capacity: takes all of it, so waits for `first`
        #expect(eventually(every: 1_000) { budget.requestsWaiting == 1 })
        start("small", 3)    // fits beside `first`, but `large` asked before
        #expect(eventually(every: 1_000) { budget.requestsWaiting == 2 })
        usleep(50_000)
        #expect(order.withLock { $0 } == ["first"])
        budget.giveBack(first)
        #expect(eventually(every: 1_000) { order.withLock { $0 }.count == 2 })
        usleep(50_000)
        #expect(order.withLock { $0 } == ["first", "large"])
        #expect(held.withLock { $0["large"] } == 8)
        budget.giveBack(8)
        done.wait()
        #expect(order.withLock { $0 } == ["first", "large", "small"])
        budget.giveBack(3)
        #expect(budget.highWater.withLock { $0 } == (8, 1))
        #expect(budget.requestsWaiting == 0)
    }

    /// Requests that fit side by side hold the budget together.
    @Test func requestsThatFitGoTogether() {
        let budget = ParseBudget(capacity: 8)
        let a = budget.take(4)
        let b = budget.take(4)
        #expect(budget.highWater.withLock { $0 } == (8, 2))
        budget.giveBack(a)
        budget.giveBack(b)
        #expect(budget.take(0) == 1)   // an empty body still counts as a request
    }
}
