import CSQLite3
import Foundation
import Testing
import HealthRouterCore
import NDJSONSink
import SQLiteSink

/// The conformance suite on the embedded sinks.
@Suite struct EmbeddedSinkConformanceTests {
    func sqlite(_ path: String) -> SinkConformance {
        var refused = ConformanceFixtures.numbered(999)
        refused.end = Timestamp(epochMilliseconds: refused.start.epochMilliseconds - 1000)
        return SinkConformance(
            make: { SQLiteSink(configuration: .init(path: path), context: ConformanceFixtures.context()) },
            snapshot: {
                var rows: [String] = []
                for table in ["samples", "sleep_stages", "workouts", "correlations", "activity_summaries", "heartbeats",
                              "workout_events", "workout_route_points", "correlation_members", "deleted_samples"] {
                    rows += try Self.rows(path, "SELECT * FROM \(table)", skipping: ["journal_seq", "deleted_at"])
                        .map { table + ":" + $0 }
                }
                return rows.sorted()
            },
            storedIds: {
                var ids = Set<String>()
                for table in ["samples", "sleep_stages", "workouts", "correlations", "activity_summaries"] {
                    ids.formUnion(try Self.rows(path, "SELECT id FROM \(table)", skipping: []))
                }
                return ids
            },
            refused: refused)
    }

    /// Rows of `sql` as `|`-joined text.
    static func rows(_ path: String, _ sql: String, skipping: Set<String>) throws -> [String] {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { return [] }
        defer { sqlite3_close(handle) }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else { return [] }
        defer { sqlite3_finalize(statement) }
        var rows: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            var fields: [String] = []
            for column in 0..<sqlite3_column_count(statement) {
                let name = String(cString: sqlite3_column_name(statement, column))
                if skipping.contains(name) { continue }
                fields.append(sqlite3_column_text(statement, column).map { String(cString: $0) } ?? "NULL")
            }
            rows.append(fields.joined(separator: "|"))
        }
        return rows
    }

    @Test func sqliteSameBatchTwice() throws {
        let directory = ConformanceFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try sqlite(directory + "/store.sqlite").sameBatchTwiceLeavesIdenticalContent()
    }

    @Test func sqliteTombstonesDelete() throws {
        let directory = ConformanceFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try sqlite(directory + "/store.sqlite").tombstonesDelete()
    }

    @Test func sqliteRefusedRowBecomesADeadLetter() throws {
        let directory = ConformanceFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try sqlite(directory + "/store.sqlite").refusedRowBecomesDeadLetter()
    }

    @Test func ndjsonSameBatchTwice() throws {
        let directory = ConformanceFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let folder = directory + "/out"
        let conformance = SinkConformance(
            make: { NDJSONSink(configuration: .init(directory: folder), context: ConformanceFixtures.context()) },
            snapshot: {
                let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".ndjson") }
                return try names.sorted().flatMap { name in
                    try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
                        .split(separator: "\n").map { name + ":" + Self.withoutReceivedAt(String($0)) }
                }.sorted()
            },
            storedIds: nil, refused: nil)
        try conformance.sameBatchTwiceLeavesIdenticalContent()
    }

    /// A line without its `receivedAt` field (the time the sink wrote it).
    static func withoutReceivedAt(_ line: String) -> String {
        guard let range = line.range(of: "\"receivedAt\":\"") else { return line }
        guard let end = line[range.upperBound...].firstIndex(of: "\"") else { return line }
        return String(line[..<range.lowerBound]) + String(line[line.index(after: end)...])
    }
}
