import Foundation
import HealthRouterCore
import PostgresClient

extension PostgresSink {
    /// Streams the rows of `healthkit_metrics` back as canonical samples in `(started_at, id)`
    /// order, through a server-side cursor. The mapping is undone where it can be: the id is
    /// `metadata.healthrouter_id` when present, `%` values return to 0–100, a category's value name
    /// comes from `metadata.sleep_stage`/`category_value`, a workout's activity and totals from its
    /// metadata; the source is `source_device`. Call after `prepare()`.
    public func readBack(batchSize: Int = 10_000, _ body: (Sample) throws -> Void) throws {
        guard let connection = liveConnection else { throw SinkError.unavailable("postgres: read before prepare") }
        try connection.transaction {
            try connection.execute("""
                DECLARE hr_read NO SCROLL CURSOR FOR
                SELECT id::text, user_id, metric_type, value, unit, source_device,
                       (extract(epoch FROM started_at) * 1000)::bigint, (extract(epoch FROM ended_at) * 1000)::bigint,
                       metadata::text
                FROM \(SQL.qualified(configuration.schema, "healthkit_metrics")) ORDER BY started_at, id
                """)
            while true {
                let result = try connection.execute("FETCH \(batchSize) FROM hr_read")
                if result.rowCount == 0 { break }
                for row in 0..<result.rowCount { try body(try Self.sample(result, row)) }
            }
            try connection.execute("CLOSE hr_read")
        }
    }

    static func sample(_ r: PostgresResult, _ row: Int) throws -> Sample {
        // JSONParser keeps the stored key order (JSONDecoder's allKeys order changes from run to run).
        var metadata = try r.text(row, 8).map { PulsoJSONDecoder.metadata(try JSONParser.parse($0)) } ?? []
        func take(_ key: String) -> MetadataValue? {
            guard let index = metadata.firstIndex(where: { $0.key == key }) else { return nil }
            return metadata.remove(at: index).value
        }
        func text(_ value: MetadataValue?) -> String? { if case .string(let s) = value { s } else { nil } }
        func number(_ value: MetadataValue?) -> Double? { if case .number(let n) = value { n } else { nil } }
        let type = r.text(row, 2) ?? ""
        let start = Timestamp(epochMilliseconds: r.int(row, 6) ?? 0)
        var sample = Sample(id: text(take("healthrouter_id")) ?? r.text(row, 0) ?? "", type: type, kind: .quantity,
                            start: start, end: r.int(row, 7).map { Timestamp(epochMilliseconds: $0) } ?? start,
                            timeZone: text(take("HKTimeZone")), value: r.double(row, 3), unit: r.text(row, 4),
                            sourceName: r.text(row, 5) ?? "", userId: r.text(row, 1))
        if sample.unit == "seconds", let workoutType = text(take("workout_type")) {
            sample.kind = .workout
            let duration = number(take("duration_seconds"))
            sample.detail = .workout(Workout(activityType: workoutType, durationSeconds: duration,
                                             totalDistanceMeters: number(take("total_distance_meters")),
                                             totalEnergyBurnedKilocalories: number(take("total_energy_burned_cal"))))
            sample.value = nil
            sample.unit = nil
        } else if sample.unit == "category" {
            sample.kind = .category
            sample.categoryValue = text(take("sleep_stage")) ?? text(take("category_value"))
            sample.unit = nil
            if sample.type == "HKCategoryTypeIdentifierSleepAnalysis" { sample.value = nil }
        } else if sample.unit == "%", let fraction = sample.value {
            sample.value = fraction * 100
        }
        sample.metadata = metadata
        return sample
    }
}

/// A JSON object of strings, numbers and booleans.
struct MetadataObject: Decodable {
    var entries: [MetadataEntry] = []

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        for key in container.allKeys {
            if let flag = try? container.decode(Bool.self, forKey: key) {
                entries.append(MetadataEntry(key.stringValue, .bool(flag)))
            } else if let number = try? container.decode(Double.self, forKey: key) {
                entries.append(MetadataEntry(key.stringValue, .number(number)))
            } else if let text = try? container.decode(String.self, forKey: key) {
                entries.append(MetadataEntry(key.stringValue, .string(text)))
            }
        }
    }
}

extension PostgresSink: ReadableSink {
    /// `readBack(batchSize:_:)`'s samples as items (this schema records no tombstones).
    public func readBack(_ visit: (HealthItem) throws -> Void) throws {
        try readBack(batchSize: 10_000) { try visit(.sample($0)) }
    }
}
