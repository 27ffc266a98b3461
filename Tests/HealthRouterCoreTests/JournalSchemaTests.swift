import Foundation
import TestSupport
import Testing
@testable import HealthRouterCore

@Suite struct JournalSchemaTests {
    @Test func aJournalOfAnotherLayoutIsRefusedWithWhatToDo() throws {
        let directory = makeTemporaryDirectory()
        let old = try SQLiteDatabase(path: directory + "/journal.sqlite")
        try old.execute("CREATE TABLE sample_ids(id TEXT PRIMARY KEY, content_hash INTEGER NOT NULL, seq INTEGER NOT NULL)")
        let error = #expect(throws: JournalIncompatible.self) { _ = try Journal(stateDirectory: directory) }
        #expect(error?.description.contains("move the file away") == true)
        // A journal from before entries said whether they are the first of their id gains the
        // column; its entries read as not known to be.
        let older = makeTemporaryDirectory()
        do {
            let journal = try Journal(stateDirectory: older)
            try journal.append([.sample(heartRate(60, at: 0))], source: "history")
        }
        let database = try SQLiteDatabase(path: older + "/journal.sqlite")
        try database.execute("ALTER TABLE entries DROP COLUMN first_of_id")
        // Nor the offset each id's start was first journaled with (its rows read as unknown).
        try database.execute("ALTER TABLE sample_ids DROP COLUMN start_offset")
        let reopened = try Journal(stateDirectory: older)
        #expect(try reopened.database.scalarInt("SELECT count(*) FROM sample_ids WHERE start_offset IS NULL") == 1)
        #expect(try reopened.entries(after: 0, limit: 10).map(\.isFirstOfId) == [false])
        try reopened.append([.sample(heartRate(61, at: 1))], source: "history")
        #expect(try reopened.entries(after: 0, limit: 10).map(\.isFirstOfId) == [false, true])
        // A journal of layout 1 is marked as this version's by its first append that writes an
        // entry, so that builds of layout 1 refuse it from then on; opened (by a reader, a
        // `status`, an append of nothing new) it stays theirs. One a later version wrote is
        // refused, saying to run that version.
        let first = makeTemporaryDirectory()
        do {
            let journal = try Journal(stateDirectory: first)
            try journal.append([.sample(heartRate(60, at: 0))], source: "history")
            try journal.database.execute("UPDATE meta SET value = 1 WHERE key = 'schema_version'")
        }
        func layout() throws -> Int64? {
            try SQLiteDatabase(path: first + "/journal.sqlite").scalarInt("SELECT value FROM meta WHERE key = 'schema_version'")
        }
        for role in [Journal.Role.inspector, .reader, .writer] { _ = try Journal(stateDirectory: first, role: role) }
        let upgraded = try Journal(stateDirectory: first)
        try upgraded.append([.sample(heartRate(60, at: 0))], source: "history")
        #expect(try layout() == 1)
        try upgraded.append([.sample(heartRate(61, at: 1))], source: "history")
        #expect(try layout() == Journal.schemaVersion)
        #expect(Journal.schemaVersion == 2)
        try upgraded.database.execute("UPDATE meta SET value = 3 WHERE key = 'schema_version'")
        let newer = #expect(throws: JournalIncompatible.self) { _ = try Journal(stateDirectory: first) }
        #expect(newer?.description.contains("written by a newer healthrouter (journal layout 3; this one reads layouts up to 2): "
                                            + "run the newer version") == true, "\(String(describing: newer))")
        #expect(throws: JournalIncompatible.self) { _ = try Journal(stateDirectory: first, role: .inspector) }
        // Another database under the journal's name (a store copied over it) is refused by every
        // role before anything is made in it; one cut short while being made (only `entries`) is
        // a journal to finish.
        let other = makeTemporaryDirectory()
        try SQLiteDatabase(path: other + "/journal.sqlite").execute("CREATE TABLE samples(id TEXT); CREATE INDEX by_id ON samples(id); ANALYZE")
        for role in [Journal.Role.inspector, .reader, .writer] {
            let refused = #expect(throws: JournalIncompatible.self) { _ = try Journal(stateDirectory: other, role: role) }
            #expect(refused?.otherTables == ["samples"])
            #expect(refused?.description.contains("is not a healthrouter journal: it is another SQLite database (its tables: samples)")
                    == true, "\(String(describing: refused))")
        }
        #expect(try SQLiteDatabase(path: other + "/journal.sqlite").scalarText("SELECT group_concat(name) FROM sqlite_master WHERE type = 'table'") == "samples,sqlite_stat1")
        let cut = makeTemporaryDirectory()
        try SQLiteDatabase(path: cut + "/journal.sqlite").execute("CREATE TABLE entries(seq INTEGER PRIMARY KEY, source TEXT NOT NULL, "
            + "type TEXT, received_at INTEGER NOT NULL, payload BLOB NOT NULL, first_of_id INTEGER NOT NULL DEFAULT 0)")
        try Journal(stateDirectory: cut).append([.sample(heartRate(60, at: 0))], source: "history")
        // A current journal opens again and again.
        let fresh = makeTemporaryDirectory()
        _ = try Journal(stateDirectory: fresh)
        _ = try Journal(stateDirectory: fresh, role: .reader)
    }
}
