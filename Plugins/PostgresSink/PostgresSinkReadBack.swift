import Foundation
import HealthRouterCore
import PostgresClient

extension PostgresSink {
    /// Streams the rows of `healthkit_metrics` back as canonical samples in `(started_at, id)`
    /// order, through a server-side cursor. The mapping is undone where it can be: the id is
    /// `metadata.healthrouter_id` when present, `%` values return to 0–100, a category's value name
    /// comes from `metadata.sleep_stage`/`category_value`, a workout's activity and totals from its
    /// metadata; the source is `source_device`. The `healthrouter:` keys (`PostgresReservedKeys`)
    /// then restore what the columns could not hold, and are removed. Daily summaries (tiering)
    /// cannot be returned as samples: when there are any, a warning says how many. Call after `prepare()`.
    /// A row whose `healthrouter:` keys it cannot decode (edited by hand) throws
    /// `SinkError.unreadable`, naming the table, the row's id and what to do.
    public func readBack(batchSize: Int = 10_000, _ body: (Sample) throws -> Void) throws {
        let connection = try session.connectionForReading()
        let table = SQL.qualified(configuration.schema, "healthkit_metrics")
        try connection.transaction {
            try connection.forEachRow(of: """
                SELECT id::text, user_id, metric_type, value, unit, source_device,
                       (extract(epoch FROM started_at) * 1000)::bigint, (extract(epoch FROM ended_at) * 1000)::bigint,
                       metadata::text
                FROM \(table) ORDER BY started_at, id
                """, cursor: "hr_read", batchSize: batchSize) { result, row in
                let sample: Sample
                do {
                    sample = try Self.sample(result, row)
                } catch {
                    throw Self.unreadable(error, table: table, rowId: result.text(row, 0) ?? "?", sink: sinkName)
                }
                try body(sample)
            }
            try warnAboutSummaries(connection)
        }
    }

    /// Logs a warning when `healthkit_daily_summaries` has days (tiering folded them, or another
    /// writer made them): their samples exist only as the day's statistics, which read-back cannot
    /// return, and a comparison of read-back samples (`migrate --verify`) cannot see them.
    private func warnAboutSummaries(_ connection: PostgresConnection) throws {
        let summaries = try connection.execute(
            "SELECT count(*), coalesce(sum(sample_count), 0) FROM \(SQL.qualified(configuration.schema, "healthkit_daily_summaries"))")
        guard let days = summaries.int(0, 0), days > 0 else { return }
        logger.warning("read back left out \(days) day summaries (\(summaries.int(0, 1) ?? 0) samples) of healthkit_daily_summaries: "
                           + "those samples exist only as daily statistics (summarize_after folded their raw rows), which "
                           + "cannot be read back as samples, so a migration does not carry them and migrate --verify does not "
                           + "compare them")
    }

    /// The `SinkError.unreadable` of the row `rowId` of `table`, whose sample `error` says it cannot
    /// read back: what is wrong, and what to do (`sink`: the sink's name).
    static func unreadable(_ error: any Error, table: String, rowId: String, sink: String) -> SinkError {
        let problem = (error as? PostgresReservedKeys.Unreadable).map { "its metadata key \($0.key) \($0.problem)" }
            ?? "its metadata is unreadable (\(error))"
        return .unreadableRow(table: table, id: rowId, problem: problem, canWriteBack: true, sink: sink)
    }

    static func sample(_ r: PostgresResult, _ row: Int) throws -> Sample {
        // JSONParser keeps the stored key order (JSONDecoder's allKeys order changes from run to run).
        var pairs: [(key: String, value: JSONValue)] = []
        var reserved: [String: JSONValue] = [:]
        if let text = r.text(row, 8), let object = try JSONParser.parse(text).objectValue {
            for pair in object {
                if pair.key.hasPrefix(PostgresReservedKeys.prefix) {
                    reserved[String(pair.key.dropFirst(PostgresReservedKeys.prefix.count))] = pair.value
                } else {
                    pairs.append(pair)
                }
            }
        }
        let allMetadata = PulsoJSONDecoder.metadata(.object(pairs))
        var metadata = allMetadata
        func take(_ key: String) -> MetadataValue? {
            guard let index = metadata.firstIndex(where: { $0.key == key }) else { return nil }
            return metadata.remove(at: index).value
        }
        func text(_ value: MetadataValue?) -> String? { if case .string(let s) = value { s } else { nil } }
        func number(_ value: MetadataValue?) -> Double? { if case .number(let n) = value { n } else { nil } }
        let type = r.text(row, 2) ?? ""
        let start = Timestamp(epochMilliseconds: r.int(row, 6) ?? 0)
        let unit = r.text(row, 4)
        var sample = Sample(id: text(take("healthrouter_id")) ?? r.text(row, 0) ?? "", type: type, kind: .quantity,
                            start: start, end: r.int(row, 7).map { Timestamp(epochMilliseconds: $0) } ?? start,
                            timeZone: text(take("HKTimeZone")), value: r.double(row, 3), unit: unit,
                            sourceName: r.text(row, 5) ?? "", userId: r.text(row, 1))
        if case .string(let name) = reserved["kind"], let kind = SampleKind.allCases.first(where: { $0.name == name }) {
            sample.kind = kind
        } else {
            sample.kind = PostgresReservedKeys.kind(unit: unit, hasWorkoutType: metadata.contains { $0.key == "workout_type" })
        }
        switch sample.kind {
        case .workout:
            let duration = number(take("duration_seconds"))
            sample.detail = .workout(Workout(activityType: text(take("workout_type")) ?? "", durationSeconds: duration,
                                             totalDistanceMeters: number(take("total_distance_meters")),
                                             totalEnergyBurnedKilocalories: number(take("total_energy_burned_cal"))))
            sample.unit = nil
        case .category:
            sample.categoryValue = text(take("sleep_stage")) ?? text(take("category_value"))
            sample.unit = nil
        default:
            sample.unit = PostgresReservedKeys.restoredUnit(unit)
        }
        sample.value = PostgresReservedKeys.value(stored: sample.value, unit: unit, kind: sample.kind,
                                                  categoryValue: sample.categoryValue)
        sample.metadata = metadata
        try PostgresReservedKeys.restore(reserved, metadata: allMetadata, into: &sample)
        return sample
    }
}

extension PostgresSink: ReadableSink {
    /// `healthkit_metrics` in the configured schema, when the server has no such table.
    public var missingStore: String? {
        session.missingStore(table: "healthkit_metrics")
    }

    /// `readBack(batchSize:_:)`'s samples as items (this schema records no tombstones). The
    /// server's failures are thrown as `PostgresError.readBackError` sorts them: a connection lost
    /// mid-read is `unavailable`, a stored value the query cannot convert `unreadable`.
    public func readBack(_ visit: (HealthItem) throws -> Void) throws {
        do {
            try readBack(batchSize: 10_000) { try visit(.sample($0)) }
        } catch let error as PostgresError {
            throw error.readBackError(table: SQL.qualified(configuration.schema, "healthkit_metrics"),
                                      timeColumns: ["started_at", "ended_at"], sink: sinkName)
        }
    }
}
