import Foundation
import HealthRouterCore
import PostgresClient

/// Maps a canonical sample to a `healthkit_metrics` row the way health4ai's app writes one:
///
/// - quantity: `value`/`unit` as canonical, except `%` stored as a 0–1 fraction, `°C` as `degC` and
///   `mL/(kg·min)` as `mL/min·kg` (HealthKit's unit strings, which health4ai's app writes);
/// - category: `value` = HealthKit's raw integer (`CategoryValueCodes`; sleep: 0 inBed … 5 asleepREM;
///   0, `HKCategoryValueNotApplicable`, without a value, as for mindful sessions), `unit = 'category'`,
///   `metadata.sleep_stage` = the HealthKit value name for sleep, `metadata.category_value` otherwise;
/// - workout: `value` = duration in seconds, `unit = 'seconds'`, `metadata.workout_type`
///   (`HKWorkoutActivityType…`), `duration_seconds`, `total_distance_meters`, `total_energy_burned_cal` (kcal);
/// - any other kind (correlation, activity summary, profile, other record): `value` NULL,
///   `unit = 'record'`, the whole sample in `metadata."healthrouter:canonical"` and its kind in
///   `healthrouter:kind` (tiering and the daily view leave these rows alone);
/// - `source_device` = the device's `name:` when the sample has a device, else the source name;
/// - `metadata` = the sample's metadata plus the above, `healthrouter_id` (the sample's own id), and
///   the `healthrouter:` keys of `PostgresReservedKeys` for what the columns cannot hold; a U+0000
///   in any of its strings or keys is written as U+FFFD (jsonb refuses `\u0000`), the exact sample
///   then in `healthrouter:canonical`.
enum PostgresMetricRow {
    /// The `unit` of a row that holds a sample of a kind health4ai has no column layout for.
    static let recordUnit = "record"

    /// Appends the row for `sample` (every kind has one). `defaultUserId` is already normalized
    /// (`PostgresUserId.normalized`); `json` and `fields` are scratch space.
    static func append(_ sample: Sample, sequence: Int64, defaultUserId: String, json: inout JSONWriter,
                       fields: inout JSONWriter, into row: inout CopyTextWriter) {
        var value = sample.value
        var unit = sample.unit
        // jsonb cannot hold U+0000: `metadata` gets U+FFFD, `healthrouter:canonical` the exact sample.
        json.replacesNUL = true
        json.reset()
        json.beginObject()
        // The producer's metadata first: where one of its keys collides with a key the mapping
        // writes below (`healthrouter_id`, `workout_type`, …), jsonb keeps the last, the mapping's,
        // so read-back restores the id and the fields (the producer's value is the one not kept).
        for entry in sample.metadata {
            json.key(entry.key)
            json.value(entry.value)
        }
        switch sample.kind {
        case .quantity:
            if unit == "%", let percent = value { value = percent / 100 }
            unit = PostgresReservedKeys.storedUnit(unit)
        case .category:
            unit = "category"
            let name = sample.categoryValue.map { CategoryValueNames.healthKitName($0, type: sample.type) }
            if let name {
                json.key(sample.type == "HKCategoryTypeIdentifierSleepAnalysis" ? "sleep_stage" : "category_value")
                json.string(name)
            }
            value = PostgresReservedKeys.categoryCode(name).map(Double.init) ?? value
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
        let userId = sample.userId.map(PostgresUserId.normalized) ?? defaultUserId
        let sourceDevice = deviceName(sample.device) ?? sample.sourceName
        PostgresReservedKeys.write(sample, storedValue: value, storedUnit: unit, userId: userId,
                                   sourceDevice: sourceDevice, fields: &fields, into: &json)
        json.endObject()

        if PostgresUserId.isUUID(sample.id) { row.lowercasedASCII(sample.id) } else { row.text(PostgresUserId.uuid(sample.id)) }
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
        // Byte-level: this runs for every row (Foundation's range(of:) dominated the row encoding).
        var bytes = device
        return bytes.withUTF8 { utf8 -> String? in
            let marker: (UInt8, UInt8, UInt8, UInt8, UInt8) = (110, 97, 109, 101, 58)  // "name:"
            var index = 0
            while index + 5 <= utf8.count {
                if utf8[index] == marker.0, utf8[index + 1] == marker.1, utf8[index + 2] == marker.2,
                   utf8[index + 3] == marker.3, utf8[index + 4] == marker.4 {
                    var start = index + 5
                    var end = start
                    while end < utf8.count, utf8[end] != UInt8(ascii: ","), utf8[end] != UInt8(ascii: ">") { end += 1 }
                    while start < end, utf8[start] == 32 || utf8[start] == 9 { start += 1 }
                    while end > start, utf8[end - 1] == 32 || utf8[end - 1] == 9 { end -= 1 }
                    guard start < end else { return nil }
                    let name = String(decoding: UnsafeBufferPointer(rebasing: utf8[start..<end]), as: UTF8.self)
                    // Other Unicode white space at either end (rare): trimmed as Foundation does.
                    guard utf8[start] >= 0x80 || utf8[end - 1] >= 0x80 else { return name }
                    let trimmed = name.trimmingCharacters(in: .whitespaces)
                    return trimmed.isEmpty ? nil : trimmed
                }
                index += 1
            }
            return utf8[0] == UInt8(ascii: "<") ? nil : device
        }
    }
}
