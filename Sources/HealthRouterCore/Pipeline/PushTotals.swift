import Synchronization

/// What the pushes of a process appended, summed: one per process, handed to each `PushIngest`
/// the daemon makes, so that a config reload (a new ingest) does not reset the admin source's
/// counters, which Prometheus takes for a restart.
public final class PushTotals: Sendable {
    private let totals = Mutex(AppendResult())

    public init() {}

    func add(_ result: AppendResult) {
        totals.withLock { $0.merge(result) }
    }

    public var value: AppendResult { totals.withLock { $0 } }
}
