import Foundation
import Testing
@testable import HealthRouterCore

@Suite struct SQLiteDatabaseTests {
    /// New files get 16 KiB pages; a file made with another size keeps it, and opens and writes as before.
    @Test func newFilesGetLargePagesAndOldFilesKeepTheirs() throws {
        let directory = makeTemporaryDirectory()
        let fresh = try SQLiteDatabase(path: directory + "/new.sqlite")
        try fresh.execute("CREATE TABLE t (x)")
        #expect(try fresh.scalarInt("PRAGMA page_size") == Int64(SQLiteDatabase.newFilePageSize))
        #expect(try fresh.scalarText("PRAGMA journal_mode") == "wal")

        // A store an earlier version made, with SQLite's default 4 KiB pages, already in WAL.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [directory + "/old.sqlite", "PRAGMA page_size = 4096; PRAGMA journal_mode = WAL; CREATE TABLE t (x); INSERT INTO t VALUES (1);"]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let old = try SQLiteDatabase(path: directory + "/old.sqlite")
        try old.execute("INSERT INTO t VALUES (2)")
        #expect(try old.scalarInt("PRAGMA page_size") == 4096)
        #expect(try old.scalarInt("SELECT sum(x) FROM t") == 3)
    }
}
