import Foundation
import Testing
import HealthRouterCore
import PostgresClient
@testable import TimescaleDBSink

/// Tombstones and moved ids delete rows by their full key written as constants, the one form
/// TimescaleDB narrows compressed batches by (a key from a join or an array decompresses every
/// batch of every chunk).
@Suite struct TimescaleDBKeyedDeletesTests {
    @Test func eachRowIsDeletedByItsKeyAsConstants() {
        let deletes = TimescaleDBKeyedDeletes(schema: TimescaleDBSchema(schema: "my \"health\""))
        let sql = deletes.sql([
            .init(id: "A-1", table: "samples", startAt: "2024-01-05 21:07:03.123+00"),
            .init(id: "it's", table: "workouts", startAt: "2024-01-06 00:00:00+00"),
            .init(id: "B-2", table: "a_table_of_a_newer_version", startAt: "2024-01-06 00:00:00+00"),
        ])
        #expect(sql == #"""
            DELETE FROM "my ""health"""."samples" WHERE id = 'A-1' AND start_at = '2024-01-05 21:07:03.123+00'::timestamptz;
            DELETE FROM "my ""health"""."workouts" WHERE id = 'it''s' AND start_at = '2024-01-06 00:00:00+00'::timestamptz
            """#)
        #expect(deletes.sql([]) == nil)
        #expect(deletes.sql([.init(id: "B-2", table: "elsewhere", startAt: "2024-01-06 00:00:00+00")]) == nil)
    }

    /// The start comes back from the server as text and goes back as a constant: the round trip
    /// keeps the milliseconds, so the row is found, in a batch with an id that needs quoting.
    @Test func aTombstoneFindsRowsByTheirStartToTheMillisecond() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let (sink, schema) = try PostgresTestDatabase.preparedTimescaleDBSink(url)
        defer { sink.close() }
        let connection = try PostgresTestDatabase.connect(url)
        defer { connection.close() }
        var precise = ConformanceFixtures.numbered(1)
        precise.start = Timestamp(epochMilliseconds: precise.start.epochMilliseconds + 123)
        precise.end = precise.start
        var quoted = ConformanceFixtures.numbered(2)
        quoted.id = "it's; DROP TABLE x; --"
        let kept = ConformanceFixtures.numbered(3)
        try sink.write(ConformanceFixtures.entries([precise, quoted, kept]), cursor: 3)
        func ids() throws -> [String] {
            let result = try connection.execute("SELECT id FROM \(SQL.qualified(schema, "samples")) ORDER BY id")
            return (0..<result.rowCount).compactMap { result.text($0, 0) }
        }
        #expect(try ids() == [precise.id, kept.id, quoted.id].sorted())
        try sink.write([ConformanceFixtures.tombstone([precise.id, quoted.id], sequence: 4)], cursor: 4)
        #expect(try ids() == [kept.id])
        let index = try connection.execute("SELECT count(*) FROM \(SQL.qualified(schema, "sample_index"))")
        #expect(index.int(0, 0) == 1)
    }

    /// A database (or role) may turn standard_conforming_strings off, where a backslash escapes in
    /// a literal: the sink's sessions turn it on, so an id with `\'` is data, not the end of a
    /// string, and its tombstone deletes it.
    @Test func anIdWithABackslashIsDataWhateverTheDatabaseSays() throws {
        guard let adminURL = PostgresTestDatabase.url, let port = PostgresTestDatabase.port else { return }
        let admin = try PostgresConnection(url: adminURL)
        defer { admin.close() }
        let database = "hr_scs_" + PostgresTestDatabase.freshSchema()
        try admin.execute("CREATE DATABASE \(SQL.identifier(database))")
        defer { _ = try? admin.execute("DROP DATABASE \(SQL.identifier(database)) WITH (FORCE)") }
        try admin.execute("ALTER DATABASE \(SQL.identifier(database)) SET standard_conforming_strings = off")
        let url = "host=127.0.0.1 port=\(port) user=postgres sslmode=disable dbname=\(database)"
        let sink = TimescaleDBSink(configuration: .init(url: url, schema: "health", requireTimescaledb: false),
                                   context: ConformanceFixtures.context())
        _ = try sink.prepare()
        defer { sink.close() }
        var sample = ConformanceFixtures.numbered(1)
        sample.id = #"x\'; CREATE TABLE pwned (); --"#
        let trailing = { var s = ConformanceFixtures.numbered(2); s.id = #"ends-with\"#; return s }()
        try sink.write(ConformanceFixtures.entries([sample, trailing]), cursor: 2)
        try sink.write([ConformanceFixtures.tombstone([sample.id, trailing.id], sequence: 3)], cursor: 3)
        let connection = try PostgresConnection(url: url)
        defer { connection.close() }
        #expect(try connection.execute("SELECT count(*) FROM health.samples").int(0, 0) == 0)
        #expect(try connection.execute("SELECT to_regclass('public.pwned') IS NULL").bool(0, 0) == true)
    }
}
