import HealthRouterCore
import TestSupport
import Foundation
import Testing

/// A journal whose entries were pruned: `status` says what its counts are.
@Suite struct PrunedJournalTests {
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
}
