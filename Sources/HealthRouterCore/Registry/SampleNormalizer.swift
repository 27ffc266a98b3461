/// Brings a sample a source read into canonical form (DESIGN.md §3) before it is emitted.
public enum SampleNormalizer {
    /// Converts `value`/`unit` to the registry's canonical unit for known types
    /// (unknown types and unknown units stay untouched), strips the per-record
    /// `0x…` address from `device`, and sets `id` to the fingerprint id when it is empty.
    ///
    /// In detail, for a sample whose type the registry knows:
    /// - `type` becomes the HealthKit identifier when it was a short key or HAE name;
    /// - a value whose unit differs from the canonical one is converted with
    ///   `UnitConverter` when the conversion is known (unit set to the canonical one);
    /// - a `%` value is scaled ×100 under `.healthKit` (HealthKit's 0–1 fraction).
    /// A `%` value of a type the registry does not know stays as the producer wrote it (an export's
    /// 0–1 fraction): scaling it would change its fingerprint id, and an export imported again
    /// after such a change would store each such sample a second time.
    /// For every sample: `device` goes through `DeviceName.canonical`, and an empty `id`
    /// becomes `Fingerprint.id(of:)` of the normalised sample. Category values, workout
    /// details and metadata are left as the producer wrote them.
    ///
    /// Idempotent: a normalised sample is canonical, so normalising it again as
    /// `.canonical` changes nothing; so does normalising it again as `.healthKit`,
    /// except that `%` values would be scaled once more (a 0–1 fraction and an
    /// already-scaled 0.5 % cannot be told apart) — normalise once per source, as
    /// the source's own convention, and anything later as `.canonical`.
    public static func normalize(_ sample: inout Sample, convention: ValueConvention) {
        normalize(&sample, convention: convention, type: TypeRegistry.resolve(sample.type), deviceIsCanonical: false)
    }

    /// `normalize(_:convention:)` for a source that looked the type up already (`type` is
    /// `TypeRegistry.resolve(sample.type)`) and, when `deviceIsCanonical`, made `device` canonical
    /// itself (the export parser does both once per distinct type and device, not once per record).
    /// Without `assigningId`, an empty id stays empty, for the `SourceOutput` to fill.
    public static func normalize(_ sample: inout Sample, convention: ValueConvention, type: HealthType?,
                                 deviceIsCanonical: Bool, assigningId: Bool = true) {
        if let type {
            if type.identifier != sample.type { sample.type = type.identifier }
            if let value = sample.value, let unit = sample.unit, let canonical = type.canonicalUnit {
                if unit == canonical {
                    if convention == .healthKit && unit == "%" { sample.value = value * 100 }
                } else if let converted = UnitConverter.convert(value, from: unit, to: canonical) {
                    sample.value = converted
                    sample.unit = canonical
                }
            }
        }
        if !deviceIsCanonical, let device = sample.device { sample.device = DeviceName.canonical(device) }
        if assigningId && sample.id.isEmpty { sample.id = Fingerprint.id(of: sample, type: type) }
    }
}
