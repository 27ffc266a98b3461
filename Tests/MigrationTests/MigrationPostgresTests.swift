import TestSupport
import Foundation
import HealthRouterCore
import Testing

/// Migrations through PostgreSQL (the throwaway one of scripts/with-postgres.sh, PG_URL):
/// sqlite → timescaledb → sqlite returns the same canonical samples; sqlite → postgres
/// (health4ai's schema) migrates and verifies. Without PG_URL these tests do nothing.
@Suite(.serialized) struct MigrationPostgresTests {
    static var url: String? {
        let url = ProcessInfo.processInfo.environment["PG_URL"]
        return url?.isEmpty == false ? url : nil
    }

    static func schema() -> String {
        "m_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
    }

    static func directory(url: String, schema: String) throws -> String {
        let directory = makeTemporaryDirectory("migrate-pg")
        try """
            state_directory: ./state
            sinks:
              local:
                type: sqlite
                path: ./local.sqlite
              back:
                type: sqlite
                path: ./back.sqlite
              tsdb:
                type: timescaledb
                url: "\(url)"
                schema: \(schema)_ts
                require_timescaledb: false
              supa:
                type: postgres
                url: "\(url)"
                schema: \(schema)_pg
                user_id: 00000000-0000-4000-8000-000000000001
            routes:
              - types: ["*"]
                to: [local]
            """.write(toFile: directory + "/healthrouter.yaml", atomically: true, encoding: .utf8)
        try CommandRunner.generateExport(records: 1_500, to: directory + "/export.zip", zip: true, quirks: true)
        let result = try CommandRunner.run(["import", "export.zip", "-q"], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        return directory
    }

    @Test func sqliteToTimescaleDBAndBackKeepsEveryCanonicalSample() throws {
        guard let url = Self.url else { return }
        let directory = try Self.directory(url: url, schema: Self.schema())
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let there = try CommandRunner.run(["migrate", "--from", "local", "--to", "tsdb", "-q"], in: directory)
        #expect(there.status == 0, "\(there.stdout)\(there.stderr)")
        let back = try CommandRunner.run(["migrate", "--from", "tsdb", "--to", "back", "--verify", "-q"], in: directory)
        #expect(back.status == 0, "\(back.stdout)\(back.stderr)")
        #expect(try MigrationCommandTests.samples(sqlite: directory + "/back.sqlite")
                == MigrationCommandTests.samples(sqlite: directory + "/local.sqlite"))
    }

    @Test func sqliteToPostgresMigratesAndVerifyReportsPerType() throws {
        guard let url = Self.url else { return }
        let directory = try Self.directory(url: url, schema: Self.schema())
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let migrated = try CommandRunner.run(["migrate", "--from", "local", "--to", "supa", "-q"], in: directory)
        #expect(migrated.status == 0, "\(migrated.stdout)\(migrated.stderr)")
        let verify = try CommandRunner.run(["migrate", "--from", "local", "--to", "supa", "--verify-only", "-q"], in: directory)
        #expect(verify.stdout.contains("heartRate"))
        // Every kind has a row (correlations, activity summaries, … as `record` rows): nothing differs.
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        #expect(!verify.stdout.contains("DIFFERENT"), "\(verify.stdout)")
    }
}
