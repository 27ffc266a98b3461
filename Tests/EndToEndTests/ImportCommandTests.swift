import TestSupport
import Foundation
import Testing
import HealthRouterCore
import AppleHealthExportSource

/// A `SourceOutput` that keeps the items a source emits.
final class ItemCollector: SourceOutput {
    var items: [HealthItem] = []
    func emit(_ items: [HealthItem]) throws { self.items += items }
    func skipped(_ reason: String, location: String?) {}
    func progress(bytes: Int64, total: Int64?) {}
}

/// `healthrouter import` end to end: the real executable, real zip and XML files, real
/// SQLite and NDJSON stores in temporary directories.
@Suite(.serialized) struct ImportCommandTests {
    /// A config for an isolated state directory.
    static func isolatedConfig(in directory: String) throws -> String {
        let path = directory + "/healthrouter.yaml"
        try """
        state_directory: \(directory)/state
        sinks:
          local: { type: sqlite, path: \(directory)/state/health.sqlite }
          lake: { type: ndjson, directory: \(directory)/state/ndjson }
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Activity summaries, the profile and vision prescriptions, which the export reader stores as
    /// `ActivitySummary`, `Me` and `HKGlassesPrescription`, reach a sink whose route names them by
    /// their registry key (`activitySummary` delivered nothing) or their stored name, and `dump
    /// --types` takes either (it refused `ActivitySummary`, `Me` and `HKGlassesPrescription`).
    @Test func typesTheExportReaderStoresUnderItsOwnNamesAreSelectable() throws {
        let directory = makeTemporaryDirectory()
        let export = directory + "/export.zip"
        try CommandRunner.generateExport(records: 300, to: export, zip: true, quirks: true)
        let config = try writeConfig("""
            state_directory: \(directory)/state
            sinks:
              picked: { type: sqlite, path: \(directory)/picked.sqlite }
            routes:
              - types: [activitySummary, Me, visionPrescription]
                to: [picked]
            """, in: directory)
        let imported = try CommandRunner.run(["import", export, "--config", config], in: directory)
        #expect(imported.status == 0, "\(imported.stdout)\(imported.stderr)")
        #expect(!imported.stderr.contains("no known type"), "\(imported.stderr)")
        let picked = try SQLiteDatabase(path: directory + "/picked.sqlite", readOnly: true)
        #expect(try picked.scalarInt("SELECT count(*) FROM activity_summaries") == 2)
        #expect(try picked.scalarInt("SELECT count(*) FROM profile") == 1)
        #expect(try picked.scalarInt("SELECT count(*) FROM other_records WHERE type = 'HKGlassesPrescription'") == 1)
        #expect(try picked.scalarInt("SELECT count(*) FROM samples") == 0)
        for (types, expected) in [("ActivitySummary", 2), ("activitySummary", 2), ("Me", 1), ("HKGlassesPrescription", 1),
                                  ("visionPrescription", 1)] {
            let dump = try CommandRunner.run(["dump", "--types", types, "--config", config], in: directory)
            #expect(dump.status == 0, "\(types): \(dump.stderr)")
            #expect(dump.stdout.split(separator: "\n").count == expected, "\(types): \(dump.stdout)")
        }
    }

    @Test func importThenReimportWritesNothingNew() throws {
        let directory = makeTemporaryDirectory()
        let export = directory + "/export.zip"
        try CommandRunner.generateExport(records: 3_000, to: export, zip: true, quirks: true)
        let config = try Self.isolatedConfig(in: directory)

        let first = try CommandRunner.run(["import", export, "--config", config], in: directory)
        #expect(first.status == 0, "stderr: \(first.stderr)")
        #expect(first.stdout.contains("new"))
        #expect(first.stdout.contains("caught up"))
        // The sinks in the config's order, as `status` lists them.
        #expect(first.stdout.range(of: #"\n    local  sqlite  [0-9,]+ rows written, caught up\n    lake   ndjson  "#,
                                   options: .regularExpression) != nil, "\(first.stdout)")
        // The state directory healthrouter made (health data) is its owner's alone, whatever the umask.
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: directory + "/state")[.posixPermissions] as? Int)
        #expect(mode & 0o777 == 0o700, "\(String(mode, radix: 8))")
        let database = try SQLiteDatabase(path: directory + "/state/health.sqlite", readOnly: true)
        let samples = try database.scalarInt("SELECT count(*) FROM samples") ?? 0
        #expect(samples > 1_000)
        #expect(try database.scalarInt("SELECT count(*) FROM sleep_stages") ?? 0 > 0)
        #expect(try database.scalarInt("SELECT count(*) FROM workouts") ?? 0 > 0)
        // The load into the new store put its id indexes off; they are there when it returns.
        #expect(try database.scalarInt("SELECT count(*) FROM sqlite_master WHERE name IN ('samples_id', 'sleep_stages_id')") == 2)
        #expect(try StoreChecksum.duplicatedIds(directory + "/state/ndjson").isEmpty)
        let before = (try StoreChecksum.sqlite(directory + "/state/health.sqlite"), try StoreChecksum.ndjson(directory + "/state/ndjson"))

        let second = try CommandRunner.run(["import", export, "--config", config], in: directory)
        #expect(second.status == 0, "stderr: \(second.stderr)")
        #expect(second.stdout.contains("nothing new"))
        #expect(second.stdout.contains("0 rows written"))
        #expect(try StoreChecksum.sqlite(directory + "/state/health.sqlite") == before.0)
        #expect(try StoreChecksum.ndjson(directory + "/state/ndjson") == before.1)
    }

    /// The export.xml of a zip imported before, on its own (no workout-routes/ beside it): its
    /// workouts come without route points, and the stores keep the ones the zip brought.
    @Test func aBareExportXMLAfterItsZipKeepsTheRoutePoints() throws {
        let directory = makeTemporaryDirectory()
        let export = directory + "/export.zip"
        try CommandRunner.generateExport(records: 3_000, to: export, zip: true, quirks: false)
        let config = try Self.isolatedConfig(in: directory)
        let first = try CommandRunner.run(["import", export, "--config", config, "--quiet"], in: directory)
        #expect(first.status == 0, "stderr: \(first.stderr)")
        let store = directory + "/state/health.sqlite"
        let points = try SQLiteDatabase(path: store, readOnly: true).scalarInt("SELECT count(*) FROM workout_route_points") ?? 0
        #expect(points > 100)
        let before = (try StoreChecksum.sqlite(store), try StoreChecksum.ndjson(directory + "/state/ndjson"))

        let bare = directory + "/elsewhere/export.xml"
        try FileManager.default.createDirectory(atPath: directory + "/elsewhere", withIntermediateDirectories: true)
        let unzip = Process()
        unzip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        unzip.arguments = ["python3", "-c", "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); "
                               + "open(sys.argv[2], 'wb').write(z.read([n for n in z.namelist() if n.endswith('.xml') "
                               + "and '/' not in n.split('apple_health_export/', 1)[1] and 'cda' not in n "
                               + "and not n.startswith('__MACOSX')][0]))", export, bare]
        try unzip.run()
        unzip.waitUntilExit()
        #expect(unzip.terminationStatus == 0)

        // Nor do its clinical records lose their FHIR resources, which the bare file lacks too.
        let second = try CommandRunner.run(["import", bare, "--config", config], in: directory)
        #expect(second.status == 0, "stderr: \(second.stderr)")
        #expect(second.stdout.contains("WorkoutRoute file not found"), "\(second.stdout)")
        #expect(second.stdout.contains("FHIR resource file not found"), "\(second.stdout)")
        #expect(second.stdout.contains("nothing new"), "\(second.stdout)")
        #expect(!second.stdout.contains("changed"), "\(second.stdout)")
        #expect(try StoreChecksum.sqlite(store) == before.0)
        #expect(try StoreChecksum.ndjson(directory + "/state/ndjson") == before.1)

        // The other way round, the zip brings the points the bare file could not.
        let other = directory + "/other"
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        let otherConfig = try Self.isolatedConfig(in: other)
        #expect(try CommandRunner.run(["import", bare, "--config", otherConfig, "--quiet"], in: other).status == 0)
        let otherStore = other + "/state/health.sqlite"
        // Only the points of routes given inline (Location elements) are in the export.xml itself.
        let inline = try SQLiteDatabase(path: otherStore, readOnly: true).scalarInt("SELECT count(*) FROM workout_route_points") ?? 0
        #expect(inline < points)
        let zipAfter = try CommandRunner.run(["import", export, "--config", otherConfig], in: other)
        #expect(zipAfter.status == 0, "stderr: \(zipAfter.stderr)")
        #expect(zipAfter.stdout.contains("changed"), "\(zipAfter.stdout)")
        #expect(try SQLiteDatabase(path: otherStore, readOnly: true).scalarInt("SELECT count(*) FROM workout_route_points") == points)
    }

    /// The same with twins: two workouts alike in everything the fingerprint holds (the second
    /// stored under its twin id), each with its own route file. The bare export.xml keeps both.
    @Test func aBareExportXMLKeepsTheRoutePointsOfTwinWorkouts() throws {
        let directory = makeTemporaryDirectory()
        func workout(_ note: String, _ file: String) -> String {
            """
             <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" sourceName="Watch" startDate="2023-01-01 08:00:00 -0800" endDate="2023-01-01 08:30:00 -0800">
              <MetadataEntry key="note" value="\(note)"/>
              <WorkoutRoute sourceName="Watch" startDate="2023-01-01 08:00:00 -0800" endDate="2023-01-01 08:30:00 -0800">
               <FileReference path="/workout-routes/\(file)"/>
              </WorkoutRoute>
             </Workout>
            """
        }
        func gpx(_ latitude: String) -> String {
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
             <trkpt lon="-122.03" lat="\(latitude)"><time>2023-01-01T16:00:00Z</time></trkpt>
             <trkpt lon="-122.04" lat="\(latitude)"><time>2023-01-01T16:00:01Z</time></trkpt>
            </trkseg></trk></gpx>
            """
        }
        let export = "<?xml version=\"1.0\"?>\n<HealthData locale=\"en_US\">\n <ExportDate value=\"2023-02-01 00:00:00 -0800\"/>\n"
            + workout("first", "route_a.gpx") + "\n" + workout("second", "route_b.gpx") + "\n</HealthData>\n"
        for folder in ["full/workout-routes", "bare"] {
            try FileManager.default.createDirectory(atPath: directory + "/" + folder, withIntermediateDirectories: true)
        }
        for folder in ["full", "bare"] { try export.write(toFile: "\(directory)/\(folder)/export.xml", atomically: true, encoding: .utf8) }
        try gpx("37.1").write(toFile: directory + "/full/workout-routes/route_a.gpx", atomically: true, encoding: .utf8)
        try gpx("37.2").write(toFile: directory + "/full/workout-routes/route_b.gpx", atomically: true, encoding: .utf8)
        let config = try Self.isolatedConfig(in: directory)
        let first = try CommandRunner.run(["import", "full/export.xml", "--config", config], in: directory)
        #expect(first.status == 0 && first.stdout.contains("new         2"), "\(first.stdout) \(first.stderr)")
        let store = directory + "/state/health.sqlite"
        // Each workout's note with the latitudes of its route's points.
        func routes() throws -> String? {
            try SQLiteDatabase(path: store, readOnly: true).scalarText(
                "SELECT group_concat(line, ' ') FROM (SELECT w.metadata || p.latitude AS line FROM workouts w "
                    + "JOIN workout_route_points p ON p.workout_id = w.id ORDER BY 1)")
        }
        let before = try routes()
        #expect(before == #"{"note":"first"}37.1 {"note":"first"}37.1 {"note":"second"}37.2 {"note":"second"}37.2"#)
        let ndjson = try StoreChecksum.ndjson(directory + "/state/ndjson")

        let second = try CommandRunner.run(["import", "bare/export.xml", "--config", config], in: directory)
        #expect(second.status == 0, "stderr: \(second.stderr)")
        #expect(second.stdout.contains("nothing new") && !second.stdout.contains("changed"), "\(second.stdout)")
        #expect(try routes() == before)
        #expect(try StoreChecksum.ndjson(directory + "/state/ndjson") == ndjson)
    }

    /// A store deleted (or replaced by an empty one) after an import is filled again from the
    /// journal by the next import, with a warning that says so; it used to stay empty while its
    /// cursor said it was caught up.
    @Test func aDeletedStoreIsFilledAgainFromTheJournal() throws {
        let directory = makeTemporaryDirectory()
        let export = directory + "/export.zip"
        try CommandRunner.generateExport(records: 1_000, to: export, zip: true, quirks: false)
        let config = try Self.isolatedConfig(in: directory)
        #expect(try CommandRunner.run(["import", export, "--config", config, "--quiet"], in: directory).status == 0)
        let store = directory + "/state/health.sqlite"
        let before = try StoreChecksum.sqlite(store)
        let lake = try StoreChecksum.ndjson(directory + "/state/ndjson")
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) }

        let again = try CommandRunner.run(["import", export, "--config", config], in: directory)
        #expect(again.status == 0, "stderr: \(again.stderr)")
        #expect(again.stderr.contains("holds no cursor") && again.stderr.contains("delivering the journal again"), "\(again.stderr)")
        #expect(try StoreChecksum.sqlite(store) == before)
        #expect(try StoreChecksum.ndjson(directory + "/state/ndjson") == lake)
    }

    @Test func killedImportsResumeToTheSameContent() throws {
        let directory = makeTemporaryDirectory()
        let export = directory + "/export.xml"
        try CommandRunner.generateExport(records: 60_000, to: export, zip: false, quirks: true, seed: 11)

        // The reference: one uninterrupted import.
        let reference = directory + "/reference"
        try FileManager.default.createDirectory(atPath: reference, withIntermediateDirectories: true)
        let referenceConfig = try Self.isolatedConfig(in: reference)
        let clean = try CommandRunner.run(["import", export, "--config", referenceConfig], in: reference)
        #expect(clean.status == 0, "stderr: \(clean.stderr)")

        // kill -9 at several points, then let it finish.
        let killed = directory + "/killed"
        try FileManager.default.createDirectory(atPath: killed, withIntermediateDirectories: true)
        let killedConfig = try Self.isolatedConfig(in: killed)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<4 {
            let process = try CommandRunner.start(["import", export, "--config", killedConfig], in: killed)
            Thread.sleep(forTimeInterval: Double.random(in: 0.2...1.5, using: &generator))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        let resumed = try CommandRunner.run(["import", export, "--config", killedConfig], in: killed)
        #expect(resumed.status == 0, "stderr: \(resumed.stderr)")

        #expect(try StoreChecksum.sqlite(killed + "/state/health.sqlite") == StoreChecksum.sqlite(reference + "/state/health.sqlite"))
        #expect(try StoreChecksum.ndjson(killed + "/state/ndjson") == StoreChecksum.ndjson(reference + "/state/ndjson"))
        #expect(try StoreChecksum.duplicatedIds(killed + "/state/ndjson").isEmpty)
        let database = try SQLiteDatabase(path: killed + "/state/health.sqlite", readOnly: true)
        #expect(try database.scalarInt("SELECT count(*) FROM sqlite_master WHERE name IN ('samples_id', 'sleep_stages_id')") == 2)
        #expect(try database.scalarInt("SELECT count(*) - count(DISTINCT id) FROM samples") == 0)
    }

    /// Records one fingerprint cannot tell apart (only their metadata differs), 60,000 records
    /// apart: an import killed between the two, run again, keeps both, as one uninterrupted import
    /// does, instead of taking the second for a change of the first. Run again after that, and for
    /// a new export at the same path, twins and changes are told apart as before.
    @Test func aKilledImportKeepsTwinsApartWhenRunAgain() throws {
        let directory = makeTemporaryDirectory()
        let export = directory + "/export.xml"
        func record(_ minute: Int, source: String, value: Int, sync: String?) -> String {
            let time = String(format: "2024-01-%02d %02d:%02d:00 -0700", 1 + minute / 1440, minute / 60 % 24, minute % 60)
            let head = "<Record type=\"HKQuantityTypeIdentifierHeartRate\" sourceName=\"\(source)\" unit=\"count/min\" "
                + "startDate=\"\(time)\" endDate=\"\(time)\" value=\"\(value)\""
            guard let sync else { return head + "/>\n" }
            return head + "><MetadataEntry key=\"HKMetadataKeySyncIdentifier\" value=\"\(sync)\"/></Record>\n"
        }
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n"
            + "<ExportDate value=\"2024-03-15 10:00:00 -0700\"/>\n"
        for minute in 0..<300 { xml += record(minute, source: "Twin", value: 60, sync: "A-\(minute)") }
        for minute in 0..<60_000 { xml += record(minute, source: "Filler", value: 50 + minute % 40, sync: nil) }
        for minute in 0..<300 { xml += record(minute, source: "Twin", value: 60, sync: "B-\(minute)") }
        try (xml + "</HealthData>\n").write(toFile: export, atomically: true, encoding: .utf8)
        func twins(_ store: String) throws -> Int64? {
            try SQLiteDatabase(path: store, readOnly: true).scalarInt("SELECT count(*) FROM samples WHERE source_name = 'Twin'")
        }

        let reference = directory + "/reference"
        try FileManager.default.createDirectory(atPath: reference, withIntermediateDirectories: true)
        let referenceConfig = try Self.isolatedConfig(in: reference)
        let clean = try CommandRunner.run(["import", export, "--config", referenceConfig, "--quiet"], in: reference)
        #expect(clean.status == 0, "\(clean.stderr)")
        #expect(try twins(reference + "/state/health.sqlite") == 600)

        // Killed once the first twins are journaled, long before the second ones.
        let killed = directory + "/killed"
        try FileManager.default.createDirectory(atPath: killed, withIntermediateDirectories: true)
        let killedConfig = try Self.isolatedConfig(in: killed)
        let process = try CommandRunner.start(["import", export, "--config", killedConfig, "--quiet"], in: killed)
        var journaled: Int64 = 0
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning && journaled < 1_000 && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.005)
            journaled = (try? SQLiteDatabase(path: killed + "/state/journal.sqlite", readOnly: true)
                .scalarInt("SELECT count(*) FROM entries")).flatMap { $0 } ?? 0
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal, "the import ended before it was killed")
        #expect(journaled >= 1_000 && journaled < 60_000, "\(journaled) entries when killed")
        let resumed = try CommandRunner.run(["import", export, "--config", killedConfig, "--quiet"], in: killed)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try twins(killed + "/state/health.sqlite") == 600)
        #expect(try StoreChecksum.sqlite(killed + "/state/health.sqlite") == StoreChecksum.sqlite(reference + "/state/health.sqlite"))
        #expect(try StoreChecksum.ndjson(killed + "/state/ndjson") == StoreChecksum.ndjson(reference + "/state/ndjson"))

        // A cut copy (it stops after the first twins) imported first, then the full file copied
        // over it at the same path: the same as one import of the full file.
        let cut = directory + "/cut"
        try FileManager.default.createDirectory(atPath: cut, withIntermediateDirectories: true)
        let cutConfig = try Self.isolatedConfig(in: cut)
        let full = try Data(contentsOf: URL(fileURLWithPath: export))
        try full.prefix(full.count / 2).write(to: URL(fileURLWithPath: cut + "/export.xml"))
        let cutRun = try CommandRunner.run(["import", "export.xml", "--config", cutConfig, "--quiet"], in: cut)
        #expect(cutRun.status == 65, "\(cutRun.stderr)")
        try full.write(to: URL(fileURLWithPath: cut + "/export.xml"))
        let fullRun = try CommandRunner.run(["import", "export.xml", "--config", cutConfig, "--quiet"], in: cut)
        #expect(fullRun.status == 0, "\(fullRun.stderr)")
        #expect(try twins(cut + "/state/health.sqlite") == 600)
        #expect(try StoreChecksum.sqlite(cut + "/state/health.sqlite") == StoreChecksum.sqlite(reference + "/state/health.sqlite"))

        // The same file again is nothing new, and a later
        // export at the same path whose first twin changed is a change, not a third twin.
        let again = try CommandRunner.run(["import", export, "--config", killedConfig], in: killed)
        #expect(again.stdout.contains("nothing new"), "\(again.stdout)")
        let changed = xml.replacingOccurrences(of: "value=\"A-0\"", with: "value=\"C-0\"")
        try (changed + "</HealthData>\n").write(toFile: export, atomically: true, encoding: .utf8)
        let later = try CommandRunner.run(["import", export, "--config", killedConfig, "--quiet"], in: killed)
        #expect(later.status == 0, "\(later.stderr)")
        #expect(try twins(killed + "/state/health.sqlite") == 600)
    }

    @Test func badInputsSayWhatIsWrongAndKeepWhatWasImported() throws {
        let directory = makeTemporaryDirectory()
        let config = try Self.isolatedConfig(in: directory)
        let good = directory + "/good.xml"
        try CommandRunner.generateExport(records: 500, to: good, zip: false, quirks: false)
        #expect(try CommandRunner.run(["import", good, "--config", config], in: directory).status == 0)
        let kept = try StoreChecksum.sqlite(directory + "/state/health.sqlite")

        let empty = directory + "/empty.zip"
        _ = FileManager.default.createFile(atPath: empty, contents: Data())
        let truncatedZip = directory + "/truncated.zip"
        // The same export, zipped: what its first half holds is already imported.
        try CommandRunner.generateExport(records: 500, to: directory + "/full.zip", zip: true, quirks: false)
        let zipData = try Data(contentsOf: URL(fileURLWithPath: directory + "/full.zip"))
        try zipData.prefix(zipData.count / 2).write(to: URL(fileURLWithPath: truncatedZip))
        let truncatedXML = directory + "/truncated.xml"
        let xmlData = try Data(contentsOf: URL(fileURLWithPath: good))
        try xmlData.prefix(xmlData.count / 2).write(to: URL(fileURLWithPath: truncatedXML))
        let notHealth = directory + "/other.xml"
        try "<?xml version=\"1.0\"?><rss><channel/></rss>".write(toFile: notHealth, atomically: true, encoding: .utf8)
        // A Health export none of whose records can be read (dates of a form not known), but its profile.
        let unreadable = directory + "/unreadable.xml"
        try """
            <HealthData locale="en_US"><Me HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale"/>
            <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" startDate="1/2/2023 9:00" value="12"/>
            <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" startDate="1/2/2023 9:05" value="30"/>
            </HealthData>
            """.write(toFile: unreadable, atomically: true, encoding: .utf8)

        // A pipe (`<(unzip -p …)`) would look empty once its start was read: refused as one, unopened
        // (no writer: opening it would block).
        let pipe = directory + "/pipe.xml"
        #expect(mkfifo(pipe, 0o600) == 0)
        let cases: [(path: String, status: Int32, mentions: String)] = [
            (empty, 65, "empty.zip"),
            (truncatedZip, 65, "truncated.zip"),
            (truncatedXML, 65, "truncated.xml"),
            (notHealth, 65, "other.xml"),
            (unreadable, 65, "unreadable.xml: none of its records could be imported: 2 elements skipped, 2 × Record with an unreadable startDate, first at line 2"),
            (directory + "/missing.zip", 66, "missing.zip"),
            (pipe, 65, "pipe.xml is a pipe or a device, not a file"),
        ]
        let listed = try CommandRunner.exitCodesInHelp("import")
        for bad in cases {
            let result = try CommandRunner.run(["import", bad.path, "--config", config, "--quiet"], in: directory)
            #expect(result.status == bad.status, "\(bad.path): \(result.stdout) \(result.stderr)")
            #expect(listed.contains(result.status), "import --help does not list \(result.status)")
            #expect((result.stdout + result.stderr).contains(bad.mentions), "\(bad.path): \(result.stdout) \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count <= 3, "\(bad.path): \(result.stderr)")
        }
        // Nothing imported before the errors was lost or changed.
        #expect(try StoreChecksum.sqlite(directory + "/state/health.sqlite") == kept)
        // With --log-format json, the error found while reading ends the command: it carries the exit code.
        let json = try CommandRunner.run(["import", truncatedXML, "--config", config, "--quiet", "--log-format", "json"],
                                         in: directory)
        #expect(json.status == 65)
        let last = try #require(json.stderr.split(separator: "\n").last.map(String.init))
        let object = try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any]
        #expect(object?["exit_code"] as? Int == 65, "\(json.stderr)")
        #expect((object?["message"] as? String)?.contains("truncated.xml") == true, "\(json.stderr)")
    }

    /// A zip cut short (a copy that stopped) imports what it holds up to the cut, as a cut
    /// export.xml does, then fails; the whole zip, imported later, adds the rest.
    @Test func aTruncatedZipKeepsWhatItHolds() throws {
        let directory = makeTemporaryDirectory()
        let config = try Self.isolatedConfig(in: directory)
        try CommandRunner.generateExport(records: 4_000, to: directory + "/full.zip", zip: true, quirks: false)
        let zipData = try Data(contentsOf: URL(fileURLWithPath: directory + "/full.zip"))
        try zipData.prefix(zipData.count * 6 / 10).write(to: URL(fileURLWithPath: directory + "/cut.zip"))
        let cut = try CommandRunner.run(["import", "cut.zip", "--config", config, "--quiet"], in: directory)
        #expect(cut.status == 65, "\(cut.stdout) \(cut.stderr)")
        #expect(cut.stderr.contains("cut.zip") && cut.stderr.contains("were kept"), "\(cut.stderr)")
        let store = directory + "/state/health.sqlite"
        let partial = try SQLiteDatabase(path: store, readOnly: true).scalarInt("SELECT count(*) FROM samples") ?? 0
        #expect(partial > 1_000, "\(cut.stdout)")
        // Cut in a route file after the data file: the data file is read whole, the error says what is missing.
        let lastRoute = try #require(Self.localHeaderOffsets(zipData, naming: "workout-routes/").last)
        try zipData.prefix(lastRoute + 200).write(to: URL(fileURLWithPath: directory + "/tail.zip"))
        let tail = try CommandRunner.run(["import", "tail.zip", "--config", config, "--quiet"], in: directory)
        #expect(tail.status == 65, "\(tail.stdout) \(tail.stderr)")
        #expect(tail.stderr.contains("tail.zip: the zip ends early (cannot read apple_health_export/workout-routes/"), "\(tail.stderr)")
        #expect(tail.stderr.contains("its Health data file was read whole (its items were kept)"), "\(tail.stderr)")
        #expect(tail.stderr.components(separatedBy: "kept").count == 2 && tail.stderr.split(separator: "\n").count == 2,
                "\(tail.stderr)")
        let whole = try CommandRunner.run(["import", "full.zip", "--config", config, "--quiet"], in: directory)
        #expect(whole.status == 0, "\(whole.stderr)")
        let all = try SQLiteDatabase(path: store, readOnly: true).scalarInt("SELECT count(*) FROM samples") ?? 0
        #expect(all > partial)
    }

    /// Where the zip's entries whose name contains `text` begin: the offsets of their local file
    /// headers (`PK\u{3}\u{4}`, the name's length at +26, the name at +30), in file order.
    static func localHeaderOffsets(_ zip: Data, naming text: String) -> [Int] {
        let bytes = [UInt8](zip)
        var offsets: [Int] = []
        var index = 0
        while index + 30 <= bytes.count {
            if bytes[index] == 0x50, bytes[index + 1] == 0x4B, bytes[index + 2] == 3, bytes[index + 3] == 4 {
                let length = Int(bytes[index + 26]) | Int(bytes[index + 27]) << 8
                if index + 30 + length <= bytes.count,
                   String(decoding: bytes[(index + 30)..<(index + 30 + length)], as: UTF8.self).contains(text) {
                    offsets.append(index)
                }
            }
            index += 1
        }
        return offsets
    }

    /// `--time-zone` gives an export's samples that zone's offsets at their instants (the summer
    /// sample its summer offset, though the export wrote its winter one); a name that is not a zone,
    /// or the option with an NDJSON file, is a usage error before anything is created.
    @Test func aTimeZoneOnTheCommandLine() throws {
        let directory = makeTemporaryDirectory()
        try """
            <?xml version="1.0"?>
            <HealthData locale="de_DE">
             <ExportDate value="2022-12-01 10:00:00 +0100"/>
             <Record type="HKQuantityTypeIdentifierStepCount" sourceName="P" unit="count" value="7" startDate="2022-06-10 23:30:00 +0100" endDate="2022-06-10 23:40:00 +0100"/>
            </HealthData>
            """.write(toFile: directory + "/export.xml", atomically: true, encoding: .utf8)
        for (option, path) in [("Mars/Olympus", "export.xml"), ("CEST", "export.xml"), ("Europe/Berlin", "dump.ndjson")] {
            if path == "dump.ndjson" { try "{\"deleted\": []}\n".write(toFile: directory + "/dump.ndjson", atomically: true, encoding: .utf8) }
            let refused = try CommandRunner.run(["import", path, "--time-zone", option], in: directory)
            #expect(refused.status == 64, "\(option) \(path): \(refused.stderr)")
            #expect(refused.stderr.contains("--time-zone"), "\(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: directory + "/healthrouter-data/journal.sqlite"))
        }
        let imported = try CommandRunner.run(["import", "export.xml", "--time-zone", "Europe/Berlin", "-q"], in: directory)
        #expect(imported.status == 0, "\(imported.stderr)")
        let store = try SQLiteDatabase(path: directory + "/healthrouter-data/health.sqlite", readOnly: true)
        #expect(try store.scalarText("SELECT start_at || ' ' || start_utc_offset FROM samples") == "2022-06-10T22:30:00.000Z 7200")
        #expect(try store.scalarText("SELECT date(start_at, start_utc_offset || ' seconds') FROM samples") == "2022-06-11")
    }

    @Test func anUnwritableStateDirectoryIsNamed() throws {
        let directory = makeTemporaryDirectory()
        let export = directory + "/export.xml"
        try CommandRunner.generateExport(records: 100, to: export, zip: false, quirks: false)
        let blocked = directory + "/blocked"
        // A file where the state directory should be: unwritable even for root.
        _ = FileManager.default.createFile(atPath: blocked, contents: Data("x".utf8))
        let config = try writeConfig("state_directory: \(blocked)/state\n", in: directory)
        let result = try CommandRunner.run(["import", export, "--config", config], in: directory)
        #expect(result.status == 73)
        #expect(result.stderr.contains("\(blocked) is a file, so \(blocked)/state cannot be a folder: set `state_directory` "
                                       + "to another folder"), "\(result.stderr)")
        #expect(result.stderr.contains("hint:"))
        let status = try CommandRunner.run(["status", "--config", config], in: directory)
        #expect(status.status == 73 && status.stderr.contains("\(blocked) is a file"), "\(status.stdout)\(status.stderr)")
        #expect(try CommandRunner.exitCodesInHelp("status").contains(73))
    }

    /// A state directory on a read-only mount (a container's `:ro` volume) is said as such:
    /// permissions would not fix it.
    @Test(.enabled(if: MountNamespace.available, "needs unshare and user namespaces"))
    func aReadOnlyStateDirectoryIsSaidAsSuch() throws {
        let directory = makeTemporaryDirectory()
        try CommandRunner.generateExport(records: 20, to: directory + "/export.xml", zip: false, quirks: false)
        try FileManager.default.createDirectory(atPath: directory + "/ro", withIntermediateDirectories: true)
        let config = try writeConfig("state_directory: \(directory)/ro\n", in: directory)
        let mounted = "exec /usr/bin/unshare -rm /bin/bash -c 'mount -t tmpfs -o ro tmpfs \(directory)/ro && exec \"$0\" \"$@\"' \"$0\" \"$@\""
        let result = try CommandRunner.run(["import", "export.xml", "--config", config, "-q"], in: directory, shellSetup: mounted)
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr.contains("the state directory \(directory)/ro is on a read-only file system"), "\(result.stderr)")
        #expect(result.stderr.contains("mount it read-write (in a container: a volume without :ro)"), "\(result.stderr)")

        // A writable state directory, the stores on the read-only mount: misconfigured at once (exit
        // 78), saying so, not a store that is down, retried five times.
        let store = try writeConfig("""
            state_directory: \(directory)/state
            sinks:
              local: { type: sqlite, path: \(directory)/ro/health.sqlite }
              lake: { type: ndjson, directory: \(directory)/ro }
              pond: { type: ndjson, directory: \(directory)/ro/pond }
            """, in: directory)
        let started = Date()
        let refused = try CommandRunner.run(["import", "export.xml", "--config", store, "-q"], in: directory, shellSetup: mounted)
        #expect(refused.status == 78, "\(refused.stdout)\(refused.stderr)")
        #expect(refused.stdout.contains("misconfigured: \(directory)/ro/health.sqlite is on a read-only file system: mount it "
                                        + "read-write"), "\(refused.stdout)")
        #expect(refused.stdout.contains("misconfigured: \(directory)/ro is on a read-only file system: mount it read-write "
                                        + "(in a container: a volume without :ro), or set `directory` to a place on a writable one"),
                "\(refused.stdout)")
        #expect(refused.stdout.contains("misconfigured: cannot create the folder \(directory)/ro/pond: Read-only file system: "
                                        + "mount it read-write"), "\(refused.stdout)")
        #expect(!refused.stderr.contains("retrying") && Date().timeIntervalSince(started) < 5, "\(refused.stderr)")
    }

    /// A new sqlite store in a folder this process may not write: misconfigured at once, saying
    /// so, where SQLite's "unable to open database file" was retried as a store that is down.
    @Test func aSQLiteStoreInAFolderThisProcessMayNotWriteIsMisconfigured() throws {
        let directory = makeTemporaryDirectory()
        try CommandRunner.generateExport(records: 20, to: directory + "/export.xml", zip: false, quirks: false)
        chmod(directory + "/export.xml", 0o644)
        chmod(directory, 0o755)
        try FileManager.default.createDirectory(atPath: directory + "/state", withIntermediateDirectories: false)
        CommandRunner.giveToUnprivilegedUser(directory + "/state")
        try FileManager.default.createDirectory(atPath: directory + "/closed", withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o555])
        let config = try writeConfig("""
            state_directory: \(directory)/state
            sinks:
              local: { type: sqlite, path: \(directory)/closed/health.sqlite }
            """, in: directory)
        chmod(config, 0o644)
        let started = Date()
        let refused = try CommandRunner.runUnprivileged(["import", "export.xml", "--config", config, "-q"], in: directory)
        #expect(refused.status == 78, "\(refused.stdout)\(refused.stderr)")
        #expect(refused.stdout.contains("misconfigured: \(directory)/closed/health.sqlite cannot be created: this process may not "
                                        + "write the folder \(directory)/closed: fix its owner or permissions"), "\(refused.stdout)")
        #expect(!refused.stderr.contains("retrying") && Date().timeIntervalSince(started) < 5, "\(refused.stderr)")
    }

    /// Without a config file there is no state_directory to set: the hint says where the state
    /// goes and what to do. An ndjson folder this process may not write is a setting to fix
    /// (exit 78 at once), not a store to retry.
    @Test func folderPermissionsAreSaidAsSuchWithTheEmbeddedDefault() throws {
        let directory = makeTemporaryDirectory()
        try CommandRunner.generateExport(records: 100, to: directory + "/export.xml", zip: false, quirks: false)
        chmod(directory + "/export.xml", 0o644)
        chmod(directory, 0o755)
        try FileManager.default.createDirectory(atPath: directory + "/healthrouter-data", withIntermediateDirectories: true)
        chmod(directory + "/healthrouter-data", 0o555)
        let refused = try CommandRunner.runUnprivileged(["import", "export.xml"], in: directory)
        #expect(refused.status == 73, "\(refused.stderr)")
        #expect(refused.stderr.contains("hint: the embedded default keeps everything in ./healthrouter-data: run healthrouter "
                                        + "from a folder you may write to"), "\(refused.stderr)")
        chmod(directory + "/healthrouter-data", 0o755)
        CommandRunner.giveToUnprivilegedUser(directory + "/healthrouter-data")
        try FileManager.default.createDirectory(atPath: directory + "/healthrouter-data/ndjson", withIntermediateDirectories: true)
        chmod(directory + "/healthrouter-data/ndjson", 0o555)
        let started = Date()
        let lake = try CommandRunner.runUnprivileged(["import", "export.xml", "-q"], in: directory)
        #expect(lake.status == 78, "\(lake.stdout)\(lake.stderr)")
        #expect(lake.stdout.contains("is not writable by this process"), "\(lake.stdout)")
        #expect(lake.stdout.contains("fix the folder's permissions"), "\(lake.stdout)")
        #expect(Date().timeIntervalSince(started) < 5)
    }

    /// A journal that cannot grow (the state directory's disk is full: here a file-size limit
    /// makes every write past 1 MB fail) is the state directory's fault, not the export's: exit
    /// 73 with a hint, what was appended before kept, and the import resumes once there is room.
    @Test func aFullStateDirectoryIsNotABadExport() throws {
        let directory = makeTemporaryDirectory()
        let export = directory + "/export.xml"
        try CommandRunner.generateExport(records: 20_000, to: export, zip: false, quirks: false)
        let config = try writeConfig(
            "state_directory: \(directory)/state\nsinks:\n  lake: { type: ndjson, directory: \(directory)/lake }\n", in: directory)
        // SIGXFSZ ignored, so a write past the limit fails with EFBIG instead of killing the process.
        let limited = try CommandRunner.run(["import", export, "--config", config, "--quiet"], in: directory,
                                            shellSetup: "trap '' XFSZ; ulimit -f 1024")
        let stderr = limited.stderr
        #expect(limited.status == 73, "\(stderr)")
        #expect(stderr.contains("cannot write the journal"), "\(stderr)")
        #expect(stderr.contains("hint: free space in \(directory)/state"), "\(stderr)")

        let resumed = try CommandRunner.run(["import", export, "--config", config, "--quiet"], in: directory)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let lines = try FileManager.default.contentsOfDirectory(atPath: directory + "/lake").filter { $0.hasSuffix(".ndjson") }
            .map { try String(contentsOfFile: directory + "/lake/" + $0, encoding: .utf8).split(separator: "\n").count }
            .reduce(0, +)
        #expect(lines > 20_000)
        let status = try CommandRunner.run(["status", "--config", config], in: directory)
        #expect(status.status == 0, "\(status.stdout)")
    }

    /// A full state directory while the zip's route files are set aside (their temporary file
    /// cannot grow; here a file-size limit) is the state directory's fault too: exit 73, the
    /// error's hint, and the import runs again once there is room.
    @Test func aFullStateDirectoryWhileRoutesAreSetAsideIsNotABadExport() throws {
        let directory = makeTemporaryDirectory()
        var gpx = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\"><trk><trkseg>\n"
        for second in 0..<40_000 {
            gpx += "<trkpt lon=\"-122.03\" lat=\"37.33\"><time>2024-01-15T16:\(second / 600 % 60 < 10 ? "0" : "")\(second / 600 % 60):"
                + "\(second / 10 % 60 < 10 ? "0" : "")\(second / 10 % 60).\(second % 10)Z</time></trkpt>\n"
        }
        gpx += "</trkseg></trk></gpx>\n"
        try gpx.write(toFile: directory + "/route.gpx", atomically: true, encoding: .utf8)
        try """
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="en_US">
             <ExportDate value="2024-01-16 10:00:00 -0800"/>
             <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" sourceName="Watch" \
            startDate="2024-01-15 08:00:00 -0800" endDate="2024-01-15 09:30:00 -0800">
              <WorkoutRoute sourceName="Watch"><FileReference path="/workout-routes/route.gpx"/></WorkoutRoute>
             </Workout>
            </HealthData>
            """.write(toFile: directory + "/export.xml", atomically: true, encoding: .utf8)
        let zip = Process()
        zip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        zip.arguments = ["python3", "-c", "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED); "
                            + "z.write(sys.argv[2], 'e/workout-routes/route.gpx'); z.write(sys.argv[3], 'e/export.xml'); z.close()",
                         directory + "/export.zip", directory + "/route.gpx", directory + "/export.xml"]
        try zip.run()
        zip.waitUntilExit()
        #expect(zip.terminationStatus == 0)
        let config = try writeConfig(
            "state_directory: \(directory)/state\nsinks:\n  lake: { type: ndjson, directory: \(directory)/lake }\n", in: directory)
        let limited = try CommandRunner.run(["import", directory + "/export.zip", "--config", config, "--quiet"], in: directory,
                                            shellSetup: "trap '' XFSZ; ulimit -f 1024")
        #expect(limited.status == 73, "\(limited.stderr)")
        #expect(limited.stderr.contains("writing workout route points failed"), "\(limited.stderr)")
        #expect(limited.stderr.contains("Then run the import again: it resumes where it stopped."), "\(limited.stderr)")
        let resumed = try CommandRunner.run(["import", directory + "/export.zip", "--config", config, "--quiet"], in: directory)
        #expect(resumed.status == 0, "\(resumed.stderr)")
    }

    /// An export stamps every date with the phone's offset of the day it was made: the same
    /// history exported in winter (-0800) and in summer (-0700) is the same samples, and the same
    /// activity days. The second import writes nothing new.
    @Test func exportsOnEitherSideOfADaylightSavingChangeAreTheSameData() throws {
        let directory = makeTemporaryDirectory()
        func export(_ offset: String, hour: Int, exportDate: String) -> String {
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="en_US">
             <ExportDate value="\(exportDate) 10:00:00 \(offset)"/>
             <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" value="30" \
            startDate="2024-01-15 \(hour):00:00 \(offset)" endDate="2024-01-15 \(hour):05:00 \(offset)"/>
             <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" sourceName="Watch" \
            startDate="2024-01-15 \(hour):00:00 \(offset)" endDate="2024-01-15 \(hour):30:00 \(offset)">
              <WorkoutRoute sourceName="Watch" sourceVersion="10.1" creationDate="2024-01-15 \(hour):31:00 \(offset)" \
            startDate="2024-01-15 \(hour):00:00 \(offset)" endDate="2024-01-15 \(hour):30:00 \(offset)">
               <Location date="2024-01-15 \(hour):00:00 \(offset)" latitude="37.33" longitude="-122.03" altitude="10"/>
              </WorkoutRoute>
             </Workout>
             <ActivitySummary dateComponents="2024-01-15" activeEnergyBurned="100" activeEnergyBurnedGoal="400" activeEnergyBurnedUnit="kcal"/>
             <ClinicalRecord type="HKClinicalTypeIdentifierImmunizationRecord" identifier="a" sourceName="Clinic" \
            receivedDate="2024-01-15 \(hour):00:00 \(offset)" resourceFilePath="/clinical-records/Immunization-1.json"/>
            </HealthData>
            """
        }
        try export("-0800", hour: 10, exportDate: "2024-02-01").write(toFile: directory + "/winter.xml", atomically: true, encoding: .utf8)
        try export("-0700", hour: 11, exportDate: "2024-07-01").write(toFile: directory + "/summer.xml", atomically: true, encoding: .utf8)
        let winter = try CommandRunner.run(["import", "winter.xml", "-q"], in: directory)
        #expect(winter.status == 0 && winter.stdout.contains("new         4"), "\(winter.stdout)\(winter.stderr)")
        let summer = try CommandRunner.run(["import", "summer.xml", "-q"], in: directory)
        #expect(summer.status == 0, "\(summer.stderr)")
        #expect(summer.stdout.contains("nothing new: every record was already imported"), "\(summer.stdout)")
        let store = try SQLiteDatabase(path: directory + "/healthrouter-data/health.sqlite", readOnly: true)
        #expect(try store.scalarInt("SELECT count(*) FROM activity_summaries") == 1)
        #expect(try store.scalarText("SELECT start_at FROM activity_summaries") == "2024-01-15T00:00:00.000Z")
        #expect(try store.scalarInt("SELECT count(*) FROM other_records") == 1)
        #expect(try store.scalarInt("SELECT count(*) FROM workouts") == 1)
        #expect(try store.scalarInt("SELECT count(*) FROM workout_route_points") == 1)
        // The route's creation date is kept as the first export wrote it.
        #expect(try store.scalarText("SELECT metadata FROM workout_routes")?.contains("2024-01-15 10:31:00 -0800") == true)
        for file in ["stepCount", "workout"] {
            let lines = try String(contentsOfFile: directory + "/healthrouter-data/ndjson/\(file).ndjson", encoding: .utf8)
            #expect(lines.split(separator: "\n").count == 1, "\(file)")
        }
    }

    /// The summary tells a record read twice in one file (a record given twice, a correlation's
    /// member copy) from one an earlier import brought: on a first import nothing is "already in the
    /// journal".
    @Test func theSummaryTellsRepeatsInTheFileFromEarlierImports() throws {
        let directory = makeTemporaryDirectory()
        func record(_ value: Int, minute: Int) -> String {
            """
             <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" value="\(value)" \
            startDate="2024-01-15 10:\(minute):00 -0800" endDate="2024-01-15 10:\(minute):30 -0800"/>
            """
        }
        func export(_ records: [String]) -> String {
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n"
                + " <ExportDate value=\"2024-02-01 10:00:00 -0800\"/>\n" + records.joined(separator: "\n") + "\n</HealthData>\n"
        }
        let first = [record(30, minute: 10), record(30, minute: 10), record(40, minute: 20)]
        try export(first).write(toFile: directory + "/first.xml", atomically: true, encoding: .utf8)
        try export(first + [record(50, minute: 30), record(50, minute: 30)])
            .write(toFile: directory + "/second.xml", atomically: true, encoding: .utf8)
        let once = try CommandRunner.run(["import", "first.xml", "-q"], in: directory)
        #expect(once.stdout.contains("\n  duplicates  1 (read earlier in the same file: a record given twice, or a correlation's member)\n"),
                "\(once.stdout)")
        let twice = try CommandRunner.run(["import", "second.xml", "-q"], in: directory)
        #expect(twice.stdout.contains("\n  new         1\n"), "\(twice.stdout)")
        #expect(twice.stdout.contains("\n  duplicates  4 (3 already in the journal; 1 read earlier in the same file: a record given "
                                      + "twice, or a correlation's member)\n"), "\(twice.stdout)")

        // Two records one fingerprint cannot tell apart (a twin), the second given twice; and a
        // replay's line given twice: read earlier in the same file as well.
        let twins = makeTemporaryDirectory()
        func food(_ created: String) -> String {
            """
             <Record type="HKQuantityTypeIdentifierDietaryEnergyConsumed" sourceName="App" unit="kcal" value="155" \
            creationDate="\(created)" startDate="2024-01-15 12:00:00 -0800" endDate="2024-01-15 12:00:00 -0800"/>
            """
        }
        try export([food("2024-01-15 12:01:00 -0800"), food("2024-01-15 12:02:00 -0800"), food("2024-01-15 12:02:00 -0800")])
            .write(toFile: twins + "/twins.xml", atomically: true, encoding: .utf8)
        let twinImport = try CommandRunner.run(["import", "twins.xml", "-q"], in: twins)
        #expect(twinImport.stdout.contains("\n  new         2\n  duplicates  1 (read earlier in the same file"), "\(twinImport.stdout)")
        let line = #"{"uuid":"L-1","type":"heartRate","start":"2024-01-15T10:00:00Z","end":"2024-01-15T10:00:00Z","value":60,"unit":"count/min","source":"W"}"#
        try (line + "\n" + line + "\n").write(toFile: twins + "/heartRate.ndjson", atomically: true, encoding: .utf8)
        let replay = try CommandRunner.run(["import", "heartRate.ndjson", "-q"], in: twins)
        #expect(replay.stdout.contains("\n  duplicates  1 (read earlier in the same file"), "\(replay.stdout)\(replay.stderr)")
        // A folder whose two files hold one line: not "in the same file".
        let folder = makeTemporaryDirectory()
        let other = line.replacingOccurrences(of: "L-1", with: "L-2")
        try (other + "\n").write(toFile: folder + "/a.ndjson", atomically: true, encoding: .utf8)
        try (other + "\n").write(toFile: folder + "/b.ndjson", atomically: true, encoding: .utf8)
        let twoFiles = try CommandRunner.run(["import", folder, "-q"], in: twins)
        #expect(twoFiles.stdout.contains("\n  duplicates  1 (read earlier from the same file or folder: a record given twice (in one "
                                         + "file or in two), or a correlation's member)\n"), "\(twoFiles.stdout)\(twoFiles.stderr)")
        // The config's source of that folder, written `~/…`: `~` is HOME (as the source reads it),
        // which need not be the password database's home (sudo -E, a service's HOME).
        let home = makeTemporaryDirectory()
        try FileManager.default.createDirectory(atPath: home + "/pushes", withIntermediateDirectories: true)
        for name in ["a", "b"] { try (other + "\n").write(toFile: home + "/pushes/\(name).ndjson", atomically: true, encoding: .utf8) }
        let configured = makeTemporaryDirectory()
        try """
            state_directory: ./state
            sources:
              mine: { type: replay, path: ~/pushes }
            sinks:
              local: { type: sqlite, path: ./health.sqlite }
            """.write(toFile: configured + "/healthrouter.yaml", atomically: true, encoding: .utf8)
        let fromConfig = try CommandRunner.run(["import", "-q"], in: configured, environment: ["HOME": home])
        #expect(fromConfig.stdout.contains("\n  duplicates  1 (read earlier from the same file or folder: a record given twice (in one "
                                           + "file or in two), or a correlation's member)\n"), "\(fromConfig.stdout)\(fromConfig.stderr)")
    }

    /// A record edited between a winter and a summer export is a change, and keeps the offsets it
    /// was first imported with: its January instants do not move to summer time in the store (the
    /// workout's route point neither).
    @Test func aRecordEditedBetweenExportsKeepsItsFirstOffsets() throws {
        let directory = makeTemporaryDirectory()
        func export(_ offset: String, hour: Int, edited: Bool) -> String {
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="en_US">
             <ExportDate value="2024-0\(edited ? 7 : 2)-01 10:00:00 \(offset)"/>
             <Record type="HKQuantityTypeIdentifierBodyMass" sourceName="Scale" unit="kg" value="70" \
            startDate="2024-01-15 \(hour):00:00 \(offset)" endDate="2024-01-15 \(hour):00:00 \(offset)">\(edited
                ? "\n  <MetadataEntry key=\"HKWasUserEntered\" value=\"1\"/>\n " : "")</Record>
             <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" sourceName="Watch" \
            totalEnergyBurned="\(edited ? 310 : 300)" totalEnergyBurnedUnit="kcal" \
            startDate="2024-01-15 \(hour):00:00 \(offset)" endDate="2024-01-15 \(hour):30:00 \(offset)">
              <WorkoutRoute sourceName="Watch" startDate="2024-01-15 \(hour):00:00 \(offset)" endDate="2024-01-15 \(hour):30:00 \(offset)">
               <Location date="2024-01-15 \(hour):00:00 \(offset)" latitude="37.33" longitude="-122.03" altitude="10"/>
              </WorkoutRoute>
             </Workout>
            </HealthData>
            """
        }
        try export("-0800", hour: 10, edited: false).write(toFile: directory + "/winter.xml", atomically: true, encoding: .utf8)
        try export("-0700", hour: 11, edited: true).write(toFile: directory + "/summer.xml", atomically: true, encoding: .utf8)
        #expect(try CommandRunner.run(["import", "winter.xml", "-q"], in: directory).status == 0)
        let summer = try CommandRunner.run(["import", "summer.xml", "-q"], in: directory)
        #expect(summer.status == 0 && summer.stdout.contains("changed     2"), "\(summer.stdout)\(summer.stderr)")
        let store = try SQLiteDatabase(path: directory + "/healthrouter-data/health.sqlite", readOnly: true)
        #expect(try store.scalarText("SELECT start_at || ' ' || start_utc_offset || ' ' || end_utc_offset || ' ' || "
                                     + "json_extract(metadata, '$.HKWasUserEntered') FROM samples")
                == "2024-01-15T18:00:00.000Z -28800 -28800 1")
        #expect(try store.scalarText("SELECT start_utc_offset || ' ' || total_energy_burned_kcal FROM workouts") == "-28800 310.0")
        #expect(try store.scalarInt("SELECT time_utc_offset FROM workout_route_points") == -28_800)
    }

    /// A day has one activity summary: a later export whose summary of a day differs (the last day
    /// of an export is partial) changes that day's row instead of adding a second one, in the sqlite
    /// store and in the ndjson file, whose readers key by uuid. A journal that holds summaries under
    /// the id healthrouter gave them before (the fingerprint of every attribute) takes the same
    /// summary as a duplicate, and a changed one replaces the row of that day.
    @Test func aLaterExportChangesADaysActivitySummary() throws {
        let directory = makeTemporaryDirectory()
        func export(_ energy: Int, exportDay: Int) -> String {
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="en_US">
             <ExportDate value="2024-03-\(exportDay) 22:00:00 -0800"/>
             <ActivitySummary dateComponents="2024-03-09" activeEnergyBurned="500" activeEnergyBurnedGoal="400" activeEnergyBurnedUnit="kcal"/>
             <ActivitySummary dateComponents="2024-03-10" activeEnergyBurned="\(energy)" activeEnergyBurnedGoal="400" activeEnergyBurnedUnit="kcal"/>
            </HealthData>
            """
        }
        try export(100, exportDay: 10).write(toFile: directory + "/march10.xml", atomically: true, encoding: .utf8)
        try export(250, exportDay: 11).write(toFile: directory + "/march11.xml", atomically: true, encoding: .utf8)
        #expect(try CommandRunner.run(["import", "march10.xml", "-q"], in: directory).status == 0)
        let later = try CommandRunner.run(["import", "march11.xml", "-q"], in: directory)
        #expect(later.status == 0, "\(later.stderr)")
        #expect(later.stdout.contains("changed     1"), "\(later.stdout)")
        let store = try SQLiteDatabase(path: directory + "/healthrouter-data/health.sqlite", readOnly: true)
        #expect(try store.scalarInt("SELECT count(*) FROM activity_summaries") == 2)
        #expect(try store.scalarText("SELECT group_concat(date || '=' || active_energy_burned, ' ') FROM "
                                     + "(SELECT * FROM activity_summaries ORDER BY date)") == "2024-03-09=500.0 2024-03-10=250.0")
        let lines = try String(contentsOfFile: directory + "/healthrouter-data/ndjson/ActivitySummary.ndjson", encoding: .utf8)
            .split(separator: "\n")
        let uuids = Set(lines.compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["uuid"] as? String
        })
        #expect(lines.count == 3 && uuids.count == 2, "\(lines)")

        // A journal a healthrouter before one id a day filled: the same summaries under their
        // former ids (what `Fingerprint.id` gives a summary with its attributes).
        let former = makeTemporaryDirectory()
        let source = AppleHealthExportSource(configuration: .init(path: directory + "/march10.xml"),
                                             context: PluginContext(name: "import", stateDirectory: former,
                                                                    logger: Logger(minimumLevel: .error)))
        let collected = ItemCollector()
        try source.read(into: collected)
        let summaries = collected.items.compactMap { item -> Sample? in
            guard case .sample(var sample) = item, sample.kind == .activitySummary else { return nil }
            sample.id = Fingerprint.id(of: sample)
            return sample
        }
        #expect(summaries.count == 2)
        try FileManager.default.createDirectory(atPath: former + "/healthrouter-data", withIntermediateDirectories: true)
        let journal = try Journal(stateDirectory: former + "/healthrouter-data")
        _ = try journal.append(summaries.map { .sample($0) }, source: "import")
        let same = try CommandRunner.run(["import", directory + "/march10.xml"], in: former)
        #expect(same.stdout.contains("nothing new"), "\(same.stdout)")
        let changed = try CommandRunner.run(["import", directory + "/march11.xml", "-q"], in: former)
        #expect(changed.status == 0, "\(changed.stderr)")
        let formerStore = try SQLiteDatabase(path: former + "/healthrouter-data/health.sqlite", readOnly: true)
        #expect(try formerStore.scalarText("SELECT group_concat(date || '=' || active_energy_burned, ' ') FROM "
                                           + "(SELECT * FROM activity_summaries ORDER BY date)") == "2024-03-09=500.0 2024-03-10=250.0")

        // Two summaries of one day in one file: the second is a change of the day, not a twin.
        let twice = makeTemporaryDirectory()
        try export(100, exportDay: 10).replacingOccurrences(of: "2024-03-09", with: "2024-03-10")
            .write(toFile: twice + "/twice.xml", atomically: true, encoding: .utf8)
        let both = try CommandRunner.run(["import", "twice.xml", "-q"], in: twice)
        #expect(both.stdout.contains("new         1") && both.stdout.contains("changed     1"), "\(both.stdout)")
        let twiceStore = try SQLiteDatabase(path: twice + "/healthrouter-data/health.sqlite", readOnly: true)
        #expect(try twiceStore.scalarText("SELECT group_concat(date || '=' || active_energy_burned) FROM activity_summaries")
                == "2024-03-10=100.0")
    }

    /// Two records one fingerprint cannot tell apart (same type, source, times and value; other
    /// metadata: two foods of equal energy at one meal) are two samples in one file, and importing
    /// the file again writes nothing; they no longer take turns as "changed".
    @Test func twoRecordsOfOneFingerprintAreTwoSamplesAndReimportIsQuiet() throws {
        let directory = makeTemporaryDirectory()
        let record = { (food: String) in
            """
             <Record type="HKQuantityTypeIdentifierDietaryEnergyConsumed" sourceName="Cronometer" unit="kcal" value="155" \
            startDate="2024-03-07 13:00:00 -0800" endDate="2024-03-07 13:00:00 -0800">
              <MetadataEntry key="HKFoodType" value="\(food)"/>
             </Record>
            """
        }
        try """
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="en_US">
             <ExportDate value="2024-03-08 10:00:00 -0800"/>
            \(record("Eggs"))
            \(record("Toast"))
            </HealthData>
            """.write(toFile: directory + "/export.xml", atomically: true, encoding: .utf8)
        let first = try CommandRunner.run(["import", "export.xml", "-q"], in: directory)
        #expect(first.status == 0 && first.stdout.contains("new         2"), "\(first.stdout)\(first.stderr)")
        let store = try SQLiteDatabase(path: directory + "/healthrouter-data/health.sqlite", readOnly: true)
        #expect(try store.scalarInt("SELECT count(DISTINCT metadata) FROM samples") == 2)
        for _ in 0..<2 {
            let again = try CommandRunner.run(["import", "export.xml", "-q"], in: directory)
            #expect(again.stdout.contains("nothing new: every record was already imported"), "\(again.stdout)")
        }
        let lines = try String(contentsOfFile: directory + "/healthrouter-data/ndjson/dietaryEnergyConsumed.ndjson", encoding: .utf8)
        #expect(lines.split(separator: "\n").count == 2)

        // In two files of one command line (an old and a new export), the same reading with other
        // metadata is an edit, not a second sample.
        let later = makeTemporaryDirectory()
        for (name, food) in [("old.xml", "Eggs"), ("new.xml", "Scrambled eggs")] {
            try "<?xml version=\"1.0\"?>\n<HealthData locale=\"en_US\">\n\(record(food))\n</HealthData>\n"
                .write(toFile: later + "/" + name, atomically: true, encoding: .utf8)
        }
        let both = try CommandRunner.run(["import", "old.xml", "new.xml", "-q"], in: later)
        #expect(both.stdout.contains("new         1") && both.stdout.contains("changed     1"), "\(both.stdout)")
        let edited = try SQLiteDatabase(path: later + "/healthrouter-data/health.sqlite", readOnly: true)
        #expect(try edited.scalarText("SELECT metadata FROM samples") == #"{"HKFoodType":"Scrambled eggs"}"#)

        // A later export that holds the first food and a second one at the same meal adds the
        // second: it met the first as it was, so the second is its twin, not its edit.
        let added = makeTemporaryDirectory()
        try "<?xml version=\"1.0\"?>\n<HealthData locale=\"en_US\">\n\(record("Eggs"))\n</HealthData>\n"
            .write(toFile: added + "/old.xml", atomically: true, encoding: .utf8)
        try "<?xml version=\"1.0\"?>\n<HealthData locale=\"en_US\">\n\(record("Eggs"))\n\(record("Toast"))\n</HealthData>\n"
            .write(toFile: added + "/new.xml", atomically: true, encoding: .utf8)
        #expect(try CommandRunner.run(["import", "old.xml", "-q"], in: added).status == 0)
        let second = try CommandRunner.run(["import", "new.xml", "-q"], in: added)
        #expect(second.stdout.contains("new         1") && !second.stdout.contains("changed"), "\(second.stdout)")
        let kept = try SQLiteDatabase(path: added + "/healthrouter-data/health.sqlite", readOnly: true)
        #expect(try kept.scalarText("SELECT group_concat(json_extract(metadata, '$.HKFoodType')) FROM "
                                    + "(SELECT metadata FROM samples ORDER BY metadata)") == "Eggs,Toast")
        let third = try CommandRunner.run(["import", "new.xml"], in: added)
        #expect(third.stdout.contains("nothing new"), "\(third.stdout)")
    }

    /// The sqlite store keeps one profile (`Me`) a user, the last written: a later export's
    /// changed profile replaces it (each export's profile is an entry, at its export date).
    @Test func theSQLiteStoreKeepsOneProfileAUser() throws {
        let directory = makeTemporaryDirectory()
        func export(day: Int, bloodType: String) -> String {
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="en_US">
             <ExportDate value="2024-03-\(day) 22:00:00 -0800"/>
             <Me HKCharacteristicTypeIdentifierDateOfBirth="1990-02-02" HKCharacteristicTypeIdentifierBloodType="\(bloodType)"/>
            </HealthData>
            """
        }
        try export(day: 10, bloodType: "HKBloodTypeAPositive").write(toFile: directory + "/a.xml", atomically: true, encoding: .utf8)
        try export(day: 11, bloodType: "HKBloodTypeAPositive").write(toFile: directory + "/b.xml", atomically: true, encoding: .utf8)
        try export(day: 12, bloodType: "HKBloodTypeBPositive").write(toFile: directory + "/c.xml", atomically: true, encoding: .utf8)
        let store = directory + "/healthrouter-data/health.sqlite"
        for (file, bloodType) in [("a.xml", "HKBloodTypeAPositive"), ("b.xml", "HKBloodTypeAPositive"), ("c.xml", "HKBloodTypeBPositive")] {
            let imported = try CommandRunner.run(["import", file, "-q"], in: directory)
            #expect(imported.status == 0, "\(imported.stderr)")
            #expect(try SQLiteDatabase(path: store, readOnly: true).scalarText("SELECT group_concat(blood_type) FROM profile")
                    == bloodType, "\(file)")
        }
        let again = try CommandRunner.run(["import", "c.xml"], in: directory)
        #expect(again.stdout.contains("nothing new"), "\(again.stdout)")
    }

    /// Two foods of equal energy at one meal, each the member of its own food correlation: each
    /// correlation points at its own member (its twin id for the second), whether the records come
    /// before the correlations or after them, with the members in the correlations' order or not;
    /// the members are stored once each, and a re-import is quiet.
    @Test func twinMembersOfTwoCorrelationsAreEachTheirOwn() throws {
        func energy(_ food: String) -> String {
            """
             <Record type="HKQuantityTypeIdentifierDietaryEnergyConsumed" sourceName="MFP" unit="kcal" value="100" \
            startDate="2024-03-10 12:00:00 -0700" endDate="2024-03-10 12:00:00 -0700"><MetadataEntry key="HKFoodType" value="\(food)"/></Record>
            """
        }
        func food(_ name: String) -> String {
            """
             <Correlation type="HKCorrelationTypeIdentifierFood" sourceName="MFP" startDate="2024-03-10 12:00:00 -0700" \
            endDate="2024-03-10 12:00:00 -0700"><MetadataEntry key="HKFoodType" value="\(name)"/>
            \(energy(name))
             </Correlation>
            """
        }
        let orders = [
            [energy("Apple"), energy("Banana"), food("Apple"), food("Banana")],
            [food("Apple"), food("Banana"), energy("Apple"), energy("Banana")],
            [energy("Banana"), energy("Apple"), food("Apple"), food("Banana")],
            [energy("Apple"), food("Apple"), energy("Banana"), food("Banana")],
            [food("Banana"), energy("Apple"), energy("Banana"), food("Apple")],
        ]
        for (index, parts) in orders.enumerated() {
            let directory = makeTemporaryDirectory()
            try ("<?xml version=\"1.0\"?>\n<HealthData locale=\"en_US\">\n <ExportDate value=\"2024-03-11 10:00:00 -0700\"/>\n"
                 + parts.joined(separator: "\n") + "\n</HealthData>\n")
                .write(toFile: directory + "/export.xml", atomically: true, encoding: .utf8)
            let imported = try CommandRunner.run(["import", "export.xml", "-q"], in: directory)
            #expect(imported.status == 0, "order \(index): \(imported.stderr)")
            let store = try SQLiteDatabase(path: directory + "/healthrouter-data/health.sqlite", readOnly: true)
            #expect(try store.scalarInt("SELECT count(*) FROM samples") == 2, "order \(index)")
            #expect(try store.scalarInt("SELECT count(*) FROM correlations") == 2, "order \(index)")
            let pairs = try store.scalarText("""
                SELECT group_concat(json_extract(c.metadata, '$.HKFoodType') || '→' || json_extract(s.metadata, '$.HKFoodType'), ' ')
                FROM (SELECT * FROM correlations ORDER BY metadata) c
                JOIN correlation_members m ON m.correlation_id = c.id JOIN samples s ON s.id = m.member_id
                """)
            #expect(pairs == "Apple→Apple Banana→Banana", "order \(index)")
            let again = try CommandRunner.run(["import", "export.xml", "-q"], in: directory)
            #expect(again.stdout.contains("nothing new: every record was already imported"), "order \(index): \(again.stdout)")
        }
    }

    /// Two foods of equal energy at one meal from an app that names the food on the correlation
    /// only (its members are the same reading): each correlation has a member of its own, so a
    /// day's energy counts both, in every order of records and correlations; the same food logged
    /// twice alike (identical correlations) stays one, as identical content does; a re-import is
    /// quiet.
    @Test func membersOfTheSameReadingInCorrelationsOfOtherFoodsAreTwoSamples() throws {
        let energy = """
             <Record type="HKQuantityTypeIdentifierDietaryEnergyConsumed" sourceName="MacroFactor" unit="kcal" value="95" \
            startDate="2024-06-03 08:00:00 +0200" endDate="2024-06-03 08:00:00 +0200"/>
            """
        func food(_ name: String) -> String {
            """
             <Correlation type="HKCorrelationTypeIdentifierFood" sourceName="MacroFactor" startDate="2024-06-03 08:00:00 +0200" \
            endDate="2024-06-03 08:00:00 +0200"><MetadataEntry key="HKFoodType" value="\(name)"/>
            \(energy)
             </Correlation>
            """
        }
        let cases: [(parts: [String], samples: Int64, correlations: Int64)] = [
            ([energy, energy, food("Apple"), food("Pear")], 2, 2),
            ([food("Apple"), food("Pear"), energy, energy], 2, 2),
            ([energy, food("Apple"), energy, food("Pear")], 2, 2),
            ([food("Pear"), energy, energy, food("Apple")], 2, 2),
            ([energy, energy, food("Apple"), food("Apple")], 1, 1),
        ]
        for (index, example) in cases.enumerated() {
            let directory = makeTemporaryDirectory()
            try ("<?xml version=\"1.0\"?>\n<HealthData locale=\"en_US\">\n <ExportDate value=\"2024-07-01 12:00:00 +0200\"/>\n"
                 + example.parts.joined(separator: "\n") + "\n</HealthData>\n")
                .write(toFile: directory + "/export.xml", atomically: true, encoding: .utf8)
            let imported = try CommandRunner.run(["import", "export.xml", "-q"], in: directory)
            #expect(imported.status == 0, "case \(index): \(imported.stderr)")
            let store = try SQLiteDatabase(path: directory + "/healthrouter-data/health.sqlite", readOnly: true)
            #expect(try store.scalarInt("SELECT count(*) FROM samples") == example.samples, "case \(index)")
            #expect(try store.scalarInt("SELECT sum(value) FROM samples") == 95 * example.samples, "case \(index)")
            #expect(try store.scalarInt("SELECT count(*) FROM correlations") == example.correlations, "case \(index)")
            #expect(try store.scalarInt("SELECT count(DISTINCT member_id) FROM correlation_members") == example.samples,
                    "case \(index)")
            let again = try CommandRunner.run(["import", "export.xml", "-q"], in: directory)
            #expect(again.stdout.contains("nothing new: every record was already imported"), "case \(index): \(again.stdout)")
        }
    }

    /// The same meal in another export whose correlations come in the other order (an apple's and a
    /// pear's of equal energy, the food named on the correlation only) is nothing new: which member
    /// keeps the reading's id does not depend on the order.
    @Test func theSameMealWithItsCorrelationsInAnotherOrderIsNothingNew() throws {
        let directory = makeTemporaryDirectory()
        let energy = #"<Record type="HKQuantityTypeIdentifierDietaryEnergyConsumed" sourceName="MacroFactor" unit="kcal" "#
            + #"value="150" startDate="2024-06-03 08:00:00 +0200" endDate="2024-06-03 08:00:00 +0200"/>"#
        func food(_ name: String) -> String {
            #"<Correlation type="HKCorrelationTypeIdentifierFood" sourceName="MacroFactor" startDate="2024-06-03 08:00:00 +0200" "#
                + #"endDate="2024-06-03 08:00:00 +0200"><MetadataEntry key="HKFoodType" value=""# + name + #""/>"#
                + energy + "</Correlation>"
        }
        func export(_ parts: [String]) -> String {
            "<?xml version=\"1.0\"?>\n<HealthData locale=\"en_US\">\n <ExportDate value=\"2024-07-01 12:00:00 +0200\"/>\n"
                + parts.joined(separator: "\n") + "\n</HealthData>\n"
        }
        try export([energy, energy, food("Apple"), food("Pear")]).write(toFile: directory + "/ab.xml", atomically: true, encoding: .utf8)
        try export([energy, energy, food("Pear"), food("Apple")]).write(toFile: directory + "/ba.xml", atomically: true, encoding: .utf8)
        let first = try CommandRunner.run(["import", "ab.xml", "-q"], in: directory)
        #expect(first.status == 0, "\(first.stderr)")
        let second = try CommandRunner.run(["import", "ba.xml"], in: directory)
        #expect(second.stdout.contains("nothing new"), "\(second.stdout)")
        let store = try SQLiteDatabase(path: directory + "/healthrouter-data/health.sqlite", readOnly: true)
        #expect(try store.scalarInt("SELECT sum(value) FROM samples") == 300)
        #expect(try store.scalarInt("SELECT count(*) FROM correlations") == 2)
    }

    /// Correlations of one time are decided together whatever their types between them (a blood
    /// pressure between two foods), and by their members' contents too (two blood pressures of one
    /// systolic and other diastolics are two systolic samples); a file cut in the middle of a
    /// time's correlations leaves them to the whole file, which then ends as if imported alone.
    @Test func correlationsOfOneTimeAreDecidedTogether() throws {
        let at = #"startDate="2024-06-03 08:00:00 +0200" endDate="2024-06-03 08:00:00 +0200""#
        func record(_ type: String, _ unit: String, _ value: Int) -> String {
            #"<Record type="HKQuantityTypeIdentifier"# + type + #"" sourceName="App" unit=""# + unit + #"" value=""#
                + String(value) + #"" "# + at + "/>"
        }
        func food(_ name: String) -> String {
            #"<Correlation type="HKCorrelationTypeIdentifierFood" sourceName="App" "# + at + #"><MetadataEntry key="HKFoodType" value=""#
                + name + #""/>"# + record("DietaryEnergyConsumed", "kcal", 150) + "</Correlation>"
        }
        func pressure(_ diastolic: Int) -> String {
            #"<Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="App" "# + at + ">"
                + record("BloodPressureSystolic", "mmHg", 120) + record("BloodPressureDiastolic", "mmHg", diastolic) + "</Correlation>"
        }
        func export(_ parts: [String], ending: Bool = true) -> String {
            "<?xml version=\"1.0\"?>\n<HealthData locale=\"en_US\">\n <ExportDate value=\"2024-07-01 12:00:00 +0200\"/>\n"
                + parts.joined(separator: "\n") + (ending ? "\n</HealthData>\n" : "\n")
        }
        func sums(_ directory: String) throws -> [Int64?] {
            let store = try SQLiteDatabase(path: directory + "/healthrouter-data/health.sqlite", readOnly: true)
            return try ["DietaryEnergyConsumed", "BloodPressureSystolic", "BloodPressureDiastolic"].map { type in
                try store.scalarInt("SELECT count(*) FROM samples WHERE type = 'HKQuantityTypeIdentifier\(type)'")
            } + [try store.scalarInt("SELECT count(*) FROM correlations")]
        }
        // Cut after three correlations, in both orders: one of the two blood pressures is alone
        // before the cut in each, and one of them keeps the systolic reading in the whole file.
        let parts = [food("Apple"), pressure(80), food("Pear"), pressure(85), food("Plum")]
        for order in [parts, parts.reversed()] {
            let whole = makeTemporaryDirectory()
            try export(order).write(toFile: whole + "/export.xml", atomically: true, encoding: .utf8)
            let alone = try CommandRunner.run(["import", "export.xml", "-q"], in: whole)
            #expect(alone.status == 0, "\(alone.stderr)")
            #expect(try sums(whole) == [3, 2, 2, 5])

            let directory = makeTemporaryDirectory()
            try export(Array(order.prefix(3)), ending: false).write(toFile: directory + "/cut.xml", atomically: true, encoding: .utf8)
            try export(order).write(toFile: directory + "/export.xml", atomically: true, encoding: .utf8)
            let cut = try CommandRunner.run(["import", "cut.xml", "-q"], in: directory)
            #expect(cut.status == 65, "\(cut.stdout) \(cut.stderr)")
            // The correlations of the time the cut falls in are named, not dropped without a word.
            #expect(cut.stdout.contains("Correlation of the time the file ends at, left for the whole file"), "\(cut.stdout)")
            let after = try CommandRunner.run(["import", "export.xml", "-q"], in: directory)
            #expect(after.status == 0, "\(after.stderr)")
            #expect(try sums(directory) == [3, 2, 2, 5])
            #expect(try StoreChecksum.sqlite(directory + "/healthrouter-data/health.sqlite", ignoring: ["journal_seq"])
                    == StoreChecksum.sqlite(whole + "/healthrouter-data/health.sqlite", ignoring: ["journal_seq"]))
        }
    }

    /// A member's two copies (inside its correlation and at the top level) that list its metadata
    /// in another order are one sample.
    @Test func aMembersCopiesWithMetadataInAnotherOrderAreOneSample() throws {
        let directory = makeTemporaryDirectory()
        func systolic(_ metadata: [String]) -> String {
            #"<Record type="HKQuantityTypeIdentifierBloodPressureSystolic" sourceName="Withings" unit="mmHg" value="125" "#
                + #"startDate="2024-06-01 08:00:00 +0200" endDate="2024-06-01 08:00:00 +0200">"# + metadata.joined() + "</Record>"
        }
        let entries = [#"<MetadataEntry key="HKWasUserEntered" value="0"/>"#, #"<MetadataEntry key="Link" value="w://1"/>"#]
        try ("<?xml version=\"1.0\"?>\n<HealthData locale=\"en_US\">\n <ExportDate value=\"2024-07-01 12:00:00 +0200\"/>\n"
             + systolic(entries) + "\n"
             + #"<Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="Withings" "#
             + #"startDate="2024-06-01 08:00:00 +0200" endDate="2024-06-01 08:00:00 +0200">"# + systolic(entries.reversed())
             + "</Correlation>\n</HealthData>\n")
            .write(toFile: directory + "/export.xml", atomically: true, encoding: .utf8)
        let imported = try CommandRunner.run(["import", "export.xml", "-q"], in: directory)
        #expect(imported.status == 0, "\(imported.stderr)")
        let store = try SQLiteDatabase(path: directory + "/healthrouter-data/health.sqlite", readOnly: true)
        #expect(try store.scalarInt("SELECT count(*) FROM samples") == 1)
        #expect(try store.scalarInt("SELECT count(*) FROM correlation_members m JOIN samples s ON s.id = m.member_id") == 1)
    }

    /// Many meals of two foods whose nutrients are equal (energy, and no cholesterol in either), the
    /// records first and the correlations after them, as exports write them: every correlation
    /// points at its own food's members. A dump of the journal read back after the export, on one
    /// command line, is nothing new: the twins of the export do not rename the dump's members.
    @Test func manyMealsOfTwinFoodsKeepTheirMembers() throws {
        let directory = makeTemporaryDirectory()
        let meals = 300
        func time(_ meal: Int) -> String { String(format: "2024-03-%02d %02d:%02d:00 -0700", 1 + meal / 96, meal / 4 % 24, meal % 4 * 15) }
        func record(_ type: String, _ unit: String, _ value: Int, meal: Int, food: String) -> String {
            "<Record type=\"HKQuantityTypeIdentifier\(type)\" sourceName=\"MFP\" unit=\"\(unit)\" value=\"\(value)\" "
                + "startDate=\"\(time(meal))\" endDate=\"\(time(meal))\"><MetadataEntry key=\"HKFoodType\" value=\"\(food)\"/></Record>\n"
        }
        func members(meal: Int, food: String) -> String {
            record("DietaryEnergyConsumed", "kcal", 100, meal: meal, food: food)
                + record("DietaryCholesterol", "mg", 0, meal: meal, food: food)
        }
        var xml = "<?xml version=\"1.0\"?>\n<HealthData locale=\"en_US\">\n<ExportDate value=\"2024-04-01 10:00:00 -0700\"/>\n"
        for meal in 0..<meals { xml += members(meal: meal, food: "Apple \(meal)") + members(meal: meal, food: "Pear \(meal)") }
        for meal in 0..<meals {
            for food in ["Apple \(meal)", "Pear \(meal)"] {
                xml += "<Correlation type=\"HKCorrelationTypeIdentifierFood\" sourceName=\"MFP\" startDate=\"\(time(meal))\" "
                    + "endDate=\"\(time(meal))\"><MetadataEntry key=\"HKFoodType\" value=\"\(food)\"/>\n"
                    + members(meal: meal, food: food) + "</Correlation>\n"
            }
        }
        try (xml + "</HealthData>\n").write(toFile: directory + "/export.xml", atomically: true, encoding: .utf8)
        let imported = try CommandRunner.run(["import", "export.xml", "-q"], in: directory)
        #expect(imported.status == 0, "\(imported.stderr)")
        let store = try SQLiteDatabase(path: directory + "/healthrouter-data/health.sqlite", readOnly: true)
        #expect(try store.scalarInt("SELECT count(*) FROM samples") == Int64(meals * 4))
        #expect(try store.scalarInt("SELECT count(*) FROM correlations") == Int64(meals * 2))
        #expect(try store.scalarInt("""
            SELECT count(*) FROM correlations c JOIN correlation_members m ON m.correlation_id = c.id
            JOIN samples s ON s.id = m.member_id
            WHERE json_extract(c.metadata, '$.HKFoodType') = json_extract(s.metadata, '$.HKFoodType')
            """) == Int64(meals * 4))
        let dump = try CommandRunner.run(["dump", "--output", "journal.ndjson"], in: directory)
        #expect(dump.status == 0, "\(dump.stderr)")
        let again = try CommandRunner.run(["import", "export.xml", "journal.ndjson"], in: directory)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("nothing new"), "\(again.stdout)")

        // A backfill from the file gives its samples the ids the import gave them: into a new
        // store the same rows as the import's (but when they were written), into the import's
        // store nothing changes.
        let filled = try StoreChecksum.sqlite(directory + "/healthrouter-data/health.sqlite", ignoring: ["journal_seq"])
        try """
            state_directory: ./healthrouter-data
            sinks:
              local: { type: sqlite, path: ./healthrouter-data/health.sqlite }
              fresh: { type: sqlite, path: ./fresh.sqlite }
            """.write(toFile: directory + "/backfill.yaml", atomically: true, encoding: .utf8)
        for sink in ["local", "fresh"] {
            let backfill = try CommandRunner.run(["backfill", sink, "--from", "export.xml", "--config", "backfill.yaml", "-q"],
                                                 in: directory)
            #expect(backfill.status == 0, "\(sink): \(backfill.stderr)")
        }
        #expect(try StoreChecksum.sqlite(directory + "/healthrouter-data/health.sqlite", ignoring: ["journal_seq"]) == filled)
        var fresh = try StoreChecksum.sqlite(directory + "/fresh.sqlite", ignoring: ["journal_seq"])
        var byImport = filled
        for table in ["sink_cursor"] { fresh[table] = nil; byImport[table] = nil }
        #expect(fresh == byImport)
    }

    /// `backfill --from PATH` reads the file as `import PATH` does: with the `user_id` of the config's
    /// source of its type, so a new store gets the rows the import made (the user's day ids too).
    @Test func aBackfillFromAFileTakesTheUserOfTheConfigsSource() throws {
        let directory = makeTemporaryDirectory()
        try """
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="en_US">
             <ExportDate value="2024-03-11 10:00:00 -0700"/>
             <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" value="40" \
            startDate="2024-03-10 12:00:00 -0700" endDate="2024-03-10 12:01:00 -0700"/>
             <ActivitySummary dateComponents="2024-03-10" activeEnergyBurned="100" activeEnergyBurnedGoal="400" activeEnergyBurnedUnit="kcal"/>
            </HealthData>
            """.write(toFile: directory + "/export.xml", atomically: true, encoding: .utf8)
        try """
            state_directory: ./state
            sources:
              mine: { type: apple_health_export, path: ./elsewhere.xml, user_id: alice }
            sinks:
              local: { type: sqlite, path: ./state/health.sqlite }
              fresh: { type: sqlite, path: ./fresh.sqlite }
            routes:
              - types: ["*"]
                to: [local]
            """.write(toFile: directory + "/healthrouter.yaml", atomically: true, encoding: .utf8)
        #expect(try CommandRunner.run(["import", "export.xml", "-q"], in: directory).status == 0)
        let backfill = try CommandRunner.run(["backfill", "fresh", "--from", "export.xml", "-q"], in: directory)
        #expect(backfill.status == 0, "\(backfill.stderr)")
        var imported = try StoreChecksum.sqlite(directory + "/state/health.sqlite", ignoring: ["journal_seq"])
        var backfilled = try StoreChecksum.sqlite(directory + "/fresh.sqlite", ignoring: ["journal_seq"])
        imported["sink_cursor"] = nil
        backfilled["sink_cursor"] = nil
        #expect(backfilled == imported)
        #expect(try SQLiteDatabase(path: directory + "/fresh.sqlite", readOnly: true)
            .scalarText("SELECT group_concat(DISTINCT user_id) FROM (SELECT user_id FROM samples UNION ALL SELECT user_id FROM activity_summaries)")
                == "alice")
    }

    /// Several files on one command line: the summary names each and counts what all of them read.
    @Test func severalFilesAreNamedAndCountedTogether() throws {
        let directory = makeTemporaryDirectory()
        try CommandRunner.generateExport(records: 300, to: directory + "/a.zip", zip: true, quirks: false, seed: 3)
        try CommandRunner.generateExport(records: 200, to: directory + "/b.xml", zip: false, quirks: false, seed: 5)
        func readCount(_ output: String) -> Int? {
            guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("  read ") }) else { return nil }
            return Int(line.split(separator: " ")[1].replacingOccurrences(of: ",", with: ""))
        }
        var alone: [Int] = []
        for file in ["a.zip", "b.xml"] {
            let single = makeTemporaryDirectory()
            let result = try CommandRunner.run(["import", directory + "/" + file], in: single)
            #expect(result.status == 0, "\(result.stderr)")
            alone.append(readCount(result.stdout) ?? -1)
        }
        let both = try CommandRunner.run(["import", "a.zip", "b.xml"], in: directory)
        #expect(both.status == 0, "\(both.stderr)")
        #expect(both.stdout.hasPrefix("imported a.zip, b.xml in "), "\(both.stdout)")
        #expect(readCount(both.stdout) == alone[0] + alone[1], "\(both.stdout)")
        #expect(alone[0] > 300 && alone[1] > 200)

        // The error of the second file names that file, not the first.
        try Data("<HealthData>".utf8).write(to: URL(fileURLWithPath: directory + "/cut.xml"))
        let broken = try CommandRunner.run(["import", "a.zip", "cut.xml"], in: directory)
        #expect(broken.status == 65)
        #expect(broken.stderr.contains("healthrouter: cut.xml"), "\(broken.stderr)")
        #expect(!broken.stderr.contains("a.zip: cut.xml"), "\(broken.stderr)")
        // The summary names the file that was read, not the one that failed before giving a record.
        #expect(broken.stdout.hasPrefix("imported a.zip in "), "\(broken.stdout)")
    }

    @Test func withoutAConfigTheEmbeddedDefaultIsUsed() throws {
        let directory = makeTemporaryDirectory()
        let export = directory + "/export.zip"
        try CommandRunner.generateExport(records: 300, to: export, zip: true, quirks: false)
        let result = try CommandRunner.run(["import", "export.zip"], in: directory)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: directory + "/healthrouter-data/health.sqlite"))
        #expect(FileManager.default.fileExists(atPath: directory + "/healthrouter-data/journal.sqlite"))
        let ndjson = try FileManager.default.contentsOfDirectory(atPath: directory + "/healthrouter-data/ndjson")
        #expect(ndjson.contains("heartRate.ndjson"))

        let status = try CommandRunner.run(["status"], in: directory)
        #expect(status.status == 0, "\(status.stdout)\(status.stderr)")
        #expect(status.stdout.contains("local"))
        #expect(status.stdout.contains("lake"))
    }
}
