import Foundation
import TestSupport
import Testing
import Synchronization
@testable import HealthRouterCore

/// A minimal real sink for testing the worker: a SQLite table whose CHECK refuses
/// negative values, and a switch that makes the store fail.
final class CheckedTableSink: Sink {
    let database: SQLiteDatabase
    let failures: FailureBudget

    let caughtUpLog: CaughtUpLog

    init(path: String, failures: FailureBudget, caughtUpLog: CaughtUpLog = CaughtUpLog()) throws {
        database = try SQLiteDatabase(path: path)
        self.failures = failures
        self.caughtUpLog = caughtUpLog
    }

    func prepare() throws -> Int64? {
        try database.execute("""
            CREATE TABLE IF NOT EXISTS rows(id TEXT PRIMARY KEY, value REAL CHECK (value >= 0));
            CREATE TABLE IF NOT EXISTS cursor(seq INTEGER NOT NULL);
            INSERT INTO cursor SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM cursor);
            """)
        return try database.scalarInt("SELECT seq FROM cursor")
    }

    func write(_ entries: [JournalEntry], cursor: Int64) throws {
        let failNow = failures.remaining.withLock { n -> Bool in
            if n > 0 { n -= 1; return true }
            return false
        }
        if failNow { throw SinkError.unavailable("store is down") }
        do {
            try database.transaction {
                let insert = try database.prepare("INSERT OR REPLACE INTO rows(id, value) VALUES (?1, ?2)")
                for entry in entries {
                    guard case .sample(let s) = entry.item else { continue }
                    insert.bind(1, s.id)
                    insert.bind(2, s.value)
                    try insert.run()
                }
                try database.execute("UPDATE cursor SET seq = \(cursor)")
            }
        } catch let error as SQLiteError where error.isDataError {
            throw SinkError.rejected(error.message)
        }
    }

    func caughtUp() throws {
        let cursor = try database.scalarInt("SELECT seq FROM cursor") ?? 0
        caughtUpLog.cursors.withLock { $0.append(cursor) }
    }

    func close() {}
}

/// The sink's cursor at each `caughtUp()` call, shared by every sink instance a worker makes.
final class CaughtUpLog: Sendable {
    let cursors = Mutex<[Int64]>([])
}

/// How many more writes fail, shared by every sink instance a worker makes.
final class FailureBudget: Sendable {
    let remaining: Mutex<Int>
    init(_ count: Int) { remaining = Mutex(count) }
}

@Suite struct SinkWorkerTests {
    func feed(_ directory: String, _ values: [Double]) throws {
        let journal = try Journal(stateDirectory: directory)
        try journal.append(values.enumerated().map { .sample(heartRate($0.element, at: Int64($0.offset))) }, source: "src")
    }

    func runWorker(_ directory: String, sinkPath: String, failures: Int = 0, maxAttempts: Int? = nil,
                   batchSize: Int = 64, retryInitial: Double = 0.01, control: WorkerControl = WorkerControl(),
                   selects: @escaping @Sendable (String?, String) -> Bool = { _, _ in true }) -> SinkWorker.Progress {
        var settings = SinkWorker.Settings()
        settings.batchSize = batchSize
        settings.retryInitial = retryInitial
        settings.maxAttempts = maxAttempts
        let budget = FailureBudget(failures)
        let worker = SinkWorker(name: "table", stateDirectory: directory, settings: settings,
                                logger: Logger(minimumLevel: .error), makeSink: {
            try CheckedTableSink(path: sinkPath, failures: budget)
        }, selects: selects)
        control.finishInput()
        worker.run(control: control)
        return worker.progress
    }

    @Test func badEntriesBecomeDeadLettersAndTheRestLands() throws {
        let directory = makeTemporaryDirectory()
        var values = (0..<200).map { Double($0) }
        values[17] = -1
        values[150] = -2
        try feed(directory, values)
        let sinkPath = directory + "/sink.sqlite"
        let progress = runWorker(directory, sinkPath: sinkPath)
        #expect(progress.written == 198)
        #expect(progress.deadLetters == 2)
        #expect(progress.cursor == 200)
        let journal = try Journal(stateDirectory: directory)
        #expect(try journal.deadLetters(sink: "table").map(\.sequence) == [18, 151])
        // Each reason names the sample it parks, as status shows it.
        let stored = try journal.entries(after: 17, limit: 1)
        guard case .sample(let parked)? = try stored.first?.decoded().item else { Issue.record("no entry 18"); return }
        let reason = try #require(try journal.deadLetters(sink: "table").first?.reason)
        #expect(reason.hasPrefix("HKQuantityTypeIdentifierHeartRate \(parked.id): "), "\(reason)")
        #expect(try journal.cursor(sink: "table") == 200)
        let sink = try SQLiteDatabase(path: sinkPath)
        #expect(try sink.scalarInt("SELECT count(*) FROM rows") == 198)
        #expect(try sink.scalarInt("SELECT seq FROM cursor") == 200)
    }

    /// One bad record at any position of a batch (its first, its last, either side of each split)
    /// is the only one parked, and every other lands once (DESIGN §2: bad records don't block good
    /// ones); so are two side by side.
    @Test(arguments: Array(0..<9))
    func aBadRecordAtAnyPositionOfABatchIsTheOnlyOneParked(position: Int) throws {
        for bad in [[position], position < 8 ? [position, position + 1] : [0, position]] {
            let directory = makeTemporaryDirectory()
            var values = (0..<9).map { Double($0 + 50) }
            for index in bad { values[index] = -1 }
            try feed(directory, values)
            let sinkPath = directory + "/sink.sqlite"
            let progress = runWorker(directory, sinkPath: sinkPath, batchSize: 9)
            #expect(progress.written == 9 - bad.count && progress.deadLetters == bad.count && progress.cursor == 9, "bad at \(bad)")
            #expect(try Journal(stateDirectory: directory).deadLetters(sink: "table").map(\.sequence) == bad.map { Int64($0 + 1) })
            let sink = try SQLiteDatabase(path: sinkPath)
            #expect(try sink.scalarInt("SELECT count(*) FROM rows") == Int64(9 - bad.count))
            #expect(try sink.scalarInt("SELECT count(*) FROM rows WHERE value < 0") == 0)
        }
    }

    /// A worker that opens its sink (a start, a reload) clears the error an earlier worker recorded
    /// (an old url's): `status` showed it while the sink, caught up, wrote nothing. A failing write
    /// records its own again.
    @Test func aFreshWorkerClearsAnEarlierWorkersError() throws {
        let directory = makeTemporaryDirectory()
        try feed(directory, [60, 61, 62])
        let sinkPath = directory + "/sink.sqlite"
        #expect(runWorker(directory, sinkPath: sinkPath).cursor == 3)
        try Journal(stateDirectory: directory).setLastError(sink: "table", "http://old.example/ingest answered 404")
        #expect(runWorker(directory, sinkPath: sinkPath).written == 0)
        let state = try #require(try Journal(stateDirectory: directory).sinkStates(named: ["table"]).first)
        #expect(state.lastError == nil && state.cursor == 3 && state.written == 3)
        try feed(directory, [63])
        let failing = runWorker(directory, sinkPath: sinkPath, failures: 100, maxAttempts: 2)
        #expect(failing.lastError != nil)
        #expect(try Journal(stateDirectory: directory).sinkStates(named: ["table"]).first?.lastError != nil)
    }

    /// An entry the disk damaged (its payload no longer decodes) is parked as a dead letter of the
    /// sink, naming the entry, and the entries after it are delivered: it blocked the sink for good,
    /// retried as if the store were down.
    @Test func aDamagedJournalEntryIsParkedAndTheRestLands() throws {
        let directory = makeTemporaryDirectory()
        try feed(directory, (0..<100).map { Double($0 + 40) })
        let journal = try Journal(stateDirectory: directory)
        try journal.database.execute("UPDATE entries SET payload = x'00ff00ff' WHERE seq = 5")
        let sinkPath = directory + "/sink.sqlite"
        // Two failed writes first: the batch is read again, the entry parked once.
        let progress = runWorker(directory, sinkPath: sinkPath, failures: 2, maxAttempts: 5)
        #expect(progress.written == 99)
        #expect(progress.deadLetters == 1)
        #expect(progress.cursor == 100)
        let parked = try journal.deadLetters(sink: "table")
        #expect(parked.map(\.sequence) == [5])
        #expect(parked.first?.reason.hasPrefix("journal entry 5 (HKQuantityTypeIdentifierHeartRate) cannot be read: ") == true,
                "\(parked.first?.reason ?? "")")
        #expect(parked.first?.reason.contains("healthrouter backfill table --from FILE") == true)
        let sink = try SQLiteDatabase(path: sinkPath)
        #expect(try sink.scalarInt("SELECT count(*) FROM rows") == 99)
    }

    /// A store's reason that names the sample already ("sample D1: …", as the sqlite store's for a
    /// date past 9999) is led by the type too; one led by type and id stays as it is.
    @Test func aDeadLettersReasonIsLedByTypeAndIdWhateverTheStoreSaid() {
        let sample = Sample(id: "D1", type: "HKQuantityTypeIdentifierStepCount", kind: .quantity,
                            start: Timestamp(epochMilliseconds: 0), end: Timestamp(epochMilliseconds: 0), value: 1,
                            unit: "count", sourceName: "s")
        let entry = JournalEntry(sequence: 1, source: "s", item: .sample(sample))
        #expect(SinkWorker.deadLetterReason("sample D1: start 1 lies outside", of: entry)
                    == "HKQuantityTypeIdentifierStepCount D1: start 1 lies outside")
        #expect(SinkWorker.deadLetterReason("value too big", of: entry) == "HKQuantityTypeIdentifierStepCount D1: value too big")
        #expect(SinkWorker.deadLetterReason("HKQuantityTypeIdentifierStepCount D1: bad", of: entry)
                    == "HKQuantityTypeIdentifierStepCount D1: bad")
        #expect(SinkWorker.deadLetterReason("row for D1 refused", of: entry)
                    == "HKQuantityTypeIdentifierStepCount D1: row for D1 refused")
    }

    @Test func theSinkHearsItCaughtUpWhenTheInputEndsAndAfterASecondIdle() throws {
        let directory = makeTemporaryDirectory()
        try feed(directory, (0..<200).map { Double($0) })
        /// A worker on `directory` whose sinks record when they hear they caught up.
        func makeWorker(_ directory: String, _ log: CaughtUpLog) -> SinkWorker {
            var settings = SinkWorker.Settings()
            settings.batchSize = 64
            return SinkWorker(name: "table", stateDirectory: directory, settings: settings,
                              logger: Logger(minimumLevel: .error), makeSink: {
                try CheckedTableSink(path: directory + "/sink.sqlite", failures: FailureBudget(0), caughtUpLog: log)
            }, selects: { _, _ in true })
        }
        let log = CaughtUpLog()
        let worker = makeWorker(directory, log)
        let control = WorkerControl()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread { worker.run(control: control); done.signal() }
        func calls() -> [Int64] { log.cursors.withLock { $0 } }
        func waitFor(_ count: Int) {
            let deadline = Date().addingTimeInterval(10)
            while calls().count < count && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        }
        // Once everything is written and nothing more came for a second; not between batches.
        let started = Date()
        waitFor(1)
        #expect(calls() == [200])
        #expect(Date().timeIntervalSince(started) >= SinkWorker.caughtUpDelay)
        // Idle on: not again until something new was written.
        Thread.sleep(forTimeInterval: 1.3)
        #expect(calls() == [200])
        try feed(directory, [7])
        waitFor(2)
        #expect(calls() == [200, 201])
        control.requestStop()
        done.wait()
        // An import's worker hears it as soon as the input ended, before it returns.
        let quick = makeTemporaryDirectory()
        try feed(quick, [1, 2, 3])
        let importLog = CaughtUpLog()
        let importWorker = makeWorker(quick, importLog)
        let importControl = WorkerControl()
        importControl.finishInput()
        let before = Date()
        importWorker.run(control: importControl)
        #expect(Date().timeIntervalSince(before) < SinkWorker.caughtUpDelay)
        #expect(importLog.cursors.withLock { $0 } == [3])
    }

    @Test func aFailingStoreIsRetriedAndNothingIsLost() throws {
        let directory = makeTemporaryDirectory()
        try feed(directory, (0..<100).map { Double($0) })
        let progress = runWorker(directory, sinkPath: directory + "/sink.sqlite", failures: 3)
        #expect(progress.written == 100)
        #expect(progress.gaveUp == nil)
        #expect(try SQLiteDatabase(path: directory + "/sink.sqlite").scalarInt("SELECT count(*) FROM rows") == 100)
    }

    @Test func aStoreThatStaysDownIsReportedNotSkipped() throws {
        let directory = makeTemporaryDirectory()
        try feed(directory, [1, 2, 3])
        let progress = runWorker(directory, sinkPath: directory + "/sink.sqlite", failures: 100, maxAttempts: 3)
        #expect(progress.gaveUp?.contains("store is down") == true)
        #expect(progress.cursor == 0)
        #expect(try Journal(stateDirectory: directory).sinkStates().first?.lastError?.contains("store is down") == true)
    }

    /// An import's input ends long before a store that went down comes back: the retries still
    /// wait their backoff (0.1 + 0.2 + 0.4 s here) instead of using up their attempts at once.
    @Test func retriesWaitTheirBackoffAfterTheInputEnded() throws {
        let directory = makeTemporaryDirectory()
        try feed(directory, [1, 2, 3])
        let started = Date()
        let progress = runWorker(directory, sinkPath: directory + "/sink.sqlite", failures: 3, maxAttempts: 4, retryInitial: 0.1)
        #expect(Date().timeIntervalSince(started) >= 0.7)
        #expect(progress.gaveUp == nil)
        #expect(progress.written == 3)
    }

    @Test func retryDelaysReadAsTheyAre() {
        #expect(SinkWorker.format(0.5) == "0.5s")
        #expect(SinkWorker.format(0.01) == "0.01s")
        #expect(SinkWorker.format(4) == "4s")
        #expect(SinkWorker.format(120) == "2m")
    }

    /// A stop request (Ctrl-C, SIGTERM) does not wait for a backoff to end.
    @Test func aStopRequestCutsABackoffShort() throws {
        let directory = makeTemporaryDirectory()
        try feed(directory, [1, 2, 3])
        let control = WorkerControl()
        let stopper = Thread {
            Thread.sleep(forTimeInterval: 0.3)
            control.requestStop()
        }
        stopper.start()
        let started = Date()
        let progress = runWorker(directory, sinkPath: directory + "/sink.sqlite", failures: 100, retryInitial: 30, control: control)
        #expect(Date().timeIntervalSince(started) < 20)
        #expect(progress.cursor == 0)
        #expect(progress.lastError?.contains("store is down") == true)
    }

    @Test func routesSelectWhatTheSinkReceivesAndTheCursorPassesTheRest() throws {
        let directory = makeTemporaryDirectory()
        try feed(directory, (0..<50).map { Double($0) })
        let progress = runWorker(directory, sinkPath: directory + "/sink.sqlite", selects: { _, source in source == "other" })
        #expect(progress.written == 0)
        #expect(progress.cursor == 50)
    }

    /// A run killed after its sink committed but before the journal's copy of the cursor caught
    /// up: the next run counts what the sink wrote then (not its dead letters), so the journal's
    /// total matches the store, and the run's own count is only what it wrote itself.
    @Test func entriesAKilledRunWroteAreCountedOnceInTheJournalsTotal() throws {
        let directory = makeTemporaryDirectory()
        var values = (0..<50).map { Double($0) }
        values[11] = -1
        values[30] = -1
        try feed(directory, values)
        let sinkPath = directory + "/sink.sqlite"
        _ = runWorker(directory, sinkPath: sinkPath)
        // As a kill leaves it: the store is at 50, the journal's copy still at 20 (19 written, 12 parked).
        try SQLiteDatabase(path: directory + "/journal.sqlite").execute("UPDATE cursors SET seq = 20, written = 19")
        let progress = runWorker(directory, sinkPath: sinkPath)
        #expect(progress.written == 0)
        let state = try #require(try Journal(stateDirectory: directory).sinkStates().first { $0.sink == "table" })
        #expect(state.cursor == 50)
        #expect(state.written == 48)
        #expect(try SQLiteDatabase(path: sinkPath).scalarInt("SELECT count(*) FROM rows") == 48)
    }

    @Test func aRunKilledBeforeTheJournalSavedItsCopyOfTheCursorResumesWhereTheStoreIs() throws {
        let directory = makeTemporaryDirectory()
        let sinkPath = directory + "/sink.sqlite"
        // A worker that meets the store empty says so in the journal before it writes anything.
        _ = try Journal(stateDirectory: directory)
        _ = runWorker(directory, sinkPath: sinkPath)
        #expect(try Journal(stateDirectory: directory).cursor(sink: "table") == 0)
        try feed(directory, (0..<40).map { Double($0) })
        // A run that wrote everything into the store and was killed before the journal's copy of
        // the cursor was saved: played by a copy of the journal.
        let copy = makeTemporaryDirectory()
        try Journal(stateDirectory: directory).database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        try FileManager.default.copyItem(atPath: directory + "/journal.sqlite", toPath: copy + "/journal.sqlite")
        _ = runWorker(copy, sinkPath: sinkPath)
        try SQLiteDatabase(path: sinkPath).execute("UPDATE rows SET value = 1000")
        let progress = runWorker(directory, sinkPath: sinkPath)
        // Not taken for a store another journal wrote: nothing written again.
        #expect(progress.written == 0)
        #expect(try SQLiteDatabase(path: sinkPath).scalarInt("SELECT count(*) FROM rows WHERE value = 1000") == 40)
        let state = try #require(try Journal(stateDirectory: directory).sinkStates().first { $0.sink == "table" })
        #expect(state.cursor == 40)
        #expect(state.written == 40)
    }

    @Test func theSinksOwnCursorIsBelievedSoARecreatedStoreIsRefilled() throws {
        let directory = makeTemporaryDirectory()
        try feed(directory, (0..<30).map { Double($0) })
        let sinkPath = directory + "/sink.sqlite"
        _ = runWorker(directory, sinkPath: sinkPath)
        try FileManager.default.removeItem(atPath: sinkPath)
        let progress = runWorker(directory, sinkPath: sinkPath)
        #expect(progress.written == 30)
        #expect(try SQLiteDatabase(path: sinkPath).scalarInt("SELECT count(*) FROM rows") == 30)
    }
}

@Suite struct SinkWorkerJournalResetTests {
    @Test func aRecreatedJournalIsDeliveredAgainNotSkipped() throws {
        let directory = makeTemporaryDirectory()
        let sinkPath = directory + "/sink.sqlite"
        let tests = SinkWorkerTests()
        try tests.feed(directory, (0..<40).map { Double($0) })
        _ = tests.runWorker(directory, sinkPath: sinkPath)
        // The journal is deleted; the store (cursor 40) is kept; 5 new samples arrive.
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: directory + "/journal.sqlite" + suffix) }
        try tests.feed(directory, (100..<105).map { Double($0) })
        let progress = tests.runWorker(directory, sinkPath: sinkPath)
        #expect(progress.written == 5)
        #expect(try SQLiteDatabase(path: sinkPath).scalarInt("SELECT count(*) FROM rows") == 45)
    }

    @Test func aRecreatedJournalLongerThanTheStoresCursorIsDeliveredWhole() throws {
        let directory = makeTemporaryDirectory()
        let sinkPath = directory + "/sink.sqlite"
        let tests = SinkWorkerTests()
        try tests.feed(directory, (0..<10).map { Double($0) })
        _ = tests.runWorker(directory, sinkPath: sinkPath)
        // The store's cursor (10) numbers the old journal's entries; the new one holds 40 others,
        // its first 10 under numbers the store has seen.
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: directory + "/journal.sqlite" + suffix) }
        try tests.feed(directory, (100..<140).map { Double($0) })
        let progress = tests.runWorker(directory, sinkPath: sinkPath)
        #expect(progress.written == 40)
        #expect(try SQLiteDatabase(path: sinkPath).scalarInt("SELECT count(*) FROM rows") == 50)
    }
}
