import Foundation
import HealthRouterCore
import Testing
@testable import HTTPPushSource

/// Health Auto Export REST JSON on `POST /hae`: every metric shape, workouts v1 and v2,
/// date variants, units, auth by `api-key`, idempotent re-sends.
@Suite("Health Auto Export over HTTP")
struct HealthAutoExportTests {
    let alice = PushServerFixture.tokens["alice"]!

    static let metrics = """
        {"data":{"metrics":[
          {"name":"step_count","units":"count","data":[
            {"qty":120,"date":"2024-01-05 09:00:00 -0500","source":"Irvin's iPhone|Irvin\u{2019}s Apple Watch"},
            {"qty":80,"date":"2024-01-05 9:07:03 PM -0500","source":"iPhone"},
            {"qty":30,"date":"2024-01-05 9:08:03\u{202F}PM -0500","source":"iPhone"}]},
          {"name":"active_energy","units":"kJ","data":[{"qty":41.84,"date":"2024-01-05 10:00:00 +0000"}]},
          {"name":"walking_running_distance","units":"mi","data":[{"qty":1,"date":"2024-01-05 10:00:00 +0000"}]},
          {"name":"heart_rate","units":"count/min","data":[{"Min":55,"Avg":61.5,"Max":70,"date":"2024-01-05 10:00:00 +0000","source":"Watch"}]},
          {"name":"blood_pressure","units":"mmHg","data":[{"systolic":120,"diastolic":80,"date":"2024-01-05 10:00:00 +0000"}]},
          {"name":"weight_body_mass","units":"lb","data":[{"qty":154.3234,"date":"2024-01-05"}]},
          {"name":"blood_glucose","units":"mg/dL","data":[{"qty":95,"date":"2024-01-05 10:00:00 +0000","mealTime":"Before Meal"}]},
          {"name":"made_up_metric","units":"zorks","data":[{"qty":3,"date":"2024-01-05 10:00:00 +0000"}]},
          {"name":"step_count","units":"count","data":[]}
        ]}}
        """

    static let sleep = """
        {"data":{"metrics":[{"name":"sleep_analysis","units":"hr","data":[
          {"startDate":"2024-01-05 23:10:00 -0500","endDate":"2024-01-06 01:00:00 -0500","qty":1.83,"value":"Core","source":"Watch"},
          {"startDate":"2024-01-06 01:00:00 -0500","endDate":"2024-01-06 01:40:00 -0500","qty":0.67,"value":"REM","source":"Watch"},
          {"date":"2024-01-06","totalSleep":7.1,"asleep":0,"core":4,"deep":1.1,"rem":2,"awake":0.3,"sleepStart":"2024-01-05 23:10:00 -0500","sleepEnd":"2024-01-06 06:40:00 -0500","inBed":7.6,"inBedStart":"2024-01-05 23:00:00 -0500","inBedEnd":"2024-01-06 06:50:00 -0500","source":"Watch"},
          {"date":"2024-01-07","asleep":6.5,"inBed":7,"sleepStart":"2024-01-06 23:10:00 -0500","sleepEnd":"2024-01-07 05:40:00 -0500","sleepSource":"AutoSleep","inBedStart":"2024-01-06 23:00:00 -0500","inBedEnd":"2024-01-07 06:00:00 -0500","inBedSource":"iPhone"}
        ]}]}}
        """

    static let workouts = """
        {"data":{"workouts":[
          {"id":"6F1B7E0C-6B0A-4B35-9D1E-2B0E7C5A9F11","name":"Traditional Strength Training","start":"2024-01-05 18:30:00 +0100","end":"2024-01-05 19:30:12 +0100","duration":3612,
           "activeEnergyBurned":{"qty":1724.9,"units":"kJ"},"distance":{"qty":0,"units":"km"},"isIndoor":true,"location":"Indoor",
           "heartRate":{"min":{"qty":88,"units":"bpm"},"avg":{"qty":132.5,"units":"bpm"},"max":{"qty":171,"units":"bpm"}},
           "temperature":{"qty":21,"units":"degC"},
           "route":[{"latitude":52.52,"longitude":13.405,"altitude":34.5,"course":90,"horizontalAccuracy":4,
                     "verticalAccuracy":3,"timestamp":"2024-01-05 18:31:00 +0100","speed":2.5,"speedAccuracy":0.5},
                    {"latitude":52.521,"longitude":13.406,"timestamp":"2024-01-05 18:32:00 +0100"},
                    {"latitude":"x","longitude":13.406,"timestamp":"2024-01-05 18:33:00 +0100"}]},
          {"name":"Running","start":"2024-01-06 7:00:00 AM +0100","end":"2024-01-06 7:30:00 AM +0100",
           "activeEnergy":{"qty":300,"units":"kcal"},"distance":{"qty":3.1,"units":"mi"},
           "heartRateData":[{"date":"2024-01-06 07:01:00 +0100","qty":120,"units":"bpm"},{"date":"2024-01-06 07:02:00 +0100","qty":140,"units":"bpm"}],
           "heartRateRecovery":[{"date":"2024-01-06 07:31:00 +0100","qty":110,"units":"bpm"}],
           "route":[{"lat":48.1,"lon":11.5,"altitude":520,"timestamp":"2024-01-06 07:01:00 +0100"}]}
        ]}}
        """

    func samples(_ server: PushServerFixture) throws -> [Sample] {
        try server.journalItems().compactMap { if case .sample(let s) = $0 { s } else { nil } }
    }

    @Test func metricsOfEveryShape() throws {
        let server = try PushServerFixture()
        let reply = server.client.post("/hae", Self.metrics, headers: ["api-key: \(alice)"])
        #expect(reply.status == 200)
        #expect(reply.body == #"{"received": 11, "new": 11, "deleted": 0}"#)
        let all = try samples(server)
        let steps = all.filter { $0.type == "HKQuantityTypeIdentifierStepCount" }
        #expect(steps.map(\.value) == [120, 80, 30])
        #expect(steps[1].start.epochMilliseconds == steps[2].start.epochMilliseconds - 60_000)
        #expect(steps[0].sourceName == "Irvin's iPhone|Irvin\u{2019}s Apple Watch")
        let energy = try #require(all.first { $0.type == "HKQuantityTypeIdentifierActiveEnergyBurned" })
        #expect(abs(energy.value! - 10) < 0.001)
        #expect(energy.unit == "kcal")
        let distance = try #require(all.first { $0.type == "HKQuantityTypeIdentifierDistanceWalkingRunning" })
        #expect(abs(distance.value! - 1609.344) < 0.01)
        let heart = try #require(all.first { $0.type == "HKQuantityTypeIdentifierHeartRate" })
        #expect(heart.value == 61.5)
        #expect(heart.metadata[key: "Min"] == .number(55))
        #expect(heart.metadata[key: "Max"] == .number(70))
        #expect(all.contains { $0.type == "HKQuantityTypeIdentifierBloodPressureSystolic" && $0.value == 120 })
        #expect(all.contains { $0.type == "HKQuantityTypeIdentifierBloodPressureDiastolic" && $0.value == 80 })
        let mass = try #require(all.first { $0.type == "HKQuantityTypeIdentifierBodyMass" })
        #expect(abs(mass.value! - 70) < 0.01)
        #expect(mass.start.utcOffsetSeconds == nil)
        let glucose = try #require(all.first { $0.type == "HKQuantityTypeIdentifierBloodGlucose" })
        #expect(glucose.metadata[key: "mealTime"] == .string("Before Meal"))
        #expect(all.contains { $0.type == "made_up_metric" && $0.unit == "zorks" })
        #expect(all.allSatisfy { $0.userId == "alice" && !$0.id.isEmpty })

        // Re-sent: fingerprints make it idempotent.
        #expect(server.client.post("/hae", Self.metrics, token: alice).body == #"{"received": 11, "new": 0, "deleted": 0}"#)
    }

    /// A period's total sent again while the period goes on (today's steps so far, a night whose
    /// end grows) is a change of one sample: the journal's last version is the total, and no
    /// second row adds up with the first.
    @Test func aPeriodSentAgainWithAGrownTotalIsOneSample() throws {
        let server = try PushServerFixture()
        func steps(_ quantity: Int, sleepEnd: String, source: String = "iPhone") -> String {
            #"{"data":{"metrics":[{"name":"step_count","units":"count","data":[{"qty":\#(quantity),"date":"2026-07-08 00:00:00 +0000","source":"\#(source)"}]},"#
                + #"{"name":"sleep_analysis","units":"hr","data":[{"date":"2026-07-08","asleep":5,"inBed":6,"sleepStart":"2026-07-07 23:00:00 +0000","#
                + #""sleepEnd":"\#(sleepEnd)","inBedStart":"2026-07-07 22:50:00 +0000","inBedEnd":"\#(sleepEnd)","source":"Watch"}]}]}}"#
        }
        #expect(server.client.post("/hae", steps(5000, sleepEnd: "2026-07-08 04:00:00 +0000"), token: alice).status == 200)
        #expect(server.client.post("/hae", steps(8000, sleepEnd: "2026-07-08 06:30:00 +0000"), token: alice).status == 200)
        #expect(server.client.post("/hae", steps(8000, sleepEnd: "2026-07-08 06:30:00 +0000"), token: alice).body
                == #"{"received": 3, "new": 0, "deleted": 0}"#)
        // The watch's steps arrive: the day's total now names both sources, and is still the one total.
        #expect(server.client.post("/hae", steps(9000, sleepEnd: "2026-07-08 06:30:00 +0000", source: "iPhone|Apple Watch"),
                                   token: alice).status == 200)
        let all = try samples(server)
        #expect(all.count == 7)
        var last: [String: Sample] = [:]
        for sample in all { last[sample.id] = sample }
        #expect(last.count == 3)
        let day = try #require(last.values.first { $0.type == "HKQuantityTypeIdentifierStepCount" })
        #expect(day.value == 9000 && day.sourceName == "iPhone|Apple Watch")
        #expect(last.values.filter { $0.type == "HKCategoryTypeIdentifierSleepAnalysis" }
                    .allSatisfy { $0.end.epochMilliseconds == 1_783_492_200_000 })
        // Another user's equal total is a sample of its own.
        let bob = PushServerFixture.tokens["bob"]!
        #expect(server.client.post("/hae", steps(8000, sleepEnd: "2026-07-08 06:30:00 +0000"), token: bob).body
                == #"{"received": 3, "new": 3, "deleted": 0}"#)
    }

    /// "Summarize data" off: the iPhone's and the watch's points at the same date in one body
    /// are two samples, not one period's total; a re-send is recognised.
    @Test func pointsOfSeveralSourcesAtOneDateAreSamplesSideBySide() throws {
        let server = try PushServerFixture()
        let both = #"{"data":{"metrics":[{"name":"step_count","units":"count","data":["#
            + #"{"qty":100,"date":"2026-07-11 08:00:00 +0100","source":"iPhone"},"#
            + #"{"qty":40,"date":"2026-07-11 08:00:00 +0100","source":"Apple Watch"},"#
            + #"{"qty":7,"date":"2026-07-11 08:01:00 +0100","source":"iPhone"}]},"#
            + #"{"name":"sleep_analysis","units":"hr","data":["#
            + #"{"date":"2026-07-11","asleep":6,"sleepStart":"2026-07-10 23:00:00 +0100","sleepEnd":"2026-07-11 05:00:00 +0100","source":"Watch"},"#
            + #"{"date":"2026-07-11","asleep":7,"sleepStart":"2026-07-10 22:30:00 +0100","sleepEnd":"2026-07-11 05:30:00 +0100","source":"AutoSleep"}]}]}}"#
        #expect(server.client.post("/hae", both, token: alice).body == #"{"received": 5, "new": 5, "deleted": 0}"#)
        #expect(server.client.post("/hae", both, token: alice).body == #"{"received": 5, "new": 0, "deleted": 0}"#)
        // One source's point sent alone first (the watch synced later), then beside the other's:
        // the same reading under the other id, not a second sample.
        let phoneAlone = #"{"data":{"metrics":[{"name":"step_count","units":"count","data":["#
            + #"{"qty":9,"date":"2026-07-12 08:00:00 +0100","source":"iPhone"}]}]}}"#
        let phoneAndWatch = #"{"data":{"metrics":[{"name":"step_count","units":"count","data":["#
            + #"{"qty":9,"date":"2026-07-12 08:00:00 +0100","source":"iPhone"},"#
            + #"{"qty":4,"date":"2026-07-12 08:00:00 +0100","source":"Apple Watch"}]}]}}"#
        #expect(server.client.post("/hae", phoneAlone, token: alice).body == #"{"received": 1, "new": 1, "deleted": 0}"#)
        #expect(server.client.post("/hae", phoneAndWatch, token: alice).body == #"{"received": 2, "new": 1, "deleted": 0}"#)
        #expect(server.client.post("/hae", phoneAlone, token: alice).body == #"{"received": 1, "new": 0, "deleted": 0}"#)
        // Another user's equal reading stays theirs.
        #expect(server.client.post("/hae", phoneAndWatch, token: PushServerFixture.tokens["bob"]!).body
                == #"{"received": 2, "new": 2, "deleted": 0}"#)
        let all = try samples(server).filter { $0.userId == "alice" }
        #expect(all.count == 7)
        let steps = all.filter { $0.type == "HKQuantityTypeIdentifierStepCount" }
        #expect(steps.compactMap(\.value).sorted() == [4, 7, 9, 40, 100] && Set(steps.map(\.id)).count == 5)
        #expect(Set(all.filter { $0.type == "HKCategoryTypeIdentifierSleepAnalysis" }.map(\.sourceName)) == ["Watch", "AutoSleep"])
    }

    @Test func sleepInItsThreeShapes() throws {
        let server = try PushServerFixture()
        let reply = server.client.post("/hae", Self.sleep, token: alice, gzip: true)
        #expect(reply.body == #"{"received": 6, "new": 6, "deleted": 0}"#)
        let stages = try samples(server)
        #expect(stages.allSatisfy { $0.type == "HKCategoryTypeIdentifierSleepAnalysis" && $0.kind == .category })
        #expect(stages.map(\.categoryValue) == [
            "HKCategoryValueSleepAnalysisAsleepCore", "HKCategoryValueSleepAnalysisAsleepREM",
            "HKCategoryValueSleepAnalysisAsleepUnspecified", "HKCategoryValueSleepAnalysisInBed",
            "HKCategoryValueSleepAnalysisAsleepUnspecified", "HKCategoryValueSleepAnalysisInBed",
        ])
        #expect(stages[2].metadata[key: "deep"] == .number(1.1))
        #expect(stages[4].sourceName == "AutoSleep")
        #expect(stages[5].sourceName == "iPhone")
        #expect(stages[0].end.epochMilliseconds - stages[0].start.epochMilliseconds == 110 * 60_000)
    }

    /// The Fitness app's names (`Outdoor Run`) are the activity type and where it was, not a
    /// HealthKit type of their own; `isIndoor`, when sent, has the last word.
    @Test func fitnessAppWorkoutNames() throws {
        let server = try PushServerFixture()
        let body = #"{"data":{"workouts":["#
            + #"{"name":"Outdoor Run","start":"2024-01-06 07:00:00 +0100","end":"2024-01-06 07:30:00 +0100"},"#
            + #"{"name":"Indoor Cycle","start":"2024-01-07 07:00:00 +0100","end":"2024-01-07 07:30:00 +0100","isIndoor":false},"#
            + #"{"name":"Pool Swim","start":"2024-01-08 07:00:00 +0100","end":"2024-01-08 07:30:00 +0100"}]}}"#
        #expect(server.client.post("/hae", body, token: alice).status == 200)
        let read = try samples(server).map { sample -> String in
            guard case .workout(let workout) = sample.detail else { return "no workout" }
            return workout.activityType + " " + (sample.metadata[key: "HKIndoorWorkout"].map { "\($0)" } ?? "-")
        }
        #expect(read == ["HKWorkoutActivityTypeRunning bool(false)", "HKWorkoutActivityTypeCycling bool(false)",
                         "HKWorkoutActivityTypeSwimming -"])
    }

    /// A name in another language (the app follows the phone's) is no activity type: `other`, the
    /// name kept in metadata, not `HKWorkoutActivityTypeGehen`. HealthKit's own names stay what they are.
    @Test func workoutNamesThatAreNoActivityTypeAreOtherWithTheirName() throws {
        let body = #"{"data":{"workouts":["#
            + #"{"name":"室内 跑步","start":"2024-01-06 07:00:00 +0800","end":"2024-01-06 07:30:00 +0800"},"#
            + #"{"name":"Gehen","start":"2024-01-07 07:00:00 +0100","end":"2024-01-07 07:30:00 +0100"},"#
            + #"{"name":"High Intensity Interval Training","start":"2024-01-08 07:00:00 +0100","end":"2024-01-08 07:30:00 +0100"},"#
            + #"{"name":"Other","start":"2024-01-09 07:00:00 +0100","end":"2024-01-09 07:30:00 +0100"},"#
            + #"{"name":"pickleball","start":"2024-01-10 07:00:00 +0100","end":"2024-01-10 07:30:00 +0100"},"#
            + #"{"name":"Stair Stepper","start":"2024-01-11 07:00:00 +0100","end":"2024-01-11 07:30:00 +0100"},"#
            + #"{"name":"HIIT","start":"2024-01-12 07:00:00 +0100","end":"2024-01-12 07:30:00 +0100"}]}}"#
        let payload = try HealthAutoExportParser.parse(Array(body.utf8), userId: nil)
        let read = payload.items.compactMap { item -> String? in
            guard case .sample(let sample) = item, case .workout(let workout) = sample.detail else { return nil }
            return workout.activityType + " " + (sample.metadata[key: "name"].map { "\($0)" } ?? "-")
        }
        #expect(read == ["HKWorkoutActivityTypeOther string(\"室内 跑步\")", "HKWorkoutActivityTypeOther string(\"Gehen\")",
                         "HKWorkoutActivityTypeHighIntensityIntervalTraining -", "HKWorkoutActivityTypeOther -",
                         "HKWorkoutActivityTypePickleball -", "HKWorkoutActivityTypeStairClimbing -",
                         "HKWorkoutActivityTypeHighIntensityIntervalTraining -"])
    }

    /// A total whose units do not convert to its column's is not stored as if it were in them: the
    /// column stays empty and the total is in metadata as sent. A v2 workout's own `metadata`
    /// object gives its entries, not one `metadata` text.
    @Test func workoutTotalsInUnknownUnitsAndTheWorkoutsOwnMetadata() throws {
        let body = #"{"data":{"workouts":[{"id":"0D2B7F6E-3C1A-4E55-8B9A-5F7C3D2E1A00","name":"Walking","#
            + #""start":"2024-01-06 07:00:00 +0100","end":"2024-01-06 07:30:00 +0100","#
            + #""distance":{"qty":5,"units":"furlongs"},"activeEnergyBurned":{"qty":250,"units":"kilojoules"},"#
            + #""heartRate":{"min":{"qty":1,"units":"Hz"},"avg":{"qty":100,"units":"bpm"}},"#
            + #""metadata":{"HKWeatherTemperature":"21 degC","HKIndoorWorkout":true,"temperature":"again"},"#
            + #""temperature":{"qty":21,"units":"degC"},"isIndoor":false}]}}"#
        let payload = try HealthAutoExportParser.parse(Array(body.utf8), userId: nil)
        guard case .sample(let sample)? = payload.items.first, case .workout(let workout) = sample.detail else {
            Issue.record("no workout"); return
        }
        #expect(workout.totalDistanceMeters == nil)
        #expect(workout.totalEnergyBurnedKilocalories == nil)
        #expect(workout.minimumHeartRate == nil && workout.averageHeartRate == 100)
        #expect(sample.metadata[key: "distance"] == .string(#"{"qty":5,"units":"furlongs"}"#))
        #expect(sample.metadata[key: "activeEnergyBurned"] == .string(#"{"qty":250,"units":"kilojoules"}"#))
        #expect(sample.metadata[key: "heartRate"].map { "\($0)".contains("Hz") } == true)
        #expect(sample.metadata[key: "HKWeatherTemperature"] == .string("21 degC"))
        // isIndoor, read first, is the workout's; the entry of the same key in `metadata` does not repeat it.
        #expect(sample.metadata.filter { $0.key == "HKIndoorWorkout" }.map { $0.value } == [MetadataValue.bool(false)])
        #expect(sample.metadata[key: "metadata"] == nil)
        #expect(sample.metadata.filter { $0.key == "temperature" }.map { $0.value } == [.string(#"{"qty":21,"units":"degC"}"#)])
    }

    /// `metrics` and `workouts` beside `data` (as some receivers of these bodies write them) are
    /// read with those inside it.
    @Test func sectionsBesideDataAreRead() throws {
        let body = #"{"data":{"metrics":[{"name":"step_count","units":"count","data":[{"qty":7,"date":"2024-01-05 09:04:00 +0000"}]}]},"#
            + #""workouts":[{"name":"Walking","start":"2024-01-06 07:00:00 +0100","end":"2024-01-06 07:30:00 +0100"}],"#
            + #""metrics":[{"name":"step_count","units":"count","data":[{"qty":9,"date":"2024-01-05 10:04:00 +0000"}]}]}"#
        let payload = try HealthAutoExportParser.parse(Array(body.utf8), userId: nil)
        #expect(payload.skipped == 0)
        let kinds = payload.items.compactMap { item -> String? in
            if case .sample(let sample) = item { "\(sample.kind) \(sample.value.map { "\($0)" } ?? "-")" } else { nil }
        }
        #expect(kinds == ["quantity 7.0", "quantity 9.0", "workout -"])
        let wrong = #"{"data":{"metrics":[]},"workouts":{"name":"Walking"}}"#
        #expect(throws: HealthAutoExportParser.Failure.notHealthAutoExport("workouts must be an array")) {
            try HealthAutoExportParser.parse(Array(wrong.utf8), userId: nil)
        }
    }

    @Test func workoutsV1AndV2() throws {
        let server = try PushServerFixture()
        #expect(server.client.post("/hae", Self.workouts, token: alice).body == #"{"received": 2, "new": 2, "deleted": 0}"#)
        let all = try samples(server)
        guard case .workout(let strength) = all[0].detail, case .workout(let run) = all[1].detail else {
            Issue.record("no workouts"); return
        }
        #expect(all[0].id == "6F1B7E0C-6B0A-4B35-9D1E-2B0E7C5A9F11")
        #expect(strength.activityType == "HKWorkoutActivityTypeTraditionalStrengthTraining")
        #expect(strength.durationSeconds == 3612)
        #expect(abs(strength.totalEnergyBurnedKilocalories! - 412.26) < 0.01)
        #expect(strength.averageHeartRate == 132.5)
        #expect(strength.maximumHeartRate == 171)
        #expect(all[0].metadata[key: "HKIndoorWorkout"] == .bool(true))
        #expect(run.activityType == "HKWorkoutActivityTypeRunning")
        #expect(run.durationSeconds == 1800)
        #expect(abs(run.totalDistanceMeters! - 4988.97) < 0.1)
        #expect(run.totalEnergyBurnedKilocalories == 300)
        // The GPS track (v2 and v1 fields), and the fields of other workout kinds as sent.
        #expect(strength.routes.count == 1 && strength.routes[0].sourceName == all[0].sourceName)
        #expect(strength.routes[0].points.map(\.latitude) == [52.52, 52.521])
        #expect(strength.routes[0].points[0] == RoutePoint(time: try #require(HealthDateParser.parse("2024-01-05 18:31:00 +0100")),
                                                           latitude: 52.52, longitude: 13.405, altitude: 34.5,
                                                           horizontalAccuracy: 4, verticalAccuracy: 3, course: 90, speed: 2.5))
        #expect(strength.routes[0].end == HealthDateParser.parse("2024-01-05 18:32:00 +0100"))
        #expect(all[0].metadata[key: "temperature"] == .string(#"{"qty":21,"units":"degC"}"#))
        #expect(run.routes.first?.points.map(\.altitude) == [520])
        // Its series are kept as sent (the recovery curve comes in no metric), and a v1 workout's
        // heart rate, which it gives only as a series, is that series' lowest, mean and highest.
        #expect(all[1].metadata[key: "heartRateData"] == .string(
            #"[{"date":"2024-01-06 07:01:00 +0100","qty":120,"units":"bpm"},{"date":"2024-01-06 07:02:00 +0100","qty":140,"units":"bpm"}]"#))
        #expect(all[1].metadata[key: "heartRateRecovery"] == .string(#"[{"date":"2024-01-06 07:31:00 +0100","qty":110,"units":"bpm"}]"#))
        #expect(run.minimumHeartRate == 120 && run.averageHeartRate == 130 && run.maximumHeartRate == 140)
        #expect(strength.minimumHeartRate == 88)
        #expect(server.client.post("/hae", Self.workouts, token: alice).body == #"{"received": 2, "new": 0, "deleted": 0}"#)
    }

    /// A v2 workout's per-workout `activeEnergy[]` series, beside its `activeEnergyBurned` total, and
    /// a series under a total's key without one, are kept in metadata as sent, as its other series
    /// are: the key was taken for the total and the series dropped.
    @Test func aSeriesUnderATotalsKeyIsKept() throws {
        let body = #"{"data":{"workouts":[{"id":"EEEEEEEE-1111-4222-8333-444444444444","name":"Running","#
            + #""start":"2024-03-05 07:00:00 +0100","end":"2024-03-05 07:30:00 +0100","duration":1800,"#
            + #""activeEnergyBurned":{"qty":300,"units":"kcal"},"#
            + #""activeEnergy":[{"date":"2024-03-05 07:01:00 +0100","qty":10,"units":"kcal","source":"Watch"}]},"#
            + #"{"name":"Walking","start":"2024-03-06 07:00:00 +0100","end":"2024-03-06 07:30:00 +0100","#
            + #""activeEnergy":[{"date":"2024-03-06 07:01:00 +0100","qty":4,"units":"kcal"}],"distance":{"qty":2,"units":"km"}}]}}"#
        let server = try PushServerFixture()
        #expect(server.client.post("/hae", body, token: alice).body == #"{"received": 2, "new": 2, "deleted": 0}"#)
        let workouts = try samples(server)
        guard workouts.count == 2, case .workout(let run) = workouts[0].detail, case .workout(let walk) = workouts[1].detail else {
            Issue.record("no workouts: \(workouts)"); return
        }
        #expect(run.totalEnergyBurnedKilocalories == 300)
        #expect(workouts[0].metadata[key: "activeEnergy"]
                    == .string(#"[{"date":"2024-03-05 07:01:00 +0100","qty":10,"source":"Watch","units":"kcal"}]"#))
        #expect(walk.totalEnergyBurnedKilocalories == nil && walk.totalDistanceMeters == 2000)
        #expect(workouts[1].metadata[key: "activeEnergy"] == .string(#"[{"date":"2024-03-06 07:01:00 +0100","qty":4,"units":"kcal"}]"#))
        #expect(server.client.post("/hae", body, token: alice).body == #"{"received": 2, "new": 0, "deleted": 0}"#)
    }

    /// A sleep point's fields beyond those its samples read (the night's totals newer versions add
    /// to each unaggregated stage; a field a later version adds to a night) are kept in metadata
    /// as sent, as any other metric's are: they were dropped.
    @Test func aSleepPointsOtherFieldsAreKept() throws {
        let body = #"{"data":{"metrics":[{"name":"sleep_analysis","units":"hr","data":["#
            + #"{"startDate":"2024-03-05 23:00:00 +0100","endDate":"2024-03-05 23:10:00 +0100","qty":0.1667,"value":"Core","#
            + #""source":"Watch","totalSleep":7.2,"deep":1,"awake":0.2,"inBed":7.5,"note":null},"#
            + #"{"date":"2024-03-07","totalSleep":7.1,"sleepStart":"2024-03-06 23:10:00 +0100","sleepEnd":"2024-03-07 06:40:00 +0100","#
            + #""inBedStart":"2024-03-06 23:00:00 +0100","inBedEnd":"2024-03-07 06:50:00 +0100","source":"Watch","respiratoryEvents":3}]}]}}"#
        let server = try PushServerFixture()
        #expect(server.client.post("/hae", body, token: alice).body == #"{"received": 3, "new": 3, "deleted": 0}"#)
        let stages = try samples(server)
        #expect(stages.count == 3)
        #expect(stages.first?.metadata == [MetadataEntry("hours", .number(0.1667)), MetadataEntry("awake", .number(0.2)),
                                           MetadataEntry("deep", .number(1)), MetadataEntry("inBed", .number(7.5)),
                                           MetadataEntry("totalSleep", .number(7.2))])
        let asleep = try #require(stages.first { $0.categoryValue == "HKCategoryValueSleepAnalysisAsleepUnspecified" })
        #expect(asleep.metadata == [MetadataEntry("totalSleep", .number(7.1)), MetadataEntry("respiratoryEvents", .number(3))])
        #expect(stages.last?.metadata.isEmpty == true)
        #expect(server.client.post("/hae", body, token: alice).body == #"{"received": 3, "new": 0, "deleted": 0}"#)
    }

    @Test func pointsAndWorkoutsEndingBeforeTheyStartAreSkipped() throws {
        let body = """
            {"data":{"metrics":[
              {"name":"step_count","units":"count","data":[
                {"qty":10,"startDate":"2024-01-05 09:00:00 -0500","endDate":"2024-01-05 08:59:00 -0500"},
                {"qty":20,"startDate":"2024-01-05 09:00:00 -0500","endDate":"2024-01-05 09:01:00 -0500"}]},
              {"name":"sleep_analysis","units":"hr","data":[
                {"startDate":"2024-01-06 01:00:00 -0500","endDate":"2024-01-05 23:00:00 -0500","value":"Core"},
                {"date":"2024-01-06","sleepStart":"2024-01-06 06:00:00 -0500","sleepEnd":"2024-01-05 23:00:00 -0500"}]}],
             "workouts":[{"name":"Running","start":"2024-01-06 08:00:00 +0100","end":"2024-01-06 07:00:00 +0100"}]}}
            """
        let payload = try HealthAutoExportParser.parse(Array(body.utf8), userId: nil)
        #expect(payload.skipped == 4)
        let server = try PushServerFixture()
        #expect(server.client.post("/hae", body, token: alice).body == #"{"received": 1, "new": 1, "deleted": 0, "skipped": 4}"#)
        #expect(try samples(server).map(\.value) == [20])
    }

    /// A value of the wrong type is not a sample without its value: the point is skipped, and
    /// the log names the field; a number out of a double's range does not refuse the body.
    /// The log's examples name a point whose value leaves a double's range once converted (it was
    /// skipped, and counted, with an empty `first=`), and a metric's name as client text is shown,
    /// clipped to 40 characters (a 200-character name was written out whole).
    @Test func skipExamplesNameAPointOutOfRangeOnceConvertedAndClipTheName() throws {
        let longName = String(repeating: "n", count: 200)
        let body = #"{"data":{"metrics":[{"name":"walking_running_distance","units":"mi","data":["#
            + #"{"qty":1.5e308,"date":"2024-05-01 00:00:00 +0000"},{"qty":2,"date":"2024-05-01 00:01:00 +0000"}]},"#
            + #"{"name":"\#(longName)","units":"count","data":[{"qty":"x","date":"2024-05-01 00:00:00 +0000"}]}]}}"#
        let payload = try HealthAutoExportParser.parse(Array(body.utf8), userId: nil)
        #expect(payload.skipped == 2)
        #expect(HealthAutoExportSkips.examples(Array(body.utf8), limit: 10) == [
            "walking_running_distance point #0: a value out of a double's range once converted to its canonical unit",
            "\(SkippedElement.clipped(longName)) point #0: qty 'x' is not a number",
        ])
        #expect(SkippedElement.clipped(longName).count < 50)
    }

    @Test func pointsWhoseValueIsNotANumberAreSkippedWithTheField() throws {
        let body = """
            {"data":{"metrics":[
              {"name":"step_count","units":"count","data":[
                {"qty":"12","date":"2024-01-05 09:00:00 +0000"},
                {"qty":null,"date":"2024-01-05 09:01:00 +0000"},
                {"qty":true,"date":"2024-01-05 09:02:00 +0000"},
                {"qty":1e400,"date":"2024-01-05 09:03:00 +0000"},
                {"qty":7,"date":"2024-01-05 09:04:00 +0000"},
                {"date":"2024-01-05 09:05:00 +0000","source":"iPhone"}]},
              {"name":"heart_rate","units":"count/min","data":[
                {"Avg":"x","date":"2024-01-05 09:00:00 +0000"},
                {"Avg":60,"Min":"n/a","Max":70,"date":"2024-01-05 09:05:00 +0000"},
                {"Min":50,"Max":70,"date":"2024-01-05 09:06:00 +0000"}]},
              {"name":"blood_pressure","units":"mmHg","data":[
                {"systolic":[120],"diastolic":80,"date":"2024-01-05 09:00:00 +0000"},
                {"date":"2024-01-05 09:06:00 +0000"}]},
              {"name":"sexual_activity","units":"count","data":[{"Unspecified":1,"date":"2024-01-05 09:00:00 +0000"}]}]}}
            """
        let payload = try HealthAutoExportParser.parse(Array(body.utf8), userId: nil)
        #expect(payload.skipped == 9)
        #expect(HealthAutoExportSkips.examples(Array(body.utf8), limit: 10) == [
            "step_count point #0: qty '12' is not a number",
            "step_count point #1: qty null is not a number",
            "step_count point #2: qty true is not a number",
            "step_count point #3: qty is out of a double's range",
            // Stored, a point without its value would replace the reading sent before with none.
            "step_count point #5: no qty (or Avg): a point of a quantity metric needs its value",
            "heart_rate point #0: Avg 'x' is not a number",
            "heart_rate point #2: no qty (or Avg): a point of a quantity metric needs its value",
            "blood_pressure point #0: systolic (an array) is not a number",
            "blood_pressure point #1: no systolic or diastolic",
        ])
        let server = try PushServerFixture()
        #expect(server.client.post("/hae", body, token: alice).body == #"{"received": 3, "new": 3, "deleted": 0, "skipped": 9}"#)
        let stored = try samples(server).sorted { $0.type < $1.type }
        #expect(stored.map(\.value) == [nil, 60, 7])
        // Min and Max are not the value: kept as sent.
        #expect(stored[1].metadata.contains(MetadataEntry("Min", .string("n/a"))))
        #expect(stored[1].metadata.contains(MetadataEntry("Max", .number(70))))
        #expect(stored[0].metadata.contains(MetadataEntry("Unspecified", .number(1))))
    }

    /// Two readings of one source at one `date` in one body (two blood pressures taken within a
    /// minute) are two samples, not the second replacing the first; the body sent again adds
    /// nothing, in another order too, and nor does one of them sent alone later (Batch Requests
    /// splitting them). Two readings with equal systolic values are two too.
    @Test func twoReadingsOfOneSourceAtOneDateAreTwoSamples() throws {
        func body(_ readings: [(Int, Int)]) -> String {
            let points = readings.map { #"{"systolic":\#($0.0),"diastolic":\#($0.1),"date":"2024-01-05 07:10:00 +0100","source":"Omron"}"# }
            return #"{"data":{"metrics":[{"name":"blood_pressure","units":"mmHg","data":["# + points.joined(separator: ",") + "]}]}}"
        }
        let server = try PushServerFixture()
        #expect(server.client.post("/hae", body([(130, 85), (124, 80)]), token: alice).body == #"{"received": 4, "new": 4, "deleted": 0}"#)
        #expect(server.client.post("/hae", body([(130, 85), (124, 80)]), token: alice).body == #"{"received": 4, "new": 0, "deleted": 0}"#)
        #expect(server.client.post("/hae", body([(124, 80), (130, 85)]), token: alice).body == #"{"received": 4, "new": 0, "deleted": 0}"#)
        #expect(server.client.post("/hae", body([(124, 80)]), token: alice).body == #"{"received": 2, "new": 0, "deleted": 0}"#)
        #expect(server.client.post("/hae", body([(130, 85)]), token: alice).body == #"{"received": 2, "new": 0, "deleted": 0}"#)
        let systolic = try samples(server).filter { $0.type == "HKQuantityTypeIdentifierBloodPressureSystolic" }
        #expect(systolic.compactMap(\.value).sorted() == [124, 130])
        #expect(Set(systolic.map(\.id)).count == 2)
        // Two readings whose systolic values are equal: each keeps its own (the second was taken
        // for the first one's reading again, leaving one systolic and two diastolics).
        let equal = try PushServerFixture()
        #expect(equal.client.post("/hae", body([(130, 85), (130, 82)]), token: alice).body == #"{"received": 4, "new": 4, "deleted": 0}"#)
        #expect(equal.client.post("/hae", body([(130, 82), (130, 85)]), token: alice).body == #"{"received": 4, "new": 0, "deleted": 0}"#)
        #expect(equal.client.post("/hae", body([(130, 82)]), token: alice).body == #"{"received": 2, "new": 0, "deleted": 0}"#)
        let stored = try samples(equal)
        #expect(stored.filter { $0.type == "HKQuantityTypeIdentifierBloodPressureSystolic" }.compactMap(\.value) == [130, 130])
        #expect(stored.filter { $0.type == "HKQuantityTypeIdentifierBloodPressureDiastolic" }.compactMap(\.value).sorted() == [82, 85])
    }

    /// A reading sent alone first takes the date's plain id; sent beside a second reading and then
    /// each alone, nothing changes hands: the plain id keeps the first, and no reading is lost or
    /// doubled. Readings without a number (a symptom's severity) are told apart by their other
    /// fields.
    @Test func aLoneReadingThenTwoThenEachAloneChangesNothing() throws {
        func body(_ readings: [Int]) -> String {
            let points = readings.map { #"{"systolic":\#($0),"diastolic":\#($0 - 45),"date":"2024-01-05 07:10:00 +0100","source":"Omron"}"# }
            return #"{"data":{"metrics":[{"name":"blood_pressure","units":"mmHg","data":["# + points.joined(separator: ",") + "]}]}}"
        }
        let server = try PushServerFixture()
        #expect(server.client.post("/hae", body([130]), token: alice).body == #"{"received": 2, "new": 2, "deleted": 0}"#)
        #expect(server.client.post("/hae", body([130, 124]), token: alice).body == #"{"received": 4, "new": 2, "deleted": 0}"#)
        for lone in [124, 130, 124] {
            #expect(server.client.post("/hae", body([lone]), token: alice).body == #"{"received": 2, "new": 0, "deleted": 0}"#)
        }
        let systolic = try samples(server).filter { $0.type == "HKQuantityTypeIdentifierBloodPressureSystolic" }
        #expect(systolic.compactMap(\.value) == [130, 124])

        let symptoms = """
            {"data":{"metrics":[{"name":"headache","units":"count","data":[
              {"date":"2024-01-05 07:10:00 +0100","source":"Phone","value":"Mild"},
              {"date":"2024-01-05 07:10:00 +0100","source":"Phone","value":"Severe"}]},
             {"name":"blood_glucose","units":"mg/dL","data":[
              {"date":"2024-01-05 07:10:00 +0100","source":"Meter","qty":100,"mealTime":"Before Meal"},
              {"date":"2024-01-05 07:10:00 +0100","source":"Meter","qty":140,"mealTime":"After Meal"}]}]}}
            """
        let other = try PushServerFixture()
        #expect(other.client.post("/hae", symptoms, token: alice).body == #"{"received": 4, "new": 4, "deleted": 0}"#)
        #expect(Set(try samples(other).map(\.id)).count == 4)
    }

    /// Two metric objects of one type in one body (an alias pair, `vo2max` and `vo2_max`, or one name
    /// twice) with points of one source at one date are two readings side by side, each keeping its
    /// id: each was read alone, both took the plain period id, the second replaced the first, and
    /// every re-send changed it back and forth (two new samples, two more ndjson lines, each time).
    @Test func oneTypeInTwoMetricObjectsIsReadTogether() throws {
        let body = #"{"data":{"metrics":[{"name":"vo2max","units":"mL/min·kg","data":[{"qty":45,"date":"2024-03-05 09:00:00 +0100","source":"i"}]},"#
            + #"{"name":"vo2_max","units":"mL/min·kg","data":[{"qty":46,"date":"2024-03-05 09:00:00 +0100","source":"i"}]},"#
            + #"{"name":"step_count","units":"count","data":[{"qty":10,"date":"2024-03-05 09:00:00 +0100","source":"i"}]},"#
            + #"{"name":"step_count","units":"count","data":[{"qty":10,"date":"2024-03-05 09:00:00 +0100","source":"i"}]}]}}"#
        let server = try PushServerFixture()
        #expect(server.client.post("/hae", body, token: alice).body == #"{"received": 4, "new": 3, "deleted": 0}"#)
        for _ in 0..<2 {
            #expect(server.client.post("/hae", body, token: alice).body == #"{"received": 4, "new": 0, "deleted": 0}"#)
        }
        let stored = try samples(server)
        #expect(stored.filter { $0.type == "HKQuantityTypeIdentifierVO2Max" }.compactMap(\.value).sorted() == [45, 46])
        #expect(stored.filter { $0.type == "HKQuantityTypeIdentifierStepCount" }.compactMap(\.value) == [10])
    }

    /// A metric object sent twice in one body (one name twice, or an alias pair, their points alike)
    /// is one period's total sent twice, not two readings: the total keeps the plain period id a
    /// body with one object gives it, and moves on as a change at the next sync. Its points took ids
    /// made of their value, and each sync's grown total was one sample more (the day's steps added up).
    @Test func aMetricObjectSentTwiceKeepsThePlainPeriodId() throws {
        func body(_ qty: Int, names: [String]) -> String {
            let objects = names.map { #"{"name":"\#($0)","units":"count","data":[{"qty":\#(qty),"date":"2024-03-05 00:00:00 +0100","source":"i"}]}"# }
            return #"{"data":{"metrics":["# + objects.joined(separator: ",") + "]}}"
        }
        let server = try PushServerFixture()
        #expect(server.client.post("/hae", body(10, names: ["step_count"]), token: alice).body == #"{"received": 1, "new": 1, "deleted": 0}"#)
        let plainId = try samples(server).map(\.id)
        #expect(server.client.post("/hae", body(20, names: ["step_count", "step_count"]), token: alice).body == #"{"received": 2, "new": 1, "deleted": 0}"#)
        #expect(server.client.post("/hae", body(30, names: ["number_of_times_fallen", "number_of_time_fallen"]), token: alice).status == 200)
        #expect(server.client.post("/hae", body(40, names: ["number_of_times_fallen", "number_of_time_fallen"]), token: alice).status == 200)
        // The journal's entries: each sync a change of the one sample, the total moving on.
        let entries = try samples(server)
        let steps = entries.filter { $0.type == "HKQuantityTypeIdentifierStepCount" }
        #expect(Set(steps.map(\.id)) == Set(plainId))
        #expect(steps.compactMap(\.value) == [10, 20])
        let falls = entries.filter { $0.type == "HKQuantityTypeIdentifierNumberOfTimesFallen" }
        #expect(Set(falls.map(\.id)).count == 1)
        #expect(falls.compactMap(\.value) == [30, 40])
    }

    /// A period's total sent alone moves on as a change even when a sibling id (the same date's
    /// point beside another source's) once held that value: only a reading another id holds now is
    /// the same reading.
    @Test func aTotalAloneMovesOnPastAValueASiblingOnceHeld() throws {
        func body(_ points: [(String, Int)]) -> String {
            let data = points.map { #"{"qty":\#($0.1),"date":"2024-01-05 00:00:00 +0000","source":"\#($0.0)"}"# }
            return #"{"data":{"metrics":[{"name":"step_count","units":"count","data":["# + data.joined(separator: ",") + "]}]}}"
        }
        let server = try PushServerFixture()
        #expect(server.client.post("/hae", body([("iPhone", 800)]), token: alice).status == 200)
        #expect(server.client.post("/hae", body([("iPhone", 1000), ("Watch", 10)]), token: alice).status == 200)
        #expect(server.client.post("/hae", body([("iPhone", 2000), ("Watch", 10)]), token: alice).status == 200)
        #expect(server.client.post("/hae", body([("iPhone", 1000)]), token: alice).body == #"{"received": 1, "new": 1, "deleted": 0}"#)
    }

    /// Sections of Health Auto Export's other data types (`stateOfMind`, `medications`, …) are kept
    /// whole, an entry a record of type `HealthAutoExport_<section>`: they were answered 200 and
    /// dropped, and with "Since Last Sync" the app never sent them again. An entry without a
    /// readable time is skipped and named in the log's examples.
    @Test func sectionsOfOtherDataTypesAreKeptAsRecords() throws {
        let body = """
            {"data":{"metrics":[{"name":"step_count","units":"count","data":[{"qty":7,"date":"2024-01-05 09:04:00 +0000"}]}],
             "stateOfMind":[{"start":"2024-01-05 10:00:00 +0000","valence":0.5,"labels":["calm","happy"],"kind":"momentaryEmotion"},{"id":"y"}],
             "medications":[{"start":"2024-01-05 08:00:00 +0000","end":"2024-01-05 08:00:00 +0000","displayText":"Ibuprofen",
                             "status":"taken","dosage":1,"isArchived":false,"codings":[{"system":"rxnorm","code":"5640"}],"units":"tablet"}],
             "heartRateNotifications":[{"heartNotification":"high_heart_rate_notification","start":"2024-01-05T10:00:00Z",
                                        "end":"2024-01-05T10:03:00Z","threshhold":120,"heartRateData":[],"source":{"name":"Apple Watch"}}],
             "ecg":[], "symptoms":null}}
            """
        let payload = try HealthAutoExportParser.parse(Array(body.utf8), userId: "alice")
        #expect(payload.items.count == 4 && payload.skipped == 1)
        let records = payload.items.compactMap { item -> Sample? in
            guard case .sample(let sample) = item, sample.kind == .other else { return nil }
            return sample
        }
        #expect(records.map(\.type) == ["HealthAutoExport_heartRateNotifications", "HealthAutoExport_medications",
                                         "HealthAutoExport_stateOfMind"])
        let medication = try #require(records.first { $0.type == "HealthAutoExport_medications" })
        guard case .record(let record) = medication.detail else { Issue.record("no record"); return }
        #expect(record.element == "medications")
        #expect(record.attributes.map { "\($0.name)=\($0.value)" } == [
            "displayText=Ibuprofen", "dosage=1", "end=2024-01-05 08:00:00 +0000", "isArchived=false",
            "start=2024-01-05 08:00:00 +0000", "status=taken", "units=tablet"])
        #expect(record.children == [GenericRecord(element: "codings", attributes: [.init("json", #"[{"code":"5640","system":"rxnorm"}]"#)])])
        #expect(medication.start.epochMilliseconds == 1_704_441_600_000 && medication.sourceName == "Health Auto Export")
        #expect(medication.userId == "alice")
        let notification = try #require(records.first { $0.type == "HealthAutoExport_heartRateNotifications" })
        #expect(notification.sourceName == "Apple Watch")
        #expect(notification.end.epochMilliseconds - notification.start.epochMilliseconds == 180_000)
        #expect(HealthAutoExportSkips.examples(Array(body.utf8), limit: 10) == ["data.stateOfMind #1: no start, startDate or date"])

        let server = try PushServerFixture()
        #expect(server.client.post("/hae", body, token: alice).body == #"{"received": 4, "new": 4, "deleted": 0, "skipped": 1}"#)
        // The same entries again are duplicates.
        #expect(server.client.post("/hae", body, token: alice).body == #"{"received": 4, "new": 0, "deleted": 0, "skipped": 1}"#)
        #expect(try samples(server).filter { $0.kind == .other }.count == 3)
    }

    /// A workout Health Auto Export sends (no source of its own, its id HealthKit's, which an
    /// export does not carry) is the one an export brought at the same times, either way round:
    /// one workout, the first journaled. Two workouts that both name their source stay two.
    @Test func aWorkoutFromAnExportAndFromHealthAutoExportIsOne() throws {
        func exported(_ source: String, minutes: Int = 30) -> HealthItem {
            var sample = Sample(id: "", type: "HKWorkoutTypeIdentifier", kind: .workout,
                                start: Timestamp(epochMilliseconds: 1_718_812_800_000, utcOffsetSeconds: 7200),
                                end: Timestamp(epochMilliseconds: 1_718_812_800_000 + Int64(minutes) * 60_000, utcOffsetSeconds: 7200),
                                sourceName: source)
            sample.detail = .workout(Workout(activityType: "HKWorkoutActivityTypeRunning", durationSeconds: Double(minutes * 60)))
            sample.assignFingerprintIdIfMissing()
            return .sample(sample)
        }
        let hae = #"{"data":{"workouts":[{"id":"BBBBBBBB-1111-4222-8333-444444444444","name":"Running","start":"2024-06-19 18:00:00 +0200","end":"2024-06-19 18:30:00 +0200","duration":1800}]}}"#
        // The export first, then the push.
        let first = try PushServerFixture()
        let journal = try Journal(stateDirectory: first.directory)
        #expect(try journal.append([exported("Alice’s Apple Watch")], source: "import").new[.workout] == 1)
        #expect(first.client.post("/hae", hae, token: alice).body == #"{"received": 1, "new": 0, "deleted": 0}"#)
        // Deleted, then the pair met again (a file read again): both stay deleted.
        guard case .sample(let watchRun) = exported("Alice’s Apple Watch") else { return }
        _ = try journal.append([.tombstone(Tombstone(ids: [watchRun.id]))], source: "import")
        #expect(try journal.append([exported("Alice’s Apple Watch")], source: "import").new[.workout] == nil)
        #expect(first.client.post("/hae", hae, token: alice).body == #"{"received": 1, "new": 0, "deleted": 0}"#)
        // The push first, then the export (a longer run at the same start is another workout).
        let second = try PushServerFixture()
        #expect(second.client.post("/hae", hae, token: alice).body == #"{"received": 1, "new": 1, "deleted": 0}"#)
        let other = try Journal(stateDirectory: second.directory)
        #expect(try other.append([exported("Alice’s Apple Watch")], source: "import").duplicates[.workout] == 1)
        #expect(try other.append([exported("Alice’s Apple Watch", minutes: 31)], source: "import").new[.workout] == 1)
        #expect(try samples(second).filter { $0.kind == .workout }.count == 2)
        // Both with a source of their own: two.
        let third = try PushServerFixture()
        let named = try Journal(stateDirectory: third.directory)
        #expect(try named.append([exported("Alice’s Apple Watch"), exported("Strava")], source: "import").new[.workout] == 2)
        // The export's workout also pushed by Pulso (the same reading: an alias of it), then HAE's:
        // still the one workout (an alias is no pairing).
        let sixth = try PushServerFixture()
        #expect(try Journal(stateDirectory: sixth.directory).append([exported("Alice’s Apple Watch")], source: "import").new[.workout] == 1)
        let pulso = #"[{"uuid":"AAAAAAAA-1111-4222-8333-444444444444","type":"workout","start":"2024-06-19T16:00:00Z","end":"2024-06-19T16:30:00Z","workoutActivityType":"running","duration":1800,"source":"Alice’s Apple Watch"}]"#
        #expect(sixth.client.post("/ingest", pulso, token: alice).body == #"{"received": 1, "new": 0, "deleted": 0}"#)
        let v1 = #"{"data":{"workouts":[{"name":"Running","start":"2024-06-19 18:00:00 +0200","end":"2024-06-19 18:30:00 +0200"}]}}"#
        #expect(sixth.client.post("/hae", v1, token: alice).body == #"{"received": 1, "new": 0, "deleted": 0}"#)
        // The HAE workout's entry pruned (journal.retain) before the export comes: still met.
        let pruned = try PushServerFixture()
        #expect(pruned.client.post("/hae", hae, token: alice).body == #"{"received": 1, "new": 1, "deleted": 0}"#)
        let prunedJournal = try Journal(stateDirectory: pruned.directory)
        #expect(try prunedJournal.prune(sinks: [], retainSeconds: 0, now: Date().addingTimeInterval(60)) == 1)
        #expect(try prunedJournal.append([exported("Alice’s Apple Watch")], source: "import").duplicates[.workout] == 1)
        // Two HAE workouts (two HealthKit ids) at the same times: two.
        let fourth = try PushServerFixture()
        let both = hae.replacingOccurrences(of: "]}}", with: ",") + #"{"id":"DDDDDDDD-1111-4222-8333-444444444444","name":"Running","start":"2024-06-19 18:00:00 +0200","end":"2024-06-19 18:30:00 +0200","duration":1800}]}}"#
        #expect(fourth.client.post("/hae", both, token: alice).body == #"{"received": 2, "new": 2, "deleted": 0}"#)
        // One HAE workout, then two named ones from an export: one is the HAE workout, the other
        // stays a workout of its own (one to one), the same when imported again; deleting the HAE
        // workout deletes the export's copy of it (its alias), not the other.
        let fifth = try PushServerFixture()
        #expect(fifth.client.post("/hae", hae, token: alice).body == #"{"received": 1, "new": 1, "deleted": 0}"#)
        let exportJournal = try Journal(stateDirectory: fifth.directory)
        let twoNamed = [exported("Alice’s Apple Watch"), exported("Strava")]
        let imported = try exportJournal.append(twoNamed, source: "import")
        #expect(imported.new[.workout] == 1 && imported.duplicates[.workout] == 1)
        let again = try exportJournal.append(twoNamed, source: "import")
        #expect(again.new[.workout] == nil && again.duplicates[.workout] == 2)
        #expect(fifth.client.post("/ingest", #"[{"deleted":["BBBBBBBB-1111-4222-8333-444444444444"]}]"#, token: alice).status == 200)
        let deleted = try fifth.journalItems().compactMap { if case .tombstone(let t) = $0 { t.ids } else { nil } }.flatMap { $0 }
        guard case .sample(let watch) = twoNamed[0], case .sample(let strava) = twoNamed[1] else { return }
        #expect(Set(deleted) == ["BBBBBBBB-1111-4222-8333-444444444444", watch.id], "\(deleted)")
        #expect(!deleted.contains(strava.id))
    }

    /// A route point out of a double's range: without a position (`1e400` as its latitude) it is
    /// left out, as a point without one is; another field of it (`altitude`) skips the workout,
    /// as a total out of range does, and says so. Stored, each was no number (the sqlite sink put
    /// the whole workout in its dead letters).
    @Test func aRoutePointOutOfRangeIsLeftOutOrSkipsItsWorkout() throws {
        func body(_ field: String) -> String {
            #"{"data":{"workouts":[{"id":"CCCCCCCC-1111-4222-8333-444444444444","name":"Running","start":"2024-06-19 18:00:00 +0200","end":"2024-06-19 18:30:00 +0200","route":["#
                + #"{"latitude":52.5,"longitude":13.4,"altitude":30,"timestamp":"2024-06-19 18:00:00 +0200"},"#
                + #"{"latitude":52.6,"longitude":13.5,"\#(field)":1e400,"timestamp":"2024-06-19 18:01:00 +0200"}]}]}}"#
        }
        let latitude = try HealthAutoExportParser.parse(Array(body("latitude").utf8), userId: nil)
        guard case .sample(let workout)? = latitude.items.first, case .workout(let detail) = workout.detail else {
            Issue.record("no workout: \(latitude.items)")
            return
        }
        #expect(detail.routes.first?.points.map(\.latitude) == [52.5])
        let altitude = try HealthAutoExportParser.parse(Array(body("altitude").utf8), userId: nil)
        #expect(altitude.items.isEmpty && altitude.skipped == 1)
        #expect(HealthAutoExportSkips.examples(Array(body("altitude").utf8), limit: 3)
                    == ["workout #0: a workout route point out of a double's range once converted to its canonical unit"])
    }

    /// A category metric whose amount is how long it lasted (mindful minutes, a handwashing's
    /// seconds) at a date alone lasts that long from it, keeping the amount: a reader that sums
    /// durations sees the minutes. A day's growing total stays one sample.
    @Test func aDurationCategoryLastsItsAmount() throws {
        func body(_ minutes: Int) -> String {
            #"{"data":{"metrics":[{"name":"mindful_minutes","units":"min","data":[{"qty":\#(minutes),"date":"2024-06-19 00:00:00 +0200","source":"Phone"}]},"#
                + #"{"name":"handwashing","units":"s","data":[{"qty":22,"value":"Complete","date":"2024-06-19 08:00:00 +0200","source":"Watch"}]}]}}"#
        }
        let server = try PushServerFixture()
        #expect(server.client.post("/hae", body(10), token: alice).body == #"{"received": 2, "new": 2, "deleted": 0}"#)
        // The total grown: a change of the day's sample (counted as new, as a changed total is).
        #expect(server.client.post("/hae", body(15), token: alice).body == #"{"received": 2, "new": 1, "deleted": 0}"#)
        let all = try samples(server)
        let mindful = all.filter { $0.type == "HKCategoryTypeIdentifierMindfulSession" }
        #expect(mindful.count == 2 && Set(mindful.map(\.id)).count == 1, "\(all.map { ($0.type, $0.id, $0.value ?? -1) })")
        #expect(mindful.map { $0.end.epochMilliseconds - $0.start.epochMilliseconds } == [600_000, 900_000])
        #expect(mindful.last?.value == 15 && mindful.last?.end.utcOffsetSeconds == 7200)
        let washing = all.filter { $0.type == "HKCategoryTypeIdentifierHandwashingEvent" }
        #expect(washing.map { $0.end.epochMilliseconds - $0.start.epochMilliseconds } == [22_000])
        // One that would end past the year 9999 (which no store holds) stays at its date.
        let late = #"{"data":{"metrics":[{"name":"mindful_minutes","units":"min","data":[{"qty":10,"date":"9999-12-31 23:55:00 +0000","source":"Phone"}]}]}}"#
        #expect(server.client.post("/hae", late, token: alice).body == #"{"received": 1, "new": 1, "deleted": 0}"#)
        let stored = try samples(server).filter { $0.type == "HKCategoryTypeIdentifierMindfulSession" && $0.start.epochMilliseconds > 253_000_000_000_000 }
        #expect(stored.count == 1 && stored.first?.end == stored.first?.start, "\(stored)")
    }

    /// A sleep point that gives no sample says why: a night with its date but no times, or times
    /// that cannot be read.
    @Test func aSkippedSleepPointSaysWhatItLacks() throws {
        let body = """
            {"data":{"metrics":[{"name":"sleep_analysis","units":"hr","data":[
              {"date":"2024-06-19","totalSleep":7.6,"asleep":7.6},
              {"date":"2024-06-20","sleepStart":"yesterday","sleepEnd":"2024-06-20 06:00:00 +0000"},
              {"totalSleep":7}]}]}}
            """
        let payload = try HealthAutoExportParser.parse(Array(body.utf8), userId: nil)
        #expect(payload.items.isEmpty && payload.skipped == 3)
        #expect(HealthAutoExportSkips.examples(Array(body.utf8), limit: 10) == [
            "sleep_analysis point #0: date '2024-06-19' but no times: a night needs sleepStart and sleepEnd (or inBedStart and inBedEnd), a stage startDate and endDate",
            "sleep_analysis point #1: date '2024-06-20', sleepStart 'yesterday', sleepEnd '2024-06-20 06:00:00 +0000': cannot be read as dates, or the end is before the start",
            "sleep_analysis point #2: no times: a night needs sleepStart and sleepEnd (or inBedStart and inBedEnd), a stage startDate and endDate",
        ])
    }

    @Test func authAndBadBodies() throws {
        let server = try PushServerFixture()
        let client = server.client
        #expect(client.post("/hae", Self.metrics).status == 401)
        #expect(client.post("/hae", Self.metrics, headers: ["api-key: wrong"]).status == 401)
        #expect(client.post("/hae", Self.metrics, headers: ["X-API-Key: \(alice)"]).status == 200)
        // Spaces and tabs around a token are not part of it (a token pasted into the app with a space).
        #expect(client.post("/hae", Self.metrics, headers: ["api-key: \(alice) \t"]).status == 200)
        #expect(client.post("/hae", Self.metrics, headers: ["Authorization: Bearer \(alice)  "]).status == 200)
        // Two different tokens (one user's as Bearer, another's as api-key): whose samples they are
        // is not guessed (the Bearer token's user was taken). The same token twice is one.
        let bob = PushServerFixture.tokens["bob"]!
        #expect(client.post("/hae", Self.metrics, headers: ["Authorization: Bearer \(bob)", "api-key: \(alice)"]).status == 401)
        #expect(client.post("/hae", Self.metrics, headers: ["Authorization: Bearer \(alice)", "X-API-Key: \(alice)"]).status == 200)
        // The api-key header is not a Pulso credential.
        #expect(client.post("/ingest", "[]", headers: ["api-key: \(alice)"]).status == 401)
        #expect(client.post("/hae", "[1]", token: alice).body == #"{"error": "body must be a json object"}"#)
        #expect(client.post("/hae", "{", token: alice).body == #"{"error": "bad json"}"#)
        #expect(client.post("/hae", #"{"data":{}}"#, token: alice).body == #"{"received": 0, "new": 0, "deleted": 0}"#)
        // Not the shape of a Health Auto Export body: said, not taken for an empty export.
        #expect(client.post("/hae", "{}", token: alice).body
                == #"{"error": "no data.metrics or data.workouts: not a Health Auto Export body"}"#)
        #expect(client.post("/hae", #"{"data":[]}"#, token: alice).body == #"{"error": "data must be an object"}"#)
        #expect(client.post("/hae", #"{"data":{"metrics":"x"}}"#, token: alice).body == #"{"error": "data.metrics must be an array"}"#)
        #expect(client.post("/hae", #"{"workouts":{"a":1}}"#, token: alice).body == #"{"error": "workouts must be an array"}"#)
        // A metric whose data is null is empty (some exporters write that); one whose data is
        // not an array is skipped and counted.
        #expect(client.post("/hae", #"{"data":{"metrics":[{"name":"step_count","data":null}]}}"#, token: alice).status == 200)
        #expect(HealthAutoExportSkips.examples(Array(#"{"data":{"metrics":[{"name":"step_count","data":"x"}]}}"#.utf8), limit: 3)
                == ["metric #0 (step_count): data is not an array"])
        // A metric without a name (or not a string) has no type: its points are skipped, not stored
        // under a made-up one.
        let nameless = #"{"data":{"metrics":[{"units":"count","data":[{"date":"2026-07-06 08:00:00 +0000","qty":5}]},"#
            + #"{"name":5,"units":"count","data":[{"date":"2026-07-06 09:00:00 +0000","qty":6}]}]}}"#
        #expect(client.post("/hae", nameless, token: alice).body == #"{"received": 0, "new": 0, "deleted": 0, "skipped": 2}"#)
        #expect(HealthAutoExportSkips.examples(Array(nameless.utf8), limit: 3)
                == ["metric #0: no name (a metric's name is its type): its 1 point not stored",
                    "metric #1: no name (a metric's name is its type): its 1 point not stored"])
    }

    /// The reply counts what was skipped, as `"skipped": n` when there is any (a person with curl
    /// saw `"received": 0` and had to read the log to learn that the point was not stored).
    @Test func theReplyCountsWhatWasSkipped() throws {
        let server = try PushServerFixture()
        let unreadable = #"{"data":{"metrics":[{"name":"step_count","units":"count","data":[{"qty":"12","date":"2024-05-01 00:00:00 +0000"}]}]}}"#
        #expect(server.client.post("/hae", unreadable, token: alice).body == #"{"received": 0, "new": 0, "deleted": 0, "skipped": 1}"#)
        let mixed = #"{"data":{"metrics":[{"name":"step_count","units":"count","data":["#
            + #"{"qty":12,"date":"2024-05-01 00:00:00 +0000"},{"qty":13,"date":"tomorrow"},5]}],"#
            + #""workouts":[{"name":"Running","start":"2024-05-01 08:00:00 +0000","end":"2024-05-01 07:00:00 +0000"}]}}"#
        #expect(server.client.post("/hae", mixed, token: alice).body == #"{"received": 1, "new": 1, "deleted": 0, "skipped": 3}"#)
        // Nothing skipped: no `skipped`.
        let fine = #"{"data":{"metrics":[{"name":"step_count","units":"count","data":[{"qty":14,"date":"2024-05-02 00:00:00 +0000"}]}]}}"#
        #expect(server.client.post("/hae", fine, token: alice).body == #"{"received": 1, "new": 1, "deleted": 0}"#)
    }

    /// A workout's `intensity` (`{"qty": 5.2, "units": "kcal/hr·kg"}`) is kept in metadata as sent,
    /// its units with it, as other `{qty, units}` fields of a workout are: it was the bare number.
    @Test func aWorkoutsIntensityKeepsItsUnits() throws {
        let body = #"{"data":{"workouts":[{"id":"AAAAAAAA-1111-4222-8333-444444444444","name":"Running","#
            + #""start":"2024-03-05 07:00:00 +0100","end":"2024-03-05 07:30:00 +0100","intensity":{"qty":5.2,"units":"kcal/hr·kg"}},"#
            + #"{"id":"BBBBBBBB-1111-4222-8333-444444444444","name":"Walking","#
            + #""start":"2024-03-06 07:00:00 +0100","end":"2024-03-06 07:30:00 +0100","intensity":3.5}]}}"#
        let server = try PushServerFixture()
        #expect(server.client.post("/hae", body, token: alice).body == #"{"received": 2, "new": 2, "deleted": 0}"#)
        let workouts = try samples(server)
        #expect(workouts.count == 2)
        #expect(workouts.first?.metadata[key: "intensity"] == .string(#"{"qty":5.2,"units":"kcal/hr·kg"}"#))
        #expect(workouts.last?.metadata[key: "intensity"] == .number(3.5))
        #expect(server.client.post("/hae", body, token: alice).body == #"{"received": 2, "new": 0, "deleted": 0}"#)
    }

    /// A route point's `courseAccuracy` and `speedAccuracy`, which a route point has no field for,
    /// are counted per body (the handler logs them), not dropped without a word.
    @Test func routePointFieldsLeftOutAreCounted() throws {
        #expect(try HealthAutoExportParser.parse(Array(Self.workouts.utf8), userId: nil).routePointsWithFieldsLeftOut == 1)
        let both = #"{"data":{"workouts":[{"name":"Running","start":"2024-03-05 07:00:00 +0100","route":["#
            + #"{"latitude":52.5,"longitude":13.4,"timestamp":"2024-03-05 07:00:00 +0100","courseAccuracy":5,"speedAccuracy":0.2},"#
            + #"{"latitude":52.5,"longitude":13.4,"timestamp":"2024-03-05 07:01:00 +0100","courseAccuracy":null},"#
            + #"{"latitude":52.5,"longitude":13.4,"timestamp":"2024-03-05 07:02:00 +0100","courseAccuracy":-1}]}]}}"#
        #expect(try HealthAutoExportParser.parse(Array(both.utf8), userId: nil).routePointsWithFieldsLeftOut == 2)
    }
}
