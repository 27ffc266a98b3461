import Foundation
import HealthRouterCore
import PostgresClient

/// Maps a canonical sample to a `healthkit_metrics` row the way health4ai's app writes one:
///
/// - quantity: `value`/`unit` as canonical, except `%` stored as a 0–1 fraction;
/// - category: `value` = HealthKit's raw integer (sleep: 0 inBed … 5 asleepREM), `unit = 'category'`,
///   `metadata.sleep_stage` = the HealthKit value name for sleep, `metadata.category_value` otherwise;
/// - workout: `value` = duration in seconds, `unit = 'seconds'`, `metadata.workout_type`
///   (`HKWorkoutActivityType…`), `duration_seconds`, `total_distance_meters`, `total_energy_burned_cal` (kcal);
/// - any other kind (correlation, activity summary, profile, other record): `value` NULL,
///   `unit = 'record'`, the whole sample in `metadata."healthrouter:canonical"` and its kind in
///   `healthrouter:kind` (tiering and the daily view leave these rows alone);
/// - `source_device` = the device's `name:` when the sample has a device, else the source name;
/// - `metadata` = the sample's metadata plus the above, `healthrouter_id` (the sample's own id), and
///   the `healthrouter:` keys of `PostgresReservedKeys` for what the columns cannot hold.
enum PostgresMetricRow {
    static let sleepCodes: [String: Double] = [
        "HKCategoryValueSleepAnalysisInBed": 0, "HKCategoryValueSleepAnalysisAsleepUnspecified": 1,
        "HKCategoryValueSleepAnalysisAwake": 2, "HKCategoryValueSleepAnalysisAsleepCore": 3,
        "HKCategoryValueSleepAnalysisAsleepDeep": 4, "HKCategoryValueSleepAnalysisAsleepREM": 5,
    ]
    static let standCodes: [String: Double] = ["HKCategoryValueAppleStandHourStood": 0, "HKCategoryValueAppleStandHourIdle": 1]

    /// The `unit` of a row that holds a sample of a kind health4ai has no column layout for.
    static let recordUnit = "record"

    /// Appends the row for `sample` (every kind has one).
    static func append(_ sample: Sample, sequence: Int64, defaultUserId: String, json: inout JSONWriter,
                       into row: inout CopyTextWriter) {
        var value = sample.value
        var unit = sample.unit
        json.reset()
        json.beginObject()
        switch sample.kind {
        case .quantity:
            if unit == "%", let percent = value { value = percent / 100 }
        case .category:
            unit = "category"
            if let name = sample.categoryValue.map({ CategoryValueNames.healthKitName($0, type: sample.type) }) {
                if sample.type == "HKCategoryTypeIdentifierSleepAnalysis" {
                    json.key("sleep_stage"); json.string(name)
                    value = sleepCodes[name] ?? value
                } else {
                    json.key("category_value"); json.string(name)
                    if sample.type == "HKCategoryTypeIdentifierAppleStandHour" { value = standCodes[name] ?? value }
                }
            }
        case .workout:
            let workout: Workout
            if case .workout(let detail) = sample.detail { workout = detail } else { workout = Workout(activityType: "") }
            value = workout.durationSeconds ?? Double(sample.end.epochMilliseconds - sample.start.epochMilliseconds) / 1000
            unit = "seconds"
            json.key("workout_type"); json.string(WorkoutActivityName.healthKitName(workout.activityType))
            json.key("duration_seconds"); json.number(value ?? 0)
            json.field("total_distance_meters", workout.totalDistanceMeters)
            json.field("total_energy_burned_cal", workout.totalEnergyBurnedKilocalories)
        case .correlation, .activitySummary, .profile, .other:
            value = nil
            unit = recordUnit
        }
        json.key("healthrouter_id"); json.string(sample.id)
        if let timeZone = sample.timeZone, !sample.metadata.contains(where: { $0.key == "HKTimeZone" }) {
            json.key("HKTimeZone"); json.string(timeZone)
        }
        let userId = PostgresUserId.normalized(sample.userId ?? defaultUserId)
        let sourceDevice = deviceName(sample.device) ?? sample.sourceName
        PostgresReservedKeys.write(sample, storedValue: value, storedUnit: unit, userId: userId,
                                   sourceDevice: sourceDevice, into: &json)
        for entry in sample.metadata {
            json.key(entry.key)
            switch entry.value {
            case .string(let text): json.string(text)
            case .number(let number): json.number(number)
            case .bool(let flag): json.bool(flag)
            }
        }
        json.endObject()

        row.text(PostgresUserId.uuid(sample.id))
        row.text(userId)
        row.text(sample.type)
        row.double(value.map { $0.isFinite ? $0 : nil } ?? nil)
        row.text(unit)
        row.text(sourceDevice)
        row.int(sample.start.epochMilliseconds)
        row.int(sample.end.epochMilliseconds)
        row.textBytes(json.bytes)
        row.int(sequence)
        row.endRow()
    }

    /// The `name:` of an HKDevice description (`<<HKDevice: 0x…>, name:Apple Watch, …>`), or a plain name.
    static func deviceName(_ device: String?) -> String? {
        guard let device, !device.isEmpty else { return nil }
        guard let range = device.range(of: "name:") else { return device.hasPrefix("<") ? nil : device }
        let rest = device[range.upperBound...]
        let end = rest.firstIndex(where: { $0 == "," || $0 == ">" }) ?? rest.endIndex
        let name = rest[..<end].trimmingCharacters(in: .whitespaces)
        return name.isEmpty ? nil : name
    }
}
