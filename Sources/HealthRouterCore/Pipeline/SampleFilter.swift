/// What a `dump`, `backfill` or `migrate` takes: samples whose start lies in
/// `[since, until)` and whose type one of `types` selects (route syntax: short keys,
/// identifiers, groups, globs; empty: every type). Tombstones carry no type and no time,
/// so every filter takes them.
public struct SampleFilter: Sendable {
    public var since: Timestamp?
    public var until: Timestamp?
    public let types: [String]
    private let selectors: [TypeSelector]

    public init(since: Timestamp? = nil, until: Timestamp? = nil, types: [String] = []) {
        self.since = since
        self.until = until
        self.types = types
        selectors = types.map(TypeSelector.init)
    }

    /// The `types` no known identifier, short key, group or type name healthrouter stores
    /// answers to (and that are no glob): probably typos.
    public var unknownTypes: [String] { selectors.filter { $0.isWellFormed && !$0.isKnownOrGlob }.map(\.text) }
    /// The selectors that cannot be one (a space, a quote): an error, as in routes.
    public var malformedTypes: [String] { selectors.filter { !$0.isWellFormed }.map(\.text) }

    /// Whether an entry of `type` (nil: a tombstone) can pass, before its time is known.
    public func selects(type: String?) -> Bool {
        guard let type, !selectors.isEmpty else { return true }
        let known = TypeRegistry.selectionType(of: type)
        return selectors.contains { $0.matches(type: type, as: known) }
    }

    /// Whether `item` passes.
    public func selects(_ item: HealthItem) -> Bool {
        guard case .sample(let sample) = item else { return true }
        if let since, sample.start < since { return false }
        if let until, !(sample.start < until) { return false }
        return selects(type: sample.type)
    }
}
