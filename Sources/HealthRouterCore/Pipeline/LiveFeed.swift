import Synchronization

/// The most recent journal appends, kept in memory so that sink workers that keep up
/// take them as they are instead of reading and decoding them back from the journal.
/// Only entries already committed are published; a worker that falls behind the
/// window reads the journal as usual, so the feed is an optimisation, never the record.
public final class LiveFeed: Sendable {
    private struct Batch {
        var first: Int64
        var entries: [JournalEntry]
    }

    private let batches = Mutex<[Batch]>([])
    private let window: Int

    /// Keeps the last `window` appended batches.
    public init(window: Int = 2) {
        self.window = window
    }

    /// Publishes committed entries (consecutive sequences, in order).
    public func publish(_ entries: [JournalEntry]) {
        guard let first = entries.first?.sequence else { return }
        batches.withLock {
            $0.append(Batch(first: first, entries: entries))
            if $0.count > window { $0.removeFirst($0.count - window) }
        }
    }

    /// Up to `limit` entries right after `sequence`, when the window still holds the next one.
    public func entries(after sequence: Int64, limit: Int) -> [JournalEntry]? {
        batches.withLock { batches -> [JournalEntry]? in
            guard let batch = batches.first(where: {
                $0.first <= sequence + 1 && sequence + 1 < $0.first + Int64($0.entries.count)
            }) else { return nil }
            let start = Int(sequence + 1 - batch.first)
            return Array(batch.entries[start..<min(batch.entries.count, start + limit)])
        }
    }
}
