import Foundation
import Testing
import HealthRouterCore
import PostgresClient
@testable import TimescaleDBSink

@Suite struct TimescaleDBSinkTests {
    static let tables = ["samples", "sleep_stages", "workouts", "sample_index", "deleted_samples", "workout_events",
                         "workout_statistics", "workout_activities", "workout_routes", "workout_route_points"]

    func conformance(_ url: String, schema: String) -> SinkConformance {
        let configuration = TimescaleDBSink.Configuration(url: url, schema: schema, requireTimescaledb: false)
        var refused = ConformanceFixtures.numbered(999)
        refused.sourceName = "nul\u{0}byte"
        return SinkConformance(
            make: { TimescaleDBSink(configuration: configuration, context: ConformanceFixtures.context()) },
            snapshot: {
                try PostgresTestDatabase.snapshot(url, schema: schema, tables: Self.tables,
                                                  dropping: ["written_at", "journal_seq", "deleted_at"])
            },
            storedIds: {
                let rows = try PostgresTestDatabase.snapshot(url, schema: schema, tables: ["samples", "sleep_stages", "workouts"],
                                                             dropping: [])
                let connection = try PostgresTestDatabase.connect(url)
                defer { connection.close() }
                let result = try connection.execute("SELECT id FROM \(SQL.qualified(schema, "samples")) UNION ALL "
                    + "SELECT id FROM \(SQL.qualified(schema, "sleep_stages")) UNION ALL "
                    + "SELECT id FROM \(SQL.qualified(schema, "workouts"))")
                #expect(result.rowCount == rows.count)
                return Set((0..<result.rowCount).compactMap { result.text($0, 0) })
            },
            refused: refused)
    }

    /// `body` with a prepared sink in a fresh schema and a connection of the test's own to look
    /// at its tables; nothing runs without a test database.
    func withSink(_ body: (TimescaleDBSink, String, PostgresConnection) throws -> Void) throws {
        guard let url = PostgresTestDatabase.url else { return }
        let (sink, schema) = try PostgresTestDatabase.preparedTimescaleDBSink(url)
        defer { sink.close() }
        let connection = try PostgresTestDatabase.connect(url)
        defer { connection.close() }
        try body(sink, schema, connection)
    }

    /// Read back, every sample carries its row's user, but one stored under the sink's own
    /// `user_id` (it came without a user) comes back without one, whether it comes back from its
    /// columns or whole from `canonical` (a workout): a migration gives it the target's user.
    @Test func readBackGivesEverySampleItsRowsUser() throws {
        guard let url = PostgresTestDatabase.url else { return }
        var configuration = TimescaleDBSink.Configuration(url: url, schema: PostgresTestDatabase.freshSchema(),
                                                          requireTimescaledb: false)
        configuration.userId = "me"
        let sink = TimescaleDBSink(configuration: configuration, context: ConformanceFixtures.context())
        _ = try sink.prepare()
        defer { sink.close() }
        try sink.write(ConformanceFixtures.entries(ConformanceFixtures.all), cursor: 7)
        var users: [String: String?] = [:]
        try sink.readBack(batchSize: 3) { users[$0.id] = $0.userId }
        #expect(users.count == ConformanceFixtures.all.count)
        for sample in ConformanceFixtures.all {
            #expect(users[sample.id] == .some(sample.userId), "\(sample.id) \(sample.kind)")
        }
        #expect(ConformanceFixtures.all.contains { $0.userId == "alice" })
        #expect(ConformanceFixtures.all.contains { $0.kind == .workout && $0.userId == nil })
    }

    /// A sample that came with the user the sink gives samples without one (`user_id: me`) keeps
    /// it through read-back, and one that came without comes back without, plain or whole (a
    /// workout): both rows hold `me` in `user_id`, and `canonical` tells them apart, for a plain
    /// sample with a marker of a few bytes. A plain row written before that marker (no `canonical`)
    /// reads as it did: without a user.
    @Test func aSampleThatCameWithTheSinksOwnUserKeepsIt() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let schema = PostgresTestDatabase.freshSchema()
        var configuration = TimescaleDBSink.Configuration(url: url, schema: schema, requireTimescaledb: false)
        configuration.userId = "me"
        let sink = TimescaleDBSink(configuration: configuration, context: ConformanceFixtures.context())
        _ = try sink.prepare()
        defer { sink.close() }
        var pushed = ConformanceFixtures.numbered(1)
        pushed.userId = "me"
        pushed.metadata = [MetadataEntry("HKWasUserEntered", .bool(false))]
        var imported = pushed
        imported.id = ConformanceFixtures.numbered(2).id
        imported.userId = nil
        var pushedWorkout = ConformanceFixtures.workout
        pushedWorkout.userId = "me"
        let samples = [pushed, imported, pushedWorkout, ConformanceFixtures.sleep]
        try sink.write(ConformanceFixtures.entries(samples), cursor: 4)
        func readBack() throws -> [String: Sample] {
            var read: [String: Sample] = [:]
            try sink.readBack(batchSize: 3) { read[$0.id] = $0 }
            return read
        }
        let read = try readBack()
        #expect(read.count == samples.count)
        for sample in samples {
            #expect(read[sample.id] == sample, "\(sample.id)")
        }
        let connection = try PostgresTestDatabase.connect(url)
        defer { connection.close() }
        let rows = try connection.execute("SELECT id, user_id, octet_length(canonical) FROM \(SQL.qualified(schema, "samples")) ORDER BY id")
        #expect((0..<rows.rowCount).map { [rows.text($0, 0), rows.text($0, 1), rows.text($0, 2)] }
                    == [[pushed.id, "me", "6"], [imported.id, "me", nil]])
        try connection.execute("UPDATE \(SQL.qualified(schema, "samples")) SET canonical = NULL")
        #expect(try readBack()[pushed.id]?.userId == .some(nil))
    }

    /// jsonb cannot hold U+0000: a metadata string or key holding one (also in a value's own JSON,
    /// or in a workout event's metadata) costs no sample, and no dead letter: `metadata` and
    /// `detail` hold U+FFFD there, and read-back returns the sample exactly (`canonical`).
    @Test func aNULInMetadataIsStoredAsTheReplacementCharacter() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let schema = PostgresTestDatabase.freshSchema()
        try conformance(url, schema: schema).storedWithoutDeadLetters(ConformanceFixtures.withNUL)
        let connection = try PostgresTestDatabase.connect(url)
        defer { connection.close() }
        let plain = ConformanceFixtures.withNUL[0], workout = ConformanceFixtures.withNUL[1]
        let row = try connection.query("SELECT metadata ->> 'note', metadata ? $1, metadata -> 'raw' ->> 'x' FROM "
                                           + "\(SQL.qualified(schema, "samples")) WHERE id = $2", ["k\u{FFFD}", plain.id])
        #expect(row.rowCount == 1)
        #expect(row.text(0, 0) == "a\u{FFFD}b")
        #expect(row.bool(0, 1) == true)
        #expect(row.text(0, 2) == "c\u{FFFD}d\\u0000")
        let event = try connection.query("SELECT detail -> 'events' -> 0 -> 'metadata' ->> 'reason' FROM "
                                             + "\(SQL.qualified(schema, "workouts")) WHERE id = $1", [workout.id])
        #expect(event.text(0, 0) == "x\u{FFFD}")
        let sink = TimescaleDBSink(configuration: .init(url: url, schema: schema, requireTimescaledb: false),
                                   context: ConformanceFixtures.context())
        _ = try sink.prepare()
        defer { sink.close() }
        var read: [String: Sample] = [:]
        try sink.readBack(batchSize: 10) { read[$0.id] = $0 }
        #expect(read == Dictionary(uniqueKeysWithValues: ConformanceFixtures.withNUL.map { ($0.id, $0) }))
    }

    /// The daily aggregate's refresh window reaches back over every row: from the first without
    /// retention; with it, to a day short of `drop_after` (a refresh over dropped chunks would
    /// delete those days from the aggregate), two buckets past its end at least (a shorter
    /// drop_after is a config error: ConfigCommandTests).
    @Test func theDailyAggregatesRefreshWindowCoversWhatRetentionKeeps() {
        #expect(TimescaleDBPolicies.refreshWindowStart(dropAfterSeconds: nil) == "NULL")
        #expect(TimescaleDBPolicies.refreshWindowStart(dropAfterSeconds: 365 * 86_400) == "INTERVAL '364 days'")
        #expect(TimescaleDBPolicies.refreshWindowStart(dropAfterSeconds: 4 * 86_400) == "INTERVAL '3 days'")
    }

    @Test func sameBatchTwiceLeavesIdenticalTables() throws {
        guard let url = PostgresTestDatabase.url else { return }
        try conformance(url, schema: PostgresTestDatabase.freshSchema()).sameBatchTwiceLeavesIdenticalContent()
    }

    @Test func tombstonesDelete() throws {
        guard let url = PostgresTestDatabase.url else { return }
        try conformance(url, schema: PostgresTestDatabase.freshSchema()).tombstonesDelete()
    }

    @Test func aRowPostgresRejectsBecomesADeadLetter() throws {
        guard let url = PostgresTestDatabase.url else { return }
        try conformance(url, schema: PostgresTestDatabase.freshSchema()).refusedRowBecomesDeadLetter()
    }

    @Test func anInstantOutOfRangeIsRejectedAsData() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let (sink, _) = try PostgresTestDatabase.preparedTimescaleDBSink(url)
        defer { sink.close() }
        var far = ConformanceFixtures.numbered(1)
        far.start = Timestamp(epochMilliseconds: Int64.max / 2)
        far.end = far.start
        #expect(throws: SinkError.self) { try sink.write(ConformanceFixtures.entries([far]), cursor: 1) }
        do {
            try sink.write(ConformanceFixtures.entries([far]), cursor: 1)
        } catch SinkError.rejected(let reason) {
            #expect(reason.contains("range"))
        }
    }

    @Test func schemaCreationTwiceAndSQLInTheSchemaNameIsAName() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let schema = "x'; DROP TABLE samples; -- \"" + PostgresTestDatabase.freshSchema()
        for _ in 0..<2 {
            let sink = TimescaleDBSink(configuration: .init(url: url, schema: schema, requireTimescaledb: false),
                                       context: ConformanceFixtures.context())
            _ = try sink.prepare()
            try sink.write(ConformanceFixtures.entries(ConformanceFixtures.all), cursor: 7)
            sink.close()
        }
        let connection = try PostgresTestDatabase.connect(url)
        defer { connection.close() }
        #expect(try connection.query("SELECT count(*) FROM \(SQL.qualified(schema, "healthrouter_schema"))").int(0, 0) == 1)
        #expect(try connection.query("SELECT count(*) FROM \(SQL.qualified(schema, "samples")) WHERE type = $1",
                                     [ConformanceFixtures.injection]).int(0, 0) == 1)
        let metadata = try connection.query("SELECT metadata ->> $1 FROM \(SQL.qualified(schema, "samples")) WHERE id = $2",
                                            [ConformanceFixtures.injection, ConformanceFixtures.heartRate.id])
        #expect(metadata.text(0, 0) == ConformanceFixtures.injection)
    }

    @Test func withoutTimescaleDBTheErrorSaysWhatToDo() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let sink = TimescaleDBSink(configuration: .init(url: url, schema: PostgresTestDatabase.freshSchema()),
                                   context: ConformanceFixtures.context())
        defer { sink.close() }
        do {
            _ = try sink.prepare()
            Issue.record("prepare succeeded without TimescaleDB")
        } catch SinkError.misconfigured(let reason) {  // not retried: a person must act
            #expect(reason.contains("timescaledb"))
            #expect(reason.contains("require_timescaledb: false"))
        }
    }

    @Test func readBackReturnsTheCanonicalSamples() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let sink = TimescaleDBSink(configuration: .init(url: url, schema: PostgresTestDatabase.freshSchema(),
                                                        requireTimescaledb: false),
                                   context: ConformanceFixtures.context())
        _ = try sink.prepare()
        defer { sink.close() }
        try sink.write(ConformanceFixtures.entries(ConformanceFixtures.all), cursor: 7)
        var read: [String: Sample] = [:]
        try sink.readBack(batchSize: 2) { read[$0.id] = $0 }
        #expect(read.count == ConformanceFixtures.all.count)
        for sample in ConformanceFixtures.all {
            guard var back = read[sample.id] else { Issue.record("missing \(sample.id)"); continue }
            // jsonb keeps keys in its own order.
            back.metadata.sort { $0.key < $1.key }
            var expected = sample
            expected.metadata.sort { $0.key < $1.key }
            #expect(back == expected)
        }

        // As items (what migrate and dump read): the recorded tombstones first, then the samples.
        let gone = ConformanceFixtures.all[0].id
        try sink.write([ConformanceFixtures.tombstone([gone, "NEVER-STORED"], sequence: 8)], cursor: 8)
        var items: [HealthItem] = []
        try sink.readBack { (item: HealthItem) in items.append(item) }
        var deleted: [String] = []
        for item in items {
            guard case .tombstone(let tombstone) = item else { break }
            deleted += tombstone.ids
        }
        #expect(Set(deleted) == [gone, "NEVER-STORED"])
        let tombstones = items.prefix(deleted.count)
        #expect(items.count == tombstones.count + ConformanceFixtures.all.count - 1)
    }

    @Test func connectionRefusedIsAClearErrorRetriedAndNothingIsLost() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let refused = TimescaleDBSink(configuration: .init(url: "host=127.0.0.1 port=1 dbname=x connect_timeout=2",
                                                           requireTimescaledb: false),
                                      context: ConformanceFixtures.context())
        do {
            _ = try refused.prepare()
            Issue.record("connected to port 1")
        } catch SinkError.unavailable(let reason) {
            #expect(reason.contains("127.0.0.1"))
            #expect(reason.lowercased().contains("refused"))
            // libpq's hint ("Is the server running on that host…?") stays on the same line.
            #expect(!reason.contains("\n") && reason.contains("; Is the server running"), "\(reason)")
        }
        // The worker retries a store that is down at first, then delivers everything.
        let schema = PostgresTestDatabase.freshSchema()
        let attempts = AttemptCounter()
        let good = TimescaleDBSink.Configuration(url: url, schema: schema, requireTimescaledb: false)
        let bad = TimescaleDBSink.Configuration(url: "host=127.0.0.1 port=1 dbname=x", requireTimescaledb: false)
        let conformance = SinkConformance(
            make: {
                attempts.count += 1
                return TimescaleDBSink(configuration: attempts.count <= 2 ? bad : good, context: ConformanceFixtures.context())
            },
            snapshot: { [] }, storedIds: nil, refused: nil)
        let directory = ConformanceFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try Journal(stateDirectory: directory).append((0..<100).map { .sample(ConformanceFixtures.numbered($0)) },
                                                          source: "history")
        let progress = conformance.runWorker(directory: directory)
        #expect(attempts.count == 3)
        #expect(progress.written == 100)
        let connection = try PostgresTestDatabase.connect(url)
        defer { connection.close() }
        #expect(try connection.query("SELECT count(*) FROM \(SQL.qualified(schema, "samples"))").int(0, 0) == 100)
    }

    @Test func workoutChildrenAreRowsRewrittenOnChangeAndDeletedWithTheWorkout() throws {
        try withSink { sink, schema, connection in
            func counts() throws -> [Int64] {
                try ["workout_events", "workout_statistics", "workout_activities", "workout_routes", "workout_route_points"].map {
                    try connection.execute("SELECT count(*) FROM \(SQL.qualified(schema, $0))").int(0, 0) ?? -1
                }
            }
            let workout = ConformanceFixtures.workout
            try sink.write(ConformanceFixtures.entries([workout]), cursor: 1)
            #expect(try counts() == [1, 0, 0, 1, 1])
            try sink.write(ConformanceFixtures.entries([workout], from: 2), cursor: 2)
            #expect(try counts() == [1, 0, 0, 1, 1])
            var changed = workout
            guard case .workout(var parts) = changed.detail else { return }
            parts.events.append(WorkoutEvent(type: "HKWorkoutEventTypeResume", date: ConformanceFixtures.at(260)))
            parts.activities = [WorkoutActivity(id: "A-1", activityType: "HKWorkoutActivityTypeRunning",
                                                start: ConformanceFixtures.at(100),
                                                events: [WorkoutEvent(type: "HKWorkoutEventTypeSegment", date: ConformanceFixtures.at(100))],
                                                statistics: [WorkoutStatistic(type: "HKQuantityTypeIdentifierHeartRate",
                                                                              start: ConformanceFixtures.at(100),
                                                                              end: ConformanceFixtures.at(3712), average: 150)])]
            changed.detail = .workout(parts)
            try sink.write(ConformanceFixtures.entries([changed], from: 3), cursor: 3)
            #expect(try counts() == [3, 1, 1, 1, 1])
            let date = try connection.execute("SELECT (extract(epoch FROM date_at) * 1000)::bigint FROM "
                                                  + "\(SQL.qualified(schema, "workout_events")) WHERE activity_id IS NULL ORDER BY ordinal")
            #expect(date.int(0, 0) == ConformanceFixtures.at(200).epochMilliseconds)
            try sink.write([ConformanceFixtures.tombstone([workout.id], sequence: 4)], cursor: 4)
            #expect(try counts() == [0, 0, 0, 0, 0])
        }
    }

    /// A schema made before `sample_index` recorded previous locations gets the columns at prepare.
    @Test func anOlderSampleIndexGetsItsNewColumns() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let schema = PostgresTestDatabase.freshSchema()
        let configuration = TimescaleDBSink.Configuration(url: url, schema: schema, requireTimescaledb: false)
        let first = TimescaleDBSink(configuration: configuration, context: ConformanceFixtures.context())
        _ = try first.prepare()
        first.close()
        let connection = try PostgresTestDatabase.connect(url)
        defer { connection.close() }
        try connection.execute("ALTER TABLE \(SQL.qualified(schema, "sample_index")) DROP COLUMN previous_table, "
                                   + "DROP COLUMN previous_start_at")
        let second = TimescaleDBSink(configuration: configuration, context: ConformanceFixtures.context())
        _ = try second.prepare()
        defer { second.close() }
        var sample = ConformanceFixtures.numbered(1)
        try second.write(ConformanceFixtures.entries([sample]), cursor: 1)
        sample.start = ConformanceFixtures.at(900)
        sample.end = sample.start
        try second.write(ConformanceFixtures.entries([sample], from: 2), cursor: 2)
        let rows = try connection.execute("SELECT count(*) FROM \(SQL.qualified(schema, "samples"))")
        #expect(rows.int(0, 0) == 1)
    }

    /// A sample whose start or kind changes moves: its old row goes, `sample_index` follows, and a
    /// tombstone still finds it; a workout that becomes a sample leaves no children behind.
    @Test func aSampleThatMovesLeavesNoRowBehind() throws {
        try withSink { sink, schema, connection in
            func rows() throws -> [String] {
                let result = try connection.execute(
                    "SELECT 'samples:' || id || '@' || (extract(epoch FROM start_at) * 1000)::bigint FROM \(SQL.qualified(schema, "samples")) "
                        + "UNION ALL SELECT 'sleep_stages:' || id || '@' || (extract(epoch FROM start_at) * 1000)::bigint FROM "
                        + "\(SQL.qualified(schema, "sleep_stages")) UNION ALL SELECT 'workouts:' || id || '@' || "
                        + "(extract(epoch FROM start_at) * 1000)::bigint FROM \(SQL.qualified(schema, "workouts")) UNION ALL "
                        + "SELECT 'index:' || table_name || ':' || id || '@' || (extract(epoch FROM start_at) * 1000)::bigint FROM "
                        + "\(SQL.qualified(schema, "sample_index")) ORDER BY 1")
                return (0..<result.rowCount).compactMap { result.text($0, 0) }
            }
            var sample = ConformanceFixtures.numbered(1)
            let other = ConformanceFixtures.numbered(2)
            try sink.write(ConformanceFixtures.entries([sample, other]), cursor: 2)
            sample.start = ConformanceFixtures.at(500)
            sample.end = sample.start
            try sink.write(ConformanceFixtures.entries([sample], from: 3), cursor: 3)
            let at500 = ConformanceFixtures.at(500).epochMilliseconds, at20 = ConformanceFixtures.at(20).epochMilliseconds
            let moved = try rows()
            #expect(moved == ["index:samples:\(other.id)@\(at20)", "index:samples:\(sample.id)@\(at500)",
                              "samples:\(other.id)@\(at20)", "samples:\(sample.id)@\(at500)"].sorted(), "\(moved)")
            sample.type = "HKCategoryTypeIdentifierSleepAnalysis"
            sample.kind = .category
            sample.categoryValue = "HKCategoryValueSleepAnalysisAsleepDeep"
            sample.value = nil
            sample.unit = nil
            try sink.write(ConformanceFixtures.entries([sample], from: 4), cursor: 4)
            #expect(try rows() == ["index:samples:\(other.id)@\(at20)", "index:sleep_stages:\(sample.id)@\(at500)",
                                   "samples:\(other.id)@\(at20)", "sleep_stages:\(sample.id)@\(at500)"].sorted())
            try sink.write([ConformanceFixtures.tombstone([sample.id], sequence: 5)], cursor: 5)
            #expect(try rows() == ["index:samples:\(other.id)@\(at20)", "samples:\(other.id)@\(at20)"])

            var workout = ConformanceFixtures.workout
            try sink.write(ConformanceFixtures.entries([workout], from: 6), cursor: 6)
            workout.kind = .quantity
            workout.detail = .none
            workout.value = 1
            try sink.write(ConformanceFixtures.entries([workout], from: 7), cursor: 7)
            #expect(try rows().filter { $0.contains(workout.id) }.map { $0.split(separator: "@")[0] }
                    == ["index:samples:\(workout.id)", "samples:\(workout.id)"])
            let children = try connection.execute("SELECT count(*) FROM \(SQL.qualified(schema, "workout_events"))")
            #expect(children.int(0, 0) == 0)

            // One batch bringing an id twice, at two starts: the later entry counts, the batch is not refused.
            var twice = ConformanceFixtures.numbered(3)
            var later = twice
            later.start = ConformanceFixtures.at(700)
            later.end = later.start
            twice.value = 5
            try sink.write(ConformanceFixtures.entries([twice, later], from: 8), cursor: 9)
            let at700 = ConformanceFixtures.at(700).epochMilliseconds
            #expect(try rows().filter { $0.contains(twice.id) } == ["index:samples:\(twice.id)@\(at700)", "samples:\(twice.id)@\(at700)"])
        }
    }

    /// A batch of new ids takes the plain INSERT into `sample_index`; a batch that also changes a
    /// stored id, or brings back one whose row is gone while its index row stayed (a chunk
    /// dropped by retention), fails that INSERT and runs again through the full upsert: every
    /// row lands once, changed where it changed, with one index row each.
    @Test func aBatchThatChangesAStoredIdRunsAgainThroughTheFullUpsert() throws {
        try withSink { sink, schema, connection in
            func rows() throws -> [String] {
                let result = try connection.execute(
                    "SELECT s.id || '=' || s.value || '@' || i.table_name || ':' || (extract(epoch FROM i.start_at) * 1000)::bigint "
                        + "FROM \(SQL.qualified(schema, "samples")) s FULL JOIN \(SQL.qualified(schema, "sample_index")) i "
                        + "ON i.id = s.id ORDER BY 1")
                return (0..<result.rowCount).map { result.text($0, 0) ?? "unmatched" }
            }
            func expected(_ samples: [Sample]) -> [String] {
                samples.map { "\($0.id)=\(Int($0.value!))@samples:\($0.start.epochMilliseconds)" }.sorted()
            }
            let first = ConformanceFixtures.numbered(1), second = ConformanceFixtures.numbered(2)
            try sink.write(ConformanceFixtures.entries([first, second]), cursor: 2)
            #expect(try rows() == expected([first, second]))

            var changed = first
            changed.value = 99
            let third = ConformanceFixtures.numbered(3)
            try sink.write(ConformanceFixtures.entries([third, changed], from: 3), cursor: 4)
            #expect(try rows() == expected([changed, second, third]))

            try connection.execute("DELETE FROM \(SQL.qualified(schema, "samples")) WHERE id = \(SQL.literal(second.id))")
            let fourth = ConformanceFixtures.numbered(4)
            try sink.write(ConformanceFixtures.entries([fourth, second], from: 5), cursor: 6)
            #expect(try rows() == expected([changed, second, third, fourth]))

            let fifth = ConformanceFixtures.numbered(5)
            try sink.write(ConformanceFixtures.entries([fifth, changed], from: 7), cursor: 8)
            #expect(try rows() == expected([changed, second, third, fourth, fifth]))
            let cursor = try connection.execute("SELECT journal_seq FROM \(SQL.qualified(schema, "sink_cursor"))")
            #expect(cursor.int(0, 0) == 8)
        }
    }
}

final class AttemptCounter: @unchecked Sendable {
    var count = 0
}
