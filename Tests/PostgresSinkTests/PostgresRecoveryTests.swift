import Foundation
import Synchronization
import Testing
import HealthRouterCore
import PostgresClient
import TimescaleDBSink

/// The sink's connection dies in the middle of an import (the server closes it, as on a restart):
/// the worker reconnects and the import completes with the content of an undisturbed one.
@Suite struct PostgresRecoveryTests {
    func importAll(url: String, schema: String, directory: String) -> SinkWorker.Progress {
        let configuration = TimescaleDBSink.Configuration(url: url, schema: schema, requireTimescaledb: false)
        let conformance = SinkConformance(
            make: { TimescaleDBSink(configuration: configuration, context: ConformanceFixtures.context()) },
            snapshot: { [] }, storedIds: nil, refused: nil)
        return conformance.runWorker(directory: directory, maxAttempts: 100)
    }

    @Test func connectionsKilledMidImportCompleteWithIdenticalContent() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let directory = ConformanceFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let samples = (0..<1000).map(ConformanceFixtures.numbered) + ConformanceFixtures.all
        _ = try Journal(stateDirectory: directory).append(samples.map { .sample($0) }, source: "history")

        let calm = PostgresTestDatabase.freshSchema()
        #expect(importAll(url: url, schema: calm, directory: directory).written == samples.count)

        // A second journal state directory, same entries, for the disturbed run.
        let disturbedDirectory = ConformanceFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: disturbedDirectory) }
        _ = try Journal(stateDirectory: disturbedDirectory).append(samples.map { .sample($0) }, source: "history")
        let application = "hr_kill_" + PostgresTestDatabase.freshSchema()
        let disturbed = PostgresTestDatabase.freshSchema()
        let killed = Mutex(0)
        let done = DispatchSemaphore(value: 0)
        let killer = Thread {
            defer { done.signal() }
            guard let admin = try? PostgresConnection(url: url) else { return }
            for _ in 0..<40 {
                Thread.sleep(forTimeInterval: 0.01)
                let result = try? admin.query("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                                                  + "WHERE application_name = $1", [application])
                let count = Int(result?.int(0, 0) ?? 0)
                killed.withLock { $0 += count }
                if killed.withLock({ $0 }) >= 2 { break }
            }
            admin.close()
        }
        killer.start()
        let progress = importAll(url: url + " application_name=" + application, schema: disturbed,
                                 directory: disturbedDirectory)
        done.wait()
        #expect(killed.withLock { $0 } > 0)
        #expect(progress.gaveUp == nil)
        #expect(progress.cursor == Int64(samples.count))
        let tables = ["samples", "sleep_stages", "workouts", "sample_index", "workout_events", "workout_route_points"]
        let expected = try PostgresTestDatabase.snapshot(url, schema: calm, tables: tables, dropping: ["written_at", "journal_seq"])
        #expect(try PostgresTestDatabase.snapshot(url, schema: disturbed, tables: tables,
                                                  dropping: ["written_at", "journal_seq"]) == expected)
        #expect(expected.count == samples.count * 2 + 2)
    }

    @Test func aSampleRedeliveredWithAnotherStartMoves() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let (sink, schema) = try PostgresTestDatabase.preparedTimescaleDBSink(url)
        defer { sink.close() }
        var sample = ConformanceFixtures.numbered(1)
        try sink.write(ConformanceFixtures.entries([sample]), cursor: 1)
        sample.start = Timestamp(epochMilliseconds: sample.start.epochMilliseconds - 60_000)
        try sink.write(ConformanceFixtures.entries([sample], from: 2), cursor: 2)
        sample.kind = .category
        sample.type = "HKCategoryTypeIdentifierSleepAnalysis"
        sample.categoryValue = "HKCategoryValueSleepAnalysisAwake"
        try sink.write(ConformanceFixtures.entries([sample], from: 3), cursor: 3)
        let connection = try PostgresTestDatabase.connect(url)
        defer { connection.close() }
        #expect(try connection.execute("SELECT count(*) FROM \(SQL.qualified(schema, "samples"))").int(0, 0) == 0)
        let stage = try connection.execute("SELECT stage, (extract(epoch FROM start_at) * 1000)::bigint FROM "
                                               + SQL.qualified(schema, "sleep_stages"))
        #expect(stage.rowCount == 1)
        #expect(stage.text(0, 0) == "awake")
        #expect(stage.int(0, 1) == sample.start.epochMilliseconds)
        let index = try connection.execute("SELECT table_name FROM \(SQL.qualified(schema, "sample_index"))")
        #expect(index.rowCount == 1)
        #expect(index.text(0, 0) == "sleep_stages")
    }
}
