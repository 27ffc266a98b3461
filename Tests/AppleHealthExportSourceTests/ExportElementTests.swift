import Foundation
import Testing
import HealthRouterCore
import AppleHealthExportSource

/// Small hand-written export.xml documents: where each element lands.
@Suite struct ExportElementTests {
    private func read(_ body: String, exportDate: String = "2023-01-02 10:00:00 -0800") throws -> CollectingOutput {
        let directory = try TemporaryDirectory()
        let path = try directory.write("export.xml", Fixtures.export(body, exportDate: exportDate))
        return try Fixtures.read(path)
    }

    @Test func quantityRecordWithMetadataAndDevice() throws {
        let output = try read("""
         <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Jane&#x2019;s Watch &amp; Co" sourceVersion="10.1" device="&lt;&lt;HKDevice: 0x2835e6d50&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,2, software:10.1&gt;" unit="count/min" creationDate="2023-01-01 08:00:05 -0800" startDate="2023-01-01 08:00:00 -0800" endDate="2023-01-01 08:00:00 -0800" value="72" futureAttribute="kept">
          <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="0"/>
          <MetadataEntry key="HKWeatherTemperature" value="56 degF"/>
          <MetadataEntry key="HKMetadataKeySyncIdentifier" value="007"/>
          <MetadataEntry key="HKAverageMETs" value="3.5"/>
          <MetadataEntry key="HKTimeZone" value="America/Los_Angeles"/>
         </Record>
        """)
        let sample = try #require(output.samples.first)
        #expect(output.samples.count == 1 && output.skips.isEmpty)
        #expect(sample.kind == .quantity)
        #expect(sample.type == "HKQuantityTypeIdentifierHeartRate")
        #expect(sample.value == 72)
        #expect(sample.unit == "count/min")
        #expect(sample.sourceName == "Jane\u{2019}s Watch & Co")
        #expect(sample.sourceVersion == "10.1")
        #expect(sample.start == Timestamp(epochSeconds: 1_672_588_800, utcOffsetSeconds: -28_800))
        #expect(sample.start.utcOffsetSeconds == -28_800)
        #expect(sample.createdAt?.epochMilliseconds == 1_672_588_805_000)
        #expect(sample.device?.contains("name:Apple Watch") == true)
        #expect(sample.device?.contains("0x2835e6d50") == false)
        #expect(sample.timeZone == "America/Los_Angeles")
        #expect(sample.userId == "u1")
        #expect(!sample.id.isEmpty)
        #expect(sample.metadata[key: "HKMetadataKeyHeartRateMotionContext"] == .number(0))
        #expect(sample.metadata[key: "HKWeatherTemperature"] == .string("56 degF"))
        #expect(sample.metadata[key: "HKMetadataKeySyncIdentifier"] == .string("007"))
        #expect(sample.metadata[key: "HKAverageMETs"] == .number(3.5))
        #expect(sample.metadata[key: "futureAttribute"] == .string("kept"))
    }

    @Test func categoryRecordsAndKindByPrefix() throws {
        let output = try read("""
         <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="Watch" startDate="2023-01-01 01:00:00 -0800" endDate="2023-01-01 02:00:00 -0800" value="HKCategoryValueSleepAnalysisAsleepCore"/>
         <Record type="HKCategoryTypeIdentifierMadeUpNewThing" sourceName="Watch" startDate="2023-01-01 01:00:00 -0800" endDate="2023-01-01 02:00:00 -0800" value="1"/>
         <Record type="HKQuantityTypeIdentifierMadeUpNewQuantity" sourceName="Watch" unit="furlong" startDate="2023-01-01 01:00:00 -0800" endDate="2023-01-01 02:00:00 -0800" value="3.25"/>
         <Record type="HKDataTypeSleepDurationGoal" sourceName="Health" unit="hr" startDate="2023-01-01 01:00:00 -0800" endDate="2023-01-01 01:00:00 -0800" value="8"/>
         <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" startDate="2023-01-01 01:00:00 -0800" endDate="2023-01-01 01:00:00 -0800" value="many"/>
        """)
        let byType = Dictionary(uniqueKeysWithValues: output.samples.map { ($0.type, $0) })
        #expect(byType["HKCategoryTypeIdentifierSleepAnalysis"]?.kind == .category)
        #expect(byType["HKCategoryTypeIdentifierSleepAnalysis"]?.categoryValue == "HKCategoryValueSleepAnalysisAsleepCore")
        #expect(byType["HKCategoryTypeIdentifierSleepAnalysis"]?.value == nil)
        #expect(byType["HKCategoryTypeIdentifierMadeUpNewThing"]?.kind == .category)
        #expect(byType["HKCategoryTypeIdentifierMadeUpNewThing"]?.categoryValue == "1")
        #expect(byType["HKQuantityTypeIdentifierMadeUpNewQuantity"]?.value == 3.25)
        #expect(byType["HKQuantityTypeIdentifierMadeUpNewQuantity"]?.unit == "furlong")
        #expect(byType["HKDataTypeSleepDurationGoal"]?.kind == .quantity)
        #expect(output.skips.map(\.reason) == ["Quantity Record with a non-numeric value"])
        #expect(output.skips.first?.location == "line 8")
    }

    @Test func recordsWithoutUsableStartAreReportedWithTheirLine() throws {
        let output = try read("""
         <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" endDate="2023-01-01 01:00:00 -0800" value="3"/>
         <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" startDate="yesterday" endDate="2023-01-01 01:00:00 -0800" value="3">
          <MetadataEntry key="a" value="b"/>
         </Record>
         <Record sourceName="Phone" startDate="2023-01-01 01:00:00 -0800" endDate="2023-01-01 01:00:00 -0800" value="3"/>
         <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" startDate="2023-01-01 01:00:00 -0800" endDate="2023-01-01 01:00:00 -0800" value="3">
          <Surprise/>
         </Record>
        """)
        #expect(output.samples.count == 1)
        #expect(output.skips.map(\.reason) == [
            "Record without a startDate", "Record with an unreadable startDate", "Record without a type",
            "Unknown element <Surprise> inside <Record> not imported",
        ])
        #expect(output.skips.map(\.location) == ["line 4", "line 5", "line 8", "line 10"])
    }

    @Test func recordsWithUnusableEndOrTypeAreReportedWithTheirLine() throws {
        let step = #"type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count""#
        let output = try read("""
         <Record \(step) startDate="2023-01-01 01:00:00 -0800" endDate="garbage" value="3"/>
         <Record \(step) startDate="2023-01-01 02:00:00 -0800" endDate="2023-01-01 01:59:59 -0800" value="3"/>
         <Record type="" sourceName="Phone" unit="count" startDate="2023-01-01 01:00:00 -0800" endDate="2023-01-01 01:00:00 -0800" value="3"/>
         <Record \(step) startDate="2023-01-01 01:00:00 -0800" value="4"/>
         <Record \(step) startDate="2023-01-01 01:00:00 -0800" endDate="2023-01-01 01:00:00 -0800" value="5"/>
        """)
        #expect(output.skips.map(\.reason) == [
            "Record with an unreadable endDate", "Record with endDate before startDate", "Record without a type",
        ])
        #expect(output.skips.map(\.location) == ["line 4", "line 5", "line 6"])
        // Without an endDate a record is a point in time at its start.
        #expect(output.samples.map(\.value) == [4, 5])
        let point = try #require(output.samples.first)
        #expect(point.end == point.start)
    }

    @Test func valuesOutOfRangeAreReportedWithTheirLine() throws {
        let step = #"type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count""#
        let time = #"startDate="2023-01-01 01:00:00 -0800" endDate="2023-01-01 01:00:00 -0800""#
        let output = try read("""
         <Record \(step) \(time) value="1e999"/>
         <Record type="HKDataTypeMadeUpGoal" sourceName="Health" unit="hr" \(time) value="-1e999"/>
         <Record \(step) \(time) value="NaN"/>
         <Record \(step) \(time) value="-Infinity"/>
         <Record \(step) \(time) value="1e300"/>
        """)
        #expect(output.skips.map(\.reason) == [
            "Quantity Record with a value out of range", "Record with a value out of range",
            "Quantity Record with a non-numeric value", "Quantity Record with a non-numeric value",
        ])
        #expect(output.skips.map(\.location) == ["line 4", "line 5", "line 6", "line 7"])
        #expect(output.samples.map(\.value) == [1e300])
    }

    @Test func correlationsAndWorkoutsEndingBeforeTheyStartAreReportedWithTheirLine() throws {
        let output = try read("""
         <Correlation type="HKCorrelationTypeIdentifierFood" sourceName="App" startDate="2023-01-01 08:00:00 -0800" endDate="2023-01-01 07:00:00 -0800">
          <Record type="HKQuantityTypeIdentifierDietaryEnergyConsumed" sourceName="App" unit="kcal" startDate="2023-01-01 08:00:00 -0800" endDate="2023-01-01 08:00:00 -0800" value="500"/>
         </Correlation>
         <Correlation type="HKCorrelationTypeIdentifierFood" sourceName="App" startDate="2023-01-01 08:00:00 -0800" endDate="soon"/>
         <Correlation sourceName="App" startDate="2023-01-01 08:00:00 -0800" endDate="2023-01-01 08:00:00 -0800"/>
         <Workout workoutActivityType="HKWorkoutActivityTypeRunning" sourceName="Watch" startDate="2023-01-01 08:00:00 -0800" endDate="2023-01-01 07:30:00 -0800">
          <WorkoutEvent type="HKWorkoutEventTypePause" date="2023-01-01 08:10:00 -0800"/>
         </Workout>
         <Workout workoutActivityType="HKWorkoutActivityTypeRunning" sourceName="Watch" startDate="2023-01-01 08:00:00 -0800" endDate="later"/>
         <Workout workoutActivityType="HKWorkoutActivityTypeRunning" sourceName="Watch" startDate="2023-01-01 08:00:00 -0800" endDate="2023-01-01 08:30:00 -0800"/>
        """)
        #expect(output.skips.map(\.reason) == [
            "Correlation with endDate before startDate", "Correlation with an unreadable endDate",
            "Correlation without a type", "Workout with endDate before startDate", "Workout with an unreadable endDate",
        ])
        #expect(output.skips.map(\.location) == ["line 4", "line 7", "line 8", "line 9", "line 12"])
        #expect(output.samples.map(\.kind) == [.workout])
    }

    @Test func heartRateVariabilityBeatsResolveOnTheRecordsDay() throws {
        let output = try read("""
         <Record type="HKQuantityTypeIdentifierHeartRateVariabilitySDNN" sourceName="Watch" unit="ms" startDate="2023-01-01 20:05:00 -0800" endDate="2023-01-01 20:06:00 -0800" value="48.5">
          <HeartRateVariabilityMetadataList>
           <InstantaneousBeatsPerMinute bpm="62" time="8:05:01.23 PM"/>
           <InstantaneousBeatsPerMinute bpm="64" time="8:05:02.10\u{202F}PM"/>
           <InstantaneousBeatsPerMinute bpm="63" time="20:05:03,50"/>
          </HeartRateVariabilityMetadataList>
         </Record>
        """)
        let sample = try #require(output.samples.first)
        guard case .heartbeats(let beats) = sample.detail else {
            Issue.record("no heartbeats: \(sample.detail), skipped \(output.skips)")
            return
        }
        let start = sample.start.epochMilliseconds
        #expect(beats.map(\.beatsPerMinute) == [62, 64, 63])
        #expect(beats.map { $0.time.epochMilliseconds - start } == [1230, 2100, 3500])
        #expect(sample.value == 48.5)
    }

    /// A beat's time is the phone's wall clock on the beat's day (with that day's daylight-saving offset),
    /// the record's dates are in the export's offset: a winter reading in a summer export has its beats
    /// an hour before it when read in the record's offset (a real export's `19:14:47 -0400` record with
    /// its first beat at `6:14:48.94 PM`). They are put back in the record, keeping its offset; beats
    /// already in their record, and ones no such shift puts there, stay where they are.
    @Test func heartRateVariabilityBeatsOnAnotherDaylightSavingClockAreMovedIntoTheirRecord() throws {
        let output = try read("""
         <Record type="HKQuantityTypeIdentifierHeartRateVariabilitySDNN" sourceName="Watch" unit="ms" startDate="2017-11-22 19:14:47 -0400" endDate="2017-11-22 19:15:52 -0400" value="32.1111">
          <HeartRateVariabilityMetadataList>
           <InstantaneousBeatsPerMinute bpm="95" time="6:14:48.94 PM"/>
           <InstantaneousBeatsPerMinute bpm="94" time="6:14:49.58 PM"/>
          </HeartRateVariabilityMetadataList>
         </Record>
         <Record type="HKQuantityTypeIdentifierHeartRateVariabilitySDNN" sourceName="Watch" unit="ms" startDate="2023-03-01 00:30:00 +1000" endDate="2023-03-01 00:31:00 +1000" value="40">
          <HeartRateVariabilityMetadataList>
           <InstantaneousBeatsPerMinute bpm="60" time="01:30:01,50"/>
          </HeartRateVariabilityMetadataList>
         </Record>
         <Record type="HKQuantityTypeIdentifierHeartRateVariabilitySDNN" sourceName="Watch" unit="ms" startDate="2023-07-01 00:30:00 +0200" endDate="2023-07-01 00:31:00 +0200" value="41">
          <HeartRateVariabilityMetadataList>
           <InstantaneousBeatsPerMinute bpm="61" time="11:30:02.00 PM"/>
          </HeartRateVariabilityMetadataList>
         </Record>
         <Record type="HKQuantityTypeIdentifierHeartRateVariabilitySDNN" sourceName="Watch" unit="ms" startDate="2017-11-22 19:00:00 -0400" endDate="2017-11-22 19:40:00 -0400" value="33">
          <HeartRateVariabilityMetadataList>
           <InstantaneousBeatsPerMinute bpm="70" time="6:29:00.00 PM"/>
          </HeartRateVariabilityMetadataList>
         </Record>
         <Record type="HKQuantityTypeIdentifierHeartRateVariabilitySDNN" sourceName="Watch" unit="ms" startDate="2023-07-01 12:00:00 +0200" endDate="2023-07-01 12:01:00 +0200" value="42">
          <HeartRateVariabilityMetadataList>
           <InstantaneousBeatsPerMinute bpm="62" time="3:00:00.00 PM"/>
          </HeartRateVariabilityMetadataList>
         </Record>
        """)
        let beats = output.samples.map { sample in
            guard case .heartbeats(let beats) = sample.detail else { return [Int64]() }
            #expect(beats.allSatisfy { $0.time.utcOffsetSeconds == sample.start.utcOffsetSeconds })
            return beats.map { $0.time.epochMilliseconds - sample.start.epochMilliseconds }
        }
        #expect(beats == [[1940, 2580],   // 18:14:48.94 −0500 is 19:14:48.94 −0400
                          [1500],         // an hour later on the clock (a summer reading in a winter export)
                          [2000],         // an hour earlier, across midnight: 23:30:02 of the day before
                          [1_740_000],    // an hour, not the half hour that would put it at the start of a long record
                          [10_800_000]])  // three hours off: no daylight-saving shift, left as written
        #expect(output.skips.isEmpty)
    }

    @Test func correlationMembersComeOutOnceInEitherOrder() throws {
        let member = { (type: String, value: Int) in
            """
              <Record type="HKQuantityTypeIdentifierBloodPressure\(type)" sourceName="Omron" unit="mmHg" startDate="2023-01-01 08:00:00 -0800" endDate="2023-01-01 08:00:00 -0800" value="\(value)"/>
            """
        }
        let correlation = """
         <Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="Omron" startDate="2023-01-01 08:00:00 -0800" endDate="2023-01-01 08:00:00 -0800">
          <MetadataEntry key="HKWasUserEntered" value="0"/>
        \(member("Systolic", 120))
        \(member("Diastolic", 80))
         </Correlation>
        """
        for body in [member("Systolic", 120) + "\n" + member("Diastolic", 80) + "\n" + correlation,
                     correlation + "\n" + member("Systolic", 120) + "\n" + member("Diastolic", 80)] {
            let output = try read(body)
            let quantities = output.samples(.quantity)
            #expect(quantities.count == 2)
            let correlationSample = try #require(output.samples(.correlation).first)
            guard case .correlation(let memberIds) = correlationSample.detail else {
                Issue.record("no members")
                continue
            }
            #expect(Set(memberIds) == Set(quantities.map(\.id)))
            #expect(correlationSample.metadata[key: "HKWasUserEntered"] == .number(0))
            #expect(output.skips.isEmpty)
        }
    }

    /// A record that kept its zone (`HKTimeZone`) gets that zone's offset at its instants (Lisbon
    /// is +00:00 in January), not the export's +0100 of the day it was made; one without keeps it.
    @Test func aRecordedZoneGivesItsOwnOffsets() throws {
        let output = try read("""
         <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="Watch" value="HKCategoryValueSleepAnalysisAsleepCore" startDate="2024-01-15 02:00:00 +0100" endDate="2024-01-15 03:00:00 +0100">
          <MetadataEntry key="HKTimeZone" value="Europe/Lisbon"/>
         </Record>
         <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" value="5" startDate="2024-01-15 02:00:00 +0100" endDate="2024-01-15 02:01:00 +0100"/>
         <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Scale" unit="count" value="6" startDate="2024-01-12 10:00:00" endDate="2024-01-12 10:01:00">
          <MetadataEntry key="HKTimeZone" value="Europe/Berlin"/>
         </Record>
        """, exportDate: "2024-07-02 10:00:00 +0100")
        let sleep = try #require(output.samples(.category).first)
        #expect(sleep.timeZone == "Europe/Lisbon")
        #expect(sleep.start == Timestamp(epochSeconds: 1_705_280_400, utcOffsetSeconds: 0))   // 01:00Z, 01:00 in Lisbon
        #expect(sleep.end.utcOffsetSeconds == 0)
        let steps = try #require(output.samples(.quantity).first)
        #expect(steps.start.utcOffsetSeconds == 3600)
        // A date written without an offset is read as UTC with its offset unknown, zone or not: a
        // zone's offset would show a local time nobody wrote (11:00 for "10:00").
        let berlin = try #require(output.samples(.quantity).first { $0.sourceName == "Scale" })
        #expect(berlin.timeZone == "Europe/Berlin")
        #expect(berlin.start == Timestamp(epochSeconds: 1_705_053_600, utcOffsetSeconds: nil))
        #expect(berlin.end.utcOffsetSeconds == nil)
    }

    /// A state of mind (no quantity in HealthKit) is read with its valence, and kept without one.
    @Test func aStateOfMindIsKeptWithOrWithoutAValence() throws {
        let output = try read("""
         <Record type="HKDataTypeStateOfMind" sourceName="Health" startDate="2024-03-14 08:00:00 -0700" \
        endDate="2024-03-14 08:00:00 -0700" value="0.5"/>
         <Record type="HKDataTypeStateOfMind" sourceName="Health" startDate="2024-03-14 09:00:00 -0700" \
        endDate="2024-03-14 09:00:00 -0700"/>
        """)
        #expect(output.skips.isEmpty, "\(output.skips)")
        let moods = output.samples.filter { $0.type == "HKDataTypeStateOfMind" }
        #expect(moods.count == 2)
        #expect(moods.first?.value == 0.5)
        #expect(moods.last?.value == nil)
    }

    /// A MetadataEntry key given twice in one element is kept once, with its last value, where
    /// it came first (the stored JSON has each key once, and the zone is the value kept); reported.
    @Test func aMetadataKeyGivenTwiceKeepsItsLastValue() throws {
        let output = try read("""
         <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="A" unit="count/min" \
        startDate="2024-03-14 08:00:00 -0700" endDate="2024-03-14 08:00:00 -0700" value="80">
          <MetadataEntry key="HKTimeZone" value="America/New_York"/>
          <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="1"/>
          <MetadataEntry key="HKTimeZone" value="America/Los_Angeles"/>
         </Record>
         <Workout workoutActivityType="HKWorkoutActivityTypeRunning" sourceName="A" \
        startDate="2024-03-14 10:00:00 -0700" endDate="2024-03-14 10:10:00 -0700">
          <MetadataEntry key="HKIndoorWorkout" value="0"/>
          <MetadataEntry key="HKIndoorWorkout" value="1"/>
         </Workout>
        """)
        let record = try #require(output.samples(.quantity).first)
        #expect(record.metadata == [MetadataEntry("HKTimeZone", .string("America/Los_Angeles")),
                                    MetadataEntry("HKMetadataKeyHeartRateMotionContext", .number(1))])
        #expect(record.timeZone == "America/Los_Angeles")
        let workout = try #require(output.samples(.workout).first)
        #expect(workout.metadata == [MetadataEntry("HKIndoorWorkout", .number(1))])
        #expect(output.skipCount(containing: "MetadataEntry with a key given before in its element: the last value kept") == 2)
    }

    /// A date or duration of a workout's part, or a creation date, that cannot be read is reported,
    /// not left out silently; a creation date that is not one is kept as text in the metadata.
    @Test func unreadableDatesAndDurationsAreReported() throws {
        let output = try read("""
         <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="A" unit="count/min" creationDate="14/03/2024" \
        startDate="2024-03-14 08:00:00 -0700" endDate="2024-03-14 08:00:00 -0700" value="80"/>
         <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="10" durationUnit="min" sourceName="A" \
        creationDate="soon" startDate="2024-03-14 10:00:00 -0700" endDate="2024-03-14 10:10:00 -0700">
          <WorkoutEvent type="HKWorkoutEventTypeSegment" date="2024-03-14 10:00:00 -0700" duration="5" durationUnit="mins"/>
          <WorkoutStatistics type="HKQuantityTypeIdentifierHeartRate" startDate="bogus" endDate="2024-03-14 10:05:00 -0700" average="150" unit="count/min"/>
          <WorkoutActivity uuid="U" startDate="bogus" endDate="bogus" duration="5" durationUnit="minutes"/>
          <WorkoutRoute sourceName="A" startDate="bogus" endDate="2024-03-14 10:10:00 -0700"/>
         </Workout>
        """)
        #expect(output.skips.map(\.reason).sorted() == [
            "Record creationDate that is not a date kept as text in metadata",
            "Workout creationDate that is not a date kept as text in metadata",
            "WorkoutActivity duration in an unknown unit left out",
            "WorkoutActivity endDate that is not a date left out",
            "WorkoutActivity startDate that is not a date (the workout's used)",
            "WorkoutEvent duration in an unknown unit left out",
            "WorkoutRoute startDate that is not a date left out",
            "WorkoutStatistics startDate that is not a date (the workout's used)",
        ], "\(output.skips)")
        let record = try #require(output.samples(.quantity).first)
        #expect(record.createdAt == nil)
        #expect(record.metadata == [MetadataEntry("creationDate", .string("14/03/2024"))])
        let workout = try #require(output.samples(.workout).first)
        #expect(workout.metadata.contains(MetadataEntry("creationDate", .string("soon"))))
        guard case .workout(let parts) = workout.detail else { Issue.record("no workout"); return }
        #expect(parts.statistics.first?.start == workout.start)
        #expect(parts.events.first?.durationSeconds == nil)
    }

    /// An element's metadata stops at 1,000 entries (an element with 300,000 of them took 84 s,
    /// each key searched among those before it); what comes past is left out and counted. A key
    /// given again still replaces its value.
    @Test func metadataStopsAtAThousandEntriesAnElement() throws {
        func entries(_ count: Int) -> String {
            (0..<count).map { "  <MetadataEntry key=\"k\($0)\" value=\"\($0)\"/>" }.joined(separator: "\n")
        }
        let output = try read("""
         <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Watch" unit="count/min" startDate="2023-01-01 08:00:00 -0800" endDate="2023-01-01 08:00:00 -0800" value="72">
        \(entries(1_005))
          <MetadataEntry key="k3" value="again"/>
          <MetadataEntry key="HKTimeZone" value="Europe/Berlin"/>
         </Record>
         <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" sourceName="Watch" startDate="2023-01-01 09:00:00 -0800" endDate="2023-01-01 09:30:00 -0800">
        \(entries(1_002))
         </Workout>
        """)
        let record = try #require(output.samples(.quantity).first)
        #expect(record.metadata.count == 1_000)
        #expect(record.metadata[key: "k3"] == .string("again"))
        #expect(record.metadata[key: "k999"] == .number(999) && record.metadata[key: "k1000"] == nil)
        // A zone left out with its entry is not the sample's zone either.
        #expect(record.timeZone == nil && record.start.utcOffsetSeconds == -28_800)
        #expect(try #require(output.samples(.workout).first).metadata.count == 1_000)
        #expect(output.skipCount(containing: "MetadataEntry past the 1,000th of its element: left out") == 8)
        #expect(output.skipCount(containing: "MetadataEntry with a key given before") == 1)
    }

    /// A record kept whole keeps 100,000 elements at most, all levels together (2,000,000
    /// children took 1.2 GB); it is kept without the rest, and the summary says so.
    @Test func aRecordKeptWholeStopsAtAHundredThousandElements() throws {
        let children = (0..<100_005).map { "<x a=\"\($0)\"><y/></x>" }.joined()
        let output = try read("<Foo type=\"wide\" startDate=\"2023-01-01 08:00:00 -0800\">\(children)</Foo>")
        let wide = try #require(output.samples(.other).first)
        guard case .record(let record) = wide.detail else { Issue.record("no record"); return }
        // The element itself, then each child with its own child: 49,999 whole and the next one's <x>.
        #expect(record.children.count == 50_000)
        #expect(record.children[49_998].children.count == 1 && record.children[49_999].children.isEmpty)
        #expect(output.skipCount(containing: "elements past the 100,000th in a <Foo> (kept without them)") == 1)
    }

    /// A calendar day, the same instants in every export: the export's offset (which daylight
    /// saving changes between two exports) would make the same day two days.
    @Test func activitySummaryIsItsDayInUTC() throws {
        let output = try read("""
         <Me HKCharacteristicTypeIdentifierDateOfBirth="1990-02-02" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale"/>
         <ActivitySummary dateComponents="2023-01-01" activeEnergyBurned="512.5" activeEnergyBurnedGoal="500" activeEnergyBurnedUnit="kcal" appleStandHours="10"/>
         <ActivitySummary activeEnergyBurned="1"/>
         <ActivitySummary dateComponents="2023-02-29" activeEnergyBurned="2"/>
         <ActivitySummary dateComponents="2024-02-29" activeEnergyBurned="3"/>
         <ActivitySummary dateComponents="1000000000-01-01" activeEnergyBurned="4"/>
         <ActivitySummary dateComponents="9999-12-31" activeEnergyBurned="6"/>
         <ActivitySummary dateComponents="100000000000000-01-01" activeEnergyBurned="5"/>
        """, exportDate: "2023-01-02 10:00:00 +0100")
        let summary = try #require(output.samples(.activitySummary).first)
        #expect(summary.type == "ActivitySummary")
        #expect(summary.start == Timestamp(epochSeconds: 1_672_531_200, utcOffsetSeconds: 0))   // 2023-01-01 00:00Z
        #expect(summary.end.epochMilliseconds - summary.start.epochMilliseconds == 86_400_000)
        guard case .record(let record) = summary.detail else { Issue.record("no record"); return }
        #expect(record.element == "ActivitySummary")
        #expect(record[attribute: "activeEnergyBurned"] == "512.5")
        #expect(record.attributes.count == 5)
        // A year past 9999 is no day either (it overflowed the seconds since 1970 and trapped), nor
        // 9999-12-31, which would end in the year 10000, which no store holds.
        #expect(output.skipCount(containing: "ActivitySummary without a valid dateComponents") == 5)
        #expect(output.samples(.activitySummary).count == 2)   // 2024 is a leap year, 2023 is not

        let profile = try #require(output.samples(.profile).first)
        #expect(profile.type == "Me")
        #expect(profile.start == Timestamp(epochSeconds: 1_672_650_000, utcOffsetSeconds: 3600))
        guard case .record(let me) = profile.detail else { Issue.record("no record"); return }
        #expect(me[attribute: "HKCharacteristicTypeIdentifierBiologicalSex"] == "HKBiologicalSexFemale")
    }

    @Test func otherRecordsAreKeptWhole() throws {
        let output = try read("""
         <ClinicalRecord type="HKClinicalTypeIdentifierImmunizationRecord" identifier="a" sourceName="Clinic" sourceURL="https://x" fhirVersion="4.0.1" receivedDate="2022-05-01 09:00:00 -0700" resourceFilePath="/clinical-records/Immunization-1.json"/>
         <ClinicalRecord type="HKClinicalTypeIdentifierImmunizationRecord" identifier="b" sourceName="Clinic" sourceURL="https://x" fhirVersion="4.0.1" receivedDate="2022-05-01 09:00:00 -0700" resourceFilePath="/clinical-records/Immunization-2.json"/>
         <Audiogram type="HKDataTypeIdentifierAudiogram" sourceName="Mimi" startDate="2022-06-01 09:00:00 -0700" endDate="2022-06-01 09:10:00 -0700">
          <MetadataEntry key="k" value="v"/>
          <SensitivityPoint frequencyValue="500" frequencyUnit="Hz" leftEarValue="10" leftEarUnit="dBHL"/>
          <SensitivityPoint frequencyValue="1000" frequencyUnit="Hz" leftEarValue="15" leftEarUnit="dBHL"/>
         </Audiogram>
         <VisionPrescription type="HKGlassesPrescription" dateIssued="2022-07-01 09:00:00 -0700" expirationDate="2024-07-01 09:00:00 -0700">
          <RightEye sphere="-1.25" sphereUnit="D"/>
          <LeftEye sphere="-1.5" sphereUnit="D"/>
          <Attachment identifier="X"/>
         </VisionPrescription>
         <SomethingNew color="blue"><Inner depth="2"><Innermost/></Inner></SomethingNew>
        """)
        let others = output.samples(.other)
        #expect(others.map(\.type) == ["HKClinicalTypeIdentifierImmunizationRecord", "HKClinicalTypeIdentifierImmunizationRecord",
                                       "HKDataTypeIdentifierAudiogram", "HKGlassesPrescription", "SomethingNew"])
        // Two clinical records with the same type, source and date stay two samples.
        #expect(Set(others.map(\.id)).count == 5)
        #expect(others[0].start == Timestamp(epochSeconds: 1_651_420_800, utcOffsetSeconds: -25_200))
        #expect(others[3].end == Timestamp(epochSeconds: 1_719_849_600, utcOffsetSeconds: -25_200))
        guard case .record(let audiogram) = others[2].detail, case .record(let unknown) = others[4].detail else {
            Issue.record("records not kept")
            return
        }
        #expect(audiogram.children.map(\.element) == ["MetadataEntry", "SensitivityPoint", "SensitivityPoint"])
        #expect(audiogram.children[2][attribute: "leftEarValue"] == "15")
        #expect(unknown.children.first?.children.first?.element == "Innermost")
        #expect(others[4].start == Timestamp(epochSeconds: 1_672_682_400, utcOffsetSeconds: -28_800))   // the export date
        // No clinical-records folder beside this export.xml (ClinicalResourceTests has one).
        #expect(output.skips.map(\.reason) == Array(repeating: "ClinicalRecord's FHIR resource file not found in the export "
                                                    + "(record kept without it)", count: 2))
    }

    /// A record kept whole keeps its `device` without the per-record `0x…` address, as a sample's
    /// `device` is: its id is the digest of its content, and the address differs in every export,
    /// so the same audiogram in two exports was two samples.
    @Test func aKeptWholeRecordsDeviceIsTheSameInEveryExport() throws {
        func audiogram(address: String) throws -> Sample {
            let output = try read("""
             <Audiogram type="HKDataTypeIdentifierAudiogram" sourceName="Mimi" device="&lt;&lt;HKDevice: \(address)&gt;, name:iPhone, manufacturer:Apple Inc., software:17.2&gt;" startDate="2022-06-01 09:00:00 -0700" endDate="2022-06-01 09:10:00 -0700">
              <SensitivityPoint frequencyValue="500" frequencyUnit="Hz" leftEarValue="10" leftEarUnit="dBHL"/>
             </Audiogram>
            """)
            #expect(output.skips.isEmpty)
            return try #require(output.samples(.other).first)
        }
        let first = try audiogram(address: "0x282a45810")
        let second = try audiogram(address: "0x2839aa000")
        #expect(first.id == second.id)
        #expect(first.detail == second.detail)
        let device = "<<HKDevice>, name:iPhone, manufacturer:Apple Inc., software:17.2>"
        #expect(first.device == device)
        guard case .record(let record) = first.detail else { Issue.record("not kept whole"); return }
        #expect(record[attribute: "device"] == device)
    }

    @Test func documentWithoutDeclarationOrDoctype() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("trimmed.xml", """
        <HealthData locale="de_AT"><Record type="HKQuantityTypeIdentifierStepCount" sourceName="P" unit="count" startDate="2023-01-01 01:00:00 +0100" endDate="2023-01-01 01:00:00 +0100" value="5"/></HealthData>
        """)
        let output = try Fixtures.read(path)
        #expect(output.samples.count == 1)
    }

    @Test func brokenDoctypeAndControlCharactersSpanningChunks() throws {
        // A DOCTYPE longer than one read (256 KiB), not well-formed, and \u{0B} in values.
        let filler = String(repeating: "<!-- padding ] > -->\n", count: 20_000)
        let text = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE HealthData [
        <!ATTLIST VisionPrescription
          type CDATA #REQUIRED
        <!ELEMENT RightEye EMPTY>
        >
        \(filler)]>
        <HealthData locale="en_US">
         <Record type="HKQuantityTypeIdentifierStepCount" sourceName="P\u{0B}Q" unit="count" startDate="2023-01-01 01:00:00 +0100" endDate="2023-01-01 01:00:00 +0100" value="5"/>
         <Record type="HKQuantityTypeIdentifierStepCount" sourceName="P" unit="count" endDate="2023-01-01 01:00:00 +0100" value="5"/>
        </HealthData>
        """
        let directory = try TemporaryDirectory()
        let path = try directory.write("export.xml", text)
        let output = try Fixtures.read(path)
        #expect(output.samples.map(\.sourceName) == ["P Q"])
        // Line numbers still count the blanked DOCTYPE's lines.
        #expect(output.skips.first?.location == "line \(20_000 + 10)")
    }

    @Test func referencesToForbiddenCharactersBecomeSpaces() throws {
        // libxml2 stops the document at `&#11;` as at the raw byte; every record after one is read.
        let records = (0..<3).map { index in
            """
             <Record type="HKQuantityTypeIdentifierStepCount" sourceName="P&#11;Q\(index)" unit="count" startDate="2023-01-01 0\(index):00:00 +0100" endDate="2023-01-01 0\(index):00:00 +0100" value="5">
              <MetadataEntry key="note" value="a&#x1F;b &#55357;&#56832; &#1;c &#38; &#10;d"/>
             </Record>
            """
        }.joined(separator: "\n")
        let directory = try TemporaryDirectory()
        let path = try directory.write("export.xml", "<HealthData locale=\"en_US\">\n\(records)\n</HealthData>\n")
        let output = try Fixtures.read(path)
        #expect(output.samples.map(\.sourceName) == ["P Q0", "P Q1", "P Q2"])
        #expect(output.samples.allSatisfy { $0.metadata[key: "note"] == .string("a b" + String(repeating: " ", count: 8) + "c & \nd") })
        #expect(output.skips.isEmpty)
    }
}
