import Foundation
import Testing
import HealthRouterCore

/// The checks every sink passes, driven through the `Sink` contract (and `SinkWorker` for dead
/// letters). A sink under test supplies how to make a fresh instance on the same store and how to
/// read the store back.
struct SinkConformance {
    /// A fresh sink on the same store.
    var make: () throws -> any Sink
    /// The store's content (bookkeeping such as sequences and write times left out), sorted.
    var snapshot: () throws -> [String]
    /// The sample ids the store holds; nil when the store keeps deletions as records (NDJSON).
    var storedIds: (() throws -> Set<String>)?
    /// A sample this store refuses, when there is one.
    var refused: Sample?

    /// The same batch again (numbered again, as a migration or backfill delivers it, with the
    /// sink's own cursor) leaves the store as once; a fresh instance prepares the same schema again.
    func sameBatchTwiceLeavesIdenticalContent() throws {
        let first = try make()
        #expect(try first.prepare() == 0)
        // It made the store (a resumed backfill or migration starts over then); the next did not.
        #expect(first.createdItsStore)
        try first.write(ConformanceFixtures.entries(ConformanceFixtures.all), cursor: 7)
        first.close()
        let once = try snapshot()
        #expect(!once.isEmpty)
        let second = try make()
        #expect(try second.prepare() == 7)
        #expect(!second.createdItsStore)
        try second.write(ConformanceFixtures.entries(ConformanceFixtures.all), cursor: 7)
        try second.write(ConformanceFixtures.entries(ConformanceFixtures.all, from: 8), cursor: 7)
        try second.write(ConformanceFixtures.entries(ConformanceFixtures.all, from: 8), cursor: 7)
        try second.write([], cursor: 14)
        second.close()
        #expect(try snapshot() == once)
        let third = try make()
        #expect(try third.prepare() == 14)
        third.close()
    }

    /// A tombstone removes its ids; the others stay.
    func tombstonesDelete() throws {
        guard let storedIds else { return }
        let sink = try make()
        _ = try sink.prepare()
        try sink.write(ConformanceFixtures.entries(ConformanceFixtures.all), cursor: 7)
        let gone = [ConformanceFixtures.heartRate.id, ConformanceFixtures.workout.id, ConformanceFixtures.sleep.id, "never-seen"]
        try sink.write([ConformanceFixtures.tombstone(gone, sequence: 8)], cursor: 8)
        sink.close()
        let expected = Set(ConformanceFixtures.all.map(\.id)).subtracting(gone)
        #expect(try storedIds() == expected)
    }

    /// Through a `SinkWorker`: the refused sample becomes a dead letter, the rest of its batch lands.
    func refusedRowBecomesDeadLetter() throws {
        guard let refused, let storedIds else { return }
        let directory = ConformanceFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = try Journal(stateDirectory: directory)
        var samples = (0..<50).map(ConformanceFixtures.numbered)
        samples.insert(refused, at: 20)
        _ = try journal.append(samples.map { .sample($0) }, source: "history")
        let progress = runWorker(directory: directory)
        #expect(progress.deadLetters == 1)
        #expect(progress.written == 50)
        #expect(progress.gaveUp == nil)
        #expect(try journal.deadLetters(sink: "conformance").count == 1)
        #expect(try storedIds() == Set((0..<50).map { ConformanceFixtures.numbered($0).id }))
    }

    /// Through a `SinkWorker`: every one of `samples` (each holding what the store could refuse,
    /// such as `ConformanceFixtures.withNUL`) is stored, none is a dead letter.
    func storedWithoutDeadLetters(_ samples: [Sample]) throws {
        guard let storedIds else { return }
        let directory = ConformanceFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = try Journal(stateDirectory: directory)
        _ = try journal.append(samples.map { .sample($0) }, source: "history")
        let progress = runWorker(directory: directory)
        #expect(progress.deadLetters == 0)
        #expect(progress.written == samples.count)
        #expect(try journal.deadLetters(sink: "conformance").isEmpty)
        #expect(try storedIds() == Set(samples.map(\.id)))
    }

    func runWorker(directory: String, maxAttempts: Int? = 20) -> SinkWorker.Progress {
        var settings = SinkWorker.Settings()
        settings.batchSize = 64
        settings.retryInitial = 0.01
        settings.maxAttempts = maxAttempts
        let make = self.make
        let box = UncheckedMaker(make: make)
        let worker = SinkWorker(name: "conformance", stateDirectory: directory, settings: settings,
                                logger: Logger(minimumLevel: .error), makeSink: { try box.make() },
                                selects: { _, _ in true })
        let control = WorkerControl()
        control.finishInput()
        worker.run(control: control)
        return worker.progress
    }
}

/// Carries a test's sink factory into the worker's `@Sendable` closure; the worker calls it
/// only from the thread running `run`, which is the test's.
struct UncheckedMaker: @unchecked Sendable {
    var make: () throws -> any Sink
}
