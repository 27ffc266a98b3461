import Foundation
import HealthRouterCore

/// Reads the SQLite sink's tables back into canonical items (`ReadableSink`): tombstones
/// first (one per `deleted_samples` row, so that a sample stored again after its deletion
/// survives a replay of both), then every sample table in rowid order, each row with its
/// child rows (workout events, statistics, activities, routes and points; correlation
/// members; heartbeats), metadata JSON in key order and the original offsets.
///
/// What the schema does not hold comes back as the writer left it: a sleep stage's kind is
/// `category`; a record's value, unit and category value are absent (records carry none).
final class SQLiteSinkReader {
    private let database: SQLiteDatabase
    private let events: SQLiteStatement
    private let statistics: SQLiteStatement
    private let activities: SQLiteStatement
    private let routes: SQLiteStatement
    private let points: SQLiteStatement
    private let members: SQLiteStatement
    private let beats: SQLiteStatement

    private typealias Schema = SQLiteSinkSchema
    private static let header = "id, type, start_at, end_at, start_utc_offset, end_utc_offset, time_zone, source_name,"
        + " source_version, source_bundle_id, device, created_at, created_utc_offset, metadata, user_id"
    private static let headerCount: Int32 = 15

    /// The tables read, in the order they are: their rows are the items (`SQLiteSink.itemCount()`).
    static let tables = ["deleted_samples", "samples", "sleep_stages", "workouts", "correlations", "activity_summaries",
                         "profile", "other_records"]

    init(database: SQLiteDatabase) throws {
        self.database = database
        events = try database.prepare("""
            SELECT activity_id, type, date_at, date_utc_offset, duration_s, metadata FROM workout_events
            WHERE workout_id = ?1 ORDER BY ordinal
            """)
        statistics = try database.prepare("""
            SELECT activity_id, type, start_at, start_utc_offset, end_at, end_utc_offset, average, minimum, maximum, sum, unit
            FROM workout_statistics WHERE workout_id = ?1 ORDER BY ordinal
            """)
        activities = try database.prepare("""
            SELECT id, activity_type, start_at, start_utc_offset, end_at, end_utc_offset, duration_s, metadata
            FROM workout_activities WHERE workout_id = ?1 ORDER BY ordinal
            """)
        routes = try database.prepare("""
            SELECT ordinal, source_name, start_at, start_utc_offset, end_at, end_utc_offset, file_path, metadata
            FROM workout_routes WHERE workout_id = ?1 ORDER BY ordinal
            """)
        points = try database.prepare("""
            SELECT route_ordinal, time_at, time_utc_offset, latitude, longitude, altitude, horizontal_accuracy,
                   vertical_accuracy, course, speed
            FROM workout_route_points WHERE workout_id = ?1 ORDER BY route_ordinal, ordinal
            """)
        members = try database.prepare(
            "SELECT member_id FROM correlation_members WHERE correlation_id = ?1 ORDER BY ordinal")
        beats = try database.prepare(
            "SELECT time_at, time_utc_offset, bpm FROM heartbeats WHERE sample_id = ?1 ORDER BY ordinal")
    }

    /// Calls `visit` with every tombstone, then every sample, all read in one snapshot: a
    /// daemon writing to the store meanwhile neither adds a workout whose tombstone was
    /// already passed nor leaves a correlation without the members it had.
    func read(_ visit: (HealthItem) throws -> Void) throws {
        try database.readTransaction { try readTables(visit) }
    }

    private func readTables(_ visit: (HealthItem) throws -> Void) throws {
        let deleted = try database.prepare("SELECT id, user_id FROM deleted_samples ORDER BY journal_seq, rowid")
        while try deleted.step() {
            try visit(.tombstone(Tombstone(ids: [deleted.string(0) ?? ""], userId: deleted.string(1))))
        }
        try readTable("samples", columns: "kind, value, unit, category_value, detail_hash", visit) { sample, row, at in
            if let kind = SampleKind.allCases.first(where: { $0.name == row.string(at) }) { sample.kind = kind }
            sample.value = Self.double(row, at + 1)
            sample.unit = row.string(at + 2)
            sample.categoryValue = row.string(at + 3)
            if !row.isNull(at + 4) { sample.detail = .heartbeats(try heartbeats(of: sample.id)) }
        }
        try readTable("sleep_stages", columns: "category_value, value, unit", visit) { sample, row, at in
            sample.kind = TypeRegistry.type(identifier: sample.type)?.kind ?? .category
            sample.categoryValue = row.string(at)
            sample.value = Self.double(row, at + 1)
            sample.unit = row.string(at + 2)
        }
        try readTable("workouts", columns: """
            activity_type, source_activity_type, duration_s, total_distance_m, total_energy_burned_kcal,
            total_basal_energy_burned_kcal, average_heart_rate, minimum_heart_rate, maximum_heart_rate, detail_hash
            """, visit) { sample, row, at in
            sample.kind = .workout
            guard let activity = row.string(at + 1) ?? row.string(at) else { return }
            var workout = Workout(activityType: activity, durationSeconds: Self.double(row, at + 2),
                                  totalDistanceMeters: Self.double(row, at + 3),
                                  totalEnergyBurnedKilocalories: Self.double(row, at + 4),
                                  totalBasalEnergyBurnedKilocalories: Self.double(row, at + 5),
                                  averageHeartRate: Self.double(row, at + 6), minimumHeartRate: Self.double(row, at + 7),
                                  maximumHeartRate: Self.double(row, at + 8))
            try fillParts(of: &workout, id: sample.id)
            sample.detail = .workout(workout)
        }
        try readTable("correlations", columns: "detail_hash", visit) { sample, _, _ in
            sample.kind = .correlation
            members.bind(1, sample.id)
            defer { members.reset() }
            var ids: [String] = []
            while try members.step() { ids.append(members.string(0) ?? "") }
            sample.detail = .correlation(memberIds: ids)
        }
        for (table, kind) in [("activity_summaries", SampleKind.activitySummary), ("profile", .profile)] {
            try readTable(table, columns: "element, attributes, children", visit) { sample, row, at in
                sample.kind = kind
                try Self.fillRecord(&sample, row, at)
            }
        }
        try readTable("other_records", columns: "element, attributes, children, kind", visit) { sample, row, at in
            sample.kind = SampleKind.allCases.first { $0.name == row.string(at + 3) } ?? .other
            try Self.fillRecord(&sample, row, at)
        }
    }

    /// Every row of `table` with the common columns filled, then `fill` for its own (from column `at`).
    private func readTable(_ table: String, columns: String, _ visit: (HealthItem) throws -> Void,
                           fill: (inout Sample, SQLiteStatement, Int32) throws -> Void) throws {
        let row = try database.prepare("SELECT \(Self.header), \(columns) FROM \(table) ORDER BY rowid")
        while try row.step() {
            do {
                try readRow(row, table: table, visit, fill: fill)
            } catch var error as UnreadableTime {
                error.sampleId = row.string(0)
                error.sampleTable = table
                throw error
            } catch let error as JSONParser.Failure {
                throw UnreadableJSON(problem: error.description, sampleId: row.string(0), sampleTable: table)
            } catch let error as PulsoJSONDecoder.Failure {
                // JSON, but not of the shape written (a record's child without its `element`).
                throw UnreadableJSON(problem: error.problem, sampleId: row.string(0), sampleTable: table)
            }
        }
    }

    /// The current row of `readTable`.
    private func readRow(_ row: SQLiteStatement, table: String, _ visit: (HealthItem) throws -> Void,
                         fill: (inout Sample, SQLiteStatement, Int32) throws -> Void) throws {
        var sample = Sample(id: row.string(0) ?? "", type: row.string(1) ?? "", kind: .quantity,
                            start: try Self.time(row, 2, offset: 4, table: table), end: try Self.time(row, 3, offset: 5, table: table),
                            timeZone: row.string(6), sourceName: row.string(7) ?? "", sourceVersion: row.string(8),
                            sourceBundleId: row.string(9), device: row.string(10),
                            createdAt: try Self.optionalTime(row, 11, offset: 12, table: table),
                            metadata: try Self.metadata(row, 13), userId: row.string(14))
        try fill(&sample, row, Self.headerCount)
        try visit(.sample(sample))
    }

    private func heartbeats(of id: String) throws -> [Heartbeat] {
        beats.bind(1, id)
        defer { beats.reset() }
        var out: [Heartbeat] = []
        while try beats.step() {
            out.append(Heartbeat(time: try Self.time(beats, 0, offset: 1, table: "heartbeats"), beatsPerMinute: beats.double(2)))
        }
        return out
    }

    private func fillParts(of workout: inout Workout, id: String) throws {
        var eventsByActivity: [String: [WorkoutEvent]] = [:]
        events.bind(1, id)
        while try events.step() {
            let event = WorkoutEvent(type: events.string(1) ?? "", date: try Self.time(events, 2, offset: 3, table: "workout_events"),
                                     durationSeconds: Self.double(events, 4), metadata: try Self.metadata(events, 5))
            if let activity = events.string(0) { eventsByActivity[activity, default: []].append(event) } else {
                workout.events.append(event)
            }
        }
        events.reset()
        var statisticsByActivity: [String: [WorkoutStatistic]] = [:]
        statistics.bind(1, id)
        while try statistics.step() {
            let s = statistics
            let statistic = WorkoutStatistic(type: s.string(1) ?? "", start: try Self.time(s, 2, offset: 3, table: "workout_statistics"),
                                             end: try Self.time(s, 4, offset: 5, table: "workout_statistics"), average: Self.double(s, 6),
                                             minimum: Self.double(s, 7), maximum: Self.double(s, 8),
                                             sum: Self.double(s, 9), unit: s.string(10))
            if let activity = s.string(0) { statisticsByActivity[activity, default: []].append(statistic) } else {
                workout.statistics.append(statistic)
            }
        }
        statistics.reset()
        activities.bind(1, id)
        while try activities.step() {
            let a = activities
            let activityId = a.string(0) ?? ""
            workout.activities.append(WorkoutActivity(
                id: activityId, activityType: a.string(1), start: try Self.time(a, 2, offset: 3, table: "workout_activities"),
                end: try Self.optionalTime(a, 4, offset: 5, table: "workout_activities"), durationSeconds: Self.double(a, 6),
                metadata: try Self.metadata(a, 7), events: eventsByActivity[activityId] ?? [],
                statistics: statisticsByActivity[activityId] ?? []))
        }
        activities.reset()
        routes.bind(1, id)
        var routeOrdinals: [Int64] = []
        while try routes.step() {
            let r = routes
            routeOrdinals.append(r.int64(0))
            workout.routes.append(WorkoutRoute(sourceName: r.string(1), start: try Self.optionalTime(r, 2, offset: 3, table: "workout_routes"),
                                               end: try Self.optionalTime(r, 4, offset: 5, table: "workout_routes"), filePath: r.string(6),
                                               metadata: try Self.metadata(r, 7)))
        }
        routes.reset()
        guard !workout.routes.isEmpty else { return }
        points.bind(1, id)
        defer { points.reset() }
        while try points.step() {
            let p = points
            guard let routeIndex = routeOrdinals.firstIndex(of: p.int64(0)) else { continue }
            workout.routes[routeIndex].points.append(RoutePoint(
                time: try Self.time(p, 1, offset: 2, table: "workout_route_points"), latitude: p.double(3), longitude: p.double(4),
                altitude: Self.double(p, 5), horizontalAccuracy: Self.double(p, 6), verticalAccuracy: Self.double(p, 7),
                course: Self.double(p, 8), speed: Self.double(p, 9)))
        }
    }

    private static func fillRecord(_ sample: inout Sample, _ row: SQLiteStatement, _ at: Int32) throws {
        guard let element = row.string(at) else { return }
        var attributes: [GenericRecord.Attribute] = []
        if let text = row.string(at + 1) {
            attributes = (try JSONParser.parse(text).objectValue ?? []).map {
                GenericRecord.Attribute($0.key, $0.value.stringValue ?? "")
            }
        }
        let children = try row.string(at + 2).map { try PulsoJSONDecoder.records(JSONParser.parse($0)) } ?? []
        sample.detail = .record(GenericRecord(element: element, attributes: attributes, children: children))
    }

    // MARK: - Columns

    static func double(_ row: SQLiteStatement, _ column: Int32) -> Double? {
        row.isNull(column) ? nil : row.double(column)
    }

    /// A stored time that is no time healthrouter reads (a row edited by hand): where it is, for the
    /// message `readBack` gives.
    struct UnreadableTime: Error {
        /// What the column holds, nil for NULL.
        var text: String?
        var table: String
        var column: String
        /// The sample whose row (or part: a workout's event, a heartbeat) holds it, and its table.
        var sampleId: String?
        var sampleTable: String?

        /// The message, naming the store's `path` and what to do (`sink`: the sink's name).
        func message(path: String, sink: String) -> String {
            let value = text.map { "'\($0)'" } ?? "NULL"
            let id = (sampleId ?? "").replacingOccurrences(of: "'", with: "''")
            let part = sampleTable.map { $0 == table ? "" : " (a part of the sample in table \($0))" } ?? ""
            let remove = sampleTable.map { " (`DELETE FROM \($0) WHERE id = '\(id)'` in sqlite3: its parts go with it)" } ?? ""
            return "\(path): column \(column) of table \(table), in the row of sample '\(sampleId ?? "?")'\(part), holds \(value), "
                + "which is no time (healthrouter writes 2024-03-07T13:00:00.000Z): was the file edited by hand? Write the "
                + "time back in that form, or delete the sample\(remove) and " + SinkError.rewriteAdvice(sink: sink)
        }
    }

    /// A stored JSON column (metadata, a record's attributes or children) that is no JSON, or JSON
    /// not of the shape written (a row edited by hand): the sample whose row (or part) holds it, for
    /// the message `readBack` gives.
    struct UnreadableJSON: Error {
        /// What is wrong with it (`expected ':' after a key at byte 7`, `record without element`).
        var problem: String
        var sampleId: String?
        var sampleTable: String

        /// The message, naming the store's `path` and what to do (`sink`: the sink's name).
        func message(path: String, sink: String) -> String {
            let id = (sampleId ?? "").replacingOccurrences(of: "'", with: "''")
            return "\(path): a JSON column of the row of sample '\(sampleId ?? "?")' in table \(sampleTable) (or of one of its "
                + "parts) is unreadable: \(problem): was the file edited by hand? Delete the sample (`DELETE FROM \(sampleTable) "
                + "WHERE id = '\(id)'` in sqlite3: its parts go with it) and " + SinkError.rewriteAdvice(sink: sink)
        }
    }

    static func time(_ row: SQLiteStatement, _ column: Int32, offset: Int32, table: String) throws -> Timestamp {
        guard let text = row.string(column), var time = HealthDateParser.parse(text) else {
            throw UnreadableTime(text: row.string(column), table: table, column: row.columnName(column))
        }
        time.utcOffsetSeconds = row.isNull(offset) ? nil : Int32(truncatingIfNeeded: row.int64(offset))
        return time
    }

    static func optionalTime(_ row: SQLiteStatement, _ column: Int32, offset: Int32, table: String) throws -> Timestamp? {
        row.isNull(column) ? nil : try time(row, column, offset: offset, table: table)
    }

    static func metadata(_ row: SQLiteStatement, _ column: Int32) throws -> [MetadataEntry] {
        guard let text = row.string(column) else { return [] }
        return PulsoJSONDecoder.metadata(try JSONParser.parse(text))
    }
}

extension SQLiteSink: ReadableSink {
    /// The database file, when it does not exist (`ReadableSink`).
    public var missingStore: String? {
        guard FileManager.default.fileExists(atPath: configuration.path) else { return configuration.path }
        // A file without the sink's tables (empty, or another program's database) holds no store
        // either: `prepare()` would add the tables to it. A file SQLite cannot read is left to
        // `prepare()`, which says so.
        guard let database = try? SQLiteDatabase.openForReading(path: configuration.path),
              let tables = try? database.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'samples'")
        else { return nil }
        return tables == 0 ? configuration.path : nil
    }

    /// The rows `readBack` visits: tombstones and every sample table's rows, counted by SQLite
    /// from each table's smallest index without reading a row (about a second at millions).
    public func itemCount() throws -> Int64? {
        guard let database else { return nil }
        var total: Int64 = 0
        for table in SQLiteSinkReader.tables { total += try database.scalarInt("SELECT count(*) FROM \(table)") ?? 0 }
        return total
    }

    /// Every tombstone and sample the file holds (`SQLiteSinkReader`). Call after `prepare()`.
    /// A row it cannot read (a time or JSON column edited by hand) and a damaged file
    /// (SQLITE_CORRUPT, SQLITE_NOTADB) throw `SinkError.unreadable`; SQLite's other failures
    /// `unavailable`, and so does what reads as damage in a file that changed at its path since the
    /// read began (another copied over it, `cp backup.sqlite FILE`: the pages read before and after
    /// no longer fit together, though the file there now may be whole; a read again tells). A row it
    /// cannot read stays `unreadable` whatever the file did: a running daemon's checkpoint changes
    /// the file too, and a row edited by hand in a store it writes was retried as one copied over.
    public func readBack(_ visit: (HealthItem) throws -> Void) throws {
        guard let database else { throw SinkError.unavailable("\(configuration.path): read before prepare") }
        let before = SQLiteSink.fileState(configuration.path)
        func damaged(_ reason: String) -> SinkError {
            SQLiteSink.fileState(configuration.path) == before ? .unreadable(reason)
                : .unavailable(reason + " (the file changed while it was read: another copied over it?)")
        }
        do {
            try SQLiteSinkReader(database: database).read(visit)
        } catch let error as SQLiteError {
            throw SQLiteSink.isDamage(error) ? damaged(SQLiteSink.problem(error)) : SinkError.unavailable(SQLiteSink.problem(error))
        } catch let error as SQLiteSinkReader.UnreadableTime {
            throw SinkError.unreadable(error.message(path: configuration.path, sink: name))
        } catch let error as SQLiteSinkReader.UnreadableJSON {
            throw SinkError.unreadable(error.message(path: configuration.path, sink: name))
        } catch let error as JSONParser.Failure {
            throw SinkError.unreadable("\(configuration.path): a stored JSON column is unreadable: \(error)")
        }
    }
}
