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
/// split to find the entries the store refuses, which are counted and reported, not written, as
/// are those a store names as refused while taking the rest (`SinkError.partlyRefused`).
public final class DirectDelivery {
    public struct Counts: Sendable {
        /// Samples written, by type.
        public var samplesByType: [String: Int] = [:]
        public var tombstones = 0
        /// Entries passed over because an earlier run already delivered them: those the filter selects.
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
    /// Entries up to this are passed over: `resumeAfter`, then, after a `rewind()`, the position
    /// acknowledged.
    private var passOver: Int64
    /// The highest entry counted in `counts.resumed` (a rewound read passes over them again).
    private var highestResumed: Int64 = 0
    /// `counts.filtered` when `counts.position` was last reported, which a `rewind()` goes back to.
    private var filteredAtPosition = 0
    public private(set) var counts = Counts()
    /// The sequences of the entries among those given whose samples a tombstone deleted (nil: none
    /// is checked), asked on the caller's thread of each batch just before it is written and of
    /// what it wrote just after: a backfill from a file beside a daemon that takes a push deleting
    /// one of them. Before, those entries are left out (`onLeftOut` hears of each); after (the daemon
    /// delivered the tombstone while the batch was written, and the batch wrote the sample back), a
    /// tombstone of those samples is written too.
    public var deletedAmong: (([JournalEntry]) throws -> Set<Int64>)?
    /// Told of each entry `deletedAmong` left out of its batch, on the caller's thread.
    public var onLeftOut: ((JournalEntry) -> Void)?
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
        passOver = resumeAfter
        counts.position = resumeAfter
        pending.reserveCapacity(self.batchSize)
    }

    /// Takes one entry; writes a batch when one is full. Returns whether the entry is to be written
    /// (false: the interrupted run wrote it, or the filter leaves it out).
    @discardableResult
    public func accept(_ entry: JournalEntry) throws -> Bool {
        if entry.sequence <= passOver {
            // Of what the filter selects: the interrupted run delivered those, not every position.
            if entry.sequence <= resumeAfter, entry.sequence > highestResumed {
                if filter.selects(entry.item) { counts.resumed += 1 }
                highestResumed = entry.sequence
            }
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
            filteredAtPosition = counts.filtered
            try onBatch(lastSeen, counts)
        }
    }

    /// For a caller whose input failed and is read again from its start (`migrate`'s source lost
    /// mid-read): drops the entries taken since the last acknowledged batch, and passes over,
    /// without counting them again, those up to the position acknowledged. The entries must come
    /// again in the same order (the caller checks it).
    public func rewind() {
        pending.removeAll(keepingCapacity: true)
        passOver = counts.position
        lastSeen = counts.position
        counts.filtered = filteredAtPosition
    }

    private func flush() throws {
        guard !pending.isEmpty else { return }
        var batch = pending
        pending.removeAll(keepingCapacity: true)
        if let deletedAmong {
            let deleted = try deletedAmong(batch)
            if !deleted.isEmpty {
                for entry in batch where deleted.contains(entry.sequence) { onLeftOut?(entry) }
                batch.removeAll { deleted.contains($0.sequence) }
            }
        }
        let refused = try deliver(batch)
        if let deletedAmong, let last = batch.last {
            // Deleted while the batch was written: written back over the deletion, so deleted again.
            let refusedSequences = Set(refused.map(\.sequence))
            let deleted = try deletedAmong(batch.filter { !refusedSequences.contains($0.sequence) })
            var deletedByUser: [String?: [String]] = [:]
            for entry in batch where deleted.contains(entry.sequence) {
                if case .sample(let sample) = entry.item { deletedByUser[sample.userId, default: []].append(sample.id) }
            }
            for (user, ids) in deletedByUser.sorted(by: { ($0.key ?? "") < ($1.key ?? "") }) {
                // Counted as written only when taken (a refused one is counted in `rejected`).
                if try deliver([JournalEntry(sequence: last.sequence, source: last.source,
                                             item: .tombstone(Tombstone(ids: ids, userId: user)), isFromJournal: false)]).isEmpty {
                    counts.tombstones += 1
                }
            }
        }
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
        filteredAtPosition = counts.filtered
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
            } catch SinkError.partlyRefused(let refusals) {
                // The store took the rest: the entries it names were refused.
                var reasons: [Int64: String] = [:]
                for refusal in refusals where reasons[refusal.sequence] == nil { reasons[refusal.sequence] = refusal.reason }
                let refused = batch.filter { reasons[$0.sequence] != nil }
                for entry in refused {
                    counts.rejected += 1
                    if counts.rejectionReasons.count < 5 { counts.rejectionReasons.append(reasons[entry.sequence]!) }
                }
                return refused
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
