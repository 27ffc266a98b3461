import TestSupport
import Foundation
import HealthRouterCore
import Testing

@Suite struct PulsoJSONEncoderTests {
    func encode(_ sample: Sample, extensions: Bool = true) -> String {
        var writer = JSONWriter()
        writer.beginObject()
        PulsoJSONEncoder.writeSampleFields(sample, into: &writer, extensions: extensions)
        writer.endObject()
        return writer.text
    }

    func object(_ json: String) throws -> NSDictionary {
        try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? NSDictionary)
    }

    @Test
    func goldenSleepEncoding() throws {
        var sleep = SinkFixtures.sleep
        sleep.categoryValue = "asleepREM"
        let golden = #"{"end":"2026-07-06T02:40:00+01:00","metadata":{"timeZone":"Europe/Lisbon"},"source":"Apple Watch","sourceBundleId":"com.apple.health","start":"2026-07-06T01:12:00+01:00","type":"sleepAnalysis","uuid":"ABC-123","value":"asleepREM"}"#
        #expect(try object(encode(sleep, extensions: false)) == object(golden))
    }

    @Test
    func goldenWorkoutEncoding() throws {
        var workout = SinkFixtures.workout
        guard case .workout(var parts) = workout.detail else { Issue.record("fixture"); return }
        parts.activityType = "traditionalStrengthTraining"
        workout.detail = .workout(parts)
        let golden = #"{"averageHeartRate":132.5,"duration":3612.4,"end":"2026-07-05T19:30:12+01:00","maximumHeartRate":171,"metadata":{"HKIndoorWorkout":true,"HKWorkoutBrandName":"Push Day A","customRounds":3},"minimumHeartRate":88,"source":"SmartGym","start":"2026-07-05T18:30:00+01:00","totalBasalEnergyBurned":96.5,"totalEnergyBurned":412,"type":"workout","uuid":"W-1","workoutActivityType":"traditionalStrengthTraining"}"#
        #expect(try object(encode(workout, extensions: false)) == object(golden))
        // Integral numbers without a fraction, as the app writes them.
        #expect(encode(workout, extensions: false).contains(#""maximumHeartRate":171"#))
        #expect(!encode(workout, extensions: false).contains("171.0"))
    }

    @Test
    func unknownOffsetIsWrittenAsMinusZero() {
        #expect(written(Timestamp(epochSeconds: 1_783_272_601)) == "\"2026-07-05T17:30:01-00:00\"")
        #expect(written(Timestamp(epochSeconds: 1_783_272_601, utcOffsetSeconds: 0)) == "\"2026-07-05T17:30:01Z\"")
    }

    /// What `JSONWriter.timestamp` writes for `instant`.
    func written(_ instant: Timestamp) -> String {
        var writer = JSONWriter()
        writer.timestamp(instant)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// ISO 8601 with the original offset, as `TimestampFormatter` writes it; `-00:00` when the
    /// offset is unknown.
    func timestampText(_ timestamp: Timestamp) -> String {
        let text = TimestampFormatter.iso8601(timestamp)
        guard timestamp.utcOffsetSeconds == nil, text.hasSuffix("Z") else { return text }
        return text.dropLast() + "-00:00"
    }

    @Test func writerTimestampsAreTheQuotedTimestampText() {
        let instants: [Timestamp] = [
            Timestamp(epochSeconds: 1_783_272_601), Timestamp(epochSeconds: 1_783_272_601, utcOffsetSeconds: 0),
            Timestamp(epochMilliseconds: 1_783_272_601_250, utcOffsetSeconds: 3_600),
            Timestamp(epochMilliseconds: -1_234_567, utcOffsetSeconds: -28_800),
            Timestamp(epochMilliseconds: 1_783_272_601_007), Timestamp(epochSeconds: -62_198_755_200),
        ]
        for instant in instants {
            var writer = JSONWriter()
            writer.beginArray()
            writer.timestamp(instant)
            writer.string("after")
            writer.endArray()
            #expect(String(decoding: writer.bytes, as: UTF8.self) == "[\"\(timestampText(instant))\",\"after\"]")
        }
    }

    @Test func pulsoOnlyEncodingOmitsEveryExtension() throws {
        let pulsoKeys: Set<String> = [
            "uuid", "type", "start", "end", "value", "unit", "source", "sourceBundleId", "metadata",
            "workoutActivityType", "duration", "totalEnergyBurned", "totalBasalEnergyBurned", "totalDistance",
            "averageHeartRate", "minimumHeartRate", "maximumHeartRate",
        ]
        for sample in SinkFixtures.all {
            let keys = Set(try object(encode(sample, extensions: false)).allKeys.compactMap { $0 as? String })
            #expect(keys.isSubset(of: pulsoKeys), "\(sample.id): \(keys.subtracting(pulsoKeys))")
        }
    }

    @Test func extensionsCarryWhatPulsoLacks() throws {
        let workout = try object(encode(SinkFixtures.workout))
        #expect(workout["kind"] as? String == "workout")
        #expect(workout["activityType"] as? String == "HKWorkoutActivityTypeTraditionalStrengthTraining")
        #expect(workout["identifier"] as? String == "HKWorkoutTypeIdentifier")

        var both = SinkFixtures.standHour
        both.value = 1
        let standHour = try object(encode(both))
        #expect(standHour["numericValue"] as? Double == 1)
        #expect(standHour["value"] as? String
                    == CategoryValueNames.pulsoName("HKCategoryValueAppleStandHourStood", type: both.type))
    }

    /// Pulso sends no `value` for a mindful session or sexual activity; healthrouter's extension
    /// `categoryValue` keeps HealthKit's, so its own reader gets the sample back as it was.
    @Test func aMindfulSessionHasNoPulsoValue() throws {
        for type in ["HKCategoryTypeIdentifierMindfulSession", "HKCategoryTypeIdentifierSexualActivity"] {
            let session = Sample(id: "M-1", type: type, kind: .category,
                                 start: SinkFixtures.time("2024-01-05 09:00:00 +0100"),
                                 end: SinkFixtures.time("2024-01-05 09:10:00 +0100"),
                                 categoryValue: "HKCategoryValueNotApplicable", sourceName: "Breathe")
            let pulso = try object(encode(session, extensions: false))
            #expect(pulso["value"] == nil, "\(type): \(pulso)")
            let line = encode(session)
            let extended = try object(line)
            #expect(extended["value"] == nil)
            #expect(extended["categoryValue"] as? String == "HKCategoryValueNotApplicable")
            let decoded = try PulsoJSONDecoder.decode(ArraySlice(Array(line.utf8))).item
            guard case .sample(let back) = decoded else { Issue.record("not a sample: \(decoded)"); continue }
            #expect(back.categoryValue == "HKCategoryValueNotApplicable" && back.kind == .category && back.type == type)
        }
        // Other categories keep theirs.
        #expect(try object(encode(SinkFixtures.standHour, extensions: false))["value"] as? String == "stood")
    }

    /// Pulso's metadata holds only strings, numbers and booleans; an array or object from another
    /// producer is kept as its compact JSON text, keys sorted, and a null is no value.
    @Test func nestedMetadataIsKeptAsJSONText() throws {
        let line = #"{"uuid":"N-1","type":"heartRate","start":"2024-01-05T09:00:00Z","end":"2024-01-05T09:00:00Z","value":60,"unit":"count/min","source":"P","metadata":{"a":[1,2.5,"x",null],"b":{"y":2,"x":{"deep":true}},"c":null,"d":1}}"#
        guard case .sample(let sample) = try PulsoJSONDecoder.decode(ArraySlice(Array(line.utf8))).item else {
            Issue.record("not a sample")
            return
        }
        #expect(sample.metadata == [MetadataEntry("a", .string(#"[1,2.5,"x",null]"#)),
                                    MetadataEntry("b", .string(#"{"x":{"deep":true},"y":2}"#)),
                                    MetadataEntry("d", .number(1))])
    }

    @Test func sampleZoneMovesOutOfTheWayOfAMetadataTimeZone() throws {
        var sample = SinkFixtures.sleep
        sample.metadata = [MetadataEntry("timeZone", .string("producer's own"))]
        let encoded = try object(encode(sample))
        #expect((encoded["metadata"] as? NSDictionary)?["timeZone"] as? String == "producer's own")
        #expect(encoded["timeZone"] as? String == "Europe/Lisbon")

        let plain = try object(encode(SinkFixtures.sleep))
        #expect((plain["metadata"] as? NSDictionary)?["timeZone"] as? String == "Europe/Lisbon")
        #expect(plain["timeZone"] == nil)
    }

    @Test func workoutActivityTypesUsePulsoCaseNames() {
        #expect(PulsoJSONEncoder.pulsoWorkoutActivityType("HKWorkoutActivityTypeRunning") == "running")
        #expect(PulsoJSONEncoder.pulsoWorkoutActivityType("HKWorkoutActivityTypeHighIntensityIntervalTraining")
                    == "highIntensityIntervalTraining")
        #expect(PulsoJSONEncoder.pulsoWorkoutActivityType("running") == "running")
        #expect(PulsoJSONEncoder.pulsoWorkoutActivityType("activity_3000") == "activity_3000")
        // A raw value without a name: Pulso's `activity_<n>`.
        #expect(PulsoJSONEncoder.pulsoWorkoutActivityType("HKWorkoutActivityType3000") == "activity_3000")
        #expect(PulsoJSONEncoder.pulsoWorkoutActivityType("HKWorkoutActivityType") == "HKWorkoutActivityType")
    }

    @Test func typeKeysComeFromTheRegistry() {
        #expect(PulsoJSONEncoder.typeKey("HKQuantityTypeIdentifierHeartRate") == "heartRate")
        #expect(PulsoJSONEncoder.typeKey("HKQuantityTypeIdentifierNotARealThing") == "HKQuantityTypeIdentifierNotARealThing")
    }
}
