import TestSupport
import Foundation
import Testing
import HealthRouterCore

/// The apple_health_export README's way to delete the copies of records kept whole that a
/// healthrouter before this one stored with their `device`'s `0x…` address (an audiogram then
/// stored twice): its query, run as printed, written to a file and imported, deletes from every
/// store the earlier copies that have a copy without the address, keeps one that has none, and a
/// backfill does not bring them back (a `DELETE` in the sqlite store alone did).
@Suite struct EarlierKeptWholeCopiesTests {
    /// A line an earlier healthrouter's ndjson sink wrote for an audiogram exported with `address`.
    /// `start`: ISO 8601; `written`: as the export wrote it.
    static func earlierLine(id: String, start: String, written: String, address: String) -> String {
        let device = "<<HKDevice: \(address)>, name:iPhone, manufacturer:Apple Inc., software:16.5>"
        return #"{"uuid":"\#(id)","type":"audiogram","start":"\#(start)","end":"\#(start)","source":"Mimi","#
            + #""identifier":"HKDataTypeIdentifierAudiogram","kind":"other","device":"<<HKDevice>, name:iPhone, manufacturer:Apple Inc., software:16.5>","#
            + #""record":{"element":"Audiogram","attributes":{"type":"HKDataTypeIdentifierAudiogram","sourceName":"Mimi","#
            + #""device":"\#(device)","startDate":"\#(written)","endDate":"\#(written)"},"#
            + #""children":[{"element":"SensitivityPoint","attributes":{"frequencyValue":"500","leftEarValue":"10"}}]}}"#
    }

    @Test func theReadmesDeletionRemovesTheEarlierCopiesFromEveryStore() throws {
        let directory = makeTemporaryDirectory()
        let config = try writeConfig("""
            state_directory: \(directory)/state
            sinks:
              local: { type: sqlite, path: \(directory)/health.sqlite }
              lake: { type: ndjson, directory: \(directory)/lake }
            """, in: directory)
        // Two copies an earlier healthrouter stored of one audiogram (two exports), and one of another
        // that the newest export no longer holds.
        let twice1 = "11111111-0000-4000-8000-000000000001", twice2 = "11111111-0000-4000-8000-000000000002"
        let gone = "11111111-0000-4000-8000-000000000003"
        try ([Self.earlierLine(id: twice1, start: "2023-06-01T09:00:00-07:00", written: "2023-06-01 09:00:00 -0700", address: "0x282a45810"),
              Self.earlierLine(id: twice2, start: "2023-06-01T09:00:00-07:00", written: "2023-06-01 09:00:00 -0700", address: "0x2839aa000"),
              Self.earlierLine(id: gone, start: "2021-03-01T09:00:00-08:00", written: "2021-03-01 09:00:00 -0800", address: "0x2839aa000")]
            .joined(separator: "\n") + "\n").write(toFile: directory + "/earlier.ndjson", atomically: true, encoding: .utf8)
        // The newest export, imported by this healthrouter: the audiogram without its address.
        try """
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="en_US">
             <ExportDate value="2023-08-01 10:00:00 -0700"/>
             <Audiogram type="HKDataTypeIdentifierAudiogram" sourceName="Mimi" device="&lt;&lt;HKDevice: 0x2830aa1&gt;, name:iPhone, manufacturer:Apple Inc., software:16.5&gt;" startDate="2023-06-01 09:00:00 -0700" endDate="2023-06-01 09:00:00 -0700">
              <SensitivityPoint frequencyValue="500" leftEarValue="10"/>
             </Audiogram>
            </HealthData>

            """.write(toFile: directory + "/export.xml", atomically: true, encoding: .utf8)
        for input in ["earlier.ndjson", "export.xml"] {
            let imported = try CommandRunner.run(["import", input, "--config", config, "-q"], in: directory)
            #expect(imported.status == 0, "\(imported.stdout)\(imported.stderr)")
        }
        func ids() throws -> Set<String> {
            let store = try SQLiteDatabase(path: directory + "/health.sqlite", readOnly: true)
            let rows = try store.prepare("SELECT id FROM other_records")
            var ids: Set<String> = []
            while try rows.step() { ids.insert(rows.string(0) ?? "") }
            return ids
        }
        let stored = try ids()
        #expect(stored.count == 4 && stored.isSuperset(of: [twice1, twice2, gone]), "\(stored)")

        // The README's query, as printed, and its result imported.
        let query = try #require(ReadmeSQL.statements(in: "Plugins/AppleHealthExportSource/README.md",
                                                      section: "Records kept whole stored twice").first)
        let tombstone: String = try {
            let store = try SQLiteDatabase(path: directory + "/health.sqlite", readOnly: true)
            let rows = try store.prepare(query)
            #expect(try rows.step())
            return rows.string(0) ?? ""
        }()
        try (tombstone + "\n").write(toFile: directory + "/earlier-copies.ndjson", atomically: true, encoding: .utf8)
        let deleted = try CommandRunner.run(["import", "earlier-copies.ndjson", "--config", config], in: directory)
        #expect(deleted.status == 0, "\(deleted.stdout)\(deleted.stderr)")
        #expect(deleted.stdout.contains("deleted     2"), "\(deleted.stdout)")

        let kept = stored.subtracting([twice1, twice2])
        #expect(try ids() == kept)
        #expect(kept.contains(gone))
        let lakeDeletions = try String(contentsOfFile: directory + "/lake/_deleted.ndjson", encoding: .utf8)
        #expect(lakeDeletions.contains(twice1) && lakeDeletions.contains(twice2) && !lakeDeletions.contains(gone))
        // A backfill of the store from the journal does not bring them back.
        let backfill = try CommandRunner.run(["backfill", "local", "--config", config], in: directory)
        #expect(backfill.status == 0, "\(backfill.stdout)\(backfill.stderr)")
        #expect(try ids() == kept)
    }
}
