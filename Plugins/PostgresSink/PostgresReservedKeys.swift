import Foundation
import HealthRouterCore
import PostgresClient

/// The `healthrouter:` metadata keys that carry what `healthkit_metrics`' columns cannot hold, so
/// read-back returns the canonical sample exactly. Each field is written only when the columns and
/// the health4ai keys (`sleep_stage`, `workout_type`, …) would restore it differently; read-back
/// removes them all. health4ai's readers ignore unknown metadata keys.
///
/// Three keys at most: `healthrouter:kind`, `healthrouter:canonical`, and `healthrouter:fields`, a
/// JSON object *as a string* with the other fields. One string instead of a key per field keeps
/// the GIN index on `metadata` (health4ai's schema has one) from indexing every field's key and
/// value: with a key each, the bench's rows carried 5 of them and loaded ~25 % slower.
///
/// | key, or field of `healthrouter:fields` | holds |
/// |---|---|
/// | `start_offset`, `end_offset` | UTC offsets of start and end, seconds |
/// | `created_at`, `created_offset` | `createdAt` (epoch ms) and its offset |
/// | `source_name` | the source name, when `source_device` holds the device's name |
/// | `source_version`, `bundle_id`, `device` | as in the sample |
/// | `user_id` | the sample's user as written (null: none), when `user_id` differs |
/// | `value`, `unit` | value/unit (null: none), when the stored ones do not map back |
/// | `category_value` | the category's value name when not the `HKCategoryValue…` name its code reads back as (`dozing`) |
/// | `time_zone` | the time zone (null: none), when the metadata's own `HKTimeZone` differs from it |
/// | `metadata_order` | the metadata keys in the producer's order, when jsonb would reorder them or one is a mapping key (`HKTimeZone`, …) |
/// | key `healthrouter:kind` | the kind, when `unit` would suggest another (a quantity in `seconds`/`category`; every `record` row) |
/// | key `healthrouter:canonical` | a sample whose detail the columns cannot hold (a workout's heart rates, events, activities, routes; HRV's beats; every correlation, activity summary, profile and other record), or whose metadata got U+FFFD for a U+0000: the whole sample, base64 of its journal encoding |
///
/// Rows written before `healthrouter:fields` existed carry each field as a key of its own
/// (`healthrouter:start_offset`, …); read-back accepts both.
enum PostgresReservedKeys {
    static let prefix = "healthrouter:"
    static let kindKey = "healthrouter:kind"
    static let canonicalKey = "healthrouter:canonical"
    static let fieldsKey = "healthrouter:fields"

    /// Writes the reserved keys `sample` needs, given what its row stores and what `json` (its
    /// `metadata`, written up to them) replaced; `fields` is scratch space.
    static func write(_ sample: Sample, storedValue: Double?, storedUnit: String?, userId: String,
                      sourceDevice: String, fields: inout JSONWriter, into json: inout JSONWriter) {
        let restoredKind = kind(unit: storedUnit, hasWorkoutType: sample.kind == .workout)
        if restoredKind != sample.kind { json.key(kindKey); json.string(sample.kind.name) }
        // `json.replacedNUL`: a key or string of the metadata written so far got U+FFFD for U+0000.
        if !columnsHoldDetail(sample, storedValue: storedValue) || json.replacedNUL {
            json.key(canonicalKey)
            json.string(Data(SampleCodec.encode(.sample(sample))).base64EncodedString())
        }
        fields.reset()
        fields.beginObject()
        writeFields(sample, storedValue: storedValue, storedUnit: storedUnit, userId: userId, sourceDevice: sourceDevice,
                    into: &fields)
        fields.endObject()
        if fields.bytes.count > 2 {
            json.key(fieldsKey)
            json.string(String(decoding: fields.bytes, as: UTF8.self))
        }
    }

    /// The fields of `healthrouter:fields`, each only when needed.
    private static func writeFields(_ sample: Sample, storedValue: Double?, storedUnit: String?, userId: String,
                                    sourceDevice: String, into json: inout JSONWriter) {
        func optional(_ key: String, _ text: String?) {
            json.key(key)
            if let text { json.string(text) } else { json.null() }
        }
        if let offset = sample.start.utcOffsetSeconds { json.key("start_offset"); json.int(Int64(offset)) }
        if let offset = sample.end.utcOffsetSeconds { json.key("end_offset"); json.int(Int64(offset)) }
        if let created = sample.createdAt {
            json.key("created_at"); json.int(created.epochMilliseconds)
            if let offset = created.utcOffsetSeconds { json.key("created_offset"); json.int(Int64(offset)) }
        }
        if sourceDevice != sample.sourceName { json.field("source_name", sample.sourceName) }
        json.field("source_version", sample.sourceVersion)
        json.field("bundle_id", sample.sourceBundleId)
        json.field("device", sample.device)
        if sample.userId != userId { optional("user_id", sample.userId) }
        let restoredCategory = sample.kind == .category
            ? sample.categoryValue.map { CategoryValueNames.healthKitName($0, type: sample.type) } : nil
        if !same(value(stored: storedValue, unit: storedUnit, kind: sample.kind, categoryValue: restoredCategory), sample.value) {
            json.key("value")
            if let value = sample.value, value.isFinite { json.number(value) } else { json.null() }
        }
        if (sample.kind == .quantity ? restoredUnit(storedUnit) : nil) != sample.unit { optional("unit", sample.unit) }
        if restoredCategory != sample.categoryValue { optional("category_value", sample.categoryValue) }
        if let metadataZone = sample.metadata.first(where: { $0.key == "HKTimeZone" }),
           metadataZone.value != sample.timeZone.map(MetadataValue.string) {
            optional("time_zone", sample.timeZone)
        }
        if !JSONBKeyOrder.holds(for: sample.metadata) || sample.metadata.contains(where: { mappingKeys.contains($0.key) }) {
            json.key("metadata_order")
            json.beginArray()
            for entry in sample.metadata { json.string(entry.key) }
            json.endArray()
        }
    }

    /// The keys the mapping writes into `metadata` and read-back takes out of it.
    static let mappingKeys: Set<String> = ["healthrouter_id", "HKTimeZone", "sleep_stage", "category_value", "workout_type",
                                           "duration_seconds", "total_distance_meters", "total_energy_burned_cal"]

    /// The unit a quantity row stores for the canonical `unit`: HealthKit's unit string (`HKUnit.unitString`,
    /// as export.xml writes it) where health4ai's app writes it and the canonical unit differs
    /// (`degC` for `°C`, `mL/min·kg` for VO2 max's `mL/(kg·min)`), else the canonical unit.
    static func storedUnit(_ unit: String?) -> String? {
        switch unit {
        case "°C": "degC"
        case "mL/(kg·min)": "mL/min·kg"
        default: unit
        }
    }

    /// The canonical unit of a quantity row's stored `unit` (`storedUnit` undone).
    static func restoredUnit(_ unit: String?) -> String? {
        switch unit {
        case "degC": "°C"
        case "mL/min·kg": "mL/(kg·min)"
        default: unit
        }
    }

    /// The kind read-back infers from a row's unit.
    static func kind(unit: String?, hasWorkoutType: Bool) -> SampleKind {
        if unit == "seconds" && hasWorkoutType { return .workout }
        return unit == "category" ? .category : .quantity
    }

    /// The value read-back restores from a row's value without `healthrouter:value`: a category's
    /// stored raw integer is its value name's (`categoryCode`), not a value of the sample's own.
    static func value(stored: Double?, unit: String?, kind: SampleKind, categoryValue: String?) -> Double? {
        switch kind {
        case .workout: nil
        case .category: stored == categoryCode(categoryValue).map(Double.init) ? nil : stored
        default: unit == "%" ? stored.map { $0 * 100 } : stored
        }
    }

    /// The raw integer a category row stores for the HealthKit value name `name`; a category
    /// without a value name is HealthKit's `NotApplicable` (0).
    static func categoryCode(_ name: String?) -> Int? {
        CategoryValueCodes.code(name ?? "HKCategoryValueNotApplicable")
    }

    /// Whether the columns and the health4ai keys restore the sample's detail (a quantity or
    /// category without detail, or a workout with only the four mapped totals); otherwise
    /// `canonical` carries the whole sample (always for correlations, activity summaries, the
    /// profile and other records).
    static func columnsHoldDetail(_ sample: Sample, storedValue: Double?) -> Bool {
        switch sample.detail {
        case .none: sample.kind == .quantity || sample.kind == .category
        case .workout(let workout): sample.kind == .workout && restoredWorkout(workout, duration: storedValue) == workout
        default: false
        }
    }

    /// The workout read-back restores from the columns and the health4ai keys.
    static func restoredWorkout(_ workout: Workout, duration: Double?) -> Workout {
        Workout(activityType: WorkoutActivityName.healthKitName(workout.activityType), durationSeconds: duration,
                totalDistanceMeters: workout.totalDistanceMeters,
                totalEnergyBurnedKilocalories: workout.totalEnergyBurnedKilocalories)
    }

    /// Equal values, nil and non-finite (stored as NULL) counting as the same.
    static func same(_ a: Double?, _ b: Double?) -> Bool {
        let a = a.flatMap { $0.isFinite ? $0 : nil }, b = b.flatMap { $0.isFinite ? $0 : nil }
        return a == b
    }

    /// Applies the reserved keys of a row (key without prefix → value; the fields of
    /// `healthrouter:fields` count as keys of their own) to the sample read-back built from its
    /// columns; `metadata_order` picks the producer's keys, in its order, from `metadata` (all the
    /// row's other keys).
    /// Throws `Unreadable` for a `healthrouter:fields` that is no JSON or a
    /// `healthrouter:canonical` that is no sample healthrouter encoded (a row edited by hand).
    static func restore(_ keys: [String: JSONValue], metadata: [MetadataEntry], into sample: inout Sample) throws {
        var reserved = keys
        if case .string(let text) = keys["fields"] {
            let fields: JSONValue
            do {
                fields = try JSONParser.parse(text)
            } catch {
                throw Unreadable(key: fieldsKey, problem: "is no JSON (\(error))")
            }
            for pair in fields.objectValue ?? [] { reserved[pair.key] = pair.value }
        }
        if case .string(let base64) = reserved["canonical"] {
            guard let bytes = Data(base64Encoded: base64), let item = try? SampleCodec.decode(Array(bytes)) else {
                throw Unreadable(key: canonicalKey, problem: "is no sample healthrouter encoded (damaged or cut short)")
            }
            if case .sample(let original) = item {
                sample = original
                return
            }
        }
        // A row another program wrote may hold anything there: no offset rather than a trap.
        func offset(_ key: String) -> Int32? { if case .number(let n) = reserved[key] { Int32(exactly: n) } else { nil } }
        func text(_ key: String) -> String? { if case .string(let s) = reserved[key] { s } else { nil } }
        sample.start.utcOffsetSeconds = offset("start_offset")
        sample.end.utcOffsetSeconds = offset("end_offset")
        if case .number(let created) = reserved["created_at"] {
            sample.createdAt = Timestamp(epochMilliseconds: Int64(created), utcOffsetSeconds: offset("created_offset"))
        }
        if let name = text("source_name") { sample.sourceName = name }
        sample.sourceVersion = text("source_version")
        sample.sourceBundleId = text("bundle_id")
        sample.device = text("device")
        if let user = reserved["user_id"] { sample.userId = user.stringValue }
        if let name = text("kind"), let kind = SampleKind.allCases.first(where: { $0.name == name }) { sample.kind = kind }
        if let value = reserved["value"] { if case .number(let n) = value { sample.value = n } else { sample.value = nil } }
        if let unit = reserved["unit"] { sample.unit = unit.stringValue }
        if let category = reserved["category_value"] { sample.categoryValue = category.stringValue }
        if let zone = reserved["time_zone"] { sample.timeZone = zone.stringValue }
        if case .array(let keys) = reserved["metadata_order"] {
            sample.metadata = keys.compactMap { key in
                guard case .string(let name) = key else { return nil }
                return metadata.first { $0.key == name }
            }
        }
    }
}

extension PostgresReservedKeys {
    /// A reserved key of a row's metadata that read-back cannot decode: `key` and what is wrong.
    struct Unreadable: Error {
        var key: String
        var problem: String
    }
}

extension JSONValue {
    /// The string, or nil for anything else (null).
    fileprivate var stringValue: String? { if case .string(let s) = self { s } else { nil } }
}
