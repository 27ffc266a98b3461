import Foundation
import TestSupport
import Testing
import HealthRouterCore
import PostgresClient
import TimescaleDBSink

/// A first load into an empty timescaledb store puts `sample_index`'s key off until it has caught
/// up (`TimescaleDBBulkLoad`), and batches that may meet stored rows leave unchanged ones out
/// before their upsert: the tables end exactly as without either.
@Suite struct TimescaleDBBulkLoadTests {
    /// Heart-rate samples `range` as entries the journal marks the first of their id, entry n at sequence n.
    func firstOfId(_ range: ClosedRange<Int>) -> [JournalEntry] {
        range.map { n in
            JournalEntry(sequence: Int64(n), source: "history", item: .sample(ConformanceFixtures.numbered(n)), isFirstOfId: true)
        }
    }

    func hasKey(_ connection: PostgresConnection, _ schema: String) throws -> Bool {
        try connection.query("SELECT EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'p')",
                             [SQL.qualified(schema, "sample_index")]).text(0, 0) == "t"
    }

    /// The columns of `samples` the planner has statistics of (`ANALYZE` gathers them).
    func statisticsRows(_ connection: PostgresConnection, _ schema: String) throws -> Int64 {
        try connection.query("SELECT count(*) FROM pg_stats WHERE schemaname = $1 AND tablename = 'samples'", [schema])
            .int(0, 0) ?? -1
    }

    /// Each stored sample as `id=value@table:start`, joined with its index row (`unmatched` for a
    /// row without its partner), sorted.
    func rows(_ connection: PostgresConnection, _ schema: String) throws -> [String] {
        let result = try connection.execute(
            "SELECT s.id || '=' || s.value || '@' || i.table_name || ':' || (extract(epoch FROM i.start_at) * 1000)::bigint "
                + "FROM \(SQL.qualified(schema, "samples")) s FULL JOIN \(SQL.qualified(schema, "sample_index")) i "
                + "ON i.id = s.id AND i.start_at = s.start_at ORDER BY 1")
        return (0..<result.rowCount).map { result.text($0, 0) ?? "unmatched" }
    }

    func expected(_ numbers: [Int], changing: [Int: Sample] = [:]) -> [String] {
        numbers.map { n in
            let sample = changing[n] ?? ConformanceFixtures.numbered(n)
            return "\(sample.id)=\(Int(sample.value!))@samples:\(sample.start.epochMilliseconds)"
        }.sorted()
    }

    @Test func aFirstLoadBuildsTheKeyWhenCaughtUpAndTheTablesEndAsWithoutIt() throws {
        try TimescaleDBSinkTests().withSink { sink, schema, connection in
            try sink.write(firstOfId(1...1200), cursor: 1200)
            #expect(try !hasKey(connection, schema), "an empty store and 1,200 new ids: the key waits")
            #expect(try rows(connection, schema) == expected(Array(1...1200)))
            // A short batch of new ids carries on the load.
            try sink.write(firstOfId(1201...1300), cursor: 1300)
            #expect(try !hasKey(connection, schema))
            #expect(try statisticsRows(connection, schema) == 0)
            try sink.caughtUp()
            #expect(try hasKey(connection, schema))
            #expect(try rows(connection, schema) == expected(Array(1...1300)))
            // The planner's statistics of the loaded table are there at once (not a minute later).
            #expect(try statisticsRows(connection, schema) > 0)

            // After the load the key does its work: a sample that moves leaves no row behind.
            var moved = ConformanceFixtures.numbered(7)
            moved.start = ConformanceFixtures.at(99_999)
            moved.end = moved.start
            try sink.write(ConformanceFixtures.entries([moved], from: 1301), cursor: 1301)
            #expect(try rows(connection, schema) == expected(Array(1...1300), changing: [7: moved]))
        }
    }

    @Test func aSmallFirstBatchOrAStoreThatHoldsRowsKeepsTheKey() throws {
        try TimescaleDBSinkTests().withSink { sink, schema, connection in
            try sink.write(firstOfId(1...10), cursor: 10)
            #expect(try hasKey(connection, schema), "ten samples are not worth a rebuild")
            try sink.write(firstOfId(11...1500), cursor: 1500)
            #expect(try hasKey(connection, schema), "sample_index is not empty: no bulk load")
            #expect(try rows(connection, schema) == expected(Array(1...1500)))
        }
    }

    @Test func aBatchThatIsNotAllNewBuildsTheKeyFirst() throws {
        try TimescaleDBSinkTests().withSink { sink, schema, connection in
            try sink.write(firstOfId(1...1200), cursor: 1200)
            #expect(try !hasKey(connection, schema))
            let gone = ConformanceFixtures.numbered(5).id
            try sink.write([ConformanceFixtures.tombstone([gone], sequence: 1201)], cursor: 1201)
            #expect(try hasKey(connection, schema))
            #expect(try rows(connection, schema) == expected(Array(1...1200).filter { $0 != 5 }))
            let recorded = try connection.query("SELECT count(*) FROM \(SQL.qualified(schema, "deleted_samples")) WHERE id = $1",
                                                [gone])
            #expect(recorded.int(0, 0) == 1)
        }
    }

    /// The key is built in a transaction of its own: a batch the server refuses, which the worker
    /// then splits and tries piece by piece, finds it built instead of building it with each piece.
    @Test func aRefusedBatchAfterALoadKeepsTheKeyItBuilt() throws {
        try TimescaleDBSinkTests().withSink { sink, schema, connection in
            try sink.write(firstOfId(1...1000), cursor: 1000)
            #expect(try !hasKey(connection, schema))
            var far = ConformanceFixtures.numbered(2000)
            far.start = Timestamp(epochMilliseconds: Int64.max / 2)
            far.end = far.start
            let error = #expect(throws: SinkError.self) { try sink.write(ConformanceFixtures.entries([far], from: 1001), cursor: 1001) }
            guard case .rejected = error else {
                Issue.record("a value out of range is the data's fault: \(String(describing: error))")
                return
            }
            #expect(try hasKey(connection, schema))
            #expect(try rows(connection, schema) == expected(Array(1...1000)))
        }
    }

    /// A load whose process died carries on in the next: the state is the catalog's. The first
    /// instance, which still believes it loads, finds the key built when it closes.
    @Test func aLoadCarriesOnInTheNextProcessAndEitherMayFinishIt() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let (first, schema) = try PostgresTestDatabase.preparedTimescaleDBSink(url)
        let connection = try PostgresTestDatabase.connect(url)
        defer { connection.close() }
        try first.write(firstOfId(1...1000), cursor: 1000)
        #expect(try !hasKey(connection, schema))

        let second = TimescaleDBSink(configuration: .init(url: url, schema: schema, requireTimescaledb: false),
                                     context: ConformanceFixtures.context())
        #expect(try second.prepare() == 1000)
        try second.write(firstOfId(1001...1100), cursor: 1100)
        #expect(try !hasKey(connection, schema))
        try second.caughtUp()
        #expect(try hasKey(connection, schema))
        second.close()
        try first.caughtUp()
        first.close()
        #expect(try rows(connection, schema) == expected(Array(1...1100)))
    }

    @Test func idsWithTwoIndexRowsStopTheBuildWithWhatToDo() throws {
        try TimescaleDBSinkTests().withSink { sink, schema, connection in
            try sink.write(firstOfId(1...1000), cursor: 1000)
            let index = SQL.qualified(schema, "sample_index")
            // Another writer of the schema, unaware of the load, moved sample 3.
            try connection.execute("INSERT INTO \(index) (id, table_name, start_at) "
                                       + "SELECT id, 'sleep_stages', start_at FROM \(index) WHERE id = \(SQL.literal(ConformanceFixtures.numbered(3).id))")
            let error = #expect(throws: SinkError.self) { try sink.caughtUp() }
            let text = error.map { "\($0)" } ?? ""
            #expect(text.contains("1 ids have more than one row"), "\(text)")
            #expect(text.contains("keep the index row whose table holds the sample with the highest journal_seq"), "\(text)")
            #expect(try !hasKey(connection, schema))
            try connection.execute("DELETE FROM \(index) WHERE table_name = 'sleep_stages'")
            try sink.caughtUp()
            #expect(try hasKey(connection, schema))
            #expect(try rows(connection, schema) == expected(Array(1...1000)))
        }
    }

    /// A session holding a lock on `sample_index` (a reader's open transaction) makes the key's
    /// build wait no longer than `statement_timeout` for its lock: it fails as unavailable (the
    /// worker tries again), naming that session, instead of waiting for ever; once the session
    /// ends, the build succeeds on the new instance the worker tries again with.
    @Test func aReaderHoldingALockMakesTheKeyBuildWaitNoLongerThanTheStatementTimeout() throws {
        guard let url = PostgresTestDatabase.url else { return }
        var configuration = TimescaleDBSink.Configuration(url: url, schema: PostgresTestDatabase.freshSchema(),
                                                          requireTimescaledb: false)
        configuration.statementTimeout = .seconds(1)
        let schema = configuration.schema
        let sink = TimescaleDBSink(configuration: configuration, context: ConformanceFixtures.context())
        _ = try sink.prepare()
        try sink.write(firstOfId(1...1000), cursor: 1000)
        let connection = try PostgresTestDatabase.connect(url)
        defer { connection.close() }
        #expect(try !hasKey(connection, schema))
        let reader = try PostgresTestDatabase.connect(url)
        defer { reader.close() }
        try reader.execute("BEGIN; SELECT count(*) FROM \(SQL.qualified(schema, "sample_index"))")
        let readerPid = try reader.execute("SELECT pg_backend_pid()").int(0, 0) ?? 0
        // Without the bound the build would wait for the reader: its session is ended after 8 s.
        let released = DispatchSemaphore(value: 0)
        let ending = Thread {
            guard released.wait(timeout: .now() + 8) == .timedOut, let admin = try? PostgresTestDatabase.connect(url) else { return }
            _ = try? admin.query("SELECT pg_terminate_backend($1)", [String(readerPid)])
            admin.close()
        }
        ending.start()
        let started = Date()
        let error = #expect(throws: SinkError.self) { try sink.caughtUp() }
        let waited = Date().timeIntervalSince(started)
        released.signal()
        #expect(waited < 6, "\(waited) s")
        guard case .unavailable(let reason) = error else {
            Issue.record("not unavailable: \(String(describing: error))")
            sink.close()
            return
        }
        #expect(reason.contains("cannot build the primary key of \(SQL.qualified(schema, "sample_index")) that the first "
                                    + "load put off: it waited 1 s (statement_timeout) for its lock"), "\(reason)")
        #expect(reason.contains("session pid \(readerPid) (role postgres, idle in transaction for "), "\(reason)")
        #expect(reason.contains("SELECT pg_backend_pid()) holds ACCESS SHARE on it"), "\(reason)")
        #expect(try !hasKey(connection, schema))
        // The reader done, the worker's next try, on a new instance, builds the key.
        try reader.execute("COMMIT")
        sink.close()
        let again = TimescaleDBSink(configuration: configuration, context: ConformanceFixtures.context())
        defer { again.close() }
        #expect(try again.prepare() == 1000)
        try again.caughtUp()
        #expect(try hasKey(connection, schema))
        #expect(try rows(connection, schema) == expected(Array(1...1000)))
    }

    /// A backfill re-sends entries the sink's cursor has passed: the unchanged ones are left out
    /// before the upsert (nothing written, `written_at` kept), a changed one is updated and a
    /// moved one moves, as through the plain upsert.
    @Test func aBackfillWritesOnlyWhatChanged() throws {
        try TimescaleDBSinkTests().withSink { sink, schema, connection in
            let samples = (1...4).map(ConformanceFixtures.numbered)
            try sink.write(ConformanceFixtures.entries(samples), cursor: 4)
            func writtenAt() throws -> [String: String] {
                let result = try connection.execute("SELECT id, written_at::text FROM \(SQL.qualified(schema, "samples"))")
                return Dictionary(uniqueKeysWithValues: (0..<result.rowCount).map { (result.text($0, 0)!, result.text($0, 1)!) })
            }
            let before = try writtenAt()
            var changed = samples[1]
            changed.value = 150
            var moved = samples[2]
            moved.start = ConformanceFixtures.at(50_000)
            moved.end = moved.start
            try sink.write(ConformanceFixtures.entries([samples[0], changed, moved, samples[3]]), cursor: 4)
            #expect(try rows(connection, schema) == expected([1, 2, 3, 4], changing: [2: changed, 3: moved]))
            let after = try writtenAt()
            #expect(after[samples[0].id] == before[samples[0].id])
            #expect(after[samples[3].id] == before[samples[3].id])
            #expect(after[changed.id] != before[changed.id])
            // Left out before the upsert, the unchanged rows were not even locked by it (ON CONFLICT
            // … WHERE would have set their xmax).
            let locked = try lockedRows(connection, schema, ["samples"])
            #expect(locked == [changed.id], "\(locked)")
        }
    }

    /// Ids of the rows of `tables` a transaction has locked or updated since they were written
    /// (a non-zero xmax), sorted.
    func lockedRows(_ connection: PostgresConnection, _ schema: String, _ tables: [String]) throws -> [String] {
        let result = try connection.execute(tables.map { "SELECT id FROM \(SQL.qualified(schema, $0)) WHERE xmax::text <> '0'" }
            .joined(separator: " UNION ALL ") + " ORDER BY 1")
        return (0..<result.rowCount).compactMap { result.text($0, 0) }
    }

    /// A migration into the sink (entries from outside the journal) over rows it holds unchanged,
    /// a workout with its parts and a sleep stage among them, leaves every table as it was.
    @Test func aMigrationOverUnchangedRowsLeavesEveryTableAsItWas() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let schema = PostgresTestDatabase.freshSchema()
        let sink = TimescaleDBSink(configuration: .init(url: url, schema: schema, requireTimescaledb: false),
                                   context: ConformanceFixtures.context())
        _ = try sink.prepare()
        defer { sink.close() }
        let connection = try PostgresTestDatabase.connect(url)
        defer { connection.close() }
        try sink.write(ConformanceFixtures.entries(ConformanceFixtures.all), cursor: 7)
        let before = try PostgresTestDatabase.snapshot(url, schema: schema, tables: TimescaleDBSinkTests.tables, dropping: [])
        let migrated = ConformanceFixtures.all.enumerated().map {
            JournalEntry(sequence: Int64($0.offset + 1), source: "migrate", item: .sample($0.element), isFromJournal: false)
        }
        try sink.write(migrated, cursor: 7)
        #expect(try PostgresTestDatabase.snapshot(url, schema: schema, tables: TimescaleDBSinkTests.tables, dropping: []) == before)
        #expect(try lockedRows(connection, schema, ["samples", "sleep_stages", "workouts"]).isEmpty)
    }

    /// A store whose id columns keep the database's collation (created before they were C) takes
    /// the plain upsert for a backfill: an anti-join between the two collations could not use the
    /// key's index.
    @Test func aStoreInAnotherCollationBackfillsThroughThePlainUpsert() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let (first, schema) = try PostgresTestDatabase.preparedTimescaleDBSink(url)
        first.close()
        let connection = try PostgresTestDatabase.connect(url)
        defer { connection.close() }
        for table in ["samples", "sleep_stages", "workouts"] {
            try connection.execute("ALTER TABLE \(SQL.qualified(schema, table)) ALTER COLUMN id TYPE text COLLATE \"default\"")
        }
        let sink = TimescaleDBSink(configuration: .init(url: url, schema: schema, requireTimescaledb: false),
                                   context: ConformanceFixtures.context())
        _ = try sink.prepare()
        defer { sink.close() }
        let samples = (1...3).map(ConformanceFixtures.numbered)
        try sink.write(ConformanceFixtures.entries(samples), cursor: 3)
        try sink.write(ConformanceFixtures.entries(samples), cursor: 3)
        #expect(try rows(connection, schema) == expected([1, 2, 3]))
        #expect(try lockedRows(connection, schema, ["samples"]) == samples.map(\.id).sorted(), "ON CONFLICT locked them")
    }

    /// Batches with nothing for the sink (routed elsewhere, or parked) neither end a load nor
    /// forget it.
    @Test func anEmptyBatchDuringALoadKeepsItGoing() throws {
        try TimescaleDBSinkTests().withSink { sink, schema, connection in
            try sink.write(firstOfId(1...1000), cursor: 1000)
            try sink.write([], cursor: 1500)
            #expect(try !hasKey(connection, schema))
            try sink.write(firstOfId(1501...1600), cursor: 1600)
            #expect(try !hasKey(connection, schema))
            try sink.write([], cursor: 1700)
            try sink.caughtUp()
            #expect(try hasKey(connection, schema))
            #expect(try rows(connection, schema) == expected(Array(1...1000) + Array(1501...1600)))
        }
    }

    /// Another sink of the schema that looked before the load began still finds the key missing
    /// when its own batch needs it: it builds it first, so a sample it moves leaves no row behind.
    @Test func anotherWriterOfTheSchemaBuildsTheKeyBeforeItMovesAnId() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let (loader, schema) = try PostgresTestDatabase.preparedTimescaleDBSink(url)
        defer { loader.close() }
        let phone = TimescaleDBSink(configuration: .init(url: url, schema: schema, requireTimescaledb: false),
                                    context: PluginContext(name: "phone", stateDirectory: TestScratch.path,
                                                           logger: Logger(minimumLevel: .error)))
        _ = try phone.prepare()
        defer { phone.close() }
        let connection = try PostgresTestDatabase.connect(url)
        defer { connection.close() }
        try phone.write([], cursor: 0)
        try loader.write(firstOfId(1...1000), cursor: 1000)
        #expect(try !hasKey(connection, schema))
        var moved = ConformanceFixtures.numbered(9)
        moved.start = ConformanceFixtures.at(77_777)
        moved.end = moved.start
        try phone.write([JournalEntry(sequence: 1, source: "phone", item: .sample(moved))], cursor: 1)
        #expect(try hasKey(connection, schema))
        try loader.caughtUp()
        #expect(try rows(connection, schema) == expected(Array(1...1000), changing: [9: moved]))
    }
}
