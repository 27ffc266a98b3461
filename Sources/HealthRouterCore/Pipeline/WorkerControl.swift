import Foundation
import Synchronization

/// Shared signals between the code that feeds the journal and the sink workers
/// that drain it: new entries, end of input, stop.
public final class WorkerControl: Sendable {
    private struct State {
        var inputFinished = false
        var stopRequested = false
        var abandoned = false
        var generation: UInt64 = 0
    }

    private let state = Mutex(State())
    private let condition = NSCondition()

    public init() {}

    /// Wakes workers: entries were appended.
    public func notifyAppended() {
        state.withLock { $0.generation &+= 1 }
        condition.lock(); condition.broadcast(); condition.unlock()
    }

    /// No more entries will come (a finite import ended): workers stop once caught up.
    public func finishInput() {
        state.withLock { $0.inputFinished = true }
        condition.lock(); condition.broadcast(); condition.unlock()
    }

    /// Workers stop as soon as their current write returns.
    public func requestStop() {
        state.withLock { $0.stopRequested = true }
        condition.lock(); condition.broadcast(); condition.unlock()
    }

    /// The workers still running after a stop's grace are left behind (`DaemonRun`): another
    /// run's workers may have the sinks now, so these record nothing more in the journal (their
    /// cursors and errors would be stale over the new ones).
    public func abandon() {
        state.withLock { $0.abandoned = true }
    }

    public var isAbandoned: Bool { state.withLock { $0.abandoned } }
    public var isInputFinished: Bool { state.withLock { $0.inputFinished } }
    public var isStopRequested: Bool { state.withLock { $0.stopRequested } }

    /// Sleeps `seconds` unless a stop is requested or `interrupted` turns true (checked when
    /// `wake()` is called): a retry's backoff, which new entries and the end of the input do not
    /// cut short (a store that is down gets its pause either way).
    public func backOff(seconds: Double, interrupted: () -> Bool = { false }) {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: seconds)
        while !state.withLock({ $0.stopRequested }) && !interrupted() {
            if !condition.wait(until: deadline) { break }
        }
    }

    /// Wakes every waiting worker to look at its own state again (`SinkWorker.release`).
    public func wake() {
        condition.lock(); condition.broadcast(); condition.unlock()
    }

    /// Sleeps until something is signalled or `seconds` pass.
    public func wait(seconds: Double) {
        let generation = state.withLock { $0.generation }
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: seconds)
        while state.withLock({ $0.generation == generation && !$0.inputFinished && !$0.stopRequested }) {
            if !condition.wait(until: deadline) { break }
        }
    }
}
