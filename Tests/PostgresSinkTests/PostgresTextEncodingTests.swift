import Foundation
import Testing
import HealthRouterCore
import PostgresClient
import PostgresSink
import TimescaleDBSink

/// Text reaches PostgreSQL as UTF-8 whatever the environment or URL asks for, and a database that
/// cannot hold it is refused by name before anything is written.
@Suite("postgres text encoding")
struct PostgresTextEncodingTests {
    static let name = "Jürgen’s Watch 🏃‍♀️"
    static var sample: Sample {
        var sample = ConformanceFixtures.heartRate
        sample.sourceName = name
        sample.device = name
        return sample
    }

    /// `client_encoding=LATIN1` (as `PGCLIENTENCODING` gives it) had the server take the UTF-8
    /// bytes for LATIN1: `’` was stored as three characters.
    @Test func aLatin1ClientEncodingStoresTheSameText() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let latin1 = url + " client_encoding=LATIN1"
        let schema = PostgresTestDatabase.freshSchema()
        let postgres = PostgresSink(configuration: .init(url: latin1, userId: "alice", schema: schema),
                                    context: ConformanceFixtures.context())
        _ = try postgres.prepare()
        try postgres.write(ConformanceFixtures.entries([Self.sample]), cursor: 1)
        postgres.close()
        let timescaleSchema = PostgresTestDatabase.freshSchema()
        let timescale = TimescaleDBSink(configuration: .init(url: latin1, schema: timescaleSchema, requireTimescaledb: false),
                                        context: ConformanceFixtures.context())
        _ = try timescale.prepare()
        try timescale.write(ConformanceFixtures.entries([Self.sample]), cursor: 1)
        timescale.close()

        let reader = try PostgresTestDatabase.connect(url)
        defer { reader.close() }
        #expect(try reader.query("SELECT source_device FROM \(SQL.qualified(schema, "healthkit_metrics"))").text(0, 0) == Self.name)
        #expect(try reader.query("SELECT source_name FROM \(SQL.qualified(timescaleSchema, "samples"))").text(0, 0) == Self.name)
    }

    /// A LATIN1 database would fail every batch holding a character it lacks (or, under a LATIN1
    /// client, store it garbled): both sinks refuse it at `prepare()`, naming the fix.
    @Test func aDatabaseThatCannotHoldUTF8IsRefused() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let database = PostgresTestDatabase.freshSchema()
        let admin = try PostgresTestDatabase.connect(url)
        defer { admin.close() }
        try admin.execute("CREATE DATABASE \(SQL.identifier(database)) ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0")
        defer { _ = try? admin.execute("DROP DATABASE \(SQL.identifier(database)) WITH (FORCE)") }
        let dbURL = url + " dbname=" + database
        let sinks: [any Sink] = [
            PostgresSink(configuration: .init(url: dbURL, userId: "alice"), context: ConformanceFixtures.context()),
            TimescaleDBSink(configuration: .init(url: dbURL, requireTimescaledb: false), context: ConformanceFixtures.context()),
        ]
        for sink in sinks {
            #expect {
                _ = try sink.prepareOrClose()
            } throws: { error in
                guard case SinkError.misconfigured(let message) = error else { return false }
                return message.contains("stores text as LATIN1") && message.contains("createdb -E UTF8")
            }
        }
        // Nothing was created.
        let check = try PostgresConnection(url: dbURL)
        defer { check.close() }
        #expect(try check.query("SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')").int(0, 0) == 0)
        // Reading one (`migrate --from`, `dump --from`) works: its text comes as UTF-8.
        let postgres = PostgresSink(configuration: .init(url: dbURL, userId: "alice"), context: ConformanceFixtures.context())
        try postgres.prepareForReading()
        var read = 0
        try postgres.readBack(batchSize: 100) { _ in read += 1 }
        postgres.close()
        let timescale = TimescaleDBSink(configuration: .init(url: dbURL, requireTimescaledb: false), context: ConformanceFixtures.context())
        try timescale.prepareForReading()
        try timescale.readBack(batchSize: 100) { _ in read += 1 }
        timescale.close()
        #expect(read == 0)
    }
}
