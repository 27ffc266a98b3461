import HealthRouterCore

/// The order in which PostgreSQL's `jsonb` stores an object's keys: shorter keys first, then by
/// their bytes, each key once. Metadata in another order comes back from a `jsonb` column
/// reordered: the Postgres sinks keep its order beside it (read-back restores it) only then.
public enum JSONBKeyOrder {
    /// Whether `metadata`'s keys are in `jsonb`'s order, without duplicates.
    public static func holds(for metadata: [MetadataEntry]) -> Bool {
        guard metadata.count > 1 else { return true }
        for index in 1..<metadata.count {
            let a = metadata[index - 1].key.utf8, b = metadata[index].key.utf8
            if a.count != b.count {
                if a.count > b.count { return false }
            } else if !a.lexicographicallyPrecedes(b) {
                return false
            }
        }
        return true
    }
}
