import Foundation

/// Entries the journal pruned (`journal.retain`) before a sink wrote them: a sink that was out of
/// the config while they were pruned (pruning waits only for the sinks configured), or one added
/// after. The sink's worker records the range when it starts past such a gap; `status` shows it
/// until `backfill SINK --from` brings the samples back.
extension Journal {
    private static func gapKey(_ sink: String) -> String { "pruned_gap:" + sink }

    /// Records that `sink` lacks entries `first` through `last` (widening a range recorded before).
    public func notePrunedGap(sink: String, from first: Int64, through last: Int64) throws {
        var range = (first: first, last: last)
        if let known = try prunedGap(sink: sink) { range = (min(known.first, first), max(known.last, last)) }
        let statement = try database.prepare(
            "INSERT INTO meta(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
        statement.bind(1, Self.gapKey(sink))
        statement.bind(2, "\(range.first)-\(range.last)")
        try statement.run()
    }

    /// The entries `sink` lacks because they were pruned before it wrote them, if any.
    public func prunedGap(sink: String) throws -> (first: Int64, last: Int64)? {
        let statement = try database.prepare("SELECT value FROM meta WHERE key = ?1")
        statement.bind(1, Self.gapKey(sink))
        guard try statement.step(), let text = statement.string(0) else { return nil }
        let parts = text.split(separator: "-").compactMap { Int64($0) }
        return parts.count == 2 ? (parts[0], parts[1]) : nil
    }

    /// Forgets the gap of `sink` (a backfill from a file wrote the samples back).
    public func clearPrunedGap(sink: String) throws {
        let statement = try database.prepare("DELETE FROM meta WHERE key = ?1")
        statement.bind(1, Self.gapKey(sink))
        try statement.run()
    }
}
