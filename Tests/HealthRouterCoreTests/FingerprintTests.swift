import Testing
@testable import HealthRouterCore

@Suite struct FingerprintTests {
    private func date(_ text: String) -> Timestamp { HealthDateParser.parse(text)! }

    /// A record as the export source reads it: HealthKit units and names, no id, a device with an address.
    private func exported(_ type: String, value: Double? = nil, unit: String? = nil, category: String? = nil,
                          start: String = "2024-01-05 10:00:00 -0800", end: String = "2024-01-05 10:00:00 -0800",
                          detail: SampleDetail = .none, kind: SampleKind = .quantity) -> Sample {
        var sample = Sample(id: "", type: type, kind: kind, start: date(start), end: date(end), value: value, unit: unit,
                            categoryValue: category, sourceName: "Lenilson’s Apple Watch",
                            device: "<<HKDevice: 0x282a45810>, name:Apple Watch>", detail: detail)
        SampleNormalizer.normalize(&sample, convention: .healthKit)
        return sample
    }

    /// The same reading pushed by Pulso: its key, canonical units, its own uuid, its own offset.
    private func pushed(_ key: String, value: Double? = nil, unit: String? = nil, category: String? = nil,
                        start: String = "2024-01-05T18:00:00Z", end: String = "2024-01-05T18:00:00Z",
                        detail: SampleDetail = .none, kind: SampleKind = .quantity) -> Sample {
        var sample = Sample(id: "1E9B4C1A-3F2D-4C8E-9B7A-2D5E8F1A6C3B", type: key, kind: kind, start: date(start),
                            end: date(end), value: value, unit: unit, categoryValue: category,
                            sourceName: "Lenilson’s Apple Watch", sourceBundleId: "com.apple.health.A1B2C3",
                            metadata: [MetadataEntry("timeZone", .string("America/Los_Angeles"))], detail: detail)
        SampleNormalizer.normalize(&sample, convention: .canonical)
        return sample
    }

    private func sameReading(_ a: Sample, _ b: Sample) -> Bool {
        Fingerprint.text(of: a) == Fingerprint.text(of: b) && Fingerprint.id(of: a) == Fingerprint.id(of: b)
    }

    @Test func exactText() {
        let sample = exported("HKQuantityTypeIdentifierOxygenSaturation", value: 0.96, unit: "%")
        #expect(Fingerprint.text(of: sample)
            == "HKQuantityTypeIdentifierOxygenSaturation\u{1F}Lenilson’s Apple Watch\u{1F}1704477600\u{1F}1704477600\u{1F}96")
        #expect(sample.id == Fingerprint.id(of: sample))
        #expect(Fingerprint.id(of: sample) == UUIDv5.string(name: Fingerprint.text(of: sample)))
    }

    @Test func percentagesAcrossProducers() {
        #expect(sameReading(exported("HKQuantityTypeIdentifierOxygenSaturation", value: 0.96, unit: "%"),
                            pushed("oxygenSaturation", value: 96, unit: "%")))
        #expect(sameReading(exported("HKQuantityTypeIdentifierBodyFatPercentage", value: 0.187, unit: "%"),
                            pushed("bodyFatPercentage", value: 18.7, unit: "%")))
    }

    @Test func unitsAcrossProducers() {
        #expect(sameReading(exported("HKQuantityTypeIdentifierActiveEnergyBurned", value: 418.4, unit: "kJ"),
                            pushed("activeEnergyBurned", value: 100, unit: "kcal")))
        #expect(sameReading(exported("HKQuantityTypeIdentifierDistanceWalkingRunning", value: 1.2, unit: "km"),
                            pushed("distanceWalkingRunning", value: 1200, unit: "m")))
        #expect(sameReading(exported("HKQuantityTypeIdentifierBodyMass", value: 150, unit: "lb"),
                            pushed("bodyMass", value: 68.0388555, unit: "kg")))
        #expect(sameReading(exported("HKQuantityTypeIdentifierVO2Max", value: 45.2, unit: "mL/min·kg"),
                            pushed("vo2Max", value: 45.2, unit: "mL/(kg·min)")))
        #expect(sameReading(exported("HKQuantityTypeIdentifierRunningGroundContactTime", value: 0.254, unit: "s"),
                            pushed("runningGroundContactTime", value: 254, unit: "ms")))
    }

    @Test func fingerprintConvertsUnitsOfAnUnnormalisedSample() {
        let raw = Sample(id: "", type: "HKQuantityTypeIdentifierDistanceCycling", kind: .quantity,
                         start: date("2024-01-05 10:00:00 -0800"), end: date("2024-01-05 10:00:00 -0800"),
                         value: 2, unit: "km", sourceName: "Lenilson’s Apple Watch")
        #expect(Fingerprint.text(of: raw).hasSuffix("\u{1F}2000"))
    }

    @Test func healthAutoExportMatchesTheExport() {
        var hae = Sample(id: "", type: "heart_rate", kind: .quantity, start: date("2024-01-05 10:00:00 -0800"),
                         end: date("2024-01-05 10:00:00 -0800"), value: 72, unit: "bpm",
                         sourceName: "Lenilson’s Apple Watch")
        SampleNormalizer.normalize(&hae, convention: .canonical)
        let export = exported("HKQuantityTypeIdentifierHeartRate", value: 72, unit: "count/min")
        #expect(sameReading(hae, export))
        #expect(hae.id == export.id)
    }

    @Test func sleepStagesAcrossProducers() {
        let start = "2026-07-06 01:12:00 +0100", end = "2026-07-06 02:40:00 +0100"
        #expect(sameReading(
            exported("HKCategoryTypeIdentifierSleepAnalysis", category: "HKCategoryValueSleepAnalysisAsleepCore",
                     start: start, end: end, kind: .category),
            pushed("sleepAnalysis", category: "asleepCore", start: "2026-07-06T01:12:00+01:00",
                   end: "2026-07-06T02:40:00+01:00", kind: .category)))
        #expect(sameReading(
            exported("HKCategoryTypeIdentifierSleepAnalysis", category: "HKCategoryValueSleepAnalysisAsleep",
                     start: start, end: end, kind: .category),
            pushed("sleepAnalysis", category: "asleepUnspecified", start: "2026-07-06T00:12:00Z",
                   end: "2026-07-06T01:40:00Z", kind: .category)))
    }

    @Test func valuelessCategoriesAcrossProducers() {
        #expect(sameReading(
            exported("HKCategoryTypeIdentifierMindfulSession", category: "HKCategoryValueNotApplicable", kind: .category),
            pushed("mindfulSession", kind: .category)))
    }

    @Test func workoutsAcrossProducers() {
        // The export says 60.20666666666667 min; Pulso says 3612.4 s.
        let exportWorkout = Workout(activityType: "HKWorkoutActivityTypeRunning", durationSeconds: 60.20666666666667 * 60,
                                    totalDistanceMeters: 10_000)
        let pulsoWorkout = Workout(activityType: "running", durationSeconds: 3612.4, totalDistanceMeters: 10_000.2)
        let a = exported("HKWorkoutTypeIdentifier", start: "2026-07-05 18:30:00 +0100", end: "2026-07-05 19:30:12 +0100",
                         detail: .workout(exportWorkout), kind: .workout)
        let b = pushed("workout", start: "2026-07-05T18:30:00+01:00", end: "2026-07-05T19:30:12+01:00",
                       detail: .workout(pulsoWorkout), kind: .workout)
        #expect(sameReading(a, b))
        #expect(Fingerprint.text(of: a).hasSuffix("\u{1F}running\u{1F}3612"))
        let otherSport = pushed("workout", start: "2026-07-05T18:30:00+01:00", end: "2026-07-05T19:30:12+01:00",
                                detail: .workout(Workout(activityType: "cycling", durationSeconds: 3612.4)), kind: .workout)
        #expect(!sameReading(a, otherSport))
    }

    @Test func subSecondInstantsMatchTheirSecond() {
        #expect(sameReading(
            exported("HKQuantityTypeIdentifierHeartRate", value: 72, unit: "count/min"),
            pushed("heartRate", value: 72, unit: "count/min", start: "2024-01-05T18:00:00.750Z",
                   end: "2024-01-05T18:00:00.750Z")))
        let beforeEpoch = Sample(id: "", type: "x", kind: .quantity, start: Timestamp(epochMilliseconds: -500),
                                 end: Timestamp(epochMilliseconds: -500), sourceName: "s")
        #expect(Fingerprint.text(of: beforeEpoch) == "x\u{1F}s\u{1F}-1\u{1F}-1\u{1F}")
    }

    @Test func differentReadingsDiffer() {
        let base = exported("HKQuantityTypeIdentifierHeartRate", value: 72, unit: "count/min")
        var ids: Set<String> = [base.id]
        var other = base
        other.value = 73
        ids.insert(Fingerprint.id(of: other))
        other = base
        other.sourceName = "iPhone"
        ids.insert(Fingerprint.id(of: other))
        other = base
        other.start = Timestamp(epochSeconds: base.start.epochMilliseconds / 1000 - 1)
        ids.insert(Fingerprint.id(of: other))
        other = base
        other.end = Timestamp(epochSeconds: base.end.epochMilliseconds / 1000 + 1)
        ids.insert(Fingerprint.id(of: other))
        other = base
        other.type = "HKQuantityTypeIdentifierRestingHeartRate"
        ids.insert(Fingerprint.id(of: other))
        #expect(ids.count == 6)
        // Device, metadata and source version are not part of the identity.
        other = base
        other.device = "<<HKDevice>, name:iPhone>"
        other.sourceVersion = "17.2.1"
        other.metadata = [MetadataEntry("HKWasUserEntered", .bool(true))]
        #expect(Fingerprint.id(of: other) == base.id)
    }

    @Test func numbersAreWrittenMinimally() {
        func valueText(_ value: Double, unit: String? = nil) -> Substring {
            let sample = Sample(id: "", type: "HKQuantityTypeIdentifierHeartRate", kind: .quantity,
                                start: Timestamp(epochSeconds: 0), end: Timestamp(epochSeconds: 0), value: value,
                                unit: unit, sourceName: "s")
            return Fingerprint.text(of: sample).split(separator: "\u{1F}", omittingEmptySubsequences: false).last!
        }
        #expect(valueText(0.96 * 100) == "96")
        #expect(valueText(96) == "96")
        #expect(valueText(0.5) == "0.5")
        #expect(valueText(-1.25) == "-1.25")
        #expect(valueText(0) == "0")
        #expect(valueText(-0.0000001) == "0")
        #expect(valueText(0.000001) == "0.000001")
        #expect(valueText(123_456_789.123_456_789) == "123456789.123457")
        #expect(valueText(0.1 + 0.2) == "0.3")
        #expect(valueText(1e13) == "10000000000000.0")
        #expect(valueText(.infinity) == "inf")
        #expect(valueText(72, unit: "furlong/fortnight") == "72 furlong/fortnight")
        #expect(valueText(72, unit: "bpm") == "72")
    }

    @Test func unknownTypesUseTheirOwnNameAndUnit() {
        let sample = Sample(id: "", type: "HKQuantityTypeIdentifierSomethingNew", kind: .quantity,
                            start: Timestamp(epochSeconds: 10), end: Timestamp(epochSeconds: 20), value: 5, unit: "km",
                            sourceName: "App")
        #expect(Fingerprint.text(of: sample) == "HKQuantityTypeIdentifierSomethingNew\u{1F}App\u{1F}10\u{1F}20\u{1F}5 km")
    }

    @Test func correlationsAndRecords() {
        let correlation = Sample(id: "", type: "HKCorrelationTypeIdentifierBloodPressure", kind: .correlation,
                                 start: Timestamp(epochSeconds: 10), end: Timestamp(epochSeconds: 10), sourceName: "Omron",
                                 detail: .correlation(memberIds: ["B", "A"]))
        #expect(Fingerprint.text(of: correlation).hasSuffix("\u{1F}10\u{1F}A\u{1F}B"))
        let record = GenericRecord(element: "ClinicalRecord", attributes: [.init("identifier", "42")],
                                   children: [GenericRecord(element: "Child", attributes: [.init("a", "1")])])
        let clinical = Sample(id: "", type: "HKClinicalTypeIdentifierLabResultRecord", kind: .other,
                              start: Timestamp(epochSeconds: 10), end: Timestamp(epochSeconds: 10), sourceName: "Clinic",
                              detail: .record(record))
        #expect(Fingerprint.text(of: clinical).hasSuffix(
            "\u{1F}ClinicalRecord\u{1F}identifier=42\u{1E}Child\u{1F}a=1\u{1D}"))
        var otherRecord = clinical
        otherRecord.detail = .record(GenericRecord(element: "ClinicalRecord", attributes: [.init("identifier", "43")]))
        #expect(Fingerprint.id(of: clinical) != Fingerprint.id(of: otherRecord))
    }

    @Test func longNamesFitTheBuffer() {
        let long = String(repeating: "Ä", count: 5000)
        let sample = Sample(id: "", type: long, kind: .category, start: Timestamp(epochSeconds: 1),
                            end: Timestamp(epochSeconds: 2), categoryValue: long, sourceName: long)
        #expect(Fingerprint.text(of: sample) == "\(long)\u{1F}\(long)\u{1F}1\u{1F}2\u{1F}\(long)")
        #expect(Fingerprint.id(of: sample) == UUIDv5.string(name: Fingerprint.text(of: sample)))
    }
}
