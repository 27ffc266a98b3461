import Foundation
import Testing
import HealthRouterCore
import AppleHealthExportSource

/// Workouts: old-style totals, iOS 16 statistics and activities, routes from GPX files and inline Locations.
@Suite struct WorkoutTests {
    static let gpx = """
    <?xml version="1.0" encoding="UTF-8"?>
    <gpx version="1.1" creator="Apple Health Export" xmlns="http://www.topografix.com/GPX/1/1">
     <metadata><time>2023-03-01T10:00:00Z</time></metadata>
     <trk><name>Route 2023-01-01 8:00am</name><trkseg>
      <trkpt lon="-122.030000" lat="37.330000"><ele>11.50</ele><time>2023-01-01T16:00:00Z</time><extensions><speed>2.50</speed><course>90.0</course><hAcc>3.5</hAcc><vAcc>2.1</vAcc></extensions></trkpt>
      <trkpt lon="-122.030100" lat="37.330100"><ele>11.70</ele><time>2023-01-01T16:00:01Z</time><extensions><speed>2.60</speed><course>91.0</course><hAcc>3.4</hAcc><vAcc>2.0</vAcc></extensions></trkpt>
      <trkpt lon="-122.030200" lat="37.330200"><ele>11.90</ele><time>not a time</time></trkpt>
      <trkpt lon="-122.030300" lat="137.330300"><ele>12</ele><time>2023-01-01T16:00:03Z</time></trkpt>
     </trkseg></trk>
    </gpx>
    """

    static let modernWorkout = """
     <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" sourceName="Watch" sourceVersion="10.1" creationDate="2023-01-01 08:31:00 -0800" startDate="2023-01-01 08:00:00 -0800" endDate="2023-01-01 08:30:00 -0800">
      <MetadataEntry key="HKIndoorWorkout" value="0"/>
      <MetadataEntry key="HKTimeZone" value="America/Los_Angeles"/>
      <WorkoutEvent type="HKWorkoutEventTypePause" date="2023-01-01 08:10:00 -0800"/>
      <WorkoutEvent type="HKWorkoutEventTypeResume" date="2023-01-01 08:11:00 -0800">
       <MetadataEntry key="why" value="traffic light"/>
      </WorkoutEvent>
      <WorkoutStatistics type="HKQuantityTypeIdentifierActiveEnergyBurned" startDate="2023-01-01 08:00:00 -0800" endDate="2023-01-01 08:30:00 -0800" sum="300" unit="kcal"/>
      <WorkoutStatistics type="HKQuantityTypeIdentifierBasalEnergyBurned" startDate="2023-01-01 08:00:00 -0800" endDate="2023-01-01 08:30:00 -0800" sum="41.84" unit="kJ"/>
      <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceWalkingRunning" startDate="2023-01-01 08:00:00 -0800" endDate="2023-01-01 08:30:00 -0800" sum="5.2" unit="km"/>
      <WorkoutStatistics type="HKQuantityTypeIdentifierHeartRate" startDate="2023-01-01 08:00:00 -0800" endDate="2023-01-01 08:30:00 -0800" average="142" minimum="98" maximum="171" unit="count/min"/>
      <WorkoutActivity uuid="6B1C9E2A-0000-4000-8000-000000000001" startDate="2023-01-01 08:00:00 -0800" endDate="2023-01-01 08:30:00 -0800" duration="30" durationUnit="min">
       <WorkoutEvent type="HKWorkoutEventTypeSegment" date="2023-01-01 08:00:00 -0800" duration="300" durationUnit="s"/>
       <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceWalkingRunning" startDate="2023-01-01 08:00:00 -0800" endDate="2023-01-01 08:30:00 -0800" sum="5.2" unit="km"/>
       <MetadataEntry key="WOIntervalStepKeyPath" value="0.0.0"/>
      </WorkoutActivity>
      <WorkoutRoute sourceName="Watch" sourceVersion="10.1" creationDate="2023-01-01 08:31:00 -0800" startDate="2023-01-01 08:00:00 -0800" endDate="2023-01-01 08:30:00 -0800">
       <MetadataEntry key="HKMetadataKeySyncVersion" value="2"/>
       <FileReference path="/workout-routes/route_2023-01-01_8.00am.gpx"/>
      </WorkoutRoute>
     </Workout>
    """

    private func workouts(_ output: CollectingOutput) -> [Workout] {
        output.samples(.workout).compactMap { if case .workout(let workout) = $0.detail { workout } else { nil } }
    }

    @Test func oldStyleTotalsAndInlineLocations() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("export.xml", Fixtures.export("""
         <Workout workoutActivityType="HKWorkoutActivityTypeCycling" duration="1.5" durationUnit="hr" totalDistance="10" totalDistanceUnit="mi" totalEnergyBurned="418.4" totalEnergyBurnedUnit="kJ" sourceName="Watch" startDate="2016-11-14 07:00:00 -0700" endDate="2016-11-14 08:30:00 -0700">
          <WorkoutEvent type="HKWorkoutEventTypeLap" date="2016-11-14 07:30:00 -0700"/>
          <WorkoutRoute sourceName="Watch" startDate="2016-11-14 07:00:00 -0700" endDate="2016-11-14 08:30:00 -0700">
           <Location date="2016-11-14 07:00:00 -0700" latitude="37.33" longitude="-122.03" altitude="11.9435" horizontalAccuracy="5" verticalAccuracy="3" course="-1" speed="2.4"/>
           <Location date="2016-11-14 07:00:01 -0700" latitude="37.3301" longitude="-122.0301" altitude="12 m" horizontalAccuracy="5" verticalAccuracy="3" course="10" speed="2.5"/>
           <Location latitude="37.3302" longitude="-122.0302"/>
          </WorkoutRoute>
         </Workout>
        """))
        let output = try Fixtures.read(path)
        let sample = try #require(output.samples(.workout).first)
        let workout = try #require(workouts(output).first)
        #expect(sample.type == "HKWorkoutTypeIdentifier")
        #expect(workout.activityType == "HKWorkoutActivityTypeCycling")
        #expect(workout.durationSeconds == 5400)
        #expect(abs((workout.totalDistanceMeters ?? 0) - 16_093.44) < 0.001)
        #expect(abs((workout.totalEnergyBurnedKilocalories ?? 0) - 100) < 0.000_001)
        #expect(workout.events.map(\.type) == ["HKWorkoutEventTypeLap"])
        let route = try #require(workout.routes.first)
        #expect(route.filePath == nil)
        #expect(route.points.count == 2)
        #expect(route.points[1].altitude == 12)
        #expect(route.points[0].course == -1)
        #expect(route.points[1].time.epochMilliseconds - route.points[0].time.epochMilliseconds == 1000)
        #expect(output.skips.map(\.reason) == ["Location without a valid date, latitude or longitude"])
    }

    /// A route's `device` loses its per-record `0x…` address, as the workout's does: two exports of one
    /// workout, whose addresses differ, give the same sample (the address made every workout with a
    /// route a change, delivered again, at every import).
    @Test func aRoutesDeviceIsTheSameInEveryExport() throws {
        func export(address: String) throws -> Sample {
            let directory = try TemporaryDirectory()
            let path = try directory.write("export.xml", Fixtures.export("""
             <Workout workoutActivityType="HKWorkoutActivityTypeWalking" sourceName="Watch" device="&lt;&lt;HKDevice: \(address)&gt;, name:Apple Watch&gt;" startDate="2023-01-01 08:00:00 -0800" endDate="2023-01-01 08:30:00 -0800">
              <WorkoutRoute sourceName="Watch" sourceVersion="10.1.1" device="&lt;&lt;HKDevice: \(address)&gt;, name:Apple Watch, manufacturer:Apple Inc.&gt;" creationDate="2023-01-01 08:31:00 -0800" startDate="2023-01-01 08:00:00 -0800" endDate="2023-01-01 08:30:00 -0800">
               <Location date="2023-01-01 08:00:00 -0800" latitude="37.33" longitude="-122.03"/>
              </WorkoutRoute>
             </Workout>
            """))
            let output = try Fixtures.read(path)
            #expect(output.skips.isEmpty)
            return try #require(output.samples(.workout).first)
        }
        let first = try export(address: "0x282a45810")
        let second = try export(address: "0x2839aa000")
        #expect(first.id == second.id)
        #expect(first.detail == second.detail)
        guard case .workout(let workout) = first.detail else { Issue.record("no workout"); return }
        #expect(workout.routes.first?.metadata.map(\.key) == ["sourceVersion", "device", "creationDate"])
        #expect(workout.routes.first?.metadata[1].value == .string("<<HKDevice>, name:Apple Watch, manufacturer:Apple Inc.>"))
    }

    /// Nothing a workout's part holds is left out silently: an attribute a `WorkoutEvent` has no field
    /// for goes to its metadata (as a workout's or an activity's does), and one of a `WorkoutStatistics`
    /// or a `Location`, which keep no metadata, is counted in the summary with its name (all three were
    /// dropped without a word).
    @Test func attributesAPartHasNoFieldForAreKeptOrCounted() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("export.xml", Fixtures.export("""
         <Workout workoutActivityType="HKWorkoutActivityTypeCycling" sourceName="Watch" startDate="2016-11-14 07:00:00 -0700" endDate="2016-11-14 08:30:00 -0700">
          <WorkoutEvent type="HKWorkoutEventTypeLap" date="2016-11-14 07:30:00 -0700" lapNumber="3" reason="auto"/>
          <WorkoutStatistics type="HKQuantityTypeIdentifierHeartRate" startDate="2016-11-14 07:00:00 -0700" endDate="2016-11-14 08:30:00 -0700" average="120" median="118" unit="count/min"/>
          <WorkoutRoute sourceName="Watch" startDate="2016-11-14 07:00:00 -0700" endDate="2016-11-14 08:30:00 -0700">
           <Location date="2016-11-14 07:00:00 -0700" latitude="37.33" longitude="-122.03" floor="2"/>
           <Location date="2016-11-14 07:00:01 -0700" latitude="37.3301" longitude="-122.0301" floor="3"/>
          </WorkoutRoute>
         </Workout>
        """))
        let output = try Fixtures.read(path)
        let workout = try #require(workouts(output).first)
        #expect(workout.events.first?.metadata == [MetadataEntry("lapNumber", .number(3)), MetadataEntry("reason", .string("auto"))])
        #expect(workout.statistics.first?.average == 120)
        #expect(workout.routes.first?.points.count == 2)
        #expect(output.skips.map(\.reason) == ["WorkoutStatistics attribute 'median' left out (no field for it)",
                                               "Location attribute 'floor' left out (no field for it)",
                                               "Location attribute 'floor' left out (no field for it)"], "\(output.skips)")
    }

    /// A route's `sourceVersion` is kept as the export wrote it, not read as a number (`10.10` was `10.1`,
    /// `9.0` was `9`).
    @Test func aRoutesSourceVersionIsKeptAsText() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("export.xml", Fixtures.export("""
         <Workout workoutActivityType="HKWorkoutActivityTypeWalking" sourceName="Watch" startDate="2023-01-01 08:00:00 -0800" endDate="2023-01-01 08:30:00 -0800">
          <WorkoutRoute sourceName="Watch" sourceVersion="10.10" startDate="2023-01-01 08:00:00 -0800" endDate="2023-01-01 08:15:00 -0800">
           <Location date="2023-01-01 08:00:00 -0800" latitude="37.33" longitude="-122.03"/>
          </WorkoutRoute>
          <WorkoutRoute sourceName="Watch" sourceVersion="9.0" startDate="2023-01-01 08:15:00 -0800" endDate="2023-01-01 08:30:00 -0800">
           <Location date="2023-01-01 08:15:00 -0800" latitude="37.34" longitude="-122.03"/>
          </WorkoutRoute>
         </Workout>
        """))
        let output = try Fixtures.read(path)
        let sample = try #require(output.samples(.workout).first)
        guard case .workout(let workout) = sample.detail else { Issue.record("no workout"); return }
        #expect(workout.routes.map { $0.metadata.first { $0.key == "sourceVersion" }?.value } == [.string("10.10"), .string("9.0")])
    }

    /// Totals an app wrote as 0 while its statistics sum to more are the statistics' sums.
    @Test func zeroTotalsGiveWayToStatistics() throws {
        let directory = try TemporaryDirectory()
        let zero = Self.modernWorkout.replacingOccurrences(
            of: "duration=\"30\" durationUnit=\"min\" sourceName",
            with: "duration=\"30\" durationUnit=\"min\" totalDistance=\"0\" totalDistanceUnit=\"km\" totalEnergyBurned=\"0\" totalEnergyBurnedUnit=\"kcal\" sourceName")
        #expect(zero != Self.modernWorkout)
        let path = try directory.write("export.xml", Fixtures.export(zero))
        let workout = try #require(workouts(try Fixtures.read(path)).first)
        #expect(workout.totalDistanceMeters == 5200)
        #expect(workout.totalEnergyBurnedKilocalories == 300)
    }

    /// A workout that kept its zone (`HKTimeZone`): its parts' dates get that zone's offsets as
    /// the workout's do (Berlin is +01:00 in February), not the export's +0200 of the day it was made.
    @Test func aRecordedZoneGivesTheWorkoutsPartsItsOffsets() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("export.xml", Fixtures.export("""
             <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" sourceName="Watch" \
            startDate="2024-02-01 12:00:00 +0200" endDate="2024-02-01 12:30:00 +0200">
              <MetadataEntry key="HKTimeZone" value="Europe/Berlin"/>
              <WorkoutEvent type="HKWorkoutEventTypePause" date="2024-02-01 12:10:00 +0200"/>
              <WorkoutStatistics type="HKQuantityTypeIdentifierActiveEnergyBurned" startDate="2024-02-01 12:00:00 +0200" \
            endDate="2024-02-01 12:30:00 +0200" sum="300" unit="kcal"/>
              <WorkoutActivity uuid="A-1" startDate="2024-02-01 12:00:00 +0200" endDate="2024-02-01 12:30:00 +0200">
               <WorkoutEvent type="HKWorkoutEventTypeSegment" date="2024-02-01 12:00:00 +0200"/>
              </WorkoutActivity>
              <WorkoutRoute sourceName="Watch" startDate="2024-02-01 12:00:00 +0200" endDate="2024-02-01 12:30:00 +0200">
               <Location date="2024-02-01 12:00:00 +0200" latitude="52.5" longitude="13.4"/>
              </WorkoutRoute>
             </Workout>
            """))
        let output = try Fixtures.read(path)
        let sample = try #require(output.samples(.workout).first)
        let workout = try #require(workouts(output).first)
        #expect(sample.start.utcOffsetSeconds == 3600)
        let offsets = [workout.events[0].date, workout.statistics[0].start, workout.statistics[0].end,
                       workout.activities[0].start, workout.activities[0].events[0].date,
                       workout.routes[0].start, workout.routes[0].points[0].time].map(\.?.utcOffsetSeconds)
        #expect(offsets == Array(repeating: 3600, count: 7))
        #expect(workout.events[0].date.epochMilliseconds == sample.start.epochMilliseconds + 600_000)
    }

    /// A numeric attribute that is not a number is left out and said so, not dropped silently.
    @Test func numbersThatAreNotNumbersAreReported() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("export.xml", Fixtures.export("""
             <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="abc" durationUnit="min" sourceName="Watch" \
            startDate="2024-07-01 10:00:00 +0200" endDate="2024-07-01 10:30:00 +0200">
              <WorkoutStatistics type="HKQuantityTypeIdentifierActiveEnergyBurned" startDate="2024-07-01 10:00:00 +0200" \
            endDate="2024-07-01 10:30:00 +0200" sum="abc" unit="kcal"/>
             </Workout>
            """))
        let output = try Fixtures.read(path)
        let workout = try #require(workouts(output).first)
        #expect(workout.durationSeconds == 1800 || workout.durationSeconds == nil)
        #expect(workout.statistics.first?.sum == nil)
        #expect(output.skips.map(\.reason).sorted() == ["Workout duration that is not a number left out",
                                                         "WorkoutStatistics sum that is not a number left out"])
    }

    @Test func iOS16WorkoutTakesTotalsFromStatistics() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("export.xml", Fixtures.export(Self.modernWorkout))
        try directory.write("workout-routes/route_2023-01-01_8.00am.gpx", Self.gpx)
        let output = try Fixtures.read(path)
        let sample = try #require(output.samples(.workout).first)
        let workout = try #require(workouts(output).first)
        #expect(sample.timeZone == "America/Los_Angeles")
        #expect(sample.metadata[key: "HKIndoorWorkout"] == .number(0))
        #expect(workout.durationSeconds == 1800)
        #expect(workout.totalDistanceMeters == 5200)
        #expect(workout.totalEnergyBurnedKilocalories == 300)
        #expect(abs((workout.totalBasalEnergyBurnedKilocalories ?? 0) - 10) < 0.000_001)
        #expect(workout.averageHeartRate == 142)
        #expect(workout.minimumHeartRate == 98)
        #expect(workout.maximumHeartRate == 171)
        #expect(workout.statistics.count == 4)
        #expect(workout.events.map(\.type) == ["HKWorkoutEventTypePause", "HKWorkoutEventTypeResume"])
        #expect(workout.events[1].metadata[key: "why"] == .string("traffic light"))
        let activity = try #require(workout.activities.first)
        #expect(activity.id == "6B1C9E2A-0000-4000-8000-000000000001")
        #expect(activity.durationSeconds == 1800)
        #expect(activity.events.first?.durationSeconds == 300)
        #expect(activity.statistics.count == 1)
        #expect(activity.metadata[key: "WOIntervalStepKeyPath"] == .string("0.0.0"))
        // The GPX file next to export.xml fills the route; its times (UTC in the file) get the
        // workout's recorded zone's offset, as every date of the workout does.
        let route = try #require(workout.routes.first)
        #expect(route.filePath == "/workout-routes/route_2023-01-01_8.00am.gpx")
        #expect(route.metadata[key: "HKMetadataKeySyncVersion"] == .number(2))
        #expect(route.points.count == 2)
        #expect(route.points.first == RoutePoint(time: Timestamp(epochSeconds: 1_672_588_800, utcOffsetSeconds: -28_800),
                                                 latitude: 37.33, longitude: -122.03, altitude: 11.5,
                                                 horizontalAccuracy: 3.5, verticalAccuracy: 2.1, course: 90, speed: 2.5))
        // A point at no place is left out too, and said so.
        #expect(output.skips.map(\.reason) == ["GPX track point without a valid time, latitude or longitude",
                                               "GPX track point at no place on Earth, or with a number out of a double's range"])
    }

    /// Without a recorded zone, a GPX file's points (UTC in the file) take the workout's offset,
    /// as an old export's inline Locations have theirs: local times of a run agree with its workout.
    @Test func gpxPointsWithoutARecordedZoneTakeTheWorkoutsOffset() throws {
        let directory = try TemporaryDirectory()
        let unzoned = Self.modernWorkout.replacingOccurrences(of: "  <MetadataEntry key=\"HKTimeZone\" value=\"America/Los_Angeles\"/>\n", with: "")
        #expect(unzoned != Self.modernWorkout)
        let path = try directory.write("export.xml", Fixtures.export(unzoned))
        try directory.write("workout-routes/route_2023-01-01_8.00am.gpx", Self.gpx)
        let output = try Fixtures.read(path)
        let sample = try #require(output.samples(.workout).first)
        #expect(sample.timeZone == nil)
        let route = try #require(workouts(output).first?.routes.first)
        #expect(route.points.map(\.time) == [Timestamp(epochSeconds: 1_672_588_800, utcOffsetSeconds: -28_800),
                                             Timestamp(epochSeconds: 1_672_588_801, utcOffsetSeconds: -28_800)])
    }

    /// A route keeps its GPX file's first 250,000 points (69 hours at one a second); past them
    /// the file is read no further, and the summary says so (a small zip of millions of identical
    /// points took 2 GB of memory).
    @Test func aRouteStopsAtAQuarterMillionPoints() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("export.xml", Fixtures.export(Self.modernWorkout))
        var gpx = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\"><trk><trkseg>\n"
        gpx.reserveCapacity(30_000_000)
        for second in 0..<250_010 {
            gpx += "<trkpt lon=\"-122.03\" lat=\"37.33\"><time>\(Self.isoTime(1_672_588_800 + second))</time></trkpt>\n"
        }
        gpx += "</trkseg></trk></gpx>\n"
        try directory.write("workout-routes/route_2023-01-01_8.00am.gpx", gpx)
        let output = try Fixtures.read(path)
        let route = try #require(workouts(output).first?.routes.first)
        #expect(route.points.count == 250_000)
        #expect(route.points.last?.time.epochMilliseconds == Int64(1_672_588_800 + 249_999) * 1000)
        #expect(output.skips.map(\.reason) == ["GPX file with more than 250,000 points: the rest left out"])

        // From a zip, the same.
        let zip = directory.file("export.zip")
        _ = try Fixtures.python(["-c", """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w", compression=zipfile.ZIP_DEFLATED) as archive:
                archive.write(sys.argv[2] + "/export.xml", "e/export.xml")
                archive.write(sys.argv[2] + "/workout-routes/route_2023-01-01_8.00am.gpx", "e/workout-routes/route_2023-01-01_8.00am.gpx")
            """, zip, directory.path])
        let zipped = try Fixtures.read(zip, stateDirectory: directory.path)
        #expect(try #require(workouts(zipped).first?.routes.first).points.count == 250_000)
        #expect(zipped.skips.map(\.reason) == ["GPX file with more than 250,000 points: the rest left out"])
    }

    /// A GPX file's bytes are repaired as export.xml's are: a control character XML forbids (`\x0b`
    /// in its `<name>` or `<desc>`) is a space, where libxml2 stopped at it ("not well-formed") and
    /// the points after it were lost; with lines ending in CR alone, a bad point is reported on its
    /// line, where every problem was on line 1. From a folder and from a zip alike.
    @Test func aGPXFileIsRepairedAsExportXMLIs() throws {
        let directory = try TemporaryDirectory()
        var lines = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>", "<gpx version=\"1.1\">",
                     "<trk><name>Morning\u{0B}Run</name><desc>tab\u{01}bed</desc><trkseg>"]
        for second in 0..<6 {
            let time = second == 3 ? "no time" : Self.isoTime(1_672_588_800 + second)
            lines.append("<trkpt lon=\"-122.03\" lat=\"37.33\"><time>\(time)</time></trkpt>")
        }
        lines.append("</trkseg></trk></gpx>")
        let gpx = lines.joined(separator: "\r") + "\r"
        let path = try directory.write("e/export.xml", Fixtures.export(Self.modernWorkout))
        try directory.write("e/workout-routes/route_2023-01-01_8.00am.gpx", gpx)
        let zip = directory.file("export.zip")
        try Fixtures.zip([("e/export.xml", Fixtures.export(Self.modernWorkout)),
                          ("e/workout-routes/route_2023-01-01_8.00am.gpx", gpx)], to: zip)
        for (input, location) in [(path, directory.file("e/workout-routes/route_2023-01-01_8.00am.gpx") + ", line 7"),
                                  (zip, "entry e/workout-routes/route_2023-01-01_8.00am.gpx, line 7")] {
            let output = try Fixtures.read(input, stateDirectory: directory.path)
            let route = try #require(workouts(output).first?.routes.first)
            #expect(route.points.count == 5, "\(input): \(output.skips)")
            #expect(route.points.last?.time.epochMilliseconds == Int64(1_672_588_805) * 1000)
            #expect(output.skips.map(\.reason) == ["GPX track point without a valid time, latitude or longitude"], "\(input)")
            #expect(output.skips.map(\.location) == [location], "\(input)")
        }
    }

    /// `2023-01-01T16:00:00Z` for seconds since 1970.
    static func isoTime(_ seconds: Int) -> String {
        let days = seconds / 86_400, rest = seconds % 86_400
        // Days from 2023-01-01 (19,358 days after 1970-01-01), within January to March 2023.
        let day = days - 19_358
        let (month, dayOfMonth) = day < 31 ? (1, day + 1) : day < 59 ? (2, day - 30) : (3, day - 58)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "2023-\(two(month))-\(two(dayOfMonth))T\(two(rest / 3600)):\(two(rest / 60 % 60)):\(two(rest % 60))Z"
    }

    @Test func zipRoutesBeforeAndAfterTheDataFile() throws {
        let directory = try TemporaryDirectory()
        let second = Self.modernWorkout
            .replacingOccurrences(of: "2023-01-01 08", with: "2023-01-02 08")
            .replacingOccurrences(of: "route_2023-01-01_8.00am", with: "route_2023-01-02_8.00am")
        let path = directory.file("export.zip")
        try Fixtures.zip([
            ("apple_health_export/workout-routes/route_2023-01-01_8.00am.gpx", Self.gpx),
            ("apple_health_export/Exportar.xml", Fixtures.export(Self.modernWorkout + "\n" + second)),
            ("apple_health_export/workout-routes/route_2023-01-02_8.00am.gpx", Self.gpx),
        ], to: path)
        let output = try Fixtures.read(path, stateDirectory: directory.path)
        let routes = workouts(output).flatMap(\.routes)
        #expect(routes.map(\.points.count) == [2, 2])
        #expect(output.skipCount(containing: "GPX track point") == 4)
        #expect(output.skips.first?.location?.hasPrefix("entry apple_health_export/workout-routes/") == true)
    }

    /// One GPX file gives its points to four workouts at most: a crafted export.xml naming one
    /// file from 2,000 workouts made 61 KB of zip 381 MB of store (each workout a copy of the
    /// points). The workouts past the fourth keep their route, without points, each counted
    /// with its line and the file; a workout listed twice (two sources) keeps its points in both.
    @Test func oneRouteFileGivesItsPointsToFourWorkoutsAtMost() throws {
        // Ten workouts a day apart, the first two one workout from two sources; the last names the
        // file another way (`./`), which is the same file.
        let workoutsXML = (1...10).map { day in
            let date = "2023-01-\(day < 10 ? "0" : "")\(day)"
            return Self.modernWorkout
                .replacingOccurrences(of: "2023-01-01 08", with: day == 2 ? "2023-01-01 08" : "\(date) 08")
                .replacingOccurrences(of: "sourceName=\"Watch\"", with: day == 2 ? "sourceName=\"Strava\"" : "sourceName=\"Watch\"")
                .replacingOccurrences(of: "/workout-routes/route_", with: day == 10 ? "/workout-routes/./route_" : "/workout-routes/route_")
        }.joined(separator: "\n")
        let folder = try TemporaryDirectory()
        let path = try folder.write("export.xml", Fixtures.export(workoutsXML))
        try folder.write("workout-routes/route_2023-01-01_8.00am.gpx", Self.gpx)
        let zip = folder.file("export.zip")
        try Fixtures.zip([
            ("apple_health_export/export.xml", Fixtures.export(workoutsXML)),
            ("apple_health_export/workout-routes/route_2023-01-01_8.00am.gpx", Self.gpx),
        ], to: zip)
        for output in [try Fixtures.read(path), try Fixtures.read(zip, stateDirectory: folder.path)] {
            #expect(output.samples(.workout).map(\.sourceName).prefix(2) == ["Watch", "Strava"])
            let routes = workouts(output).map { $0.routes }
            #expect(routes.map(\.count) == Array(repeating: 1, count: 10))
            #expect(routes.map { $0.first?.points.count } == [2, 2, 2, 2, 0, 0, 0, 0, 0, 0])
            #expect(routes.allSatisfy { $0.first?.filePath?.hasSuffix("route_2023-01-01_8.00am.gpx") == true })
            let reason = "WorkoutRoute whose file gave its points to 4 workouts before (an export gives each route a file of "
                + "its own): route kept without points"
            let skipped = output.skips.filter { $0.reason == reason }
            #expect(skipped.count == 6, "\(output.skips)")
            #expect(skipped.first?.location?.hasSuffix(" (/workout-routes/route_2023-01-01_8.00am.gpx)") == true, "\(skipped)")
            #expect(skipped.last?.location?.hasSuffix(" (/workout-routes/./route_2023-01-01_8.00am.gpx)") == true, "\(skipped)")
            #expect(skipped.first?.location?.hasPrefix("line ") == true)
        }
    }

    /// Two zip entries of one name (a folder zipped twice into one zip; Apple never writes one): the
    /// first is read, the later one reported with its name; the later data file and route file were
    /// read without a word (the route's points were the later file's). A first entry of the data
    /// file's name that holds no Health data does not hide the one after it.
    @Test func ofTwoZipEntriesOfOneNameTheFirstIsRead() throws {
        let directory = try TemporaryDirectory()
        func record(_ value: Int) -> String {
            #"<Record type="HKQuantityTypeIdentifierStepCount" sourceName="P" unit="count" startDate="2023-01-01 07:00:00 -0800" "#
                + #"endDate="2023-01-01 07:10:00 -0800" value="\#(value)"/>"#
        }
        let onePoint = Self.gpx.replacingOccurrences(of: "lat=\"37.330000\"", with: "lat=\"37.5\"")
            .split(separator: "\n").filter { !$0.contains("37.3301") }.joined(separator: "\n")
        let zip = directory.file("export.zip")
        try Fixtures.zip([
            ("apple_health_export/export.xml", Fixtures.export(record(111) + "\n" + Self.modernWorkout)),
            ("apple_health_export/workout-routes/route_2023-01-01_8.00am.gpx", Self.gpx),
            ("apple_health_export/export.xml", Fixtures.export(record(222) + "\n" + Self.modernWorkout)),
            ("apple_health_export/workout-routes/route_2023-01-01_8.00am.gpx", onePoint),
        ], to: zip)
        let output = try Fixtures.read(zip, stateDirectory: directory.path)
        #expect(output.samples(.quantity).map(\.value) == [111])
        #expect(workouts(output).first?.routes.first?.points.map(\.latitude) == [37.33, 37.3301])
        let reason = "Zip entry of the same name as one before it, not read (the first of that name is used)"
        #expect(output.skips.filter { $0.reason == reason }.map(\.location)
                == ["entry apple_health_export/export.xml", "entry apple_health_export/workout-routes/route_2023-01-01_8.00am.gpx"],
                "\(output.skips)")

        let page = directory.file("page-first.zip")
        try Fixtures.zip([
            ("apple_health_export/export.xml", "<?xml version=\"1.0\"?>\n<html><body>not yet</body></html>\n"),
            ("apple_health_export/export.xml", Fixtures.export(record(333))),
        ], to: page)
        let second = try Fixtures.read(page, stateDirectory: directory.path)
        #expect(second.samples(.quantity).map(\.value) == [333])
        #expect(second.skips.map(\.reason) == ["File in the zip not imported (not part of the Health data)"], "\(second.skips)")
    }

    @Test func missingRouteFileIsReportedAndTheRouteKept() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("export.xml", Fixtures.export(Self.modernWorkout))
        let output = try Fixtures.read(path)
        let route = try #require(workouts(output).first?.routes.first)
        #expect(route.points.isEmpty)
        #expect(route.filePath != nil)
        #expect(output.skipCount(containing: "WorkoutRoute file not found") == 1)
    }

    /// An empty GPX file (0 bytes, in a zip or beside export.xml) is said to be empty, not "not
    /// well-formed"; its route is kept, without points.
    @Test func anEmptyRouteFileIsSaidToBeEmpty() throws {
        let directory = try TemporaryDirectory()
        let zip = directory.file("export.zip")
        try Fixtures.zip([
            ("apple_health_export/export.xml", Fixtures.export(Self.modernWorkout)),
            ("apple_health_export/workout-routes/route_2023-01-01_8.00am.gpx", ""),
        ], to: zip)
        let zipped = try Fixtures.read(zip, stateDirectory: directory.path)
        #expect(zipped.skips.map(\.reason) == ["GPX file is empty: its route has no points"], "\(zipped.skips)")
        #expect(workouts(zipped).first?.routes.first?.points.isEmpty == true)

        let folder = try TemporaryDirectory()
        let path = try folder.write("export.xml", Fixtures.export(Self.modernWorkout))
        try folder.write("workout-routes/route_2023-01-01_8.00am.gpx", "")
        let beside = try Fixtures.read(path)
        #expect(beside.skips.map(\.reason) == ["GPX file is empty: its route has no points"], "\(beside.skips)")
        #expect(workouts(beside).first?.routes.first?.points.isEmpty == true)
    }
}
