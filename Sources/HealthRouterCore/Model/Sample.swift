/// The canonical sample: one value type for everything that flows through
/// healthrouter (DESIGN.md §3). Sources normalise into it; sinks map it to their schema.
///
/// - `value`/`unit` are in the registry's canonical unit when the type is known
///   (Pulso's units: `count/min`, `%` as 0–100, `m`, `kcal`, …); an unknown type or
///   unit passes through exactly as the producer wrote it.
/// - `categoryValue` is the category's name as the producer wrote it
///   (`HKCategoryValueSleepAnalysisAsleepCore` or Pulso's `asleepCore`).
public struct Sample: Sendable, Hashable {
    /// The sample's identity: the producer's own id (a HealthKit UUID from a push),
    /// or a UUIDv5 of `Fingerprint` for producers that have none.
    public var id: String
    /// The HealthKit identifier (`HKQuantityTypeIdentifierHeartRate`), or the raw
    /// type string for types the registry does not know.
    public var type: String
    public var kind: SampleKind
    public var start: Timestamp
    public var end: Timestamp
    /// The IANA zone the sample was recorded in, when the producer said (`HKTimeZone`).
    public var timeZone: String?
    public var value: Double?
    public var unit: String?
    public var categoryValue: String?
    public var sourceName: String
    public var sourceVersion: String?
    public var sourceBundleId: String?
    /// The device description with its per-record `0x…` address removed.
    public var device: String?
    public var createdAt: Timestamp?
    public var metadata: [MetadataEntry]
    /// The user the sample belongs to (the pushing token's user, or the config's).
    public var userId: String?
    public var detail: SampleDetail
    /// Top-level fields the producer sent that healthrouter has no field for (a newer Pulso
    /// client's additive ones: the protocol may add optional fields at any time), as sent and
    /// sorted by key; a nested value as its compact JSON text. Journaled with the sample (a
    /// change to one is a change), written back at the top level of a Pulso line (ndjson and
    /// http sinks, `dump`); the SQL stores keep only the fields they have columns for.
    public var extraFields: [MetadataEntry] = []

    @inlinable
    public init(id: String, type: String, kind: SampleKind, start: Timestamp, end: Timestamp,
                timeZone: String? = nil, value: Double? = nil, unit: String? = nil, categoryValue: String? = nil,
                sourceName: String, sourceVersion: String? = nil, sourceBundleId: String? = nil,
                device: String? = nil, createdAt: Timestamp? = nil, metadata: [MetadataEntry] = [],
                userId: String? = nil, detail: SampleDetail = .none) {
        self.id = id
        self.type = type
        self.kind = kind
        self.start = start
        self.end = end
        self.timeZone = timeZone
        self.value = value
        self.unit = unit
        self.categoryValue = categoryValue
        self.sourceName = sourceName
        self.sourceVersion = sourceVersion
        self.sourceBundleId = sourceBundleId
        self.device = device
        self.createdAt = createdAt
        self.metadata = metadata
        self.userId = userId
        self.detail = detail
    }
}
