import HealthRouterCore
import TestSupport
import Foundation
import Testing

/// A pruned journal keeps its file's size (`journal.retain` frees pages that later entries reuse):
/// `status` says what its counts are, and the README's `sqlite3 journal.sqlite VACUUM`, with
/// healthrouter stopped, gives the space back and leaves a journal healthrouter goes on with.
@Suite struct PrunedJournalTests {
    static let sqlite3 = SQLiteShell.path

    /// A state directory whose journal took an export of `records` and pruned every entry of it.
    static func prunedJournal(records: Int) throws -> (directory: String, config: String) {
        let directory = makeTemporaryDirectory()
        try CommandRunner.generateExport(records: records, to: directory + "/export.xml", zip: false, quirks: false)
        let config = try writeConfig("""
            state_directory: \(directory)/state
            journal: { retain: 0s }
            sinks:
              local: { type: sqlite, path: \(directory)/health.sqlite }
            """, in: directory)
        let imported = try CommandRunner.run(["import", "export.xml", "--config", config], in: directory)
        #expect(imported.status == 0, "\(imported.stdout)\(imported.stderr)")
        #expect(imported.stdout.contains("  journal     pruned "), "\(imported.stdout)")
        return (directory, config)
    }

    /// After pruning, `status` counted `sample_ids` as "distinct samples" beside "0 entries": those
    /// are the ids the journal knows, which outlive their entries and include deleted ones.
    @Test func statusSaysItCountsTheIdsItKnows() throws {
        let (directory, config) = try Self.prunedJournal(records: 300)
        let status = try CommandRunner.run(["status", "--config", config], in: directory)
        #expect(status.status == 0, "\(status.stdout)\(status.stderr)")
        let line = try #require(status.stdout.split(separator: "\n").first { $0.hasPrefix("journal ") }, "\(status.stdout)")
        #expect(!line.contains("distinct samples"), "\(line)")
        #expect(line.contains(/^journal +0 entries, [1-9][0-9,]* sample ids known \(kept after pruning, deleted ones included\), 0 deleted ids$/),
                "\(line)")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: PrunedJournalTests.sqlite3), "needs sqlite3"))
    func aVacuumedJournalGivesSpaceBackAndWorksOn() throws {
        let (directory, config) = try Self.prunedJournal(records: 5_000)
        let path = directory + "/state/journal.sqlite"
        func sqlite(_ statement: String) throws -> String {
            let (status, text) = try SQLiteShell.run(path, statement)
            #expect(status == 0, "\(text)")
            return text
        }
        func size() throws -> Int64 { (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64) ?? 0 }
        // Pruned, the entries' pages are free but still the file's.
        #expect(Int(try sqlite("PRAGMA freelist_count")) ?? 0 > 0)
        let before = try size()
        _ = try sqlite("VACUUM")
        #expect(try sqlite("PRAGMA freelist_count") == "0")
        #expect(try size() < before)

        // healthrouter goes on with it: the ids it knew still make a re-import nothing new, a new
        // export's samples are journaled and delivered, and `status` and `dump` read it.
        let again = try CommandRunner.run(["import", "export.xml", "--config", config], in: directory)
        #expect(again.status == 0 && again.stdout.contains("nothing new"), "\(again.stdout)\(again.stderr)")
        try CommandRunner.generateExport(records: 500, to: directory + "/later.xml", zip: false, quirks: false, seed: 11)
        let later = try CommandRunner.run(["import", "later.xml", "--config", config], in: directory)
        #expect(later.status == 0, "\(later.stdout)\(later.stderr)")
        #expect(later.stdout.contains(/new +[1-9]/) && later.stdout.contains("caught up"), "\(later.stdout)")
        let status = try CommandRunner.run(["status", "--config", config], in: directory)
        #expect(status.status == 0, "\(status.stdout)\(status.stderr)")
        let dump = try CommandRunner.run(["dump", "--config", config], in: directory)
        #expect(dump.status == 0, "\(dump.stderr)")
        #expect(try sqlite("PRAGMA integrity_check") == "ok")
    }
}
