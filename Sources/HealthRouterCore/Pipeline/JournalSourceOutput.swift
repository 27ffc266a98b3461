import Foundation
import Synchronization

/// The `SourceOutput` a finite source writes into: appends each batch to the journal
/// (durable when `emit` returns), wakes the sink workers, and keeps the counts the
/// import summary and the progress line show. Used from the source's thread; its
/// counters may be read from any thread.
public final class JournalSourceOutput: SourceOutput, @unchecked Sendable {
    // @unchecked: `journal` is touched only by the source's thread (emit); every
    // other field is behind `counters`.
    private let journal: Journal
    private let sourceName: String
    private let control: WorkerControl
    private let counters = Mutex(ImportCounters())

    public init(journal: Journal, sourceName: String, control: WorkerControl) {
        self.journal = journal
        self.sourceName = sourceName
        self.control = control
    }

    public func emit(_ items: [HealthItem]) throws {
        guard !items.isEmpty else { return }
        let result = try journal.append(items, source: sourceName)
        counters.withLock { $0.appended.merge(result) }
        if result.lastSequence != nil { control.notifyAppended() }
    }

    public func skipped(_ reason: String, location: String?) {
        counters.withLock {
            $0.skipped[reason, default: 0] += 1
            if $0.skippedExamples[reason] == nil, let location { $0.skippedExamples[reason] = location }
        }
    }

    public func progress(bytes: Int64, total: Int64?) {
        counters.withLock {
            $0.bytes = bytes
            $0.totalBytes = total
        }
    }

    /// A snapshot of the counts so far.
    public var snapshot: ImportCounters { counters.withLock { $0 } }
}

/// What an import has read so far.
public struct ImportCounters: Sendable {
    public var appended = AppendResult()
    public var skipped: [String: Int] = [:]
    /// The first location where each skip reason was seen.
    public var skippedExamples: [String: String] = [:]
    public var bytes: Int64 = 0
    public var totalBytes: Int64?

    public init() {}

    /// Items read: new, duplicates, changed and tombstones.
    public var records: Int { appended.newCount + appended.duplicateCount + appended.changed }
}
