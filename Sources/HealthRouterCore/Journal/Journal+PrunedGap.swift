import Foundation

/// Entries the journal pruned (`journal.retain`) before a sink wrote them: a sink that was out of
/// the config while they were pruned (pruning waits only for the sinks configured), or one added
/// after. The sink's worker records each such range when it starts past it; `status` shows them
/// until `backfill SINK --from` (or `migrate --to SINK`) brings the samples back.
extension Journal {
    private static func gapKey(_ sink: String) -> String { "pruned_gap:" + sink }
    /// The last entry of the gaps a backfill brought back: a worker that starts again below it
    /// (the backfill moved no cursor) does not note them again.
    private static func filledKey(_ sink: String) -> String { "pruned_gap_filled:" + sink }

    /// Records that `sink` lacks entries `first` through `last`, beside the ranges recorded before,
    /// save those a backfill brought back (`clearPrunedGaps`); with `storeIsNew` (the sink's store
    /// was replaced or emptied: it lacks what the backfill wrote too), those as well, and the
    /// backfill is forgotten. Returns whether anything is noted.
    @discardableResult
    public func notePrunedGap(sink: String, from first: Int64, through last: Int64, storeIsNew: Bool = false) throws -> Bool {
        var filled: Int64 = 0
        if storeIsNew {
            let forget = try database.prepare("DELETE FROM meta WHERE key = ?1")
            forget.bind(1, Self.filledKey(sink))
            try forget.run()
        } else {
            filled = try filledThrough(sink: sink)
        }
        let first = max(first, filled + 1)
        guard first <= last else { return false }
        let ranges = Self.merging((first, last), into: try prunedGaps(sink: sink))
        let statement = try database.prepare(
            "INSERT INTO meta(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
        statement.bind(1, Self.gapKey(sink))
        statement.bind(2, ranges.map { "\($0.first)-\($0.last)" }.joined(separator: ","))
        try statement.run()
        return true
    }

    /// The ranges of entries `sink` lacks because they were pruned before it wrote them, in the
    /// order they were found.
    public func prunedGaps(sink: String) throws -> [(first: Int64, last: Int64)] {
        let statement = try database.prepare("SELECT value FROM meta WHERE key = ?1")
        statement.bind(1, Self.gapKey(sink))
        guard try statement.step(), let text = statement.string(0) else { return [] }
        return text.split(separator: ",").compactMap { range in
            let parts = range.split(separator: "-").compactMap { Int64($0) }
            return parts.count == 2 ? (parts[0], parts[1]) : nil
        }
    }

    /// What `sink`, whose cursor in this journal is `cursor`, lacks: the gaps its worker noted,
    /// and the entries pruned after its cursor that it has not met yet (it has not run since they
    /// were pruned: another config's commands pruned them, or it is new), save those a backfill
    /// brought back. Read only: its worker notes them when it next starts.
    public func lackingRanges(sink: String, cursor: Int64) throws -> [(first: Int64, last: Int64)] {
        let ranges = try prunedGaps(sink: sink)
        let firstRetained = try oldestRetained() ?? head() + 1
        let first = max(cursor, try filledThrough(sink: sink)) + 1
        guard first < firstRetained else { return ranges }
        return Self.merging((first, firstRetained - 1), into: ranges)
    }

    /// The last entry of the gaps a backfill brought back for `sink` (0: none).
    private func filledThrough(sink: String) throws -> Int64 {
        let lookup = try database.prepare("SELECT value FROM meta WHERE key = ?1")
        lookup.bind(1, Self.filledKey(sink))
        return try lookup.step() ? lookup.int64(0) : 0
    }

    /// `ranges` with `added`, those that overlap or touch it made one with it, in order.
    private static func merging(_ added: (first: Int64, last: Int64),
                                into ranges: [(first: Int64, last: Int64)]) -> [(first: Int64, last: Int64)] {
        var merged = added
        var kept: [(first: Int64, last: Int64)] = []
        for range in ranges {
            if range.last + 1 < merged.first || merged.last + 1 < range.first {
                kept.append(range)
            } else {
                merged = (min(range.first, merged.first), max(range.last, merged.last))
            }
        }
        return (kept + [merged]).sorted { $0.first < $1.first }
    }

    /// How many entries `gaps` hold (`1–20, 31–40`: 30).
    public static func entryCount(of gaps: [(first: Int64, last: Int64)]) -> Int64 {
        gaps.reduce(0) { $0 + $1.last - $1.first + 1 }
    }

    /// `gaps` as `status` and the commands write them: `1–20, 31–40`.
    public static func describe(_ gaps: [(first: Int64, last: Int64)]) -> String {
        gaps.map { "\(NumberText.grouped($0.first))–\(NumberText.grouped($0.last))" }.joined(separator: ", ")
    }

    /// Forgets the gaps of `sink` (a backfill from a file wrote the samples back), for good: the
    /// sink's worker, whose cursor the backfill did not move, does not note them again; nor, with
    /// `filledThrough`, the entries up to it that were pruned before its worker first ran (a sink
    /// added to the config and backfilled before its first start has no gap noted yet).
    public func clearPrunedGaps(sink: String, filledThrough: Int64? = nil) throws {
        try database.transaction {
            if let last = (try prunedGaps(sink: sink).map(\.last) + [filledThrough ?? 0]).max(), last > 0 {
                let statement = try database.prepare(
                    "INSERT INTO meta(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = max(value, excluded.value)")
                statement.bind(1, Self.filledKey(sink))
                statement.bind(2, last)
                try statement.run()
            }
            let statement = try database.prepare("DELETE FROM meta WHERE key = ?1")
            statement.bind(1, Self.gapKey(sink))
            try statement.run()
        }
    }
}
