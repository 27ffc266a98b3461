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
    /// brought back; of them, where `routes` select what was pruned (`prunedSelected`; nil: every
    /// entry). Read only: its worker notes them when it next starts.
    public func lackingRanges(sink: String, cursor: Int64, routes: RouteTable?) throws -> [(first: Int64, last: Int64)] {
        var ranges = try prunedGaps(sink: sink)
        let firstRetained = try oldestRetained() ?? head() + 1
        let first = max(cursor, try filledThrough(sink: sink)) + 1
        if first < firstRetained { ranges = Self.merging((first, firstRetained - 1), into: ranges) }
        guard let routes else { return ranges }
        return try prunedSelected(ranges) { type, source in routes.selects(sink: sink, type: type, source: source) }
    }

    // MARK: - What was pruned

    private static let prunedKindsKey = "pruned_kinds"
    /// The first entry whose kind `pruned_kinds` knows: those before it were pruned by a
    /// healthrouter that did not record them.
    private static let prunedKindsFromKey = "pruned_kinds_from"
    /// The last entry whose kind `pruned_kinds` knows: those after it, when pruned, were pruned by a
    /// healthrouter that did not record them (an older one, run on this journal since).
    private static let prunedKindsThroughKey = "pruned_kinds_through"
    /// The kind under which entries pruned unrecorded between two records are kept: no type, as a
    /// tombstone's, so that every sink lacks them.
    static let unrecordedKind = PrunedKind(type: nil, source: "")

    /// A kind of entries pruned (a type, nil for tombstones, from a source), from the first of
    /// them pruned to the last: entries of other kinds between them were pruned too.
    struct PrunedKind: Hashable {
        var type: String?
        var source: String
    }

    /// Records the kinds of entries `first` through `last`, which are being pruned (in the prune's
    /// transaction): each kind's span of sequences widened to take them in. One read of the
    /// entries pruned, their type and source only (which come before the payload in a row);
    /// runs of one kind are taken at once, as `entryCountsByTypeAndSource` does. The record stays
    /// as small as the kinds are few (one line each, however often they are pruned).
    func recordPrunedKinds(from first: Int64, through last: Int64) throws {
        let known = try prunedKinds()
        var spans = known ?? [:]
        // The first record (or one this build cannot read, whose kinds are lost): known from here on.
        let from = try database.prepare("INSERT INTO meta(key, value) VALUES ('\(Self.prunedKindsFromKey)', ?1)"
                                            + (known == nil ? " ON CONFLICT(key) DO UPDATE SET value = excluded.value"
                                                : " ON CONFLICT(key) DO NOTHING"))
        from.bind(1, first)
        try from.run()
        // Entries pruned since the last record by a healthrouter that records none (an older one):
        // of unknown kinds, lacked by every sink.
        if known != nil, let through = try prunedKindsThrough(), through + 1 < first {
            let span = spans[Self.unrecordedKind]
            spans[Self.unrecordedKind] = (min(span?.first ?? through + 1, through + 1), max(span?.last ?? first - 1, first - 1))
        }
        let statement = try database.prepare("SELECT seq, type, source FROM entries WHERE seq >= ?1 AND seq <= ?2")
        statement.bind(1, first)
        statement.bind(2, last)
        var run: (kind: PrunedKind, first: Int64, last: Int64)?
        func close(_ run: (kind: PrunedKind, first: Int64, last: Int64)) {
            let known = spans[run.kind]
            spans[run.kind] = (min(known?.first ?? run.first, run.first), max(known?.last ?? run.last, run.last))
        }
        while try statement.step() {
            let sequence = statement.int64(0)
            if let current = run, statement.textEquals(1, current.kind.type), statement.textEquals(2, current.kind.source) {
                run?.last = sequence
                continue
            }
            if let run { close(run) }
            run = (PrunedKind(type: statement.string(1), source: statement.string(2) ?? ""), sequence, sequence)
        }
        if let run { close(run) }
        let record = try database.prepare(
            "INSERT INTO meta(key, value) VALUES ('\(Self.prunedKindsKey)', ?1) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
        record.bind(1, spans.map { "\($0.value.first)\t\($0.value.last)\t\($0.key.type ?? "")\t\($0.key.source)" }
            .sorted().joined(separator: "\n"))
        try record.run()
        let through = try database.prepare(
            "INSERT INTO meta(key, value) VALUES ('\(Self.prunedKindsThroughKey)', ?1) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
        through.bind(1, last)
        try through.run()
    }

    /// The last entry `pruned_kinds` knows the kind of; nil when not recorded.
    private func prunedKindsThrough() throws -> Int64? {
        try database.scalarInt("SELECT value FROM meta WHERE key = '\(Self.prunedKindsThroughKey)'")
    }

    /// Each kind of entries pruned since `pruned_kinds_from`, with the first and last of it pruned;
    /// nil when that is not known (none recorded, or a record this build cannot read).
    func prunedKinds() throws -> [PrunedKind: (first: Int64, last: Int64)]? {
        let statement = try database.prepare("SELECT value FROM meta WHERE key = ?1")
        statement.bind(1, Self.prunedKindsKey)
        guard try statement.step(), let text = statement.string(0) else { return nil }
        var kinds: [PrunedKind: (first: Int64, last: Int64)] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: "\t", maxSplits: 3, omittingEmptySubsequences: false)
            guard fields.count == 4, let first = Int64(fields[0]), let last = Int64(fields[1]) else { return nil }
            kinds[PrunedKind(type: fields[2].isEmpty ? nil : String(fields[2]), source: String(fields[3]))] = (first, last)
        }
        return kinds
    }

    /// Of `ranges` of pruned entries, the parts that held entries of a kind `selects` takes (a
    /// sink's routes; a tombstone always, as every sink receives them): a sink whose routes select
    /// none of the kinds pruned there lacks nothing there. A kind's part is the span from its first
    /// pruned entry to its last, so a part may hold others' entries too. Entries pruned before the
    /// kinds were recorded, or after the last record (by an older healthrouter, run on this
    /// journal since), are kept whole.
    public func prunedSelected(_ ranges: [(first: Int64, last: Int64)],
                               selectedBy selects: (_ type: String, _ source: String) -> Bool) throws -> [(first: Int64, last: Int64)] {
        guard !ranges.isEmpty, let kinds = try prunedKinds(),
              let from = try database.scalarInt("SELECT value FROM meta WHERE key = '\(Self.prunedKindsFromKey)'") else { return ranges }
        let taken = kinds.filter { kind, _ in kind.type.map { selects($0, kind.source) } ?? true }.values
        let through = try prunedKindsThrough() ?? .max
        var selected: [(first: Int64, last: Int64)] = []
        for range in ranges {
            if range.first < from { selected = Self.merging((range.first, min(range.last, from - 1)), into: selected) }
            if range.last > through { selected = Self.merging((max(range.first, through + 1), range.last), into: selected) }
            for span in taken {
                let first = max(range.first, from, span.first), last = min(range.last, span.last)
                if first <= last { selected = Self.merging((first, last), into: selected) }
            }
        }
        return selected
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
