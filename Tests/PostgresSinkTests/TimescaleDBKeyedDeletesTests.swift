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
}
