/// Pulso's `metadata.protectionUsed` of a sexual activity sample (pulso-protocol.md §1.6, §1.7):
/// a boolean, where HealthKit and export.xml name the same fact `HKSexualActivityProtectionUsed`
/// (`0` or `1`, read as a number).
///
/// Contract: the Pulso layout (`PulsoJSONEncoder`) writes `protectionUsed` right after an
/// `HKSexualActivityProtectionUsed` entry of `0`, `1` or a boolean when the metadata has no
/// `protectionUsed` of its own (`derived`), so that a tool made for Pulso's server finds the flag
/// of an export's sample too; the canonical sample keeps HealthKit's key alone. A reader of a line
/// healthrouter wrote (its `kind` given) takes that entry out again (`removeDerived`), so that the
/// line reads back as the sample it was written from. A Pulso client's own `protectionUsed` (no
/// HealthKit key beside it) is the client's metadata, kept as sent.
public enum PulsoProtectionUsed {
    /// The sexual activity type, the only one that carries the flag.
    public static let type = "HKCategoryTypeIdentifierSexualActivity"
    /// Pulso's metadata key.
    public static let pulsoKey = "protectionUsed"
    /// HealthKit's metadata key, as export.xml writes it.
    public static let healthKitKey = "HKSexualActivityProtectionUsed"

    /// The value of the `protectionUsed` entry to write right after HealthKit's key in the
    /// metadata of a sample of `type`: that key's `0`, `1` or boolean, when the metadata has no
    /// `protectionUsed` of its own; nil otherwise.
    public static func derived(type: String, metadata: [MetadataEntry]) -> Bool? {
        guard type == Self.type, !metadata.contains(where: { $0.key == pulsoKey }),
              let entry = metadata.first(where: { $0.key == healthKitKey }) else { return nil }
        return boolean(entry.value)
    }

    /// Takes out of `metadata` (read from a line healthrouter wrote) the `protectionUsed` entry
    /// `derived` put there: a boolean beside HealthKit's key, equal to it, on a sample of `type`.
    /// (The push source reads metadata sorted by key, so its place is not looked at.)
    public static func removeDerived(type: String, from metadata: inout [MetadataEntry]) {
        guard type == Self.type, let index = metadata.firstIndex(where: { $0.key == pulsoKey }),
              case .bool(let flag) = metadata[index].value else { return }
        var rest = metadata
        rest.remove(at: index)
        guard derived(type: type, metadata: rest) == flag else { return }
        metadata = rest
    }

    /// `true` for `1` or `true`, `false` for `0` or `false`; nil for anything else (kept as it is).
    static func boolean(_ value: MetadataValue) -> Bool? {
        switch value {
        case .bool(let flag): flag
        case .number(let number) where number == 1: true
        case .number(let number) where number == 0: false
        default: nil
        }
    }
}
