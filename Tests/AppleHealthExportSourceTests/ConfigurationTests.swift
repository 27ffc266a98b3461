import Foundation
import TestSupport
import Testing
import HealthRouterCore
import AppleHealthExportSource

/// The plugin's configuration as the config file gives it.
@Suite struct ConfigurationTests {
    @Test func exampleConfigDecodes() throws {
        let example = Fixtures.repositoryRoot + "/Plugins/AppleHealthExportSource/example.yaml"
        let config = try HealthRouterConfig.load(path: example, environment: [:])
        let plugin = try #require(config.source(named: "history"))
        #expect(plugin.type == "apple_health_export")
        let configuration = try plugin.decodeOptions(AppleHealthExportSource.Configuration.self)
        #expect(configuration.path == "~/Downloads/export.zip")
        #expect(configuration.userId == "3b241101-e2bb-4255-8caf-4136c566a962")
        #expect(configuration.timeZone == "Europe/Berlin")
        let source = AppleHealthExportSource(
            configuration: configuration,
            context: PluginContext(name: "history", stateDirectory: TestScratch.path, logger: Logger(),
                                   homeDirectory: "/home/someone"))
        #expect(source.resolvedPath == "/home/someone/Downloads/export.zip")
    }

    /// `time_zone` is an IANA zone the system knows; anything else is refused, naming the key.
    @Test func timeZoneIsAZoneName() throws {
        func decode(_ zone: String) throws -> AppleHealthExportSource.Configuration {
            let config = try HealthRouterConfig.parse(yaml: """
                sources:
                  history: { type: apple_health_export, path: export.zip, time_zone: "\(zone)" }
                """, environment: [:])
            return try #require(config.source(named: "history")).decodeOptions(AppleHealthExportSource.Configuration.self)
        }
        #expect(try decode("Europe/Berlin").timeZone == "Europe/Berlin")
        for wrong in ["Mars/Olympus", "CEST", "+02:00", ""] {
            let error = #expect(throws: ConfigError.self) { try decode(wrong) }
            #expect(error?.description.contains("time_zone") == true, "\(wrong): \(String(describing: error))")
            #expect(error?.description.contains("Europe/Berlin") == true, "\(wrong)")
        }
    }

    /// With `time_zone`, a sample that recorded no zone gets that zone's offsets at its instants (a
    /// winter and a summer one alike, and a workout's parts); one that recorded its own keeps its
    /// own; an activity summary, a UTC calendar day, keeps offset 0.
    @Test func aTimeZoneGivesSamplesWithoutTheirOwnItsOffsets() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("export.xml", Fixtures.export("""
             <Record type="HKQuantityTypeIdentifierStepCount" sourceName="P" unit="count" value="1" startDate="2022-01-10 23:30:00 +0200" endDate="2022-01-10 23:40:00 +0200"/>
             <Record type="HKQuantityTypeIdentifierStepCount" sourceName="P" unit="count" value="2" startDate="2022-06-10 23:30:00 +0200" endDate="2022-06-10 23:40:00 +0200"/>
             <Record type="HKQuantityTypeIdentifierStepCount" sourceName="P" unit="count" value="3" startDate="2022-06-10 23:30:00 +0200" endDate="2022-06-10 23:40:00 +0200">
              <MetadataEntry key="HKTimeZone" value="America/New_York"/>
             </Record>
             <Record type="HKQuantityTypeIdentifierStepCount" sourceName="P" unit="count" value="4" startDate="2022-06-10 23:30:00 +0200" endDate="2022-06-10 23:40:00 +0200">
              <MetadataEntry key="HKTimeZone" value="Mars/Olympus"/>
             </Record>
             <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" sourceName="W" startDate="2022-01-11 07:00:00 +0200" endDate="2022-01-11 07:30:00 +0200">
              <WorkoutEvent type="HKWorkoutEventTypePause" date="2022-01-11 07:10:00 +0200"/>
             </Workout>
             <ActivitySummary dateComponents="2022-01-10" activeEnergyBurned="300" activeEnergyBurnedGoal="500" activeEnergyBurnedUnit="kcal"/>
            """, exportDate: "2022-07-01 10:00:00 +0200"))
        let source = AppleHealthExportSource(
            configuration: .init(path: path, timeZone: "Europe/Berlin"),
            context: PluginContext(name: "history", stateDirectory: directory.path, logger: Logger(minimumLevel: .error)))
        #expect(!source.datesCarryTheExportersOffset)
        let output = CollectingOutput()
        try source.read(into: output)
        let steps = output.samples(.quantity).sorted { $0.value! < $1.value! }
        // A recorded zone the system does not know gives way to the phone's.
        #expect(steps.map { $0.start.utcOffsetSeconds } == [3600, 7200, -14_400, 7200])
        #expect(steps.map { $0.end.utcOffsetSeconds } == [3600, 7200, -14_400, 7200])
        #expect(steps[0].timeZone == nil)
        let workout = try #require(output.samples(.workout).first)
        #expect(workout.start.utcOffsetSeconds == 3600)
        guard case .workout(let parts) = workout.detail else { throw FixtureError(message: "no workout") }
        #expect(parts.events.first?.date.utcOffsetSeconds == 3600)
        #expect(output.samples(.activitySummary).first?.start.utcOffsetSeconds == 0)
        // Without it, the export's offset for every date.
        let plain = try Fixtures.read(path, stateDirectory: directory.path)
        #expect(plain.samples(.quantity).map { $0.start.utcOffsetSeconds }.filter { $0 == 7200 }.count == 3)
    }

    @Test func unknownKeysAreRejected() throws {
        let yaml = """
        sources:
          history:
            type: apple_health_export
            pth: export.zip
        """
        let config = try HealthRouterConfig.parse(yaml: yaml, environment: [:])
        let plugin = try #require(config.source(named: "history"))
        #expect(throws: ConfigError.self) { try plugin.decodeOptions(AppleHealthExportSource.Configuration.self) }
    }
}
