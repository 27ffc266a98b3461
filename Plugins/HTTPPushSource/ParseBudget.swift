import Foundation
import Synchronization

/// The body bytes parsed and journaled at once, all requests together. A body's samples take
/// 10 to 20 times its size until they are journaled, which the upload budget, counting bodies,
/// does not see: 32 bodies of 8 MB at once took a daemon to 2.7 GB. A request takes its body's
/// size (a body larger than the capacity, the whole capacity) before parsing it and waits while
/// that does not fit; requests go in the order they asked, so a large body is not passed over by
/// a stream of small ones. Requests wait on their own connection's thread (libmicrohttpd runs a
/// thread per connection), their bodies still held in the upload budget.
final class ParseBudget: @unchecked Sendable {
    /// Bytes in all.
    let capacity: Int
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var held = 0
    private var nextTicket = 0
    private var nowServing = 0
    /// The most bytes held at once, and the most requests holding some at once (tests read them).
    let highWater = Mutex<(bytes: Int, requests: Int)>((0, 0))
    private var requestsHolding = 0

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Waits until `bodyBytes` (at most the capacity) fit beside what is held, then takes them;
    /// returns what was taken, for `giveBack`.
    func take(_ bodyBytes: Int) -> Int {
        let bytes = min(max(bodyBytes, 1), capacity)
        condition.lock()
        defer { condition.unlock() }
        let ticket = nextTicket
        nextTicket += 1
        while ticket != nowServing || held + bytes > capacity {
            condition.wait()
        }
        held += bytes
        requestsHolding += 1
        nowServing += 1
        // The next in line may fit too.
        condition.broadcast()
        let (heldNow, requestsNow) = (held, requestsHolding)
        highWater.withLock { $0 = (max($0.bytes, heldNow), max($0.requests, requestsNow)) }
        return bytes
    }

    /// Requests waiting in `take`.
    var requestsWaiting: Int {
        condition.lock()
        defer { condition.unlock() }
        return nextTicket - nowServing
    }

    /// Returns bytes `take` took.
    func giveBack(_ bytes: Int) {
        condition.lock()
        held -= bytes
        requestsHolding -= 1
        condition.broadcast()
        condition.unlock()
    }
}
