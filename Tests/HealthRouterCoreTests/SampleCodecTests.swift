import Testing
@testable import HealthRouterCore

@Suite struct SampleCodecTests {
    @Test func everyDetailRoundTrips() throws {
        let t = Timestamp(epochMilliseconds: 1_700_000_000_250, utcOffsetSeconds: -18_000)
        let workout = Workout(
            activityType: "HKWorkoutActivityTypeRunning", durationSeconds: 1800, totalDistanceMeters: 5000,
            totalEnergyBurnedKilocalories: 400, averageHeartRate: 150,
            events: [WorkoutEvent(type: "HKWorkoutEventTypePause", date: t, durationSeconds: 3,
                                  metadata: [MetadataEntry("k", .bool(true))])],
            statistics: [WorkoutStatistic(type: "HKQuantityTypeIdentifierHeartRate", start: t, end: t, average: 150, unit: "count/min")],
            activities: [WorkoutActivity(id: "A", activityType: nil, start: t, end: nil, durationSeconds: 60)],
            routes: [WorkoutRoute(sourceName: "Watch", start: t, filePath: "/workout-routes/r.gpx",
                                  points: [RoutePoint(time: t, latitude: 52.1, longitude: 4.3, altitude: nil, speed: 3.2)])])
        let samples: [HealthItem] = [
            .sample(Sample(id: "W", type: "HKWorkoutTypeIdentifier", kind: .workout, start: t, end: t,
                           timeZone: "Europe/Amsterdam", sourceName: "Watch ’ 🏃", sourceVersion: "10.1",
                           device: "<<HKDevice>, name:Apple Watch>", createdAt: t,
                           metadata: [MetadataEntry("HKIndoorWorkout", .bool(false)), MetadataEntry("n", .number(3.5)),
                                      MetadataEntry("s", .string("x"))], userId: "alice", detail: .workout(workout))),
            .sample(Sample(id: "C", type: "HKCorrelationTypeIdentifierBloodPressure", kind: .correlation, start: t, end: t,
                           sourceName: "Cuff", detail: .correlation(memberIds: ["a", "b"]))),
            .sample(Sample(id: "H", type: "HKQuantityTypeIdentifierHeartRateVariabilitySDNN", kind: .quantity, start: t, end: t,
                           value: 42, unit: "ms", sourceName: "Watch", detail: .heartbeats([Heartbeat(time: t, beatsPerMinute: 61)]))),
            .sample(Sample(id: "M", type: "Me", kind: .profile, start: t, end: t, sourceName: "",
                           detail: .record(GenericRecord(element: "Me", attributes: [.init("a", "b")],
                                                         children: [GenericRecord(element: "c")])))),
            .sample(Sample(id: "S", type: "HKCategoryTypeIdentifierSleepAnalysis", kind: .category,
                           start: Timestamp(epochMilliseconds: -5, utcOffsetSeconds: nil), end: t,
                           categoryValue: "HKCategoryValueSleepAnalysisAsleepCore", sourceName: "Watch")),
            .tombstone(Tombstone(ids: ["X", "Y"], userId: nil)),
            .tombstone(Tombstone(ids: [], userId: "bob")),
        ]
        for item in samples {
            #expect(try SampleCodec.decode(SampleCodec.encode(item)) == item)
        }
    }

    /// The journal's content hash leaves UTC offsets out. It is taken from the entry's encoding
    /// without the offsets' bytes (`marksOffsets`), which must be the hash of the encoding written
    /// without them (`omitsOffsets`): for every detail but a record's, whose dates count as instants.
    @Test func theHashWithoutOffsetsIsTheEntryEncodingWithoutTheirBytes() throws {
        let t = Timestamp(epochMilliseconds: 1_700_000_000_250, utcOffsetSeconds: -18_000)
        let summer = Timestamp(epochMilliseconds: 1_700_000_100_000, utcOffsetSeconds: 7_200)
        let workout = Workout(
            activityType: "HKWorkoutActivityTypeRunning", durationSeconds: 1800,
            events: [WorkoutEvent(type: "HKWorkoutEventTypePause", date: t, durationSeconds: 3)],
            statistics: [WorkoutStatistic(type: "HKQuantityTypeIdentifierHeartRate", start: t, end: summer, average: 150, unit: "count/min")],
            activities: [WorkoutActivity(id: "A", activityType: nil, start: t, end: nil, durationSeconds: 60)],
            routes: [WorkoutRoute(sourceName: "Watch", start: t, filePath: "/r.gpx",
                                  points: (0..<300).map { RoutePoint(time: Timestamp(epochMilliseconds: 1_700_000_000_000 + Int64($0) * 1000,
                                                                                   utcOffsetSeconds: 3_600),
                                                                       latitude: 52.1, longitude: 4.3, altitude: nil, speed: 3.2) })])
        let samples = [
            Sample(id: "W", type: "HKWorkoutTypeIdentifier", kind: .workout, start: t, end: summer, sourceName: "Watch",
                   createdAt: summer, detail: .workout(workout)),
            Sample(id: "H", type: "HKQuantityTypeIdentifierHeartRateVariabilitySDNN", kind: .quantity, start: t, end: t,
                   value: 42, unit: "ms", sourceName: "Watch",
                   detail: .heartbeats([Heartbeat(time: t, beatsPerMinute: 61), Heartbeat(time: summer, beatsPerMinute: 62)])),
            Sample(id: "C", type: "HKCorrelationTypeIdentifierBloodPressure", kind: .correlation, start: t, end: t,
                   sourceName: "Cuff", detail: .correlation(memberIds: ["a", "b"])),
            Sample(id: "S", type: "HKCategoryTypeIdentifierSleepAnalysis", kind: .category,
                   start: Timestamp(epochMilliseconds: -5, utcOffsetSeconds: nil), end: t,
                   categoryValue: "HKCategoryValueSleepAnalysisAsleepCore", sourceName: "Watch"),
        ]
        for sample in samples {
            var without = ByteWriter()
            without.omitsOffsets = true
            SampleCodec.encode(sample: sample, into: &without)
            var marked = ByteWriter()
            marked.marksOffsets = true
            SampleCodec.encode(sample: sample, into: &marked)
            #expect(!marked.offsetRanges.isEmpty)
            #expect(marked.bytes.count - marked.offsetRanges.reduce(0) { $0 + $1.count } == without.bytes.count)
            #expect(ContentHash.of(marked.bytes, skipping: marked.offsetRanges) == ContentHash.of(without.bytes), "\(sample.id)")
            // The marks change nothing in the entry itself.
            #expect(marked.bytes == SampleCodec.encode(.sample(sample)))
        }
    }

    @Test func damagedPayloadThrows() {
        let bytes = SampleCodec.encode(.sample(heartRate(60, at: 0)))
        #expect(throws: ByteReader.Truncated.self) { try SampleCodec.decode(Array(bytes.dropLast(3))) }
        #expect(throws: ByteReader.Truncated.self) { try SampleCodec.decode([9, 1, 2]) }
    }

    /// A length or count of 2^63 or more (a damaged timescaledb `canonical` edited by hand, a
    /// damaged journal entry) throws: `Int(_:)` of it trapped, and `dump --from` crashed (exit 132).
    @Test func aLengthPastIntThrows() {
        let huge: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]
        for read in [{ (reader: inout ByteReader) in _ = try reader.string() }, { _ = try $0.count() }] {
            #expect(throws: ByteReader.Truncated.self) {
                try huge.withUnsafeBytes { bytes in
                    var reader = ByteReader(bytes)
                    try read(&reader)
                }
            }
        }
        // Just under: still refused for the bytes it does not have, as before.
        #expect(throws: ByteReader.Truncated.self) {
            try [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F].withUnsafeBytes { bytes in
                var reader = ByteReader(bytes)
                _ = try reader.string()
            }
        }
        // The payload leftovers4 found: a sample's canonical whose first string is that long.
        let bytes = SampleCodec.encode(.sample(heartRate(60, at: 0)))
        #expect(throws: ByteReader.Truncated.self) { try SampleCodec.decode(Array(bytes.prefix(2)) + huge) }
    }
}
