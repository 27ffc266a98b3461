import HealthRouterCore

/// The lines `backfill` and `migrate` print about what they handed a sink. Sinks report what
/// they were given, not which rows they changed, so the summary says "delivered".
enum DirectDeliveryText {
    /// Why "delivered" rather than "written": a sink's writes are idempotent upserts.
    static let keptAsTheyAre = "the sink stores what it lacks or what changed; rows it already held are left as they are"

    /// What to do about samples a store refused in a backfill or migration (the rest was delivered).
    static func refusedHint(_ sink: String) -> String {
        "everything else was delivered; the refused samples are not in '\(sink)': fix what the reasons name "
            + "(or leave them out with --types), then run again: what was delivered is not written twice"
    }

    /// What a store with fewer rows than samples does, for its type (nil: a row a sample): the
    /// postgres sink's health4ai key makes samples sharing it one row, which a count of rows shows.
    static func rowsPerSample(sinkType: String) -> String? {
        guard sinkType == "postgres" else { return nil }
        return "postgres keeps one row per (user, type, source_device, start) (health4ai's key): samples sharing one "
            + "are one row, so the table may hold fewer rows than samples delivered (--verify counts them per type)"
    }

    /// The types listed by name before the rest are summed up in one line.
    static let listedTypes = 10

    /// One line per type, most samples first, at most `listedTypes`, then `… and N more types: M samples`,
    /// so that the lines always add up to the total.
    static func samplesByType(_ counts: [String: Int]) -> [String] {
        let sorted = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        var lines = sorted.prefix(listedTypes).map { "\(PulsoJSONEncoder.typeKey($0.key)): \(NumberText.grouped($0.value))" }
        let rest = sorted.dropFirst(listedTypes)
        if !rest.isEmpty {
            let samples = rest.reduce(0) { $0 + $1.value }
            lines.append("… and \(rest.count) more type\(rest.count == 1 ? "" : "s"): \(NumberText.grouped(samples)) samples")
        }
        return lines
    }
}
