import Foundation

/// Delivers entries straight to one sink, outside the journal's cursors: the engine of
/// `backfill` and `migrate`. Entries come in increasing `sequence` (a position the caller
/// can resume from: a journal sequence, or a count of items read); those at or before
/// `resumeAfter` and those the filter refuses are passed over; the rest are written in
/// batches of `batchSize`.
///
/// Every `write` passes the sink the cursor it returned from `prepare()` (`sinkCursor`),
/// so a sink that keeps its own journal cursor keeps it unchanged: a backfill or migration
/// moves no cursor of any sink. After each acknowledged batch `onBatch` receives the
/// position reached (the caller saves it in a `ResumeCursor`).
///
/// A store failure is retried with backoff (`maxAttempts` tries, a busy store's `Retry-After` waited
/// for: `SinkWorker.Settings.oneShot`; `onRetry` hears of each, to tell the user), the sink reconnected (`Sink.reconnect()`) before each retry (a lost connection is
/// not written on again); a
/// `misconfigured` sink is not retried; a rejected batch is
/// split to find the entries the store refuses, which are counted and reported, not written.
public final class DirectDelivery {
    public struct Counts: Sendable {
        /// Samples written, by type.
        public var samplesByType: [String: Int] = [:]
        public var tombstones = 0
        /// Entries passed over because an earlier run already delivered them.
        public var resumed = 0
        /// Entries the filter refused.
        public var filtered = 0
        /// Entries the store refused, with the first reasons.
        public var rejected = 0
        public var rejectionReasons: [String] = []
        /// The last position acknowledged.
        public var position: Int64 = 0

        public var samples: Int { samplesByType.values.reduce(0, +) }
    }

    private let sink: any Sink
    private let sinkCursor: Int64
    private let filter: SampleFilter
    private let resumeAfter: Int64
    private let batchSize: Int
    private let maxAttempts: Int
    private let onBatch: (Int64, Counts) throws -> Void
    private var pending: [JournalEntry] = []
    private var lastSeen: Int64
    public private(set) var counts = Counts()
    /// Asked of each pending entry just before its batch is written, on the caller's thread: false
    /// leaves it out (counted nowhere; the caller counts it). A backfill from a file checks here
    /// again whether a tombstone deleted the sample while its batch filled (a daemon beside it
    /// taking a push), so the sample is not written back over the deletion. Nil: all are written.
    public var admits: ((JournalEntry) throws -> Bool)?
    /// Called before each retry of a failed write, on the caller's thread: the failure, the attempt
    /// that failed (1-based), `maxAttempts`, and the seconds until the next.
    public var onRetry: ((_ error: any Error, _ attempt: Int, _ maxAttempts: Int, _ delay: Double) -> Void)?

    public init(sink: any Sink, sinkCursor: Int64, filter: SampleFilter, resumeAfter: Int64, batchSize: Int = 5_000,
                maxAttempts: Int = 5, onBatch: @escaping (Int64, Counts) throws -> Void) {
        self.sink = sink
        self.sinkCursor = sinkCursor
        self.filter = filter
        self.resumeAfter = resumeAfter
        // A sink whose writes are requests acknowledged one by one: one a batch, so that what a
        // resumed run skips is what the store acknowledged.
        self.batchSize = max(1, min(batchSize, sink.largestBatch ?? batchSize))
        self.maxAttempts = max(1, maxAttempts)
        self.onBatch = onBatch
        lastSeen = resumeAfter
        counts.position = resumeAfter
        pending.reserveCapacity(self.batchSize)
    }

    /// Takes one entry; writes a batch when one is full. Returns whether the entry is to be written
    /// (false: the interrupted run wrote it, or the filter leaves it out).
    @discardableResult
    public func accept(_ entry: JournalEntry) throws -> Bool {
        if entry.sequence <= resumeAfter {
            counts.resumed += 1
            return false
        }
        lastSeen = entry.sequence
        guard filter.selects(entry.item) else {
            counts.filtered += 1
            return false
        }
        pending.append(entry)
        if pending.count >= batchSize { try flush() }
        return true
    }

    /// Writes what is pending and reports the position reached (also past filtered entries).
    public func finish() throws {
        try flush()
        if lastSeen > counts.position {
            counts.position = lastSeen
            try onBatch(lastSeen, counts)
        }
    }

    private func flush() throws {
        guard !pending.isEmpty else { return }
        var batch = pending
        pending.removeAll(keepingCapacity: true)
        if let admits { batch = try batch.filter(admits) }
        let refused = try deliver(batch)
        for entry in batch {
            switch entry.item {
            case .sample(let s): counts.samplesByType[s.type, default: 0] += 1
            case .tombstone: counts.tombstones += 1
            }
        }
        // What the store refused was not delivered: the summary's figures are what it holds.
        for entry in refused {
            switch entry.item {
            case .sample(let s): counts.samplesByType[s.type, default: 0] -= 1
            case .tombstone: counts.tombstones -= 1
            }
        }
        counts.position = lastSeen
        try onBatch(lastSeen, counts)
    }

    /// Writes `batch`, retrying store failures and isolating refused entries; returns those.
    private func deliver(_ batch: [JournalEntry]) throws -> [JournalEntry] {
        var attempt = 0
        var reopen = false
        while true {
            do {
                if reopen {
                    try sink.reconnect()
                    reopen = false
                }
                try sink.write(batch, cursor: sinkCursor)
                return []
            } catch SinkError.rejected(let reason) {
                guard batch.count > 1 else {
                    counts.rejected += 1
                    if counts.rejectionReasons.count < 5 { counts.rejectionReasons.append(reason) }
                    return batch
                }
                let middle = batch.count / 2
                return try deliver(Array(batch[..<middle])) + deliver(Array(batch[middle...]))
            } catch let error as SinkError where error.isMisconfigured {
                throw error
            } catch {
                attempt += 1
                guard attempt < maxAttempts else { throw error }
                reopen = true
                let delay = SinkWorker.Settings.oneShot.retryDelay(afterAttempt: attempt, error: error)
                onRetry?(error, attempt, maxAttempts, delay)
                Thread.sleep(forTimeInterval: delay)
            }
        }
    }
}
