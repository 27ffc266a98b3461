import TestSupport
import Foundation
import HealthRouterCore
import SQLiteSink
import Testing

/// The full round trip of issue 5 with the real binary, on PostgreSQL (PG_URL, from
/// scripts/with-postgres.sh; each test its own schemas): sqlite → timescaledb → postgres
/// (health4ai's schema) → ndjson → sqlite returns every sample, of every kind, as the same
/// canonical sample, and `migrate --verify` finds sqlite and postgres equal.
@Suite(.serialized) struct RoundTripPostgresTests {
    /// Samples that exercise the `healthrouter:` keys: offsets, created-at, provenance, a user the
    /// column cannot hold, `%` rounding, Pulso's category names, no value, a plain workout,
    /// `HKTimeZone` in the metadata (as Apple's export has it), and metadata keys in an order jsonb
    /// would change.
    static let extras: [Sample] = [
        Sample(id: "0B7E4C10-3C2D-4F6A-9E8B-1A2B3C4D5E01", type: "HKQuantityTypeIdentifierOxygenSaturation", kind: .quantity,
               start: Timestamp(epochMilliseconds: 1_704_400_000_123, utcOffsetSeconds: 19_800),
               end: Timestamp(epochMilliseconds: 1_704_400_000_123, utcOffsetSeconds: 19_800),
               timeZone: "Asia/Kolkata", value: 97.3, unit: "%", sourceName: "Ring", sourceVersion: "3.1 (42)",
               sourceBundleId: "com.example.ring", device: "<<HKDevice>, name:Oura, manufacturer:Oura>",
               createdAt: Timestamp(epochMilliseconds: 1_704_400_100_000, utcOffsetSeconds: -3_600),
               metadata: [MetadataEntry("zeta", .string("last")), MetadataEntry("HKMetadataKeyBarometricPressure", .number(101.3)),
                          MetadataEntry("a", .bool(true)), MetadataEntry("HKExternalUUID", .string("x-1"))]),
        Sample(id: "pulso-sleep-1", type: "HKCategoryTypeIdentifierSleepAnalysis", kind: .category,
               start: SinkFixtures.time("2024-01-04 23:30:00 -0500"), end: SinkFixtures.time("2024-01-05 01:00:00 -0500"),
               categoryValue: "asleepCore", sourceName: "Pulso",
               metadata: [MetadataEntry("HKTimeZone", .string("America/New_York"))],
               userId: "0B7E4C10-3C2D-4F6A-9E8B-1A2B3C4D5E0A"),
        Sample(id: "no-value-1", type: "HKQuantityTypeIdentifierBodyMass", kind: .quantity,
               start: Timestamp(epochMilliseconds: 1_704_300_000_000), end: Timestamp(epochMilliseconds: 1_704_300_000_000),
               timeZone: "Europe/Berlin", unit: "kg", sourceName: "Scale",
               metadata: [MetadataEntry("HKTimeZone", .string("Europe/Berlin"))], userId: "00000000-0000-4000-8000-000000000001"),
        Sample(id: "W-PLAIN", type: "HKWorkoutTypeIdentifier", kind: .workout,
               start: SinkFixtures.time("2024-01-03 07:00:00 +0000"), end: SinkFixtures.time("2024-01-03 07:30:00 +0000"),
               sourceName: "Apple Watch", metadata: [MetadataEntry("HKIndoorWorkout", .bool(false))],
               detail: .workout(Workout(activityType: "HKWorkoutActivityTypeRunning", durationSeconds: 1800,
                                        totalDistanceMeters: 5012.5, totalEnergyBurnedKilocalories: 301))),
    ]

    static func write(_ samples: [Sample], sqlite path: String) throws {
        let sink = SQLiteSink(configuration: .init(path: path), context: SinkFixtures.context(TestScratch.path))
        _ = try sink.prepare()
        defer { sink.close() }
        try sink.write(SinkFixtures.entries(samples), cursor: Int64(samples.count))
    }

    @Test func sqliteTimescaleDBPostgresNDJSONSqliteKeepsEverySample() throws {
        guard let url = MigrationPostgresTests.url else { return }
        let schema = MigrationPostgresTests.schema()
        let directory = makeTemporaryDirectory("roundtrip-pg")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try """
            state_directory: ./state
            sinks:
              local:
                type: sqlite
                path: ./local.sqlite
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
              lake:
                type: ndjson
                directory: ./lake
              back:
                type: sqlite
                path: ./back.sqlite
            routes:
              - types: ["*"]
                to: [local]
            """.write(toFile: directory + "/healthrouter.yaml", atomically: true, encoding: .utf8)
        let all = SinkFixtures.all + Self.extras
        #expect(Set(all.map(\.kind)) == Set(SampleKind.allCases))
        try Self.write(all, sqlite: directory + "/local.sqlite")

        for (from, to) in [("local", "tsdb"), ("tsdb", "supa"), ("supa", "lake"), ("lake", "back")] {
            let step = try CommandRunner.run(["migrate", "--from", from, "--to", to, "-q"], in: directory)
            #expect(step.status == 0, "\(from) → \(to): \(step.stdout)\(step.stderr)")
        }
        let back = try MigrationCommandTests.samples(sqlite: directory + "/back.sqlite")
        let expected = Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0) })
        for (id, sample) in expected { #expect(back[id] == sample, "\(id): \(String(describing: back[id]))") }
        #expect(Set(back.keys) == Set(expected.keys))

        let verify = try CommandRunner.run(["migrate", "--from", "local", "--to", "supa", "--verify-only"], in: directory)
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        #expect(!verify.stdout.contains("DIFFERENT"))
    }
}
