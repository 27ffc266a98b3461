extension Journal {
    /// Calls `visit` with every retained entry after `sequence`, in order, decoding only
    /// those whose type `filter` can take (tombstones always): what `backfill` and `dump`
    /// read. Reads `batchSize` entries at a time. An entry that cannot be decoded (damaged on
    /// disk) goes to `damaged` (which may throw to stop), and the entries after it are visited.
    public func forEachEntry(after sequence: Int64 = 0, filter: SampleFilter, batchSize: Int = 5_000,
                             damaged: (StoredEntry.Damaged) throws -> Void = { throw $0 },
                             _ visit: (JournalEntry) throws -> Void) throws {
        var cursor = sequence
        while true {
            let stored = try entries(after: cursor, limit: batchSize)
            guard let last = stored.last else { return }
            for entry in stored where filter.selects(type: entry.type) {
                let decoded: JournalEntry
                do {
                    decoded = try entry.decoded()
                } catch let error as StoredEntry.Damaged {
                    try damaged(error)
                    continue
                }
                try visit(decoded)
            }
            cursor = last.sequence
        }
    }

    /// The sequence of the last entry (0 when empty), and whether entries before the oldest
    /// retained one were pruned (`journal.retain`): a backfill from the journal then misses them.
    public func retention() throws -> (head: Int64, oldest: Int64?, pruned: Bool) {
        let oldest = try oldestRetained()
        let head = try head()
        return (head, oldest, (oldest ?? head + 1) > 1)
    }
}
