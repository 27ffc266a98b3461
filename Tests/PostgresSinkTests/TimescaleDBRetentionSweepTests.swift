import Foundation
import Testing
import HealthRouterCore
import PostgresClient
import TimescaleDBSink

/// What a dropped chunk leaves in the plain tables is removed once the sink has caught up. Runs
/// on a server of its own that preloads the stand-in (`scripts/with-postgres.sh`): its chunks
/// are the ranges holding rows and its `drop_chunks` deletes them, as the retention job would.
@Suite struct TimescaleDBRetentionSweepTests {
    @Test func indexRowsAndWorkoutPartsOfDroppedChunksGoAndTheRestStays() throws {
        guard let (server, admin) = try PostgresServerFixture.withTimescaleDBStandIn(portOffset: 200) else { return }
        defer { admin.close() }
        let sink = TimescaleDBSink(configuration: .init(url: server.url, schema: "health"), context: ConformanceFixtures.context())
        defer { sink.close() }
        _ = try sink.prepare()
        #expect(sink.usesHypertables)

        // Twelve years back: older than the 520 weeks dropped below; the fixtures are of 2024.
        let yearsAgo = -12 * 365 * 86_400 as Int64
        var oldHeartRate = ConformanceFixtures.numbered(1)
        oldHeartRate.start = ConformanceFixtures.at(yearsAgo)
        oldHeartRate.end = oldHeartRate.start
        var oldWorkout = ConformanceFixtures.workout
        oldWorkout.id = "W-OLD"
        oldWorkout.start = ConformanceFixtures.at(yearsAgo)
        oldWorkout.end = ConformanceFixtures.at(yearsAgo + 3600)
        var oldSleep = ConformanceFixtures.sleep
        oldSleep.id = "SLEEP-OLD"
        oldSleep.start = ConformanceFixtures.at(yearsAgo)
        oldSleep.end = ConformanceFixtures.at(yearsAgo + 3600)
        let recent = [ConformanceFixtures.heartRate, ConformanceFixtures.workout, ConformanceFixtures.sleep]
        try sink.write(ConformanceFixtures.entries(recent + [oldHeartRate, oldWorkout, oldSleep]), cursor: 6)

        func indexed() throws -> Set<String> {
            let rows = try admin.execute("SELECT id FROM health.sample_index")
            return Set((0..<rows.rowCount).compactMap { rows.text($0, 0) })
        }
        func workoutsWithEvents() throws -> Set<String> {
            let rows = try admin.execute("SELECT DISTINCT workout_id FROM health.workout_events UNION "
                                             + "SELECT DISTINCT workout_id FROM health.workout_route_points")
            return Set((0..<rows.rowCount).compactMap { rows.text($0, 0) })
        }
        for table in ["samples", "sleep_stages", "workouts"] {
            try admin.execute("SELECT drop_chunks('health.\(table)', older_than => INTERVAL '520 weeks')")
        }
        #expect(try admin.execute("SELECT count(*) FROM health.samples").int(0, 0) == 1)
        // Dropped chunks leave their ids and workout parts behind …
        #expect(try indexed() == Set((recent + [oldHeartRate, oldWorkout, oldSleep]).map(\.id)))
        #expect(try workoutsWithEvents() == ["W-1", "W-OLD"])

        // … until the sink has caught up.
        try sink.caughtUp()
        #expect(try indexed() == Set(recent.map(\.id)))
        #expect(try workoutsWithEvents() == ["W-1"])

        // What stays still works: a tombstone deletes a kept row through its index row.
        try sink.write([ConformanceFixtures.tombstone([ConformanceFixtures.heartRate.id], sequence: 7)], cursor: 7)
        #expect(try admin.execute("SELECT count(*) FROM health.samples").int(0, 0) == 0)
        #expect(try indexed() == [ConformanceFixtures.workout.id, ConformanceFixtures.sleep.id])

        // A table left without any chunk has no row: every index row pointing at it goes.
        try admin.execute("SELECT drop_chunks('health.sleep_stages', older_than => INTERVAL '0 seconds')")
        // The sink that swept sweeps again a day later, not at each catch-up (it reads all of sample_index) …
        try sink.caughtUp()
        #expect(try indexed() == [ConformanceFixtures.workout.id, ConformanceFixtures.sleep.id])
        // … a new one (the next start) at its first.
        let again = TimescaleDBSink(configuration: .init(url: server.url, schema: "health"), context: ConformanceFixtures.context())
        defer { again.close() }
        _ = try again.prepare()
        try again.caughtUp()
        #expect(try indexed() == [ConformanceFixtures.workout.id])
    }
}
