import Foundation
import TestSupport
import HealthRouterCore
import Synchronization
import Testing

/// The daemon's journal writer: concurrent pushes share commits but get their own results,
/// sink progress goes through the same commits, the live feed and the checkpointer.
@Suite("push ingest")
struct PushIngestTests {
    static func directory() throws -> String {
        let path = TestScratch.path + "ingest-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func samples(_ prefix: String, count: Int, second: Int64 = 1_780_000_000) -> [HealthItem] {
        (0..<count).map { index in
            .sample(Sample(id: "\(prefix)-\(index)", type: "HKQuantityTypeIdentifierHeartRate", kind: .quantity,
                           start: Timestamp(epochSeconds: second + Int64(index), utcOffsetSeconds: 0),
                           end: Timestamp(epochSeconds: second + Int64(index), utcOffsetSeconds: 0),
                           value: Double(60 + index % 50), unit: "count/min", sourceName: "Watch \(prefix)"))
        }
    }

    @Test func concurrentAppendsShareCommitsButGetTheirOwnResults() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let ingest = try PushIngest(stateDirectory: directory, control: WorkerControl())
        let results = ResultBox(count: 16)
        DispatchQueue.concurrentPerform(iterations: 16) { request in
            // Requests 8…15 send again what 0…7 sent: each reading is new exactly once.
            let items = Self.samples("R\(request % 8)", count: 300, second: 1_780_000_000 + Int64(request % 8) * 1_000)
            results.set(request, Result { try ingest.append(items, source: "phone") })
        }
        var ranges: [ClosedRange<Int64>] = []
        var new = 0
        var duplicates = 0
        for request in 0..<16 {
            let result = try results.get(request).get()
            #expect(result.newCount + result.duplicateCount == 300)
            new += result.newCount
            duplicates += result.duplicateCount
            if let first = result.firstSequence, let last = result.lastSequence {
                #expect(Int(last - first + 1) == result.newCount)
                ranges.append(first...last)
            }
        }
        #expect(new == 2_400)
        #expect(duplicates == 2_400)
        // Each request's entries are its own consecutive run; together they are 1…2400.
        #expect(ranges.sorted { $0.lowerBound < $1.lowerBound }.flatMap { Array($0) } == Array(1...2_400))
        #expect(try ingest.head() == 2_400)
        #expect(ingest.appendedSoFar.newCount == 2_400)
        let fed = try #require(ingest.feed.entries(after: 0, limit: 10_000))
        #expect(fed.map(\.sequence) == Array(1...2_400))
        let journal = try Journal(stateDirectory: directory)
        #expect(try journal.entries(after: 0, limit: 10_000).count == 2_400)
    }

    @Test func sinkProgressIsWrittenWithTheCommits() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let ingest = try PushIngest(stateDirectory: directory, control: WorkerControl())
        _ = try ingest.append(Self.samples("P", count: 10), source: "phone")
        ingest.recordLastError(sink: "local", "disk full")
        ingest.recordCursor(sink: "local", to: 4, written: 4)
        ingest.recordCursor(sink: "local", to: 10, written: 6)
        try ingest.addDeadLetter(sink: "local", sequence: 7, reason: "refused")
        // Appends keep the writer busy while a cursor is recorded from another thread.
        DispatchQueue.concurrentPerform(iterations: 4) { index in
            if index == 0 {
                for step in 1...20 { ingest.recordCursor(sink: "other", to: Int64(step), written: 1) }
            } else {
                _ = try? ingest.append(Self.samples("Q\(index)", count: 200, second: 1_790_000_000 + Int64(index) * 1_000),
                                       source: "phone")
            }
        }
        _ = try ingest.append(Self.samples("Z", count: 1, second: 1_800_000_000), source: "phone")
        let journal = try Journal(stateDirectory: directory, role: .reader)
        let states = Dictionary(uniqueKeysWithValues: try journal.sinkStates().map { ($0.sink, $0) })
        #expect(states["local"]?.cursor == 10)
        #expect(states["local"]?.written == 10)
        #expect(states["local"]?.lastError == nil)
        #expect(states["local"]?.deadLetters == 1)
        #expect(states["other"]?.cursor == 20)
        #expect(states["other"]?.written == 20)
        #expect(try journal.deadLetters(sink: "local").map(\.reason) == ["refused"])
    }

    /// While the journal's file is not where it was opened (deleted or replaced), appends and
    /// progress fail instead of going into a file nobody could open again, and `failingSince`
    /// says why; the rows of a cursor that could not be recorded are added to the sink's next
    /// one, so `status` counts them. (Moved back, the same file takes writes again.)
    @Test func aJournalFileMovedAwayRefusesWritesAndKeepsTheRowsCounted() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let ingest = try PushIngest(stateDirectory: directory, control: WorkerControl())
        _ = try ingest.append(Self.samples("M", count: 3), source: "phone")
        ingest.recordCursor(sink: "local", to: 1, written: 1)
        #expect(ingest.failingSince == nil)
        let path = directory + "/journal.sqlite"
        try FileManager.default.moveItem(atPath: path, toPath: path + ".aside")
        #expect(throws: JournalFileReplaced.self) { try ingest.append(Self.samples("N", count: 1), source: "phone") }
        #expect(ingest.failingSince?.contains("was deleted or replaced while healthrouter ran") == true)
        ingest.recordCursor(sink: "local", to: 2, written: 5)
        try FileManager.default.moveItem(atPath: path + ".aside", toPath: path)
        // Back in place: taken for a journal that takes writes (`/health` says so) before any push.
        #expect(ingest.failingSince == nil)
        ingest.recordCursor(sink: "local", to: 3, written: 2)
        _ = try ingest.append(Self.samples("O", count: 1, second: 1_790_000_000), source: "phone")
        #expect(ingest.failingSince == nil)
        let journal = try Journal(stateDirectory: directory, role: .reader)
        let local = try journal.sinkStates().first { $0.sink == "local" }
        #expect(local?.cursor == 3)
        #expect(local?.written == 8)
        #expect(try journal.head() == 4)
    }

    /// A push ingest (retrying refused cursors after 1 s) whose journal refuses the sink `local`'s
    /// cursor 2 (as a full disk would, by a trigger), and records what `meanwhile` reports while
    /// cursor 2's commit waits: another connection holds the write lock as that commit starts.
    /// Returns once cursor 2 was refused and the rest recorded, with the journal's folder, the
    /// ingest (kept, so that its retry runs) and that connection (dropping the trigger gives room
    /// again). Cursor 1 (1 row) was recorded before.
    static func refusingCursorTwo(meanwhile: (PushIngest) -> Void) throws
        -> (directory: String, ingest: PushIngest, other: SQLiteDatabase) {
        let directory = try Self.directory()
        let ingest = try PushIngest(stateDirectory: directory, control: WorkerControl(), cursorRetrySeconds: 1)
        _ = try ingest.append(Self.samples("M", count: 3), source: "phone")
        ingest.recordCursor(sink: "local", to: 1, written: 1)
        let other = try SQLiteDatabase(path: directory + "/journal.sqlite")
        try other.execute("CREATE TRIGGER refuse_two BEFORE UPDATE OF seq ON cursors WHEN NEW.seq = 2 "
                          + "BEGIN SELECT RAISE(ABORT, 'refused for the test'); END")
        try other.execute("BEGIN IMMEDIATE")
        let committed = DispatchSemaphore(value: 0)
        // On a thread of its own: a block on Dispatch's pool may wait for a thread while the tests
        // that run beside this one hold them, and what `meanwhile` reports then led the commit, and
        // waited for the lock held here.
        Thread {
            ingest.recordCursor(sink: "local", to: 2, written: 5)
            committed.signal()
        }.start()
        usleep(300_000)
        meanwhile(ingest)
        try other.execute("COMMIT")
        committed.wait()
        return (directory, ingest, other)
    }

    /// A cursor the journal refused is written again later (`cursorRetrySeconds`), at the latest
    /// cursor its sink reported: one reported while the refused one was being committed, and
    /// recorded since, is not moved back to the refused sequence, which showed the sink behind
    /// (and, restarted, made it write again what it had written).
    @Test func aRefusedCursorWrittenAgainDoesNotMoveALaterOneBack() async throws {
        let (directory, ingest, other) = try Self.refusingCursorTwo { $0.recordCursor(sink: "local", to: 3, written: 2) }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        defer { withExtendedLifetime(ingest) {} }
        func local() throws -> (cursor: Int64, written: Int64)? {
            let journal = try Journal(stateDirectory: directory, role: .reader)
            return try journal.sinkStates().first { $0.sink == "local" }.map { ($0.cursor, $0.written) }
        }
        // Cursor 2 was refused and 3 recorded: 2's rows wait for the retry.
        let before = try #require(try local())
        #expect(before.cursor == 3 && before.written == 3, "\(before)")
        try other.execute("DROP TRIGGER refuse_two")  // room again
        // Asleep without a thread: the retry runs on Dispatch's pool, which tests beside this one share.
        try await Task.sleep(for: .milliseconds(1_500))
        let after = try #require(try local())
        #expect(after.cursor == 3 && after.written == 8, "\(after)")
    }

    /// A refused cursor written again by the retry keeps an error its sink reported after it:
    /// the error, queued while the cursor's commit ran and recorded since, was cleared by the
    /// retry (a cursor clears the last error), and `status` showed a failing sink, one halted for
    /// a wrong token, without its error.
    @Test func aRefusedCursorWrittenAgainKeepsTheErrorReportedAfterIt() async throws {
        // The sink fails on its next batch while cursor 2's commit waits for the write lock.
        let (directory, ingest, other) = try Self.refusingCursorTwo {
            $0.recordLastError(sink: "local", "receiver answered 401 (check the sink's token)")
        }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        defer { withExtendedLifetime(ingest) {} }
        func local() throws -> SinkState? {
            try Journal(stateDirectory: directory, role: .reader).sinkStates().first { $0.sink == "local" }
        }
        let before = try #require(try local())
        #expect(before.cursor == 1 && before.lastError == "receiver answered 401 (check the sink's token)", "\(before)")
        try other.execute("DROP TRIGGER refuse_two")
        try await Task.sleep(for: .milliseconds(1_500))
        let after = try #require(try local())
        #expect(after.cursor == 2 && after.written == 6, "\(after)")
        #expect(after.lastError == "receiver answered 401 (check the sink's token)", "\(after)")
    }

    /// A last error the journal refused (a full disk) is written again with the refused cursors
    /// (`cursorRetrySeconds` later), as the sink's error then stands: `status` showed a failing
    /// sink without its error until it failed again, a minute later (ten for a receiver that asked
    /// for that long). One that a cursor followed (the sink recovered) is not brought back.
    @Test func aRefusedLastErrorIsWrittenAgainAsItStands() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let ingest = try PushIngest(stateDirectory: directory, control: WorkerControl(), cursorRetrySeconds: 1)
        defer { withExtendedLifetime(ingest) {} }
        _ = try ingest.append(Self.samples("E", count: 3), source: "phone")
        ingest.recordCursor(sink: "local", to: 1, written: 1)
        ingest.recordCursor(sink: "other", to: 1, written: 1)
        let other = try SQLiteDatabase(path: directory + "/journal.sqlite")
        try other.execute("CREATE TRIGGER refuse_errors BEFORE UPDATE OF last_error ON cursors WHEN NEW.last_error IS NOT NULL "
                          + "BEGIN SELECT RAISE(ABORT, 'refused for the test'); END")
        // Each is committed on this thread before the call returns (nothing else writes).
        ingest.recordLastError(sink: "local", "receiver answered 503")
        ingest.recordLastError(sink: "local", "receiver answered 401 (check the sink's token)")
        ingest.recordLastError(sink: "other", "receiver answered 500")
        ingest.recordCursor(sink: "other", to: 2, written: 1)
        func states() throws -> [String: SinkState] {
            let journal = try Journal(stateDirectory: directory, role: .reader)
            return Dictionary(uniqueKeysWithValues: try journal.sinkStates().map { ($0.sink, $0) })
        }
        let before = try states()
        #expect(before["local"]?.lastError == nil, "\(before)")
        try other.execute("DROP TRIGGER refuse_errors")  // room again
        try await Task.sleep(for: .milliseconds(1_500))
        let after = try states()
        #expect(after["local"]?.lastError == "receiver answered 401 (check the sink's token)", "\(after)")
        #expect(after["local"]?.cursor == 1, "\(after)")
        #expect(after["other"]?.cursor == 2 && after["other"]?.lastError == nil, "\(after)")
    }

    @Test func aSinkWorkerTakesPushedEntriesFromTheFeedAndRecordsThroughTheWriter() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let control = WorkerControl()
        let ingest = try PushIngest(stateDirectory: directory, control: control, autocheckpoint: false)
        let store = RecordingStore()
        let worker = SinkWorker(name: "mem", stateDirectory: directory, logger: Logger(minimumLevel: .error),
                                makeSink: { RecordingSink(store: store) }, selects: { _, _ in true })
        let checkpointer = JournalCheckpointer(stateDirectory: directory, interval: 0.01, logger: Logger(minimumLevel: .error))
        let group = DispatchGroup()
        group.enter()
        Thread {
            worker.run(control: control, feed: ingest.feed, writer: ingest)
            group.leave()
        }.start()
        group.enter()
        Thread {
            checkpointer.run(control: control)
            group.leave()
        }.start()
        var items = Self.samples("W", count: 2_000)
        items[1_234] = .sample(Sample(id: "BAD", type: "HKQuantityTypeIdentifierHeartRate", kind: .quantity,
                                      start: Timestamp(epochSeconds: 1_700_000_000), end: Timestamp(epochSeconds: 1_700_000_000),
                                      sourceName: "x"))
        for part in 0..<4 { _ = try ingest.append(Array(items[(part * 500)..<((part + 1) * 500)]), source: "phone") }
        let deadline = Date(timeIntervalSinceNow: 5)
        while worker.progress.cursor < 2_000 && Date() < deadline { usleep(5_000) }
        let journalSize = { ((try? FileManager.default.attributesOfItem(atPath: directory + "/journal.sqlite"))?[.size] as? Int) ?? 0 }
        // The checkpointer copies the log into the database file: it grows past its empty size.
        while journalSize() < 200_000 && Date() < deadline { usleep(5_000) }
        control.requestStop()
        group.wait()
        #expect(worker.progress.cursor == 2_000)
        #expect(store.ids.count == 1_999)
        #expect(!store.ids.contains("BAD"))
        #expect(journalSize() >= 200_000)
        let journal = try Journal(stateDirectory: directory, role: .reader)
        #expect(try journal.cursor(sink: "mem") == 2_000)
        #expect(try journal.deadLetters(sink: "mem").map(\.sequence) == [1_235])
    }

    /// A reader that stays in the log (a sink worker mid-read) keeps PASSIVE checkpoints from
    /// starting the log over, so pushes grow it; once the log is past its limit and the reader is
    /// done, the checkpointer empties it, also when nothing is pushed any more.
    @Test func theCheckpointerEmptiesALogThatGrewPastItsLimit() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let control = WorkerControl()
        let ingest = try PushIngest(stateDirectory: directory, control: control, autocheckpoint: false)
        _ = try ingest.append(Self.samples("A", count: 10), source: "phone")
        let reader = try SQLiteDatabase(path: directory + "/journal.sqlite")
        try reader.execute("BEGIN")
        _ = try reader.scalarInt("SELECT count(*) FROM entries")
        let checkpointer = JournalCheckpointer(stateDirectory: directory, interval: 0.01, logger: Logger(minimumLevel: .error),
                                               logLimit: 256 << 10)
        let group = DispatchGroup()
        group.enter()
        Thread {
            checkpointer.run(control: control)
            group.leave()
        }.start()
        let logSize = { ((try? FileManager.default.attributesOfItem(atPath: directory + "/journal.sqlite-wal"))?[.size] as? Int) ?? -1 }
        for part in 0..<8 {
            _ = try ingest.append(Self.samples("P\(part)", count: 500, second: 1_781_000_000 + Int64(part) * 1_000), source: "phone")
        }
        #expect(logSize() > 256 << 10)
        // The reader holds the log: it stays (the checkpoint waits 200 ms, then gives up for now).
        usleep(300_000)
        #expect(logSize() > 256 << 10)
        try reader.execute("COMMIT")
        let deadline = Date(timeIntervalSinceNow: 10)
        while logSize() != 0 && Date() < deadline { usleep(20_000) }
        control.requestStop()
        group.wait()
        #expect(logSize() == 0)
        // Nothing was lost on the way.
        #expect(try Journal(stateDirectory: directory, role: .reader).head() == 4_010)
    }

    @Test func liveFeedSpansConsecutiveBatchesAndForgetsTheOldest() {
        func entries(_ range: ClosedRange<Int64>) -> [JournalEntry] {
            range.map { JournalEntry(sequence: $0, source: "s", item: .tombstone(Tombstone(ids: ["\($0)"]))) }
        }
        let feed = LiveFeed(window: 8, maxEntries: 25)
        feed.publish(entries(1...10))
        feed.publish(entries(11...20))
        feed.publish(entries(21...22))
        #expect(feed.entries(after: 4, limit: 100)?.map(\.sequence) == Array(5...22))
        #expect(feed.entries(after: 4, limit: 10)?.map(\.sequence) == Array(5...14))
        #expect(feed.entries(after: 22, limit: 10) == nil)
        // A batch that does not follow on (another process appended in between) ends the run.
        feed.publish(entries(30...31))
        #expect(feed.entries(after: 19, limit: 100)?.map(\.sequence) == [20, 21, 22])
        #expect(feed.entries(after: 29, limit: 100)?.map(\.sequence) == [30, 31])
        // Over 25 entries: the oldest batches go; the newest always stays.
        #expect(feed.entries(after: 0, limit: 100)?.count == 22)
        feed.publish(entries(32...41))
        #expect(feed.entries(after: 0, limit: 100) == nil)
        #expect(feed.entries(after: 10, limit: 100)?.count == 12)
        feed.publish(entries(42...141))
        #expect(feed.entries(after: 41, limit: 1_000)?.count == 100)
        #expect(feed.entries(after: 39, limit: 100) == nil)
    }

    @Test func aTransactionInsideAnotherIsASavepoint() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try SQLiteDatabase(path: directory + "/t.sqlite")
        try database.execute("CREATE TABLE t(x INTEGER PRIMARY KEY)")
        try database.transaction {
            try database.transaction { try database.execute("INSERT INTO t VALUES (1)") }
            #expect(throws: SQLiteError.self) {
                try database.transaction {
                    try database.execute("INSERT INTO t VALUES (2)")
                    try database.execute("INSERT INTO t VALUES (1)")
                }
            }
            try database.execute("INSERT INTO t VALUES (3)")
        }
        let statement = try database.prepare("SELECT group_concat(x) FROM t")
        #expect(try statement.step())
        #expect(statement.string(0) == "1,3")
    }
}

/// Results written by concurrent requests, read after they all returned.
private final class ResultBox: Sendable {
    private let results: Mutex<[Result<AppendResult, any Error>?]>
    init(count: Int) { results = Mutex(Array(repeating: nil, count: count)) }
    func set(_ index: Int, _ result: Result<AppendResult, any Error>) { results.withLock { $0[index] = result } }
    func get(_ index: Int) -> Result<AppendResult, any Error> { results.withLock { $0[index]! } }
}

/// What a `RecordingSink` wrote; readable from the test's thread.
private final class RecordingStore: Sendable {
    private let written = Mutex<[String]>([])
    func add(_ ids: [String]) { written.withLock { $0 += ids } }
    var ids: [String] { written.withLock { $0 } }
}

/// A sink that keeps the ids it was given and refuses the sample `BAD`.
private final class RecordingSink: Sink {
    let store: RecordingStore
    init(store: RecordingStore) { self.store = store }
    func prepare() throws -> Int64? { nil }
    func write(_ entries: [JournalEntry], cursor: Int64) throws {
        var ids: [String] = []
        for entry in entries {
            guard case .sample(let sample) = entry.item else { continue }
            if sample.id == "BAD" { throw SinkError.rejected("BAD is refused") }
            ids.append(sample.id)
        }
        store.add(ids)
    }
    func close() {}
}
