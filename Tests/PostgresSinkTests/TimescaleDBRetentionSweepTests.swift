import Foundation
import Testing
import HealthRouterCore
import PostgresClient
import TimescaleDBSink

/// What a dropped chunk leaves in the plain tables is removed once the sink has caught up. Runs
/// on a server of its own that preloads the stand-in (`scripts/with-postgres.sh`): its chunks
/// are the ranges holding rows and its `drop_chunks` deletes them, as the retention job would.
@Suite struct TimescaleDBRetentionSweepTests {
    static let yearsAgo = -12 * 365 * 86_400 as Int64

    /// `sample` moved to `seconds` after the fixtures' instant, under `id`.
    static func moved(_ sample: Sample, id: String, to seconds: Int64) -> Sample {
        var moved = sample
        moved.id = id
        let length = sample.end.epochMilliseconds - sample.start.epochMilliseconds
        moved.start = ConformanceFixtures.at(seconds)
        moved.end = Timestamp(epochMilliseconds: moved.start.epochMilliseconds + length, utcOffsetSeconds: 3600)
        return moved
    }

    @Test func indexRowsAndWorkoutPartsOfDroppedChunksGoAndTheRestStays() throws {
        guard let (server, admin) = try PostgresServerFixture.withTimescaleDBStandIn(portOffset: 200) else { return }
        defer { admin.close() }
        func sink(_ schema: String) throws -> TimescaleDBSink {
            let sink = TimescaleDBSink(configuration: .init(url: server.url, schema: schema), context: ConformanceFixtures.context())
            _ = try sink.prepare()
            #expect(sink.usesHypertables)
            return sink
        }
        let health = try sink("health")
        defer { health.close() }
        // Twelve years back: older than the 520 weeks dropped below (the fixtures are of 2024).
        let old = [Self.moved(ConformanceFixtures.numbered(1), id: "HR-OLD", to: Self.yearsAgo),
                   Self.moved(ConformanceFixtures.workout, id: "W-OLD", to: Self.yearsAgo),
                   Self.moved(ConformanceFixtures.sleep, id: "SLEEP-OLD", to: Self.yearsAgo)]
        // Each table keeps two chunks, both over by now: 60 days (samples: 30-day chunks) and 400 days (the others: 365) apart.
        let recent = [ConformanceFixtures.heartRate, Self.moved(ConformanceFixtures.numbered(2), id: "HR-LATER", to: 60 * 86_400),
                      ConformanceFixtures.workout, Self.moved(ConformanceFixtures.workout, id: "W-LATER", to: 400 * 86_400),
                      ConformanceFixtures.sleep, Self.moved(ConformanceFixtures.sleep, id: "SLEEP-LATER", to: 400 * 86_400)]
        try health.write(ConformanceFixtures.entries(recent + old), cursor: 9)
        // Another schema's old chunk, not dropped: the sweep of `health` must not take it for its own.
        let other = try sink("other")
        defer { other.close() }
        try other.write(ConformanceFixtures.entries([Self.moved(ConformanceFixtures.numbered(3), id: "HR-OTHER", to: Self.yearsAgo * 2)]),
                        cursor: 1)

        func indexed(_ schema: String = "health") throws -> Set<String> {
            let rows = try admin.execute("SELECT id FROM \(schema).sample_index")
            return Set((0..<rows.rowCount).compactMap { rows.text($0, 0) })
        }
        func workoutsWithParts() throws -> Set<String> {
            let rows = try admin.execute(["workout_events", "workout_statistics", "workout_activities", "workout_routes",
                                          "workout_route_points"].map { "SELECT workout_id FROM health.\($0)" }.joined(separator: " UNION "))
            return Set((0..<rows.rowCount).compactMap { rows.text($0, 0) })
        }
        // The fixture's workout has events, a route and its points.
        #expect(try admin.execute("SELECT count(*) FROM health.workout_routes WHERE workout_id = 'W-OLD'").int(0, 0) == 1)
        for table in ["samples", "sleep_stages", "workouts"] {
            try admin.execute("SELECT drop_chunks('health.\(table)', older_than => INTERVAL '520 weeks')")
        }
        #expect(try admin.execute("SELECT count(*) FROM health.samples").int(0, 0) == 2)
        // Dropped chunks leave their ids and workout parts behind …
        #expect(try indexed() == Set((recent + old).map(\.id)))
        #expect(try workoutsWithParts() == ["W-1", "W-LATER", "W-OLD"])

        // … until the sink has caught up.
        try health.caughtUp()
        #expect(try indexed() == Set(recent.map(\.id)))
        #expect(try workoutsWithParts() == ["W-1", "W-LATER"])
        #expect(try indexed("other") == ["HR-OTHER"])
        let swept = try admin.execute("SELECT count(*) FROM health.swept_chunks WHERE earliest_chunk IS NOT NULL")
        #expect(swept.int(0, 0) == 3)

        // What stays still works: a tombstone deletes a kept row through its index row.
        try health.write([ConformanceFixtures.tombstone([ConformanceFixtures.heartRate.id], sequence: 10)], cursor: 10)
        #expect(try admin.execute("SELECT count(*) FROM health.samples").int(0, 0) == 1)
        #expect(!(try indexed().contains(ConformanceFixtures.heartRate.id)))

        // An old sample delivered again makes its chunk again: its index row stays at the next sweep.
        try health.write(ConformanceFixtures.entries([old[0]], from: 11), cursor: 11)
        #expect(try indexed().contains("HR-OLD"))
        // A table left without any chunk has no row: every index row pointing at it goes.
        try admin.execute("SELECT drop_chunks('health.sleep_stages', older_than => INTERVAL '0 seconds')")
        // The sink that swept checks again an hour later, not at each catch-up …
        try health.caughtUp()
        #expect(try indexed().contains("SLEEP-1"))
        // … a new one (the next start) at its first.
        let again = try sink("health")
        defer { again.close() }
        try again.caughtUp()
        #expect(try indexed() == ["HR-LATER", "HR-OLD", "W-1", "W-LATER"])
        #expect(try workoutsWithParts() == ["W-1", "W-LATER"])
    }
}
