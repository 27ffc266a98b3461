import Foundation
import Synchronization

/// The journal as the long-running sources share it: one connection, one append at a
/// time (the journal is not thread-safe), callable from any thread. Every append wakes the
/// sink workers.
public final class PushIngest: Sendable {
    private let journal: Mutex<Journal>
    private let control: WorkerControl
    private let totals = Mutex(AppendResult())

    public init(stateDirectory: String, control: WorkerControl) throws {
        let journal = try Journal(stateDirectory: stateDirectory)
        // A 200 promises the samples are kept: every commit reaches the disk before the
        // reply (WAL's NORMAL survives a killed process, not a power cut).
        try journal.database.execute("PRAGMA synchronous=FULL")
        self.journal = Mutex(journal)
        self.control = control
    }

    /// Appends `items` from the source named `source` in one transaction; returns once they
    /// are durable, with what was new.
    public func append(_ items: [HealthItem], source: String) throws -> AppendResult {
        guard !items.isEmpty else { return AppendResult() }
        let result = try journal.withLock { journal -> AppendResult in
            try journal.append(items, source: source)
        }
        if result.lastSequence != nil { control.notifyAppended() }
        totals.withLock { $0.merge(result) }
        return result
    }

    /// The highest sequence written so far.
    public func head() throws -> Int64 {
        try journal.withLock { try $0.head() }
    }

    /// Everything appended through this ingest since it was made.
    public var appendedSoFar: AppendResult { totals.withLock { $0 } }
}
