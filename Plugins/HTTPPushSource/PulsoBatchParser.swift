import Foundation
import HealthRouterCore

/// Turns a Pulso protocol v1.2 `POST /ingest` body (a JSON array of sample objects and
/// `{"deleted":[…]}` tombstones, pulso-protocol.md §1.3–1.4) into canonical items.
///
/// - Every element counts in `received`, as Pulso's reference server counts it; elements
///   that are not objects, and samples without a string `uuid` or with dates that cannot be
///   read, are skipped (counted in `skipped`).
/// - An element with `deleted` is a tombstone even if it has a `uuid`; a non-list `deleted`
///   deletes nothing; non-string entries are skipped.
/// - Samples: `type` short keys become HealthKit identifiers, category names HealthKit's,
///   workout activity names HealthKit's; `metadata.timeZone` becomes the sample's zone;
///   healthrouter's additive fields (`identifier`, `kind`, `categoryValue`, `numericValue`,
///   `activityType`, `timeZone`, `sourceVersion`, `device`, `creationDate`) are read back.
///   Every item carries `userId` (the pushing token's user), whatever the body says.
enum PulsoBatchParser {
    struct Batch {
        var items: [HealthItem] = []
        var received = 0
        var skipped = 0
        /// For `/latest`: each sample's wire `type` and `end`, in body order.
        var ends: [(key: String, end: String, instant: Timestamp)] = []
    }

    enum Failure: Error, Equatable {
        case badJSON
        case notArray
    }

    static func parse(_ body: [UInt8], userId: String?) throws(Failure) -> Batch {
        guard let root = JSONValues.parse(body) else { throw .badJSON }
        guard let elements = root as? [Any] else { throw .notArray }
        var batch = Batch()
        batch.received = elements.count
        batch.items.reserveCapacity(elements.count)
        for element in elements {
            guard let object = element as? [String: Any] else {
                batch.skipped += 1
                continue
            }
            if let deleted = object["deleted"] {
                let ids = (deleted as? [Any])?.compactMap { $0 as? String } ?? []
                if !ids.isEmpty { batch.items.append(.tombstone(Tombstone(ids: ids, userId: userId))) }
                continue
            }
            guard let sample = sample(from: object, userId: userId) else {
                batch.skipped += 1
                continue
            }
            batch.items.append(.sample(sample.sample))
            batch.ends.append((sample.key, sample.endText, sample.sample.end))
        }
        return batch
    }

    /// One sample object as a canonical sample, with its wire type key and `end` string.
    static func sample(from object: [String: Any], userId: String?) -> (sample: Sample, key: String, endText: String)? {
        guard let id = object["uuid"] as? String, !id.isEmpty,
              let startText = object["start"] as? String, let endText = object["end"] as? String,
              let start = HealthDateParser.parse(startText), let end = HealthDateParser.parse(endText) else { return nil }
        let key = object["type"] as? String ?? "unknown"
        let known = TypeRegistry.type(key: key) ?? TypeRegistry.resolve(key)
        let identifier = object["identifier"] as? String ?? known?.identifier ?? key

        var kind: SampleKind
        if let name = object["kind"] as? String, let named = SampleKind.allCases.first(where: { $0.name == name }) {
            kind = named
        } else if let known {
            kind = known.kind
        } else if key == "workout" || object["workoutActivityType"] != nil {
            kind = .workout
        } else {
            kind = object["value"] is String ? .category : .quantity
        }

        var sample = Sample(id: id, type: identifier, kind: kind, start: start, end: end,
                            sourceName: object["source"] as? String ?? "", userId: userId)
        if let text = object["value"] as? String {
            sample.categoryValue = object["categoryValue"] as? String
                ?? CategoryValueNames.healthKitName(text, type: identifier)
            sample.value = JSONValues.number(object["numericValue"])
        } else {
            sample.value = JSONValues.number(object["value"])
        }
        sample.unit = object["unit"] as? String
        sample.sourceBundleId = object["sourceBundleId"] as? String
        sample.sourceVersion = object["sourceVersion"] as? String
        sample.device = object["device"] as? String
        if let created = object["creationDate"] as? String { sample.createdAt = HealthDateParser.parse(created) }

        let explicitZone = object["timeZone"] as? String
        sample.timeZone = explicitZone
        if let metadata = object["metadata"] as? [String: Any] {
            // Key order is not significant on the wire; sorted keeps the stored content stable.
            for (metaKey, value) in metadata.sorted(by: { $0.key < $1.key }) {
                if metaKey == "timeZone", explicitZone == nil, let zone = value as? String {
                    sample.timeZone = zone
                    continue
                }
                if let converted = JSONValues.metadataValue(value) { sample.metadata.append(MetadataEntry(metaKey, converted)) }
            }
        }

        if kind == .workout {
            let wire = object["workoutActivityType"] as? String ?? "other"
            var workout = Workout(activityType: object["activityType"] as? String ?? WorkoutActivityName.healthKitName(wire))
            workout.durationSeconds = JSONValues.number(object["duration"])
            workout.totalEnergyBurnedKilocalories = JSONValues.number(object["totalEnergyBurned"])
            workout.totalBasalEnergyBurnedKilocalories = JSONValues.number(object["totalBasalEnergyBurned"])
            workout.totalDistanceMeters = JSONValues.number(object["totalDistance"])
            workout.averageHeartRate = JSONValues.number(object["averageHeartRate"])
            workout.minimumHeartRate = JSONValues.number(object["minimumHeartRate"])
            workout.maximumHeartRate = JSONValues.number(object["maximumHeartRate"])
            sample.detail = .workout(workout)
        }
        SampleNormalizer.normalize(&sample, convention: .canonical)
        return (sample, sanitizedKey(key), endText)
    }

    /// The type key as Pulso's server names its files: every character outside
    /// `[A-Za-z0-9_-]` replaced by `_`; empty becomes `unknown`.
    static func sanitizedKey(_ key: String) -> String {
        guard !key.isEmpty else { return "unknown" }
        return String(String.UnicodeScalarView(key.unicodeScalars.map { scalar in
            let v = scalar.value
            let ok = (v >= 0x30 && v <= 0x39) || (v >= 0x41 && v <= 0x5A) || (v >= 0x61 && v <= 0x7A) || v == 0x5F || v == 0x2D
            return ok ? scalar : "_"
        }))
    }
}
