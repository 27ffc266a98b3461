import Foundation
import Testing
import HealthRouterCore
import PostgresClient
import PostgresSink
import TimescaleDBSink

/// Batches larger than one COPY chunk are streamed to the server while they are encoded: the
/// upsert still sees the whole batch (the latest entry of a key wins across chunks), a row the
/// server refuses fails the whole batch and leaves the connection usable, and a tombstone in the
/// middle ends the stream first.
@Suite struct PostgresStreamingTests {
    /// 1,000 heart rates (about 350 kB of COPY text: three chunks), sample 7 again at the end with
    /// another value.
    static func largeBatch(from first: Int64 = 1) -> (entries: [JournalEntry], last: Sample) {
        var samples = (0..<1_000).map(ConformanceFixtures.numbered)
        var again = samples[7]
        again.value = 199
        samples.append(again)
        return (ConformanceFixtures.entries(samples, from: first), again)
    }

    static func isRejection(_ error: any Error) -> Bool {
        if case SinkError.rejected = error { true } else { false }
    }

    func check(_ sink: any Sink, count: String, valueOf: String, on connection: PostgresConnection) throws {
        _ = try sink.prepare()
        let batch = Self.largeBatch()
        try sink.write(batch.entries, cursor: 1_001)
        #expect(try connection.execute(count).int(0, 0) == 1_000)
        #expect(try connection.query(valueOf, [batch.last.id.lowercased(), batch.last.id]).double(0, 0) == 199)

        // A refused row in the last chunk: nothing of the batch is written, and the next batch works.
        var refused = Self.largeBatch(from: 2_000).entries
        var bad = ConformanceFixtures.numbered(5_000)
        bad.sourceName = "nul\u{0}byte"
        bad.device = "nul\u{0}byte"
        refused.append(JournalEntry(sequence: 9_000, source: "history", item: .sample(bad)))
        #expect { try sink.write(refused, cursor: 9_000) } throws: { Self.isRejection($0) }
        #expect(try connection.execute(count).int(0, 0) == 1_000)
        // … and in the first chunk: the server fails the COPY while later chunks are still being sent.
        refused.insert(refused.removeLast(), at: 0)
        #expect { try sink.write(refused, cursor: 9_000) } throws: { Self.isRejection($0) }
        #expect(try connection.execute(count).int(0, 0) == 1_000)

        // A tombstone between two large parts.
        var mixed = (1_000..<1_600).map(ConformanceFixtures.numbered)
        let gone = mixed[10].id
        var entries = ConformanceFixtures.entries(mixed, from: 10_000)
        entries.insert(ConformanceFixtures.tombstone([gone], sequence: 10_500), at: 300)
        mixed = (1_600..<1_650).map(ConformanceFixtures.numbered)
        entries += ConformanceFixtures.entries(mixed, from: 20_000)
        try sink.write(entries, cursor: 20_050)
        #expect(try connection.execute(count).int(0, 0) == 1_000 + 600 - 1 + 50)
        sink.close()
    }

    @Test func postgresSinkStreamsLargeBatches() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let schema = PostgresTestDatabase.freshSchema()
        let sink = PostgresSink(configuration: .init(url: url, userId: PostgresSinkTests.userId, schema: schema),
                                context: ConformanceFixtures.context())
        let connection = try PostgresTestDatabase.connect(url)
        defer { connection.close() }
        let table = SQL.qualified(schema, "healthkit_metrics")
        try check(sink, count: "SELECT count(*) FROM \(table)",
                  valueOf: "SELECT value FROM \(table) WHERE id = $1::uuid AND metadata ->> 'healthrouter_id' = $2", on: connection)
    }

    @Test func timescaleDBSinkStreamsLargeBatches() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let schema = PostgresTestDatabase.freshSchema()
        let sink = TimescaleDBSink(configuration: .init(url: url, schema: schema, requireTimescaledb: false),
                                   context: ConformanceFixtures.context())
        let connection = try PostgresTestDatabase.connect(url)
        defer { connection.close() }
        let table = SQL.qualified(schema, "samples")
        try check(sink, count: "SELECT count(*) FROM \(table)",
                  valueOf: "SELECT value FROM \(table) WHERE lower(id) = $1 AND id = $2", on: connection)
        let index = try connection.execute("SELECT count(*) FROM \(SQL.qualified(schema, "sample_index"))")
        #expect(index.int(0, 0) == 1_649)
    }
}
