import HealthRouterCore

/// File names of Pulso's reference layout (pulso-protocol.md §1.9): `<stem>.ndjson`.
enum NDJSONFileStem {
    /// The file of tombstones.
    static let deleted = PulsoFileStem.deleted
    static let fileExtension = ".ndjson"

    /// The stem for samples of `type` (a HealthKit identifier): that of its Pulso key, else of the
    /// identifier (`PulsoFileStem`).
    static func stem(forType type: String) -> String {
        PulsoFileStem.of(key: PulsoJSONEncoder.typeKey(type))
    }
}
