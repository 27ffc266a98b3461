import Foundation
import TestSupport
import Synchronization
import Testing
@testable import HealthRouterCore

@Suite struct SQLiteDatabaseTests {
    /// A write the file refuses (read-only) says what to do about the file, and which statement
    /// met it; a failure of the data names its statement.
    @Test func aFileThatRefusesWritesIsNamedWithWhatToDo() throws {
        let path = makeTemporaryDirectory() + "/store.sqlite"
        let writable = try SQLiteDatabase(path: path)
        try writable.execute("CREATE TABLE t (id TEXT PRIMARY KEY)")
        try writable.execute("INSERT INTO t VALUES ('a')")
        let readOnly = try SQLiteDatabase(path: path, readOnly: true)
        let refused = #expect(throws: SQLiteError.self) { try readOnly.execute("INSERT INTO t VALUES ('b')") }
        #expect(refused?.code == 8)
        #expect(refused?.description.hasPrefix("\(path): attempt to write a readonly database (SQLite code 8): this process may "
                                               + "not write the file or its folder") == true, "\(String(describing: refused))")
        #expect(refused?.description.hasSuffix("remount the disk read-write in: INSERT INTO t VALUES ('b')") == true)
        let duplicate = #expect(throws: SQLiteError.self) { try writable.execute("INSERT INTO t VALUES ('a')") }
        #expect(duplicate?.description.contains(" in: INSERT INTO t") == true, "\(String(describing: duplicate))")
    }

    /// Two connections opening one new journal at once (two imports started together) both open
    /// it: turning the file to WAL needs it alone, and SQLite answered one "database is locked"
    /// at once, without waiting.
    @Test func twoConnectionsOpeningANewJournalAtOnceBothOpenIt() throws {
        for _ in 0..<40 {
            let directory = makeTemporaryDirectory()
            let failures = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                do {
                    try Journal(stateDirectory: directory).append([], source: "none")
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
            #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        }
    }

    /// A new file gets the page size asked for (the journal's 16 KiB), others SQLite's 4 KiB; a
    /// file made with another size keeps it, and opens and writes as before.
    @Test func newFilesGetThePageSizeAskedForAndOldFilesKeepTheirs() throws {
        let directory = makeTemporaryDirectory()
        let journal = try Journal(stateDirectory: directory)
        try journal.append([], source: "none")
        #expect(try journal.database.scalarInt("PRAGMA page_size") == Int64(Journal.pageSize))
        let plain = try SQLiteDatabase(path: directory + "/plain.sqlite")
        try plain.execute("CREATE TABLE t (x)")
        #expect(try plain.scalarInt("PRAGMA page_size") == 4096)
        #expect(try plain.scalarText("PRAGMA journal_mode") == "wal")

        // A journal an earlier version made, with SQLite's default 4 KiB pages, already in WAL.
        let old = makeTemporaryDirectory()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [old + "/journal.sqlite", "PRAGMA page_size = 4096; PRAGMA journal_mode = WAL; "
                             + "CREATE TABLE entries(seq INTEGER PRIMARY KEY, source TEXT NOT NULL, type TEXT, received_at INTEGER NOT NULL, "
                             + "payload BLOB NOT NULL);"]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let earlier = try Journal(stateDirectory: old)
        #expect(try earlier.database.scalarInt("PRAGMA page_size") == 4096)
        try earlier.append([.sample(Sample(id: "A", type: "HKQuantityTypeIdentifierHeartRate", kind: .quantity,
                                           start: Timestamp(epochMilliseconds: 0), end: Timestamp(epochMilliseconds: 0),
                                           value: 60, unit: "count/min", sourceName: "W"))], source: "s")
        #expect(try earlier.head() == 1)
    }
}
