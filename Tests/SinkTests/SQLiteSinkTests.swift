import TestSupport
import CSQLite3
import Foundation
import HealthRouterCore
import Testing
@testable import SQLiteSink

@Suite struct SQLiteSinkTests {
    // MARK: - Helpers

    /// A prepared sink on a fresh file; `body` gets it and the file's path.
    func withSink(_ body: (SQLiteSink, String) throws -> Void) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/nested/health.sqlite"
        let sink = SQLiteSink(configuration: .init(path: path), context: SinkFixtures.context(directory.path))
        #expect(try sink.prepare() == 0)
        defer { sink.close() }
        try body(sink, path)
    }

    /// Every row of `sql` as text, one line a row, columns separated by `|`.
    func rows(_ path: String, _ sql: String) throws -> [String] {
        let database = try SQLiteDatabase(path: path, readOnly: true)
        let statement = try database.prepare(sql)
        var lines: [String] = []
        while try statement.step() {
            let count = sqlite3_column_count(statement.handle)
            lines.append((0..<count).map { column in
                switch sqlite3_column_type(statement.handle, column) {
                case SQLITE_NULL: "NULL"
                case SQLITE_INTEGER: String(statement.int64(column))
                case SQLITE_FLOAT: String(statement.double(column))
                default: statement.string(column) ?? ""
                }
            }.joined(separator: "|"))
        }
        return lines
    }

    func scalar(_ path: String, _ sql: String) throws -> String? {
        try rows(path, sql).first
    }

    /// Every table's rows, in a stable order: what `sqlite3` would show.
    func dump(_ path: String) throws -> String {
        try SQLiteSinkSchema.allTables.map { table in
            let order = (1...table.columns.count).map(String.init).joined(separator: ", ")
            return "## \(table.name)\n" + (try rows(path, "SELECT * FROM \(table.name) ORDER BY \(order)").joined(separator: "\n"))
        }.joined(separator: "\n")
    }

    /// SQLite's counter of commits by other connections: unchanged when a write wrote nothing.
    func dataVersion(_ observer: SQLiteDatabase) throws -> Int64? {
        try observer.scalarInt("PRAGMA data_version")
    }

    // MARK: - Tables

    /// A path where something of the wrong kind is says which key to change, not a SQLite code
    /// that reads like a store that is down for a while.
    @Test func aPathThatCannotBeAStoreSaysWhichKeyToChange() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        func problem(_ path: String) -> String? {
            SinkFixtures.prepareProblem(SQLiteSink(configuration: .init(path: path), context: SinkFixtures.context(directory.path)))
        }
        try FileManager.default.createDirectory(atPath: directory.path + "/folder", withIntermediateDirectories: true)
        #expect(problem(directory.path + "/folder")
                == "\(directory.path)/folder is a folder, not a file: set `path` to a file in it, such as \(directory.path)/folder/health.sqlite")
        try "not a database, just text that is long enough to fill a header of one hundred bytes or more, surely."
            .write(toFile: directory.path + "/notes.txt", atomically: true, encoding: .utf8)
        #expect(problem(directory.path + "/notes.txt")
                == "\(directory.path)/notes.txt is not a SQLite database: set `path` to a new file, or to a store healthrouter made")
        #expect(problem(directory.path + "/notes.txt/health.sqlite")
                == "\(directory.path)/notes.txt is a file, so \(directory.path)/notes.txt/health.sqlite cannot be made: set `path` elsewhere")
        #expect(problem(directory.path + "/fine/health.sqlite") == nil)
        // The folders it makes are their owner's alone (health data), whatever the umask; one that
        // was there keeps its mode.
        let previous = umask(0o022)
        defer { umask(previous) }
        chmod(directory.path, 0o755)
        #expect(problem(directory.path + "/out/nested/health.sqlite") == nil)
        for folder in ["/out", "/out/nested"] {
            let mode = try FileManager.default.attributesOfItem(atPath: directory.path + folder)[.posixPermissions] as? Int
            #expect(mode == 0o700, "\(folder): \(String(mode ?? 0, radix: 8))")
        }
        #expect(try FileManager.default.attributesOfItem(atPath: directory.path)[.posixPermissions] as? Int == 0o755)
        // A folder the system refuses to make (here /proc, which refuses even root): misconfigured,
        // in the config's terms, not Foundation's "NSCocoaErrorDomain Code=4" retried as an outage.
        let refused = SQLiteSink(configuration: .init(path: "/proc/healthrouter-test/h.sqlite"),
                                 context: SinkFixtures.context(directory.path))
        do {
            _ = try refused.prepare()
            Issue.record("a store under /proc prepared")
        } catch SinkError.misconfigured(let reason) {
            #expect(reason == "cannot create the folder /proc/healthrouter-test: No such file or directory: set `path` to a place "
                        + "the user running healthrouter may write, or create the folder and give that user its ownership")
        }
        refused.close()
    }

    /// A store in a place another user controls is refused before it is opened: a folder every
    /// user may write that is not sticky, a symbolic link another user made (the store would be
    /// whatever file they point it at: as root, any). A link of this user's is the config's choice;
    /// a sticky folder (/tmp) and another user's file are taken.
    @Test func aStoreAnotherUserControlsIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        func problem(_ path: String) -> String? {
            SinkFixtures.prepareProblem(SQLiteSink(configuration: .init(path: path), context: SinkFixtures.context(directory.path)))
        }
        let open = directory.path + "/open"
        try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: true)
        chmod(open, 0o777)
        #expect(problem(open + "/health.sqlite")?.contains("\(open), the folder of \(open)/health.sqlite, may be written by every "
                                                          + "user (mode 777)") == true)
        #expect(!FileManager.default.fileExists(atPath: open + "/health.sqlite"))
        chmod(open, 0o1777)
        #expect(problem(open + "/health.sqlite") == nil)
        let mine = directory.path + "/mine"
        try FileManager.default.createDirectory(atPath: mine, withIntermediateDirectories: true)
        #expect(problem(mine + "/real.sqlite") == nil)
        try FileManager.default.createSymbolicLink(atPath: mine + "/link.sqlite", withDestinationPath: mine + "/real.sqlite")
        #expect(problem(mine + "/link.sqlite") == nil)
        if geteuid() == 0 {
            #expect(lchown(mine + "/link.sqlite", 65534, 65534) == 0)
            #expect(problem(mine + "/link.sqlite")?.contains("is a symbolic link another user (uid 65534) made") == true)
            #expect(chown(mine + "/real.sqlite", 65534, 65534) == 0)
            #expect(problem(mine + "/real.sqlite") == nil)
        }
    }

    @Test func writesEveryKindToItsTable() throws {
        try withSink { sink, path in
            try sink.write(SinkFixtures.entries(SinkFixtures.all), cursor: 12)
            #expect(try scalar(path, "SELECT count(*) FROM samples") == "6")
            #expect(try scalar(path, "SELECT group_concat(kind) FROM (SELECT kind FROM samples ORDER BY id)")
                        == "quantity,quantity,quantity,quantity,category,quantity")
            #expect(try scalar(path, "SELECT count(*) FROM sleep_stages") == "1")
            #expect(try scalar(path, "SELECT count(*) FROM workouts") == "1")
            #expect(try scalar(path, "SELECT count(*) FROM correlations") == "1")
            #expect(try scalar(path, "SELECT count(*) FROM activity_summaries") == "1")
            #expect(try scalar(path, "SELECT count(*) FROM profile") == "1")
            #expect(try scalar(path, "SELECT count(*) FROM other_records") == "1")

            // Times: UTC text at fixed width, the producer's offset beside it.
            #expect(try scalar(path, "SELECT start_at, end_at, start_utc_offset, created_at FROM samples WHERE id LIKE '%0001'")
                        == "2024-01-05T20:07:03.000Z|2024-01-05T20:07:03.000Z|3600|2024-01-05T20:08:00.000Z")
            #expect(try scalar(path, "SELECT start_at, start_utc_offset FROM samples WHERE id LIKE '%0002'")
                        == "2024-01-05T20:07:03.250Z|-18000")
            #expect(try scalar(path, "SELECT datetime(start_at, start_utc_offset || ' seconds') FROM samples WHERE id LIKE '%0001'")
                        == "2024-01-05 21:07:03")

            // Awkward strings come back byte for byte.
            #expect(try scalar(path, "SELECT source_name FROM samples WHERE id LIKE '%0001'") == SinkFixtures.awkwardSource)
            #expect(try scalar(path, "SELECT source_name FROM samples WHERE id LIKE '%0002'") == SinkFixtures.injection)
            #expect(try scalar(path, "SELECT source_name FROM samples WHERE id = 'U-1'") == "Lab\n\"quoted\"\tapp")
            #expect(try scalar(path, "SELECT type, value, unit FROM samples WHERE id = 'U-1'")
                        == "com.example/Future Thing ü|3.0|zorks")

            // Metadata is JSON that SQLite can query, with its types kept.
            #expect(try scalar(path, """
                SELECT json_extract(metadata, '$.HKMetadataKeyHeartRateMotionContext'), json_extract(metadata, '$.note'),
                       json_type(metadata, '$.HKWasUserEntered') FROM samples WHERE id LIKE '%0001'
                """) == "1|\(SinkFixtures.injection)|false")
            #expect(try scalar(path, "SELECT metadata FROM samples WHERE id = 'STAND-1'") == "NULL")

            // Sleep: the stage name beside the value as produced.
            #expect(try scalar(path, "SELECT stage, category_value, time_zone FROM sleep_stages")
                        == "\(CategoryValueNames.pulsoName("HKCategoryValueSleepAnalysisAsleepREM", type: "HKCategoryTypeIdentifierSleepAnalysis"))|HKCategoryValueSleepAnalysisAsleepREM|Europe/Lisbon")

            // Workouts with their parts.
            #expect(try scalar(path, """
                SELECT activity_type, duration_s, total_energy_burned_kcal, maximum_heart_rate, source_activity_type,
                       json_extract(metadata, '$.HKWorkoutBrandName') FROM workouts
                """) == "traditionalStrengthTraining|3612.4|412.0|171.0|HKWorkoutActivityTypeTraditionalStrengthTraining|Push Day A")
            #expect(try rows(path, "SELECT activity_id, ordinal, type FROM workout_events ORDER BY activity_id, ordinal") == [
                "NULL|0|HKWorkoutEventTypePause", "NULL|1|HKWorkoutEventTypeResume", "A-1|0|HKWorkoutEventTypeSegment",
            ])
            #expect(try rows(path, "SELECT activity_id, type, sum FROM workout_statistics ORDER BY activity_id") == [
                "NULL|HKQuantityTypeIdentifierHeartRate|NULL", "A-1|HKQuantityTypeIdentifierActiveEnergyBurned|412.0",
            ])
            #expect(try scalar(path, "SELECT id, ordinal, duration_s FROM workout_activities") == "A-1|0|3612.4")
            #expect(try scalar(path, "SELECT file_path FROM workout_routes") == "/workout-routes/route_2026-07-05_6.30pm.gpx")
            #expect(try rows(path, "SELECT ordinal, time_at, latitude, speed, time_utc_offset FROM workout_route_points") == [
                "0|2026-07-05T17:30:00.000Z|38.7223|2.75|0", "1|2026-07-05T17:30:01.000Z|38.72231|NULL|NULL",
            ])

            #expect(try rows(path, "SELECT ordinal, member_id FROM correlation_members WHERE correlation_id = 'BP-1'")
                        == ["0|BP-S", "1|BP-D"])
            #expect(try rows(path, "SELECT ordinal, time_at, bpm FROM heartbeats WHERE sample_id = 'HRV-1'")
                        == ["0|2024-01-05T22:58:01.230Z|61.0", "1|2024-01-05T22:58:02.190Z|63.5"])

            #expect(try scalar(path, """
                SELECT date, active_energy_burned, active_energy_burned_unit, apple_exercise_time_goal, apple_stand_hours,
                       json_extract(attributes, '$.appleMoveTime') FROM activity_summaries
                """) == "2024-01-05|512.25|kcal|30.0|11.0|0")
            #expect(try scalar(path, "SELECT date_of_birth, biological_sex, cardio_fitness_medications_use FROM profile")
                        == "1990-02-02|HKBiologicalSexFemale|NULL")
            #expect(try scalar(path, """
                SELECT type, element, kind, json_extract(children, '$[0].attributes.frequencyValue') FROM other_records
                """) == "HKDataTypeIdentifierAudiogram|Audiogram|other|1000")

            #expect(try scalar(path, "SELECT journal_seq FROM sink_cursor") == "12")
            #expect(try scalar(path, "SELECT version FROM healthrouter_schema") == "1")
        }
    }

    /// A phone set to kilojoules exports its rings in kJ: the energy columns are in kcal, as every
    /// other energy column, while `attributes` keeps the export's numbers and unit. A unit that
    /// is no energy unit is left as it came.
    @Test func anActivitySummaryInKilojoulesIsStoredInKilocalories() throws {
        func summary(_ day: String, energy: String, goal: String, unit: String) -> Sample {
            var sample = SinkFixtures.activitySummary
            sample.id = "AS-\(day)"
            sample.detail = .record(GenericRecord(element: "ActivitySummary", attributes: [
                .init("dateComponents", day), .init("activeEnergyBurned", energy),
                .init("activeEnergyBurnedGoal", goal), .init("activeEnergyBurnedUnit", unit),
            ]))
            return sample
        }
        try withSink { sink, path in
            try sink.write(SinkFixtures.entries([summary("2024-01-06", energy: "2092", goal: "2510.4", unit: "kJ"),
                                                 summary("2024-01-07", energy: "480", goal: "500", unit: "kcal"),
                                                 summary("2024-01-08", energy: "7", goal: "9", unit: "furlong")]), cursor: 3)
            #expect(try rows(path, """
                SELECT date, active_energy_burned, active_energy_burned_goal, active_energy_burned_unit,
                       json_extract(attributes, '$.activeEnergyBurned'), json_extract(attributes, '$.activeEnergyBurnedUnit')
                FROM activity_summaries ORDER BY date
                """) == ["2024-01-06|500.0|600.0|kcal|2092|kJ", "2024-01-07|480.0|500.0|kcal|480|kcal",
                         "2024-01-08|7.0|9.0|furlong|7|furlong"])
        }
    }

    @Test func sameBatchTwiceLeavesIdenticalTablesAndWritesNothing() throws {
        try withSink { sink, path in
            let entries = SinkFixtures.entries(SinkFixtures.all)
            try sink.write(entries, cursor: 12)
            let first = try dump(path)
            let observer = try SQLiteDatabase(path: path, readOnly: true)
            let before = try dataVersion(observer)

            try sink.write(entries, cursor: 12)
            #expect(try dataVersion(observer) == before)
            // The same data again from later journal entries changes nothing but the cursor.
            try sink.write(SinkFixtures.entries(SinkFixtures.all, from: 100), cursor: 12)
            #expect(try dataVersion(observer) == before)
            #expect(try dump(path) == first)

            // A fresh instance on the same file (a restart) re-delivering the batch, too.
            let again = SQLiteSink(configuration: .init(path: path), context: SinkFixtures.context(TestScratch.path))
            #expect(try again.prepare() == 12)
            try again.write(entries, cursor: 12)
            again.close()
            #expect(try dump(path) == first)
        }
    }

    @Test func cursorIsStoredWithTheRowsAndReturnedByPrepare() throws {
        try withSink { sink, path in
            try sink.write(SinkFixtures.entries([SinkFixtures.heartRate]), cursor: 41)
            try sink.write([], cursor: 42)
            sink.close()
            let reopened = SQLiteSink(configuration: .init(path: path), context: SinkFixtures.context(TestScratch.path))
            #expect(try reopened.prepare() == 42)
            reopened.close()
        }
    }

    @Test func tombstonesDeleteFromEveryTableAndAreRecorded() throws {
        try withSink { sink, path in
            try sink.write(SinkFixtures.entries(SinkFixtures.all), cursor: 12)
            let deleted = ["W-1", "BP-1", "HRV-1", "ABC-123", "AS-2024-01-05", "ME-1", "AUD-1", "never-seen"]
            try sink.write([SinkFixtures.tombstone(deleted, sequence: 13, userId: "alice")], cursor: 13)

            for table in ["workouts", "correlations", "samples", "sleep_stages", "activity_summaries", "profile",
                          "other_records"] {
                #expect(try scalar(path, "SELECT count(*) FROM \(table) WHERE id IN ('\(deleted.joined(separator: "','"))')") == "0")
            }
            for child in ["workout_events", "workout_statistics", "workout_activities", "workout_routes",
                          "workout_route_points", "correlation_members", "heartbeats"] {
                #expect(try scalar(path, "SELECT count(*) FROM \(child)") == "0")
            }
            #expect(try scalar(path, "SELECT count(*) FROM samples") == "5")
            #expect(try rows(path, "SELECT id, user_id, journal_seq, length(deleted_at) FROM deleted_samples ORDER BY id")
                        == deleted.sorted().map { "\($0)|alice|13|24" })

            // Re-delivered: nothing to write.
            let observer = try SQLiteDatabase(path: path, readOnly: true)
            let before = try dataVersion(observer)
            try sink.write([SinkFixtures.tombstone(deleted, sequence: 13, userId: "alice")], cursor: 13)
            #expect(try dataVersion(observer) == before)

            // A sample sent again after its deletion is stored again.
            try sink.write(SinkFixtures.entries([SinkFixtures.workout], from: 14), cursor: 14)
            #expect(try scalar(path, "SELECT count(*) FROM workout_events WHERE workout_id = 'W-1'") == "3")
        }
    }

    @Test func changedSampleUpdatesItsRowAndReplacesItsChildren() throws {
        try withSink { sink, path in
            try sink.write(SinkFixtures.entries(SinkFixtures.all), cursor: 12)

            var heartRate = SinkFixtures.heartRate
            heartRate.value = 75
            var workout = SinkFixtures.workout
            guard case .workout(var parts) = workout.detail else { Issue.record("fixture"); return }
            parts.routes[0].points.removeLast()
            parts.events = [parts.events[0]]
            workout.detail = .workout(parts)
            var hrv = SinkFixtures.hrv
            hrv.detail = .none
            var pressure = SinkFixtures.bloodPressure
            pressure.detail = .correlation(memberIds: ["BP-S"])
            try sink.write(SinkFixtures.entries([heartRate, workout, hrv, pressure], from: 20), cursor: 23)

            #expect(try scalar(path, "SELECT value, journal_seq FROM samples WHERE id LIKE '%0001'") == "75.0|20")
            #expect(try scalar(path, "SELECT count(*) FROM workout_route_points") == "1")
            #expect(try scalar(path, "SELECT count(*) FROM workout_events") == "2")
            #expect(try scalar(path, "SELECT count(*) FROM workout_statistics") == "2")
            #expect(try scalar(path, "SELECT journal_seq FROM workouts") == "21")
            #expect(try scalar(path, "SELECT count(*) FROM heartbeats") == "0")
            #expect(try rows(path, "SELECT member_id FROM correlation_members") == ["BP-S"])
            // Unchanged rows keep the entry that wrote them.
            #expect(try scalar(path, "SELECT journal_seq FROM samples WHERE id = 'STAND-1'") == "4")
        }
    }

    // MARK: - Rejections

    @Test func sampleEndingBeforeItStartsIsRejectedWithItsBatch() throws {
        try withSink { sink, path in
            var backwards = SinkFixtures.steps
            backwards.id = "BACKWARDS"
            backwards.end = Timestamp(epochMilliseconds: backwards.start.epochMilliseconds - 1000)
            #expect {
                try sink.write(SinkFixtures.entries([SinkFixtures.heartRate, backwards]), cursor: 2)
            } throws: { error in
                guard case .rejected(let reason) = error as? SinkError else { return false }
                return reason.contains("CHECK")
            }
            #expect(try scalar(path, "SELECT count(*) FROM samples") == "0")
            #expect(try scalar(path, "SELECT count(*) FROM sink_cursor") == "0")
            // The good entry alone goes through (as the worker does when it splits the batch).
            try sink.write(SinkFixtures.entries([SinkFixtures.heartRate]), cursor: 1)
            #expect(try scalar(path, "SELECT count(*) FROM samples") == "1")
        }
    }

    @Test func instantOutsideFourDigitYearsIsRejected() throws {
        try withSink { sink, _ in
            var far = SinkFixtures.heartRate
            far.start = Timestamp(epochMilliseconds: 253_402_300_800_000)  // 10000-01-01
            far.end = far.start
            #expect {
                try sink.write(SinkFixtures.entries([far]), cursor: 1)
            } throws: { error in
                guard case .rejected = error as? SinkError else { return false }
                return true
            }
        }
    }

    @Test func emptyIdIsRejected() throws {
        try withSink { sink, _ in
            var anonymous = SinkFixtures.heartRate
            anonymous.id = ""
            #expect(throws: SinkError.self) { try sink.write(SinkFixtures.entries([anonymous]), cursor: 1) }
        }
    }

    @Test func unwritableFileIsUnavailable() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Data("not a database, just text that is long enough to look like a header....".utf8)
            .write(to: URL(fileURLWithPath: directory.path + "/health.sqlite"))
        let sink = SQLiteSink(configuration: .init(path: directory.path + "/health.sqlite"),
                              context: SinkFixtures.context(directory.path))
        #expect {
            _ = try sink.prepare()
        } throws: { error in
            guard case .misconfigured(let reason) = error as? SinkError else { return false }
            return reason.contains("is not a SQLite database")
        }
    }

    @Test func prepareIsIdempotent() throws {
        try withSink { sink, path in
            try sink.write(SinkFixtures.entries(SinkFixtures.all), cursor: 12)
            let first = try dump(path)
            let second = SQLiteSink(configuration: .init(path: path), context: SinkFixtures.context(TestScratch.path))
            #expect(try second.prepare() == 12)
            #expect(try second.prepare() == 12)
            second.close()
            #expect(try dump(path) == first)
        }
    }

    // MARK: - Bulk loads

    /// `count` samples (heart rates, every tenth a sleep stage, every hundredth an HRV sample with
    /// beats), each the first of its id, with sequences from `first`.
    func firstOfIdEntries(_ count: Int, from first: Int64 = 1) -> [JournalEntry] {
        (0..<count).map { n in
            var sample = n % 10 == 9 ? SinkFixtures.sleep : n % 100 == 50 ? SinkFixtures.hrv : SinkFixtures.heartRate
            sample.id = "BULK-\(first + Int64(n))"
            return JournalEntry(sequence: first + Int64(n), source: "history", item: .sample(sample), isFirstOfId: true)
        }
    }

    /// The indexes a bulk load drops: the id and time indexes of `samples` and `sleep_stages`.
    let loadIndexes = ["samples_id", "samples_start", "samples_type_start", "sleep_stages_id", "sleep_stages_start"]

    /// Which of `loadIndexes` the store has, by name.
    func presentLoadIndexes(_ path: String) throws -> [String] {
        let names = loadIndexes.map { "'\($0)'" }.joined(separator: ", ")
        return try rows(path, "SELECT name FROM sqlite_master WHERE type = 'index' AND name IN (\(names)) ORDER BY name")
    }

    @Test func aLoadIntoAnEmptyStoreBuildsItsIndexesOnceItCaughtUp() throws {
        let entries = firstOfIdEntries(2500)
        // The same entries, not known to be the first of their ids, through the upserts.
        let reference = try TemporaryDirectory()
        defer { reference.remove() }
        let upserted = SQLiteSink(configuration: .init(path: reference.path + "/health.sqlite"),
                                  context: SinkFixtures.context(reference.path))
        _ = try upserted.prepare()
        for part in [entries[..<1200], entries[1200...]] {
            try upserted.write(part.map { JournalEntry(sequence: $0.sequence, source: $0.source, item: $0.item) },
                               cursor: part.last!.sequence)
        }
        upserted.close()
        #expect(try presentLoadIndexes(reference.path + "/health.sqlite") == loadIndexes)

        try withSink { sink, path in
            try sink.write(Array(entries[..<1200]), cursor: 1200)
            #expect(try presentLoadIndexes(path).isEmpty)
            // Later batches of the load need not be large.
            try sink.write(Array(entries[1200...]), cursor: 2500)
            #expect(try presentLoadIndexes(path).isEmpty)
            try sink.caughtUp()
            #expect(try presentLoadIndexes(path) == loadIndexes)
            #expect(try dump(path) == dump(reference.path + "/health.sqlite"))
            #expect(try scalar(path, "SELECT count(*) FROM heartbeats") == String(25 * 2))
        }
    }

    @Test func anyOtherWriteAfterALoadBuildsTheIndexesFirst() throws {
        try withSink { sink, path in
            try sink.write(firstOfIdEntries(1000), cursor: 1000)
            #expect(try presentLoadIndexes(path).isEmpty)
            // A change to a loaded sample: upserted over its row, which needs the index.
            var changed = SinkFixtures.heartRate
            changed.id = "BULK-1"
            changed.value = 99
            try sink.write([JournalEntry(sequence: 1001, source: "phone", item: .sample(changed))], cursor: 1001)
            #expect(try presentLoadIndexes(path) == loadIndexes)
            #expect(try rows(path, "SELECT value FROM samples WHERE id = 'BULK-1'") == ["99.0"])
            // Now that the tables hold rows, a load never drops the indexes again.
            try sink.write(firstOfIdEntries(1500, from: 1002), cursor: 2501)
            #expect(try presentLoadIndexes(path) == loadIndexes)
            #expect(try scalar(path, "SELECT count(*) FROM samples") == "2250")
            #expect(try scalar(path, "SELECT count(*) FROM sleep_stages") == "250")
        }
    }

    @Test func onlyEntriesNewToTheStoreAndFirstOfTheirIdLoadInBulk() throws {
        // Entries not known to be the first of their ids.
        try withSink { sink, path in
            let unknown = firstOfIdEntries(1500).map { JournalEntry(sequence: $0.sequence, source: $0.source, item: $0.item) }
            try sink.write(unknown, cursor: 1500)
            #expect(try presentLoadIndexes(path) == loadIndexes)
        }
        // Too few to be worth it.
        try withSink { sink, path in
            try sink.write(firstOfIdEntries(10), cursor: 10)
            #expect(try presentLoadIndexes(path) == loadIndexes)
        }
        // A re-delivery: entries at or before the stored cursor.
        try withSink { sink, path in
            try sink.write([], cursor: 5000)
            try sink.write(firstOfIdEntries(1500), cursor: 5000)
            #expect(try presentLoadIndexes(path) == loadIndexes)
        }
    }

    @Test func aLoadCutShortGetsItsIndexesAtTheNextPrepare() throws {
        try withSink { sink, path in
            try sink.write(firstOfIdEntries(1500), cursor: 1500)
            #expect(try presentLoadIndexes(path).isEmpty)
            // Another process opening the store, as after a kill: it builds them.
            let restarted = SQLiteSink(configuration: .init(path: path), context: SinkFixtures.context(TestScratch.path))
            #expect(try restarted.prepare() == 1500)
            #expect(try presentLoadIndexes(path) == loadIndexes)
            restarted.close()
        }
    }

    @Test func closingAfterALoadBuildsTheIndexes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/health.sqlite"
        let sink = SQLiteSink(configuration: .init(path: path), context: SinkFixtures.context(directory.path))
        _ = try sink.prepare()
        try sink.write(firstOfIdEntries(1500), cursor: 1500)
        sink.close()
        #expect(try presentLoadIndexes(path) == loadIndexes)
    }

    @Test func aLoadRunsWithARollbackJournalAndLeavesTheStoreInWAL() throws {
        try withSink { sink, path in
            let database = try #require(sink.database)
            #expect(try database.scalarText("PRAGMA journal_mode") == "wal")
            // Every commit on the disk when `write` returns, in either mode (a power cut loses no
            // batch the sink's cursor passed: the journal prunes by it).
            #expect(try database.scalarInt("PRAGMA synchronous") == 2)
            try sink.write(firstOfIdEntries(1500), cursor: 1500)
            #expect(try database.scalarText("PRAGMA journal_mode") == "truncate")
            #expect(try database.scalarInt("PRAGMA synchronous") == 2)
            try sink.write(firstOfIdEntries(1500, from: 1501), cursor: 3000)
            // A reader meanwhile sees every committed row.
            #expect(try scalar(path, "SELECT count(*) FROM samples") == "2700")
            try sink.caughtUp()
            #expect(try database.scalarText("PRAGMA journal_mode") == "wal")
            #expect(try database.scalarInt("PRAGMA synchronous") == 2)
            #expect(try presentLoadIndexes(path) == loadIndexes)
            #expect(try scalar(path, "SELECT count(*) FROM sleep_stages") == "300")
        }
    }

    @Test func aLoadIntoAStoreOpenElsewhereStaysInWAL() throws {
        try withSink { sink, path in
            let other = try SQLiteDatabase(path: path)
            #expect(try other.scalarInt("SELECT count(*) FROM samples") == 0)
            let started = Date()
            try sink.write(firstOfIdEntries(1500), cursor: 1500)
            try sink.write(firstOfIdEntries(1500, from: 1501), cursor: 3000)
            // Refused at once, not after waiting for the other connection.
            #expect(Date().timeIntervalSince(started) < 5)
            let database = try #require(sink.database)
            #expect(try database.scalarText("PRAGMA journal_mode") == "wal")
            #expect(try database.scalarInt("PRAGMA synchronous") == 2)
            #expect(try other.scalarInt("SELECT count(*) FROM samples") == 2700)
            try sink.caughtUp()
            #expect(try presentLoadIndexes(path) == loadIndexes)
        }
    }

    @Test func aLoadInARollbackJournalKilledHalfWayRollsBackAndResumesInWAL() throws {
        // A process killed in the middle of a bulk batch leaves its rollback journal behind, hot:
        // the store file may already hold some of the batch's pages.
        try withSink { sink, path in
            try sink.write(firstOfIdEntries(1500), cursor: 1500)
            let database = try #require(sink.database)
            #expect(try database.scalarText("PRAGMA journal_mode") == "truncate")
            // A page cache too small for the transaction: its changes spill into the store file,
            // the pages they replace saved in the journal first.
            try database.execute("PRAGMA cache_size = 10")
            try database.execute("BEGIN")
            try database.execute("DELETE FROM samples")
            try database.execute("UPDATE sink_cursor SET journal_seq = 9999")
            // Copies of the store and its journal mid-transaction: what a kill leaves on disk.
            let copy = (path as NSString).deletingLastPathComponent + "/killed.sqlite"
            try FileManager.default.copyItem(atPath: path, toPath: copy)
            try FileManager.default.copyItem(atPath: path + "-journal", toPath: copy + "-journal")
            let journalSize = try FileManager.default.attributesOfItem(atPath: copy + "-journal")[.size] as? Int ?? 0
            #expect(journalSize > 4096)
            try database.execute("ROLLBACK")

            let restarted = SQLiteSink(configuration: .init(path: copy), context: SinkFixtures.context(TestScratch.path))
            #expect(try restarted.prepare() == 1500)
            defer { restarted.close() }
            #expect(try scalar(copy, "SELECT count(*) FROM samples") == "1350")
            #expect(try restarted.database?.scalarText("PRAGMA journal_mode") == "wal")
            #expect(try presentLoadIndexes(copy) == loadIndexes)
        }
    }

    @Test func rowsSharingAnIdAfterALoadAreReportedNotGuessedBetween() throws {
        try withSink { sink, path in
            try sink.write(firstOfIdEntries(1500), cursor: 1500)
            // Another program copies a row while the index is gone.
            let other = try SQLiteDatabase(path: path)
            try other.execute("INSERT INTO samples SELECT * FROM samples WHERE id = 'BULK-1'")
            let error = #expect(throws: SinkError.self) { try sink.caughtUp() }
            #expect(error?.description.contains("samples(id): 1 ids have more than one row") == true)
            try other.execute("DELETE FROM samples WHERE rowid = (SELECT max(rowid) FROM samples)")
            try sink.caughtUp()
            #expect(try presentLoadIndexes(path) == loadIndexes)
        }
    }

    @Test func aStoreWithIdsAsPrimaryKeysLoadsWithoutDroppingThem() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/health.sqlite"
        // The layout of stores created before the id indexes.
        let old = try SQLiteDatabase(path: path)
        for table in [SQLiteSinkSchema.samples, SQLiteSinkSchema.sleepStages] {
            try old.execute(table.createSQL.replacingOccurrences(of: "id TEXT NOT NULL", with: "id TEXT PRIMARY KEY"))
        }
        let sink = SQLiteSink(configuration: .init(path: path), context: SinkFixtures.context(directory.path))
        _ = try sink.prepare()
        // Their primary keys stand for the id indexes; the time indexes stay through the load.
        let timeIndexes = ["samples_start", "samples_type_start", "sleep_stages_start"]
        #expect(try presentLoadIndexes(path) == timeIndexes)
        try sink.write(firstOfIdEntries(1500), cursor: 1500)
        #expect(try presentLoadIndexes(path) == timeIndexes)
        try sink.write(firstOfIdEntries(1500), cursor: 1500)
        sink.close()
        #expect(try presentLoadIndexes(path) == timeIndexes)
        #expect(try scalar(path, "SELECT count(*) FROM pragma_index_list('samples') WHERE origin = 'pk'") == "1")
        #expect(try scalar(path, "SELECT count(*) FROM samples") == "1350")
    }

    // MARK: - Time text

    @Test func timeTextIsFixedWidthUTC() {
        #expect(UTCTimeText.string(0) == "1970-01-01T00:00:00.000Z")
        #expect(UTCTimeText.string(1_704_485_223_250) == "2024-01-05T20:07:03.250Z")
        #expect(UTCTimeText.string(-1) == "1969-12-31T23:59:59.999Z")
        #expect(UTCTimeText.string(951_782_400_000) == "2000-02-29T00:00:00.000Z")
        #expect(UTCTimeText.string(-62_167_219_200_000) == "0000-01-01T00:00:00.000Z")
        #expect(UTCTimeText.string(253_402_300_799_999) == "9999-12-31T23:59:59.999Z")
        #expect(UTCTimeText.string(253_402_300_800_000) == nil)
        #expect(UTCTimeText.string(-62_167_219_200_001) == nil)
    }

    @Test func timeTextAgreesWithTheDateParserAcrossCenturies() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let year = Int.random(in: 1..<9999, using: &generator)
            let month = Int.random(in: 1...12, using: &generator)
            let day = Int.random(in: 1...28, using: &generator)
            let days = HealthDateParser.daysFromCivil(year: year, month: month, day: day)
            let millisecond = Int64.random(in: 0..<86_400_000, using: &generator)
            let text = UTCTimeText.string(Int64(days) * 86_400_000 + millisecond)
            let expected = String(year).leftPadded(4) + "-" + String(month).leftPadded(2) + "-" + String(day).leftPadded(2)
            #expect(text?.hasPrefix(expected + "T") == true, "\(year)-\(month)-\(day): \(text ?? "nil")")
        }
    }
}

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
