/// One known type: how each producer names it, where it belongs, and its canonical unit.
public struct HealthType: Sendable, Hashable {
    /// The HealthKit identifier, as export.xml and health4ai write it (`HKQuantityTypeIdentifierHeartRate`).
    public var identifier: String
    /// Pulso's short key (`heartRate`), when Pulso has the type.
    public var key: String?
    /// Health Auto Export's metric names (`heart_rate`), when HAE has the type.
    public var haeNames: [String]
    /// The group routes can select (`sleep`, `workouts`, `activity`, `cardio`, `body`, …).
    public var group: String
    public var kind: SampleKind
    /// The unit values are stored in (Pulso's units), for quantities.
    public var canonicalUnit: String?

    public init(identifier: String, key: String? = nil, haeNames: [String] = [], group: String,
                kind: SampleKind, canonicalUnit: String? = nil) {
        self.identifier = identifier
        self.key = key
        self.haeNames = haeNames
        self.group = group
        self.kind = kind
        self.canonicalUnit = canonicalUnit
    }
}
