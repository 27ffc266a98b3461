/// How a producer scales its values.
public enum ValueConvention: Sendable {
    /// HealthKit's own scale, as export.xml writes it: percentages as 0–1 fractions,
    /// units as the user's locale chose them (`km`, `kJ`, `degF`, …).
    case healthKit
    /// Pulso's wire scale: already in the registry's canonical units.
    case canonical
}

/// Brings a sample a source read into canonical form (DESIGN.md §3) before it is emitted.
public enum SampleNormalizer {
    /// Converts `value`/`unit` to the registry's canonical unit for known types
    /// (unknown types and unknown units stay untouched), strips the per-record
    /// `0x…` address from `device`, and sets `id` to the fingerprint id when it is empty.
    public static func normalize(_ sample: inout Sample, convention: ValueConvention) {
        if sample.id.isEmpty { sample.id = Fingerprint.id(of: sample) } // TODO(helper A): units, device
    }
}
