import Foundation
import TestSupport
import HealthRouterCore

/// Samples of several kinds with awkward and SQL-looking strings, for the conformance suite.
enum ConformanceFixtures {
    static let injection = "'; DROP TABLE samples; --"

    static func at(_ seconds: Int64, offset: Int32? = 3600) -> Timestamp {
        Timestamp(epochMilliseconds: 1_704_485_223_000 + seconds * 1000, utcOffsetSeconds: offset)
    }

    static let heartRate = Sample(
        id: "9F1C5A52-1D2B-4A55-9E0B-2D7F6C1A0001", type: "HKQuantityTypeIdentifierHeartRate", kind: .quantity,
        start: at(0), end: at(0), value: 72, unit: "count/min", sourceName: "Jürgen’s Watch 🏃‍♀️\t\\n",
        sourceVersion: "10.2", device: "Apple Watch", createdAt: at(60),
        metadata: [MetadataEntry("HKMetadataKeyHeartRateMotionContext", .number(1)),
                   MetadataEntry(injection, .string(injection)), MetadataEntry("HKWasUserEntered", .bool(false))],
        userId: "alice")

    static let steps = Sample(
        id: "9F1C5A52-1D2B-4A55-9E0B-2D7F6C1A0002", type: injection, kind: .quantity,
        start: at(10, offset: -18_000), end: at(70, offset: -18_000), value: 104.5, unit: "count",
        sourceName: injection, sourceBundleId: "com.apple.health.81D0")

    static let sleep = Sample(
        id: "SLEEP-1", type: "HKCategoryTypeIdentifierSleepAnalysis", kind: .category,
        start: at(3600), end: at(7200), timeZone: "Europe/Lisbon", value: 5,
        categoryValue: "HKCategoryValueSleepAnalysisAsleepREM", sourceName: "Apple Watch")

    static let workout = Sample(
        id: "W-1", type: "HKWorkoutTypeIdentifier", kind: .workout, start: at(100), end: at(3712),
        sourceName: "SmartGym", metadata: [MetadataEntry("HKIndoorWorkout", .bool(true))],
        detail: .workout(Workout(
            activityType: "HKWorkoutActivityTypeRunning", durationSeconds: 3612.4, totalDistanceMeters: 10_012.5,
            totalEnergyBurnedKilocalories: 412,
            events: [WorkoutEvent(type: "HKWorkoutEventTypePause", date: at(200))],
            routes: [WorkoutRoute(sourceName: "Apple Watch", points: [
                RoutePoint(time: at(100), latitude: 38.7223, longitude: -9.1393, altitude: 12.5)])])))

    static let hrv = Sample(
        id: "HRV-1", type: "HKQuantityTypeIdentifierHeartRateVariabilitySDNN", kind: .quantity,
        start: at(500), end: at(560), value: 48.2, unit: "ms", sourceName: "Apple Watch",
        detail: .heartbeats([Heartbeat(time: at(501), beatsPerMinute: 61)]))

    static let bloodPressure = Sample(
        id: "BP-1", type: "HKCorrelationTypeIdentifierBloodPressure", kind: .correlation,
        start: at(900), end: at(900), sourceName: "Withings", detail: .correlation(memberIds: ["BP-S", "BP-D"]))

    static let activitySummary = Sample(
        id: "AS-1", type: "ActivitySummary", kind: .activitySummary, start: at(0), end: at(0), sourceName: "Health",
        detail: .record(GenericRecord(element: "ActivitySummary", attributes: [.init("dateComponents", "2024-01-05"),
                                                                              .init("activeEnergyBurned", "512.25")])))

    static let all = [heartRate, steps, sleep, workout, hrv, bloodPressure, activitySummary]

    /// Samples whose metadata holds U+0000, which jsonb refuses: in a string, in a key, as a
    /// `\u0000` escape in a value's own JSON (beside `\\u0000`, a backslash and `u0000`), and in
    /// a workout event's metadata (the workout's detail). The plain sample's keys are in jsonb's
    /// order, so nothing but the NUL makes a sink keep an exact copy beside its jsonb.
    static let withNUL: [Sample] = {
        var plain = ConformanceFixtures.numbered(1)
        plain.metadata = [MetadataEntry("k\u{0}", .bool(true)), MetadataEntry("raw", .json(#"{"x":"c\u0000d\\u0000"}"#)),
                          MetadataEntry("note", .string("a\u{0}b"))]
        var workout = ConformanceFixtures.workout
        guard case .workout(var parts) = workout.detail else { return [plain] }
        parts.events = [WorkoutEvent(type: "HKWorkoutEventTypePause", date: ConformanceFixtures.at(200),
                                     metadata: [MetadataEntry("reason", .string("x\u{0}"))])]
        workout.detail = .workout(parts)
        return [plain, workout]
    }()

    static func entries(_ samples: [Sample], from first: Int64 = 1) -> [JournalEntry] {
        samples.enumerated().map { JournalEntry(sequence: first + Int64($0.offset), source: "history", item: .sample($0.element)) }
    }

    static func tombstone(_ ids: [String], sequence: Int64) -> JournalEntry {
        JournalEntry(sequence: sequence, source: "phone", item: .tombstone(Tombstone(ids: ids)))
    }

    static func context() -> PluginContext {
        PluginContext(name: "test", stateDirectory: TestScratch.path, logger: Logger(minimumLevel: .error))
    }

    /// A heart-rate sample numbered `n`, with a distinct id.
    static func numbered(_ n: Int) -> Sample {
        var sample = heartRate
        sample.id = String(format: "00000000-0000-4000-8000-%012d", n)
        sample.start = at(Int64(n) * 10)
        sample.end = sample.start
        sample.value = Double(60 + n % 40)
        return sample
    }

    static func temporaryDirectory() -> String {
        let path = TestScratch.path + "hr-pgtests-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
