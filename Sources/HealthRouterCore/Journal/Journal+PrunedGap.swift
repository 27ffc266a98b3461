import Foundation

/// Entries the journal pruned (`journal.retain`) before a sink wrote them: a sink that was out of
/// the config while they were pruned (pruning waits only for the sinks configured), or one added
/// after. The sink's worker records each such range when it starts past it; `status` shows them
/// until `backfill SINK --from` (or `migrate --to SINK`) brings the samples back.
extension Journal {
    private static func gapKey(_ sink: String) -> String { "pruned_gap:" + sink }

    /// Records that `sink` lacks entries `first` through `last`, beside the ranges recorded before.
    public func notePrunedGap(sink: String, from first: Int64, through last: Int64) throws {
        // Ranges that overlap or touch become one.
        var merged = (first: first, last: last)
        var ranges: [(first: Int64, last: Int64)] = []
        for range in try prunedGaps(sink: sink) {
            if range.last + 1 < merged.first || merged.last + 1 < range.first {
                ranges.append(range)
            } else {
                merged = (min(range.first, merged.first), max(range.last, merged.last))
            }
        }
        ranges.append(merged)
        ranges.sort { $0.first < $1.first }
        let statement = try database.prepare(
            "INSERT INTO meta(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
        statement.bind(1, Self.gapKey(sink))
        statement.bind(2, ranges.map { "\($0.first)-\($0.last)" }.joined(separator: ","))
        try statement.run()
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

    /// `gaps` as `status` and the commands write them: `1–20, 31–40`.
    public static func describe(_ gaps: [(first: Int64, last: Int64)]) -> String {
        gaps.map { "\(NumberText.grouped($0.first))–\(NumberText.grouped($0.last))" }.joined(separator: ", ")
    }

    /// Forgets the gaps of `sink` (a backfill from a file wrote the samples back).
    public func clearPrunedGaps(sink: String) throws {
        let statement = try database.prepare("DELETE FROM meta WHERE key = ?1")
        statement.bind(1, Self.gapKey(sink))
        try statement.run()
    }
}
