/// One known type: how each producer names it, where it belongs, and its canonical unit.
public struct HealthType: Sendable, Hashable {
    /// The HealthKit identifier, as export.xml and health4ai write it (`HKQuantityTypeIdentifierHeartRate`).
    public var identifier: String
    /// The short key: HealthKit's Swift case name (`heartRate`), which is what Pulso
    /// sends on the wire. Pulso's protocol itself has only the types marked
    /// `isInPulsoProtocol`; the others carry the key Pulso would use for them.
    /// Nil for types HealthKit gives no case name (`HKDataTypeSleepDurationGoal`).
    public var key: String?
    /// Health Auto Export's metric names (`heart_rate`), when HAE has the type.
    public var haeNames: [String]
    /// The group routes can select (`sleep`, `workouts`, `activity`, `cardio`, `body`, …).
    public var group: String
    public var kind: SampleKind
    /// The unit values are stored in (Pulso's units), for quantities.
    public var canonicalUnit: String?
    /// Whether the type is one of the Pulso protocol's 59 type keys (PROTOCOL.md v1.2 and
    /// the app's registry).
    public var isInPulsoProtocol: Bool
    /// The names healthrouter's export reader stores samples of this type under instead of the
    /// identifier (`ActivitySummary`, `HKGlassesPrescription`: the export's own names). Routes and
    /// `--types` select such a sample as this type; `TypeRegistry.resolve` does not map them, so
    /// the stored type, which the fingerprint id, the journal and every store hold, stays as written.
    public var storedNames: [String]

    public init(identifier: String, key: String? = nil, haeNames: [String] = [], group: String,
                kind: SampleKind, canonicalUnit: String? = nil, isInPulsoProtocol: Bool = false,
                storedNames: [String] = []) {
        self.identifier = identifier
        self.key = key
        self.haeNames = haeNames
        self.group = group
        self.kind = kind
        self.canonicalUnit = canonicalUnit
        self.isInPulsoProtocol = isInPulsoProtocol
        self.storedNames = storedNames
    }
}
