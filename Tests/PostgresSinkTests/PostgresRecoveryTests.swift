import Foundation
import Synchronization
import Testing
import HealthRouterCore
import PostgresClient
import PostgresSink
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

    /// A backfill or migration (`DirectDelivery`) whose connection dies between batches reconnects
    /// and completes: the retry prepares the sink again instead of writing on the dead connection.
    @Test func aDirectDeliveryReconnectsAfterItsConnectionDies() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let application = "hr_direct_" + PostgresTestDatabase.freshSchema()
        let schema = PostgresTestDatabase.freshSchema()
        let sink = TimescaleDBSink(configuration: .init(url: url + " application_name=" + application, schema: schema,
                                                        requireTimescaledb: false),
                                   context: ConformanceFixtures.context())
        let cursor = try sink.prepare() ?? 0
        defer { sink.close() }
        let admin = try PostgresConnection(url: url)
        defer { admin.close() }
        var killed: Int64 = 0
        let delivery = DirectDelivery(sink: sink, sinkCursor: cursor, filter: SampleFilter(), resumeAfter: 0, batchSize: 100,
                                      maxAttempts: 3) { position, _ in
            // After the first two batches the server ends the sink's session.
            guard position <= 200 else { return }
            killed += try admin.query("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1",
                                      [application]).int(0, 0) ?? 0
        }
        var retries: [String] = []
        delivery.onRetry = { error, attempt, maxAttempts, delay in
            retries.append("\(attempt) of \(maxAttempts) after \(delay > 0 ? "a pause" : "none"): \(error)")
        }
        let samples = (0..<500).map(ConformanceFixtures.numbered)
        for (index, sample) in samples.enumerated() {
            try delivery.accept(JournalEntry(sequence: Int64(index + 1), source: "history", item: .sample(sample)))
        }
        try delivery.finish()
        #expect(killed == 2)
        // A dead connection fails at most one write, which the caller hears of before the retry
        // (none when the session's end had reached the sink before its next write, which then
        // connects again first).
        #expect(retries.count <= 2, "\(retries)")
        #expect(retries.allSatisfy { $0.hasPrefix("1 of 3 after a pause: unavailable") }, "\(retries)")
        #expect(delivery.counts.samples == 500 && delivery.counts.rejected == 0)
        #expect(try admin.execute("SELECT count(*) FROM \(SQL.qualified(schema, "samples"))").int(0, 0) == 500)
    }

    /// A session the server ended while the sink was idle (`idle_session_timeout`, a pooler's
    /// idle limit; here `pg_terminate_backend`): the next write connects again first and succeeds,
    /// instead of failing, being logged as a failed write and retried a second later.
    @Test func aSessionEndedWhileIdleIsOpenedAgainBeforeTheNextWrite() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let admin = try PostgresConnection(url: url)
        defer { admin.close() }
        for kind in ["postgres", "timescaledb"] {
            let application = "hr_idle_" + PostgresTestDatabase.freshSchema()
            let schema = PostgresTestDatabase.freshSchema()
            let sink: any Sink = kind == "postgres"
                ? PostgresSink(configuration: .init(url: url + " application_name=" + application, userId: PostgresSinkTests.userId,
                                                    schema: schema), context: ConformanceFixtures.context())
                : TimescaleDBSink(configuration: .init(url: url + " application_name=" + application, schema: schema,
                                                       requireTimescaledb: false), context: ConformanceFixtures.context())
            defer { sink.close() }
            _ = try sink.prepare()
            try sink.write(ConformanceFixtures.entries([ConformanceFixtures.numbered(1)]), cursor: 1)
            #expect(try admin.query("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1",
                                    [application]).int(0, 0) == 1)
            // Wait until the server no longer lists the session.
            let deadline = Date(timeIntervalSinceNow: 10)
            while Date() < deadline, try admin.query("SELECT count(*) FROM pg_stat_activity WHERE application_name = $1",
                                                     [application]).int(0, 0) != 0 {
                Thread.sleep(forTimeInterval: 0.02)
            }
            // The server unlists the backend just before its process exits and closes the socket:
            // give the close a moment to arrive (a loaded machine took longer than none).
            Thread.sleep(forTimeInterval: 0.5)
            try sink.write(ConformanceFixtures.entries([ConformanceFixtures.numbered(2)], from: 2), cursor: 2)
            let table = kind == "postgres" ? "healthkit_metrics" : "samples"
            #expect(try admin.execute("SELECT count(*) FROM \(SQL.qualified(schema, table))").int(0, 0) == 2, "\(kind)")
        }
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

    /// The server itself goes down in the middle of an import, as in a crash (immediate shutdown:
    /// recovery at the next start), and comes back a second later: the worker's
    /// writes fail, its reconnects are refused while the server is down, and once it is back the
    /// import completes with the content of an undisturbed one. A server of the test's own, since
    /// the shared one serves the other tests.
    @Test(arguments: ["timescaledb", "postgres"])
    func aServerStoppedMidImportAndStartedAgainCompletesWithIdenticalContent(sink kind: String) throws {
        guard PostgresTestDatabase.url != nil, let port = PostgresTestDatabase.port.flatMap(Int.init),
              let server = try PostgresServerFixture(firstPort: port + (kind == "postgres" ? 140 : 100)) else { return }
        func conformance(_ schema: String) -> SinkConformance {
            kind == "postgres" ? PostgresSinkTests().conformance(server.url, schema: schema)
                : TimescaleDBSinkTests().conformance(server.url, schema: schema)
        }
        let samples = (0..<2_000).map(ConformanceFixtures.numbered) + ConformanceFixtures.all
        func journal() throws -> String {
            let directory = ConformanceFixtures.temporaryDirectory()
            _ = try Journal(stateDirectory: directory).append(samples.map { .sample($0) }, source: "history")
            return directory
        }
        let disturbedDirectory = try journal(), calmDirectory = try journal()
        defer {
            try? FileManager.default.removeItem(atPath: disturbedDirectory)
            try? FileManager.default.removeItem(atPath: calmDirectory)
        }

        let outage = ServerOutage(server: server, atWrite: 10)
        var disturbed = conformance(PostgresTestDatabase.freshSchema())
        let make = disturbed.make
        disturbed.make = { OutageSink(inner: try make(), outage: outage) }
        let progress = disturbed.runWorker(directory: disturbedDirectory, maxAttempts: 100)
        #expect(outage.restarted.wait(timeout: .now() + 60) == .success, "the outage never happened")
        #expect(outage.restartFailure == nil)
        #expect(outage.failures.withLock { $0 } > 0, "no write or connect failed while the server was down")
        #expect(progress.gaveUp == nil)
        #expect(progress.cursor == Int64(samples.count))

        let calm = conformance(PostgresTestDatabase.freshSchema())
        #expect(calm.runWorker(directory: calmDirectory).cursor == Int64(samples.count))
        let expected = try calm.snapshot()
        #expect(expected.count >= samples.count)
        #expect(try disturbed.snapshot() == expected)
    }
}

/// Stops a test's own server as a crash would when the `atWrite`-th write of the sinks it wraps
/// begins (so that write fails, and the batches before it are stored), and starts it again a second
/// later on another thread. Shared by the sinks a worker makes one after another.
final class ServerOutage: @unchecked Sendable {
    private let server: PostgresServerFixture
    private let atWrite: Int
    private let writes = Mutex(0)
    /// Failed writes and prepares of the wrapped sinks.
    let failures = Mutex(0)
    /// Signalled once the server runs again.
    let restarted = DispatchSemaphore(value: 0)
    /// Set before `restarted` is signalled, when the server could not be started again.
    private(set) var restartFailure: (any Error)?

    init(server: PostgresServerFixture, atWrite: Int) {
        self.server = server
        self.atWrite = atWrite
    }

    func beforeWrite() {
        guard writes.withLock({ $0 += 1; return $0 }) == atWrite else { return }
        server.stop(mode: "immediate")
        Thread.detachNewThread { [self] in
            Thread.sleep(forTimeInterval: 1)
            do { try server.start() } catch { restartFailure = error }
            restarted.signal()
        }
    }
}

/// A sink that tells a `ServerOutage` of each write and counts what fails.
final class OutageSink: Sink {
    private let inner: any Sink
    private let outage: ServerOutage

    init(inner: any Sink, outage: ServerOutage) {
        self.inner = inner
        self.outage = outage
    }

    private func counted<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            outage.failures.withLock { $0 += 1 }
            throw error
        }
    }

    func prepare() throws -> Int64? { try counted { try inner.prepare() } }

    func write(_ entries: [JournalEntry], cursor: Int64) throws {
        outage.beforeWrite()
        try counted { try inner.write(entries, cursor: cursor) }
    }

    func caughtUp() throws { try inner.caughtUp() }

    func close() { inner.close() }
}
