/// A metadata value: HealthKit metadata and Pulso's wire format allow only strings,
/// numbers and booleans.
public enum MetadataValue: Sendable, Hashable {
    case string(String)
    case number(Double)
    case bool(Bool)
    /// An object or array as compact JSON text, kept as it came: only in `Sample.extraFields` (a
    /// newer Pulso client's additive field), written back as that JSON, not as a string of it.
    case json(String)
}
