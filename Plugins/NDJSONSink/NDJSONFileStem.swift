import HealthRouterCore

/// File names of Pulso's reference layout (pulso-protocol.md §1.9): `<stem>.ndjson`.
enum NDJSONFileStem {
    /// The file of tombstones.
    static let deleted = "_deleted"
    static let fileExtension = ".ndjson"

    /// The stem for samples of `type` (a HealthKit identifier): its Pulso key, else the
    /// identifier, with every character outside `[A-Za-z0-9_-]` replaced by `_` (per
    /// character, as Python's `re.sub` does); `unknown` when empty or when it would be the
    /// tombstone file.
    static func stem(forType type: String) -> String {
        let key = PulsoJSONEncoder.typeKey(type)
        var stem = ""
        stem.unicodeScalars.reserveCapacity(key.unicodeScalars.count)
        for scalar in key.unicodeScalars {
            switch scalar {
            case "A"..."Z", "a"..."z", "0"..."9", "_", "-": stem.unicodeScalars.append(scalar)
            default: stem.unicodeScalars.append("_")
            }
        }
        return stem.isEmpty || stem == deleted ? "unknown" : stem
    }
}
