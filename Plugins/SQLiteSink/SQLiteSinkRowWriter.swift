import CSQLite3
import HealthRouterCore

/// Writes samples and tombstones as rows of the SQLite sink's schema, with statements
/// prepared once. The caller owns the transaction.
final class SQLiteSinkRowWriter {
    private let database: SQLiteDatabase
    private let upserts: [String: SQLiteStatement]
    private let childInserts: [String: SQLiteStatement]
    private let deleteById: [SQLiteStatement]
    /// Per parent table, the statements deleting its child rows by parent id.
    private let deleteChildren: [String: [SQLiteStatement]]
    private let recordDeletion: SQLiteStatement
    private let storeCursorStatement: SQLiteStatement
    private let headers: [String: HeaderPositions]
    private let samplePositions: SamplePositions
    private let samplesUpsert: SQLiteStatement
    /// Plain inserts into the bulk tables (`SQLiteSinkSchema.bulkIdIndexes`), for `insertsNewIds`.
    private let samplesInsert: SQLiteStatement
    private let sleepStagesInsert: SQLiteStatement
    /// Deletes the other activity summaries of a day and user (one a day: see `writeRecord`).
    private let deleteOtherSummariesOfTheDay: SQLiteStatement
    /// Deletes the user's other profiles (one a user).
    private let deleteOtherProfiles: SQLiteStatement

    /// Set by the sink while it loads entries that are the first of their id into empty bulk
    /// tables whose id index it dropped: rows of those tables are inserted, not upserted, and
    /// have no earlier child rows to remove.
    var insertsNewIds = false

    /// Scratch space for time text and JSON, reused across rows.
    private var timeText = [UInt8](repeating: 0, count: UTCTimeText.length)
    /// The text of the row being written (a sample's row and its child rows' times and metadata, or
    /// a deletion record), read by SQLite in place until each statement is stepped; `bindHeader`
    /// starts it anew for each sample (its child rows are all stepped before the next sample's
    /// header), `delete` for each id.
    private let rowText = SQLiteBindingArena()
    private var json = JSONWriter(capacity: 1024)
    private let sampleHeader: HeaderPositions

    private typealias Schema = SQLiteSinkSchema

    init(database: SQLiteDatabase) throws {
        self.database = database
        var upserts: [String: SQLiteStatement] = [:]
        var headers: [String: HeaderPositions] = [:]
        for table in Schema.sampleTables {
            upserts[table.name] = try database.prepare(table.upsertSQL)
            headers[table.name] = HeaderPositions(table)
        }
        self.upserts = upserts
        samplesUpsert = upserts[Schema.samples.name]!
        samplesInsert = try database.prepare(Schema.samples.insertSQL)
        sleepStagesInsert = try database.prepare(Schema.sleepStages.insertSQL)
        deleteOtherSummariesOfTheDay = try database.prepare(
            "DELETE FROM \(Schema.activitySummaries.name) WHERE date = ?1 AND user_id IS ?2 AND id <> ?3")
        deleteOtherProfiles = try database.prepare("DELETE FROM \(Schema.profile.name) WHERE user_id IS ?1 AND id <> ?2")
        self.headers = headers
        var childInserts: [String: SQLiteStatement] = [:]
        for table in Schema.childTables { childInserts[table.name] = try database.prepare(table.insertSQL) }
        self.childInserts = childInserts
        deleteById = try Schema.sampleTables.map { try database.prepare("DELETE FROM \($0.name) WHERE id = ?") }
        samplePositions = SamplePositions(Schema.samples)
        sampleHeader = HeaderPositions(Schema.samples)
        var deleteChildren: [String: [SQLiteStatement]] = [:]
        for (parent, children) in Schema.childrenByParent {
            deleteChildren[parent] = try children.map {
                try database.prepare("DELETE FROM \($0.table) WHERE \($0.column) = ?")
            }
        }
        self.deleteChildren = deleteChildren
        recordDeletion = try database.prepare(
            Schema.deletedSamples.insertSQL
                + " ON CONFLICT(id) DO UPDATE SET deleted_at = excluded.deleted_at, user_id = excluded.user_id,"
                + " journal_seq = excluded.journal_seq WHERE excluded.journal_seq > deleted_samples.journal_seq")
        storeCursorStatement = try database.prepare(
            "INSERT INTO sink_cursor (id, journal_seq) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET"
                + " journal_seq = excluded.journal_seq WHERE journal_seq IS NOT excluded.journal_seq")
    }

    // MARK: - Samples

    /// Upserts `sample` into the table of its kind. When the row is new or changed, its child
    /// rows are replaced.
    func write(_ sample: Sample, sequence: Int64) throws {
        switch sample.kind {
        case .quantity, .category:
            if sample.type == "HKCategoryTypeIdentifierSleepAnalysis" {
                try writeSleepStage(sample, sequence: sequence)
            } else {
                try writePlainSample(sample, sequence: sequence)
            }
        case .workout: try writeWorkout(sample, sequence: sequence)
        case .correlation: try writeCorrelation(sample, sequence: sequence)
        case .activitySummary:
            try writeRecord(sample, table: Schema.activitySummaries, typed: Schema.activitySummaryAttributes,
                            sequence: sequence)
        case .profile:
            try writeRecord(sample, table: Schema.profile, typed: Schema.profileAttributes, sequence: sequence)
        case .other:
            try writeRecord(sample, table: Schema.otherRecords, typed: [], sequence: sequence)
        }
    }

    private func writePlainSample(_ sample: Sample, sequence: Int64) throws {
        let at = samplePositions
        let statement = insertsNewIds ? samplesInsert : samplesUpsert
        try bindHeader(sample, sequence: sequence, at: sampleHeader, statement)
        rowText.bind(statement, at.kind, sample.kind.name)
        statement.bind(at.value, sample.value)
        rowText.bind(statement, at.unit, sample.unit)
        rowText.bind(statement, at.categoryValue, sample.categoryValue)
        var beats: [Heartbeat] = []
        if case .heartbeats(let list) = sample.detail { beats = list }
        statement.bind(at.detailHash, beats.isEmpty ? nil : Self.digest(beats))
        // Only HRV records carry beat lists: other new or changed rows have no beats to replace.
        // Every column is bound for every row, so the bindings need no clearing.
        guard try execute(statement, clearBindings: false),
              !beats.isEmpty || sample.type == Self.heartRateVariability else { return }
        if !insertsNewIds { try removeChildren(of: Schema.samples.name, id: sample.id) }
        let insert = childInserts[Schema.heartbeats.name]!
        for (ordinal, beat) in beats.enumerated() {
            insert.bind(1, sample.id)
            insert.bind(2, Int64(ordinal))
            try bindTime(insert, 3, beat.time.epochMilliseconds, field: "heartbeat time", of: sample)
            insert.bind(4, beat.beatsPerMinute)
            insert.bind(5, beat.time.utcOffsetSeconds.map(Int64.init))
            _ = try execute(insert)
        }
    }

    private func writeSleepStage(_ sample: Sample, sequence: Int64) throws {
        let table = Schema.sleepStages
        let statement = insertsNewIds ? sleepStagesInsert : upserts[table.name]!
        try bindHeader(sample, sequence: sequence, table: table.name, statement)
        statement.bind(table.position("stage"),
                       sample.categoryValue.map { CategoryValueNames.pulsoName($0, type: sample.type) })
        statement.bind(table.position("category_value"), sample.categoryValue)
        statement.bind(table.position("value"), sample.value)
        statement.bind(table.position("unit"), sample.unit)
        _ = try execute(statement)
    }

    private func writeWorkout(_ sample: Sample, sequence: Int64) throws {
        let table = Schema.workouts
        let statement = upserts[table.name]!
        try bindHeader(sample, sequence: sequence, table: table.name, statement)
        var workout: Workout?
        if case .workout(let parts) = sample.detail { workout = parts }
        if let workout {
            let pulsoName = PulsoJSONEncoder.pulsoWorkoutActivityType(workout.activityType)
            statement.bind(table.position("activity_type"), pulsoName)
            statement.bind(table.position("duration_s"), workout.durationSeconds)
            statement.bind(table.position("total_distance_m"), workout.totalDistanceMeters)
            statement.bind(table.position("total_energy_burned_kcal"), workout.totalEnergyBurnedKilocalories)
            statement.bind(table.position("total_basal_energy_burned_kcal"), workout.totalBasalEnergyBurnedKilocalories)
            statement.bind(table.position("average_heart_rate"), workout.averageHeartRate)
            statement.bind(table.position("minimum_heart_rate"), workout.minimumHeartRate)
            statement.bind(table.position("maximum_heart_rate"), workout.maximumHeartRate)
            statement.bind(table.position("source_activity_type"),
                           pulsoName == workout.activityType ? nil : workout.activityType)
            statement.bind(table.position("detail_hash"), Self.digest(workout))
        }
        guard try execute(statement) else { return }
        try removeChildren(of: table.name, id: sample.id)
        guard let workout else { return }
        try insertEvents(workout.events, workoutId: sample.id, activityId: nil, of: sample)
        try insertStatistics(workout.statistics, workoutId: sample.id, activityId: nil, of: sample)
        let activities = childInserts[Schema.workoutActivities.name]!
        for (ordinal, activity) in workout.activities.enumerated() {
            activities.bind(1, sample.id)
            activities.bind(2, Int64(ordinal))
            activities.bind(3, activity.id)
            activities.bind(4, activity.activityType)
            try bindTime(activities, 5, activity.start.epochMilliseconds, field: "activity start", of: sample)
            try bindTime(activities, 6, activity.end?.epochMilliseconds, field: "activity end", of: sample)
            activities.bind(7, activity.durationSeconds)
            bindMetadata(activities, 8, activity.metadata)
            activities.bind(9, activity.start.utcOffsetSeconds.map(Int64.init))
            activities.bind(10, activity.end?.utcOffsetSeconds.map(Int64.init))
            _ = try execute(activities)
            try insertEvents(activity.events, workoutId: sample.id, activityId: activity.id, of: sample)
            try insertStatistics(activity.statistics, workoutId: sample.id, activityId: activity.id, of: sample)
        }
        let routes = childInserts[Schema.workoutRoutes.name]!
        let points = childInserts[Schema.workoutRoutePoints.name]!
        for (routeOrdinal, route) in workout.routes.enumerated() {
            routes.bind(1, sample.id)
            routes.bind(2, Int64(routeOrdinal))
            routes.bind(3, route.sourceName)
            try bindTime(routes, 4, route.start?.epochMilliseconds, field: "route start", of: sample)
            try bindTime(routes, 5, route.end?.epochMilliseconds, field: "route end", of: sample)
            routes.bind(6, route.filePath)
            bindMetadata(routes, 7, route.metadata)
            routes.bind(8, route.start?.utcOffsetSeconds.map(Int64.init))
            routes.bind(9, route.end?.utcOffsetSeconds.map(Int64.init))
            _ = try execute(routes)
            for (ordinal, point) in route.points.enumerated() {
                points.bind(1, sample.id)
                points.bind(2, Int64(routeOrdinal))
                points.bind(3, Int64(ordinal))
                try bindTime(points, 4, point.time.epochMilliseconds, field: "route point time", of: sample)
                points.bind(5, point.latitude)
                points.bind(6, point.longitude)
                points.bind(7, point.altitude)
                points.bind(8, point.horizontalAccuracy)
                points.bind(9, point.verticalAccuracy)
                points.bind(10, point.course)
                points.bind(11, point.speed)
                points.bind(12, point.time.utcOffsetSeconds.map(Int64.init))
                _ = try execute(points)
            }
        }
    }

    private func insertEvents(_ events: [WorkoutEvent], workoutId: String, activityId: String?, of sample: Sample) throws {
        let insert = childInserts[Schema.workoutEvents.name]!
        for (ordinal, event) in events.enumerated() {
            insert.bind(1, workoutId)
            insert.bind(2, activityId)
            insert.bind(3, Int64(ordinal))
            insert.bind(4, event.type)
            try bindTime(insert, 5, event.date.epochMilliseconds, field: "event date", of: sample)
            insert.bind(6, event.durationSeconds)
            bindMetadata(insert, 7, event.metadata)
            insert.bind(8, event.date.utcOffsetSeconds.map(Int64.init))
            _ = try execute(insert)
        }
    }

    private func insertStatistics(_ statistics: [WorkoutStatistic], workoutId: String, activityId: String?,
                                  of sample: Sample) throws {
        let insert = childInserts[Schema.workoutStatistics.name]!
        for (ordinal, statistic) in statistics.enumerated() {
            insert.bind(1, workoutId)
            insert.bind(2, activityId)
            insert.bind(3, Int64(ordinal))
            insert.bind(4, statistic.type)
            try bindTime(insert, 5, statistic.start.epochMilliseconds, field: "statistic start", of: sample)
            try bindTime(insert, 6, statistic.end.epochMilliseconds, field: "statistic end", of: sample)
            insert.bind(7, statistic.average)
            insert.bind(8, statistic.minimum)
            insert.bind(9, statistic.maximum)
            insert.bind(10, statistic.sum)
            insert.bind(11, statistic.unit)
            insert.bind(12, statistic.start.utcOffsetSeconds.map(Int64.init))
            insert.bind(13, statistic.end.utcOffsetSeconds.map(Int64.init))
            _ = try execute(insert)
        }
    }

    private func writeCorrelation(_ sample: Sample, sequence: Int64) throws {
        let table = Schema.correlations
        let statement = upserts[table.name]!
        try bindHeader(sample, sequence: sequence, table: table.name, statement)
        var members: [String] = []
        if case .correlation(let ids) = sample.detail { members = ids }
        var hasher = StableHasher()
        hasher.combine(Int64(members.count))
        for id in members { hasher.combine(id) }
        statement.bind(table.position("detail_hash"), hasher.signed)
        guard try execute(statement) else { return }
        try removeChildren(of: table.name, id: sample.id)
        let insert = childInserts[Schema.correlationMembers.name]!
        for (ordinal, member) in members.enumerated() {
            insert.bind(1, sample.id)
            insert.bind(2, Int64(ordinal))
            insert.bind(3, member)
            _ = try execute(insert)
        }
    }

    /// Activity summaries, the profile and other records: the whole element as JSON,
    /// and the attributes listed in `typed` in their own columns.
    private func writeRecord(_ sample: Sample, table: SQLiteSinkTable,
                             typed: [(attribute: String, column: String, numeric: Bool)], sequence: Int64) throws {
        let statement = upserts[table.name]!
        try bindHeader(sample, sequence: sequence, table: table.name, statement)
        var record: GenericRecord?
        if case .record(let whole) = sample.detail { record = whole }
        // An activity summary's energy in kcal, as every other energy column (a phone set to
        // kilojoules exports its rings in kJ); `attributes` keeps the export's numbers and unit.
        let energyUnit = table.name == Schema.activitySummaries.name
            ? record?[attribute: "activeEnergyBurnedUnit"].flatMap { $0 != "kcal" && UnitConverter.knows($0)
                  && UnitConverter.convert(1, from: $0, to: "kcal") != nil ? $0 : nil }
            : nil
        for column in typed {
            let text = record?[attribute: column.attribute].flatMap { $0.isEmpty ? nil : $0 }
            if column.numeric {
                var value = text.flatMap { Double($0) }
                if let energyUnit, column.attribute.hasPrefix("activeEnergyBurned") {
                    value = value.flatMap { UnitConverter.convert($0, from: energyUnit, to: "kcal") }
                }
                statement.bind(table.position(column.column), value)
            } else if energyUnit != nil, column.attribute == "activeEnergyBurnedUnit" {
                statement.bind(table.position(column.column), "kcal")
            } else {
                statement.bind(table.position(column.column), text)
            }
        }
        if let record {
            statement.bind(table.position("element"), record.element)
            json.reset()
            PulsoJSONEncoder.writeAttributes(record.attributes, into: &json)
            statement.bind(table.position("attributes"), text: json.bytes)
            if !record.children.isEmpty {
                json.reset()
                PulsoJSONEncoder.writeRecords(record.children, into: &json)
                statement.bind(table.position("children"), text: json.bytes)
            }
        }
        if table.name == Schema.otherRecords.name { statement.bind(table.position("kind"), sample.kind.name) }
        _ = try execute(statement)
        // A day has one summary: one a healthrouter before one id a day stored under another id
        // (and kept when the day changed in a later export) is replaced.
        if table.name == Schema.activitySummaries.name, let day = record?[attribute: "dateComponents"] {
            deleteOtherSummariesOfTheDay.bind(1, day)
            deleteOtherSummariesOfTheDay.bind(2, sample.userId)
            deleteOtherSummariesOfTheDay.bind(3, sample.id)
            _ = try execute(deleteOtherSummariesOfTheDay)
        }
        // A user has one profile: one a healthrouter before one a user stored under another id is replaced.
        if table.name == Schema.profile.name {
            deleteOtherProfiles.bind(1, sample.userId)
            deleteOtherProfiles.bind(2, sample.id)
            _ = try execute(deleteOtherProfiles)
        }
    }

    private static let heartRateVariability = "HKQuantityTypeIdentifierHeartRateVariabilitySDNN"

    private func removeChildren(of parent: String, id: String) throws {
        for statement in deleteChildren[parent] ?? [] {
            statement.bind(1, id)
            _ = try execute(statement)
        }
    }

    // MARK: - Tombstones and cursor

    /// Deletes each id from every sample table (the schema's triggers delete its child rows)
    /// and records it in `deleted_samples`.
    func delete(_ tombstone: Tombstone, sequence: Int64, deletedAt: Int64) throws {
        for id in tombstone.ids {
            for statement in deleteById {
                statement.bind(1, id)
                _ = try execute(statement)
            }
            rowText.reset()
            recordDeletion.bind(1, id)
            try bindTime(recordDeletion, 2, deletedAt, field: "deletion time", of: nil)
            recordDeletion.bind(3, tombstone.userId)
            recordDeletion.bind(4, sequence)
            _ = try execute(recordDeletion)
        }
    }

    func storeCursor(_ cursor: Int64) throws {
        storeCursorStatement.bind(1, cursor)
        _ = try execute(storeCursorStatement)
    }

    // MARK: - Binding

    /// Where a sample table has the columns every sample fills.
    private struct HeaderPositions {
        let id, type, startAt, endAt, sourceName, sourceVersion, sourceBundleId, device, createdAt, timeZone: Int32
        let startOffset, endOffset, createdOffset, metadata, userId, journalSeq: Int32

        init(_ table: SQLiteSinkTable) {
            id = table.position("id"); type = table.position("type")
            startAt = table.position("start_at"); endAt = table.position("end_at")
            sourceName = table.position("source_name"); sourceVersion = table.position("source_version")
            sourceBundleId = table.position("source_bundle_id"); device = table.position("device")
            createdAt = table.position("created_at"); timeZone = table.position("time_zone")
            startOffset = table.position("start_utc_offset"); endOffset = table.position("end_utc_offset")
            createdOffset = table.position("created_utc_offset"); metadata = table.position("metadata")
            userId = table.position("user_id"); journalSeq = table.position("journal_seq")
        }
    }

    /// Where the `samples` table has its own columns (the hot path: no lookups per row).
    private struct SamplePositions {
        let kind, value, unit, categoryValue, detailHash: Int32

        init(_ table: SQLiteSinkTable) {
            kind = table.position("kind"); value = table.position("value"); unit = table.position("unit")
            categoryValue = table.position("category_value"); detailHash = table.position("detail_hash")
        }
    }

    /// Binds the columns every sample table has; the table's own columns are left NULL
    /// (bindings are cleared after each row).
    private func bindHeader(_ sample: Sample, sequence: Int64, table: String, _ statement: SQLiteStatement) throws {
        try bindHeader(sample, sequence: sequence, at: headers[table]!, statement)
    }

    /// Binds the columns every sample table has. Their text goes through `rowText`, which this
    /// starts anew: the caller steps `statement` before it binds another row's header.
    private func bindHeader(_ sample: Sample, sequence: Int64, at: HeaderPositions, _ statement: SQLiteStatement) throws {
        rowText.reset()
        do {
            rowText.bind(statement, at.id, sample.id)
            rowText.bind(statement, at.type, sample.type)
            try bindTime(statement, at.startAt, sample.start.epochMilliseconds, field: "start", of: sample)
            try bindTime(statement, at.endAt, sample.end.epochMilliseconds, field: "end", of: sample)
            rowText.bind(statement, at.sourceName, sample.sourceName)
            rowText.bind(statement, at.sourceVersion, sample.sourceVersion)
            rowText.bind(statement, at.sourceBundleId, sample.sourceBundleId)
            rowText.bind(statement, at.device, sample.device)
            try bindTime(statement, at.createdAt, sample.createdAt?.epochMilliseconds, field: "creation date", of: sample)
        } catch {
            // Not stepped: no binding may outlive the row's text.
            sqlite3_clear_bindings(statement.handle)
            throw error
        }
        rowText.bind(statement, at.timeZone, sample.timeZone)
        statement.bind(at.startOffset, sample.start.utcOffsetSeconds.map(Int64.init))
        statement.bind(at.endOffset, sample.end.utcOffsetSeconds.map(Int64.init))
        statement.bind(at.createdOffset, sample.createdAt?.utcOffsetSeconds.map(Int64.init))
        bindMetadata(statement, at.metadata, sample.metadata)
        rowText.bind(statement, at.userId, sample.userId)
        statement.bind(at.journalSeq, sequence)
    }

    /// Binds an instant as time text (through `rowText`); an instant outside the years 0000–9999 is
    /// bad data.
    private func bindTime(_ statement: SQLiteStatement, _ index: Int32, _ epochMilliseconds: Int64?,
                          field: String, of sample: Sample?) throws {
        guard let epochMilliseconds else { sqlite3_bind_null(statement.handle, index); return }
        try timeText.withUnsafeMutableBufferPointer { buffer in
            guard UTCTimeText.write(epochMilliseconds, into: buffer) else {
                throw SinkError.rejected("sample \(sample?.id ?? "?"): \(field) \(epochMilliseconds) ms since 1970"
                                            + " lies outside the years 0000–9999")
            }
            rowText.bind(statement, index, text: UnsafeRawBufferPointer(buffer))
        }
    }

    private func bindMetadata(_ statement: SQLiteStatement, _ index: Int32, _ metadata: [MetadataEntry]) {
        guard !metadata.isEmpty else { sqlite3_bind_null(statement.handle, index); return }
        json.reset()
        PulsoJSONEncoder.writeMetadata(metadata, into: &json)
        json.bytes.withUnsafeBytes { rowText.bind(statement, index, text: $0) }
    }

    /// Runs a statement that returns no rows, then resets it and clears its bindings.
    /// Returns true when it changed a row.
    private func execute(_ statement: SQLiteStatement, clearBindings: Bool = true) throws -> Bool {
        defer {
            sqlite3_reset(statement.handle)
            if clearBindings { sqlite3_clear_bindings(statement.handle) }
        }
        try statement.step()
        return database.changes > 0
    }

    // MARK: - Digests of child rows

    private static func digest(_ beats: [Heartbeat]) -> Int64 {
        var hasher = StableHasher()
        hasher.combine(Int64(beats.count))
        for beat in beats {
            hasher.combine(beat.time)
            hasher.combine(beat.beatsPerMinute)
        }
        return hasher.signed
    }

    private static func digest(_ workout: Workout) -> Int64 {
        var hasher = StableHasher()
        func combine(_ events: [WorkoutEvent]) {
            hasher.combine(Int64(events.count))
            for event in events {
                hasher.combine(event.type); hasher.combine(event.date)
                hasher.combine(event.durationSeconds); hasher.combine(event.metadata)
            }
        }
        func combine(_ statistics: [WorkoutStatistic]) {
            hasher.combine(Int64(statistics.count))
            for statistic in statistics {
                hasher.combine(statistic.type); hasher.combine(statistic.start); hasher.combine(statistic.end)
                hasher.combine(statistic.average); hasher.combine(statistic.minimum)
                hasher.combine(statistic.maximum); hasher.combine(statistic.sum); hasher.combine(statistic.unit)
            }
        }
        combine(workout.events)
        combine(workout.statistics)
        hasher.combine(Int64(workout.activities.count))
        for activity in workout.activities {
            hasher.combine(activity.id); hasher.combine(activity.activityType)
            hasher.combine(activity.start); hasher.combine(activity.end)
            hasher.combine(activity.durationSeconds); hasher.combine(activity.metadata)
            combine(activity.events)
            combine(activity.statistics)
        }
        hasher.combine(Int64(workout.routes.count))
        for route in workout.routes {
            hasher.combine(route.sourceName); hasher.combine(route.start); hasher.combine(route.end)
            hasher.combine(route.filePath); hasher.combine(route.metadata)
            hasher.combine(Int64(route.points.count))
            for point in route.points {
                hasher.combine(point.time); hasher.combine(point.latitude); hasher.combine(point.longitude)
                hasher.combine(point.altitude); hasher.combine(point.horizontalAccuracy)
                hasher.combine(point.verticalAccuracy); hasher.combine(point.course); hasher.combine(point.speed)
            }
        }
        return hasher.signed
    }
}
