import Foundation
import HealthRouterCore
import PostgresClient

extension TimescaleDBSink {
    /// Streams every stored row back as a canonical sample, table by table in `(start_at, id)`
    /// order, `batchSize` rows at a time (a server-side cursor, so memory stays flat). Samples
    /// with detail (workouts, correlations, beats, records) or with metadata keys jsonb would
    /// reorder come back exactly as written (`canonical`); other plain samples from their columns.
    /// Every sample's `userId` is its row's `user_id`, but for rows under the sink's own `user_id`
    /// that came without a user: those come back without one, as the postgres sink reads them
    /// back, so that a migration gives them the target's user for such samples and
    /// `migrate --verify` meets them as the source holds them. A sample that came with that user
    /// keeps it: its `canonical` says so (`sample(_:_:sinkUserId:)`).
    /// A row it cannot decode (a `canonical` edited by hand) throws `SinkError.unreadable`, naming
    /// the table, the row's id and what to do. Call after `prepare()`.
    public func readBack(batchSize: Int = 10_000, _ body: (Sample) throws -> Void) throws {
        let connection = try session.connectionForReading()
        try connection.transaction {
            for (table, special) in [("samples", "kind, value, unit, category_value"),
                                     ("sleep_stages", "'category', value, unit, category_value"),
                                     ("workouts", "'workout', NULL::float8, NULL, NULL")] {
                let ms = { (column: String) in "(extract(epoch FROM \(column)) * 1000)::bigint" }
                let qualified = SQL.qualified(configuration.schema, table)
                do {
                    try connection.forEachRow(of: """
                        SELECT canonical, id, type, \(ms("start_at")), \(ms("end_at")), start_utc_offset, end_utc_offset,
                               time_zone, source_name, source_version, source_bundle_id, device, \(ms("created_at")),
                               created_utc_offset, metadata::text, user_id, \(special)
                        FROM \(qualified) ORDER BY start_at, id
                        """, cursor: "hr_read", batchSize: batchSize) { result, row in
                        let sample: Sample
                        do {
                            sample = try Self.sample(result, row, sinkUserId: configuration.userId)
                        } catch {
                            throw Self.unreadable(error, table: qualified, id: result.text(row, 1) ?? "?", sink: sinkName)
                        }
                        try body(sample)
                    }
                } catch let error as PostgresError where error.isUnreadableValue {
                    // Said here, where the table is known.
                    throw error.readBackError(table: qualified, timeColumns: ["start_at", "end_at", "created_at"], sink: sinkName)
                }
            }
        }
    }

    /// The `SinkError.unreadable` of the row `id` of `table`, whose sample `error` says it cannot
    /// read back (a `canonical` or `metadata` edited by hand): what to do (`sink`: the sink's name).
    static func unreadable(_ error: any Error, table: String, id: String, sink: String) -> SinkError {
        let problem = error is JSONParser.Failure ? "its metadata is unreadable (\(error))"
            : "its canonical column is no sample healthrouter encoded (damaged or cut short)"
        return .unreadableRow(table: table, id: id, problem: problem, canWriteBack: false, sink: sink)
    }

    /// The sample of a row, whose user is the row's `user_id`; nil where that is `sinkUserId`, the
    /// sink's `user_id`, which it gives samples that came without a user, unless `canonical` holds
    /// the sample with that user or `TimescaleDBRowEncoder.ownUserMarker` of it (rows written
    /// before the marker: no user, as they were read then, unless `canonical` holds the sample).
    static func sample(_ r: PostgresResult, _ row: Int, sinkUserId: String?) throws -> Sample {
        let rowUser = r.text(row, 15)
        var whole: Sample?
        var cameWith: String?
        if let hex = r.text(row, 0) {
            switch try SampleCodec.decode(hexBytes(hex)) {
            case .sample(let sample): whole = sample; cameWith = sample.userId
            case .tombstone(let marker): cameWith = marker.userId
            }
        }
        var sample = try whole ?? columns(r, row)
        sample.userId = rowUser
        if let sinkUserId, rowUser == sinkUserId, cameWith != sinkUserId { sample.userId = nil }
        return sample
    }

    /// The sample a row's columns hold (its user the row's `user_id`).
    static func columns(_ r: PostgresResult, _ row: Int) throws -> Sample {
        func offset(_ column: Int) -> Int32? { r.int(row, column).flatMap { Int32(exactly: $0) } }
        let kindName = r.text(row, 16) ?? "quantity"
        let kind = SampleKind.allCases.first { $0.name == kindName } ?? .quantity
        return Sample(
            id: r.text(row, 1) ?? "", type: r.text(row, 2) ?? "", kind: kind,
            start: Timestamp(epochMilliseconds: r.int(row, 3) ?? 0, utcOffsetSeconds: offset(5)),
            end: Timestamp(epochMilliseconds: r.int(row, 4) ?? 0, utcOffsetSeconds: offset(6)),
            timeZone: r.text(row, 7), value: r.double(row, 17), unit: r.text(row, 18), categoryValue: r.text(row, 19),
            sourceName: r.text(row, 8) ?? "", sourceVersion: r.text(row, 9), sourceBundleId: r.text(row, 10),
            device: r.text(row, 11),
            createdAt: r.int(row, 12).map { Timestamp(epochMilliseconds: $0, utcOffsetSeconds: offset(13)) },
            metadata: try metadata(r.text(row, 14)), userId: r.text(row, 15))
    }

    /// `\x0a1b…` as bytes.
    static func hexBytes(_ text: String) -> [UInt8] {
        let utf8 = Array(text.utf8.dropFirst(2))
        func nibble(_ c: UInt8) -> UInt8 { c <= 57 ? c - 48 : (c | 32) - 87 }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count / 2)
        var index = 0
        while index + 1 < utf8.count {
            bytes.append(nibble(utf8[index]) << 4 | nibble(utf8[index + 1]))
            index += 2
        }
        return bytes
    }

    /// A jsonb object of scalars as metadata entries.
    static func metadata(_ json: String?) throws -> [MetadataEntry] {
        guard let json else { return [] }
        // JSONParser keeps jsonb's key order (JSONDecoder's allKeys order changes from run to run).
        return PulsoJSONDecoder.metadata(try JSONParser.parse(json))
    }
}

extension TimescaleDBSink: ReadableSink {
    /// `samples` in the configured schema, when the server has no such table.
    public var missingStore: String? {
        session.missingStore(table: "samples")
    }

    /// The tombstones `deleted_samples` recorded (in the order they came), then
    /// `readBack(batchSize:_:)`'s samples, as items. The server's failures are thrown as
    /// `PostgresError.sinkError` sorts them: a connection lost mid-read is `unavailable`; a stored
    /// value the query cannot convert is `unreadable` (`PostgresError.readBackError`), naming its table.
    public func readBack(_ visit: (HealthItem) throws -> Void) throws {
        do {
            try readTombstones(batchSize: 10_000) { try visit(.tombstone($0)) }
            try readBack(batchSize: 10_000) { try visit(.sample($0)) }
        } catch let error as PostgresError {
            throw error.sinkError
        }
    }

    /// Every id `deleted_samples` holds as a tombstone of its own, in journal order, `batchSize`
    /// rows at a time.
    func readTombstones(batchSize: Int, _ body: (Tombstone) throws -> Void) throws {
        let connection = try session.connectionForReading()
        try connection.transaction {
            try connection.forEachRow(of: "SELECT id, user_id FROM \(SQL.qualified(configuration.schema, "deleted_samples")) "
                                          + "ORDER BY journal_seq, id", cursor: "hr_deleted", batchSize: batchSize) { result, row in
                let user = result.text(row, 1)
                // As a sample's: none when it is the sink's own (`readBack`).
                try body(Tombstone(ids: [result.text(row, 0) ?? ""], userId: user == configuration.userId ? nil : user))
            }
        }
    }
}
