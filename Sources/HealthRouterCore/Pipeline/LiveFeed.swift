import Synchronization

/// The most recent journal appends, kept in memory so that sink workers that keep up
/// take them as they are instead of reading and decoding them back from the journal.
/// Only entries already committed are published; a worker that falls behind the
/// window reads the journal as usual, so the feed is an optimisation, never the record.
public final class LiveFeed: Sendable {
    private struct Batch {
        var first: Int64
        var entries: [JournalEntry]
        var end: Int64 { first + Int64(entries.count) }
    }

    private struct Window {
        var batches: [Batch] = []
        var entryCount = 0
    }

    private let window = Mutex(Window())
    private let maxBatches: Int
    private let maxEntries: Int

    /// Keeps the last `window` appended batches, and of those no more than `maxEntries`
    /// entries (the newest batch is always kept).
    public init(window: Int = 2, maxEntries: Int = .max) {
        self.maxBatches = max(1, window)
        self.maxEntries = maxEntries
    }

    /// Publishes committed entries (consecutive sequences, in order).
    public func publish(_ entries: [JournalEntry]) {
        guard let first = entries.first?.sequence else { return }
        window.withLock {
            $0.batches.append(Batch(first: first, entries: entries))
            $0.entryCount += entries.count
            while $0.batches.count > 1 && ($0.batches.count > maxBatches || $0.entryCount > maxEntries) {
                $0.entryCount -= $0.batches.removeFirst().entries.count
            }
        }
    }

    /// Up to `limit` entries right after `sequence`, when the window still holds the next one;
    /// they may span several consecutive batches.
    public func entries(after sequence: Int64, limit: Int) -> [JournalEntry]? {
        window.withLock { window -> [JournalEntry]? in
            guard var index = window.batches.firstIndex(where: { $0.first <= sequence + 1 && sequence + 1 < $0.end })
            else { return nil }
            var next = sequence + 1
            var out: [JournalEntry] = []
            while index < window.batches.count && out.count < limit {
                let batch = window.batches[index]
                guard batch.first <= next && next < batch.end else { break }
                let start = Int(next - batch.first)
                let stop = min(batch.entries.count, start + limit - out.count)
                out += batch.entries[start..<stop]
                next = batch.first + Int64(stop)
                index += 1
            }
            return out
        }
    }
}
