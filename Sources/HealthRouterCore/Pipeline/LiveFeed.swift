import Foundation

/// The most recent journal appends, kept in memory so that sink workers that keep up
/// take them as they are instead of reading and decoding them back from the journal.
/// Only entries already committed are published; a worker that falls behind the
/// window reads the journal as usual, so the feed is an optimisation, never the record.
///
/// A paced feed (an import's) carries every append of its run, and `waitForRoom` waits
/// (up to `stallLimit` without progress from a worker) until every worker has taken the
/// oldest batch the next one pushes out of the window: the import then runs at the pace
/// of its slowest sink, and every sink takes every batch from memory, without the
/// decoding that reading the journal back costs. A worker that makes no progress for
/// `stallLimit` (a store down, a retry backoff) is not waited for.
public final class LiveFeed: @unchecked Sendable {
    // @unchecked: every stored `var` is guarded by `condition`.
    private struct Batch {
        var first: Int64
        var entries: [JournalEntry]
        var end: Int64 { first + Int64(entries.count) }
        var last: Int64 { end - 1 }
    }

    private struct Consumer {
        /// Every entry up to this sequence has been taken.
        var position: Int64
        var lastProgress: Date
    }

    private let condition = NSCondition()
    private var batches: [Batch] = []
    private var entryCount = 0
    private var consumers: [String: Consumer] = [:]
    private var lastPublishedSequence: Int64?
    private let maxBatches: Int
    private let maxEntries: Int
    private let pacing: Bool
    private let stallLimit: TimeInterval

    /// Keeps the last `window` appended batches, and of those no more than `maxEntries`
    /// entries (the newest batch is always kept). `pacing`: see above.
    public init(window: Int = 2, maxEntries: Int = .max, pacing: Bool = false, stallLimit: TimeInterval = 2) {
        self.maxBatches = max(1, window)
        self.maxEntries = maxEntries
        self.pacing = pacing
        self.stallLimit = stallLimit
    }

    /// With pacing, waits until no progressing worker still needs the oldest batch, which
    /// the next `publish` pushes out of the window. Called before the next batch is
    /// appended to the journal, so that it is published as soon as it is committed.
    public func waitForRoom() {
        guard pacing else { return }
        condition.lock()
        defer { condition.unlock() }
        while batches.count >= maxBatches, let oldest = batches.first {
            let now = Date()
            let waitingFor = consumers.values.filter {
                $0.position < oldest.last && now.timeIntervalSince($0.lastProgress) < stallLimit
            }
            guard let stalest = waitingFor.map(\.lastProgress).min() else { break }
            _ = condition.wait(until: stalest.addingTimeInterval(stallLimit))
        }
    }

    /// Publishes committed entries (consecutive sequences, in order).
    public func publish(_ entries: [JournalEntry]) {
        guard let first = entries.first?.sequence else { return }
        condition.lock()
        defer { condition.unlock() }
        batches.append(Batch(first: first, entries: entries))
        entryCount += entries.count
        while batches.count > 1 && (batches.count > maxBatches || entryCount > maxEntries) {
            entryCount -= batches.removeFirst().entries.count
        }
        lastPublishedSequence = entries.last?.sequence
    }

    /// In a paced feed, the sequence of the last entry published (nil before the first
    /// batch); nil in any other feed. A worker at or past it has nothing to read from the
    /// journal: the next entries are published as soon as they are committed.
    public var lastPublished: Int64? {
        guard pacing else { return nil }
        condition.lock()
        defer { condition.unlock() }
        return lastPublishedSequence
    }

    /// Up to `limit` entries right after `sequence`, when the window still holds the next one;
    /// they may span several consecutive batches. `consumer` names the worker asking:
    /// everything up to `sequence` counts as taken by it.
    public func entries(after sequence: Int64, limit: Int, consumer: String? = nil) -> [JournalEntry]? {
        condition.lock()
        defer { condition.unlock() }
        if let consumer {
            let known = consumers[consumer]
            if known == nil || known!.position < sequence {
                consumers[consumer] = Consumer(position: sequence, lastProgress: Date())
                condition.broadcast()
            }
        }
        guard var index = batches.firstIndex(where: { $0.first <= sequence + 1 && sequence + 1 < $0.end }) else {
            return nil
        }
        var next = sequence + 1
        // A whole batch that the next would not fit beside (an import's batches): shared, not
        // copied entry by entry. Smaller ones (a daemon's pushes) are gathered up to `limit`.
        let first = batches[index]
        if first.first == next && first.entries.count <= limit
            && (index + 1 == batches.count || first.entries.count + batches[index + 1].entries.count > limit) {
            return first.entries
        }
        var out: [JournalEntry] = []
        out.reserveCapacity(min(limit, batches[index...].reduce(0) { $0 + $1.entries.count }))
        while index < batches.count && out.count < limit {
            let batch = batches[index]
            guard batch.first <= next && next < batch.end else { break }
            let start = Int(next - batch.first)
            let stop = min(batch.entries.count, start + limit - out.count)
            out += batch.entries[start..<stop]
            next = batch.first + Int64(stop)
            index += 1
        }
        return out
    }

    /// The worker `consumer` stopped: `waitForRoom` no longer waits for it.
    public func leave(_ consumer: String) {
        condition.lock()
        defer { condition.unlock() }
        consumers[consumer] = nil
        condition.broadcast()
    }
}
