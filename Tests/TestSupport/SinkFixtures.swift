import Foundation
import HealthRouterCore

/// Samples of every kind, with the awkward strings real data carries, for the sink and migration tests.
public enum SinkFixtures {
    public static let awkwardSource = "Jürgen’s Apple\u{00A0}Watch 🏃‍♀️"
    public static let injection = "'; DROP TABLE samples; --"

    public static func time(_ text: String) -> Timestamp {
        guard let timestamp = HealthDateParser.parse(text) else { fatalError("bad fixture date \(text)") }
        return timestamp
    }

    public static let heartRate = Sample(
        id: "9F1C5A52-1D2B-4A55-9E0B-2D7F6C1A0001", type: "HKQuantityTypeIdentifierHeartRate", kind: .quantity,
        start: time("2024-01-05 21:07:03 +0100"), end: time("2024-01-05 21:07:03 +0100"),
        value: 72, unit: "count/min", sourceName: awkwardSource, sourceVersion: "10.2",
        device: "<<HKDevice>, name:Apple Watch, model:Watch>",
        createdAt: time("2024-01-05 21:08:00 +0100"),
        metadata: [MetadataEntry("HKMetadataKeyHeartRateMotionContext", .number(1)),
                   MetadataEntry("note", .string(injection)),
                   MetadataEntry("HKWasUserEntered", .bool(false))],
        userId: "alice")

    public static let steps = Sample(
        id: "9F1C5A52-1D2B-4A55-9E0B-2D7F6C1A0002", type: "HKQuantityTypeIdentifierStepCount", kind: .quantity,
        start: Timestamp(epochMilliseconds: 1_704_485_223_250, utcOffsetSeconds: -18_000),
        end: Timestamp(epochMilliseconds: 1_704_485_283_250, utcOffsetSeconds: -18_000),
        value: 104.5, unit: "count", sourceName: injection, sourceBundleId: "com.apple.health.81D0")

    public static let sleep = Sample(
        id: "ABC-123", type: "HKCategoryTypeIdentifierSleepAnalysis", kind: .category,
        start: time("2026-07-06 01:12:00 +0100"), end: time("2026-07-06 02:40:00 +0100"),
        timeZone: "Europe/Lisbon", categoryValue: "HKCategoryValueSleepAnalysisAsleepREM",
        sourceName: "Apple Watch", sourceBundleId: "com.apple.health")

    public static let standHour = Sample(
        id: "STAND-1", type: "HKCategoryTypeIdentifierAppleStandHour", kind: .category,
        start: time("2024-01-05 09:00:00 +0100"), end: time("2024-01-05 10:00:00 +0100"),
        categoryValue: "HKCategoryValueAppleStandHourStood", sourceName: "Apple Watch")

    public static let workout = Sample(
        id: "W-1", type: "HKWorkoutTypeIdentifier", kind: .workout,
        start: time("2026-07-05 18:30:00 +0100"), end: time("2026-07-05 19:30:12 +0100"),
        sourceName: "SmartGym",
        metadata: [MetadataEntry("HKIndoorWorkout", .bool(true)),
                   MetadataEntry("HKWorkoutBrandName", .string("Push Day A")),
                   MetadataEntry("customRounds", .number(3))],
        detail: .workout(Workout(
            activityType: "HKWorkoutActivityTypeTraditionalStrengthTraining", durationSeconds: 3612.4,
            totalEnergyBurnedKilocalories: 412, totalBasalEnergyBurnedKilocalories: 96.5,
            averageHeartRate: 132.5, minimumHeartRate: 88, maximumHeartRate: 171,
            events: [WorkoutEvent(type: "HKWorkoutEventTypePause", date: time("2026-07-05 18:50:00 +0100")),
                     WorkoutEvent(type: "HKWorkoutEventTypeResume", date: time("2026-07-05 18:52:00 +0100"),
                                  durationSeconds: 0, metadata: [MetadataEntry("lap", .number(2))])],
            statistics: [WorkoutStatistic(type: "HKQuantityTypeIdentifierHeartRate",
                                          start: time("2026-07-05 18:30:00 +0100"),
                                          end: time("2026-07-05 19:30:12 +0100"),
                                          average: 132.5, minimum: 88, maximum: 171, unit: "count/min")],
            activities: [WorkoutActivity(
                id: "A-1", activityType: "HKWorkoutActivityTypeTraditionalStrengthTraining",
                start: time("2026-07-05 18:30:00 +0100"), end: time("2026-07-05 19:30:12 +0100"),
                durationSeconds: 3612.4, metadata: [MetadataEntry("WOIntervalStepKeyPath", .string("0.0"))],
                events: [WorkoutEvent(type: "HKWorkoutEventTypeSegment", date: time("2026-07-05 18:30:00 +0100"),
                                      durationSeconds: 600)],
                statistics: [WorkoutStatistic(type: "HKQuantityTypeIdentifierActiveEnergyBurned",
                                              start: time("2026-07-05 18:30:00 +0100"),
                                              end: time("2026-07-05 19:30:12 +0100"), sum: 412, unit: "kcal")])],
            routes: [WorkoutRoute(sourceName: "Apple Watch", start: time("2026-07-05 18:30:00 +0100"),
                                  end: time("2026-07-05 19:30:12 +0100"),
                                  filePath: "/workout-routes/route_2026-07-05_6.30pm.gpx",
                                  points: [RoutePoint(time: Timestamp(epochSeconds: 1_783_272_600, utcOffsetSeconds: 0),
                                                      latitude: 38.7223, longitude: -9.1393, altitude: 12.5,
                                                      horizontalAccuracy: 3.2, verticalAccuracy: 2.1,
                                                      course: 180, speed: 2.75),
                                           RoutePoint(time: Timestamp(epochSeconds: 1_783_272_601),
                                                      latitude: 38.72231, longitude: -9.13931)])])))

    public static let systolic = Sample(
        id: "BP-S", type: "HKQuantityTypeIdentifierBloodPressureSystolic", kind: .quantity,
        start: time("2024-01-05 08:00:00 +0100"), end: time("2024-01-05 08:00:00 +0100"),
        value: 121, unit: "mmHg", sourceName: "Withings")

    public static let bloodPressure = Sample(
        id: "BP-1", type: "HKCorrelationTypeIdentifierBloodPressure", kind: .correlation,
        start: time("2024-01-05 08:00:00 +0100"), end: time("2024-01-05 08:00:00 +0100"),
        sourceName: "Withings", detail: .correlation(memberIds: ["BP-S", "BP-D"]))

    public static let hrv = Sample(
        id: "HRV-1", type: "HKQuantityTypeIdentifierHeartRateVariabilitySDNN", kind: .quantity,
        start: time("2024-01-05 23:58:00 +0100"), end: time("2024-01-06 00:00:00 +0100"),
        value: 48.2, unit: "ms", sourceName: "Apple Watch",
        detail: .heartbeats([Heartbeat(time: Timestamp(epochMilliseconds: 1_704_495_481_230, utcOffsetSeconds: 3600),
                                       beatsPerMinute: 61),
                             Heartbeat(time: Timestamp(epochMilliseconds: 1_704_495_482_190, utcOffsetSeconds: 3600),
                                       beatsPerMinute: 63.5)]))

    public static let activitySummary = Sample(
        id: "AS-2024-01-05", type: "ActivitySummary", kind: .activitySummary,
        start: time("2024-01-05 00:00:00 +0100"), end: time("2024-01-05 00:00:00 +0100"),
        sourceName: "Health",
        detail: .record(GenericRecord(element: "ActivitySummary", attributes: [
            .init("dateComponents", "2024-01-05"), .init("activeEnergyBurned", "512.25"),
            .init("activeEnergyBurnedGoal", "600"), .init("activeEnergyBurnedUnit", "Cal"),
            .init("appleMoveTime", "0"), .init("appleMoveTimeGoal", "0"),
            .init("appleExerciseTime", "41"), .init("appleExerciseTimeGoal", "30"),
            .init("appleStandHours", "11"), .init("appleStandHoursGoal", "12"),
        ])))

    public static let profile = Sample(
        id: "ME-1", type: "Me", kind: .profile,
        start: time("2024-01-06 10:00:00 +0100"), end: time("2024-01-06 10:00:00 +0100"),
        sourceName: "Health",
        detail: .record(GenericRecord(element: "Me", attributes: [
            .init("HKCharacteristicTypeIdentifierDateOfBirth", "1990-02-02"),
            .init("HKCharacteristicTypeIdentifierBiologicalSex", "HKBiologicalSexFemale"),
            .init("HKCharacteristicTypeIdentifierBloodType", "HKBloodTypeNotSet"),
            .init("HKCharacteristicTypeIdentifierFitzpatrickSkinType", "HKFitzpatrickSkinTypeNotSet"),
            .init("HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse", ""),
        ])))

    public static let audiogram = Sample(
        id: "AUD-1", type: "HKDataTypeIdentifierAudiogram", kind: .other,
        start: time("2024-01-03 12:00:00 +0100"), end: time("2024-01-03 12:10:00 +0100"),
        sourceName: "Mimi",
        detail: .record(GenericRecord(element: "Audiogram", attributes: [.init("type", "HKDataTypeIdentifierAudiogram")],
                                      children: [GenericRecord(element: "SensitivityPoint", attributes: [
                                          .init("frequencyValue", "1000"), .init("frequencyUnit", "Hz"),
                                          .init("leftEarValue", "15"), .init("leftEarUnit", "dBHL"),
                                      ])])))

    /// A type no registry knows, with characters a file name cannot keep.
    public static let unknownType = Sample(
        id: "U-1", type: "com.example/Future Thing ü", kind: .quantity,
        start: time("2024-01-05 12:00:00 +0000"), end: time("2024-01-05 12:30:00 +0000"),
        value: 3, unit: "zorks", sourceName: "Lab\n\"quoted\"\tapp")

    public static let all: [Sample] = [heartRate, steps, sleep, standHour, workout, systolic, bloodPressure, hrv,
                                activitySummary, profile, audiogram, unknownType]

    /// `samples` as journal entries with sequences from `first`.
    public static func entries(_ samples: [Sample], from first: Int64 = 1) -> [JournalEntry] {
        samples.enumerated().map { JournalEntry(sequence: first + Int64($0.offset), source: "history", item: .sample($0.element)) }
    }

    public static func tombstone(_ ids: [String], sequence: Int64, userId: String? = nil) -> JournalEntry {
        JournalEntry(sequence: sequence, source: "phone", item: .tombstone(Tombstone(ids: ids, userId: userId)))
    }

    public static func context(_ directory: String) -> PluginContext {
        PluginContext(name: "test", stateDirectory: directory, logger: Logger(minimumLevel: .error))
    }

    /// Why `sink` cannot prepare: the reason of its `SinkError.unavailable`, any other error as
    /// text, nil when it prepares. Closes the sink.
    public static func prepareProblem(_ sink: any Sink) -> String? {
        switch prepareError(sink) {
        case nil: nil
        case SinkError.unavailable(let reason)?, SinkError.misconfigured(let reason)?: reason
        case let error?: "\(error)"
        }
    }

    /// What `sink`'s prepare throws, nil when it prepares. Closes the sink.
    public static func prepareError(_ sink: any Sink) -> (any Error)? {
        defer { sink.close() }
        do {
            _ = try sink.prepare()
            return nil
        } catch {
            return error
        }
    }
}

/// A fresh directory in `TestScratch.path`, removed by `remove()` (or with the folder at exit).
public struct TemporaryDirectory {
    public let path: String

    public init() throws {
        path = TestScratch.path + "healthrouter-sinktests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
