import Foundation
import HealthAutoExportFileSource
import HealthRouterCore
import Testing
import TestSupport

/// `healthrouter import` of Health Auto Export's JSON files (the `health_auto_export` source),
/// with the real executable: a file gives what a push of its bytes to `/hae` gives, ids included.
@Suite("Health Auto Export files imported")
struct HealthAutoExportFileImportTests {
    static let sqlite3 = SQLiteShell.path

    /// An export as Health Auto Export writes it to a file: pretty-printed, metrics and a workout,
    /// dates with their offsets, one point whose date cannot be read.
    static let export = """
        {
          "data" : {
            "metrics" : [
              {
                "name" : "step_count", "units" : "count",
                "data" : [
                  { "qty" : 120, "date" : "2024-01-05 09:00:00 -0500", "source" : "iPhone" },
                  { "qty" : 80, "date" : "2024-01-05 9:07:03 PM -0500", "source" : "iPhone" }
                ]
              },
              {
                "name" : "heart_rate", "units" : "count/min",
                "data" : [
                  { "Min" : 55, "Avg" : 61.5, "Max" : 70, "date" : "2024-01-05 10:00:00 +0100", "source" : "Watch" },
                  { "Min" : 50, "Avg" : 60, "Max" : 72, "date" : "13/07/2026 08:00", "source" : "Watch" }
                ]
              },
              {
                "name" : "weight_body_mass", "units" : "lb",
                "data" : [ { "qty" : 154.3234, "date" : "2024-01-05" } ]
              }
            ],
            "workouts" : [
              {
                "id" : "6F1B7E0C-6B0A-4B35-9D1E-2B0E7C5A9F11", "name" : "Outdoor Run",
                "start" : "2024-01-05 18:30:00 +0100", "end" : "2024-01-05 19:00:00 +0100", "duration" : 1800,
                "activeEnergyBurned" : { "qty" : 300, "units" : "kcal" }, "distance" : { "qty" : 5, "units" : "km" }
              }
            ]
          }
        }
        """

    static func sqlite(_ database: String, _ statement: String) throws -> String {
        try SQLiteShell.run(database, statement).output
    }

    /// The rows of the samples and workouts a sqlite store holds, without the user (a push's is its token's).
    static let rowsQuery = "SELECT id, type, start_at, end_at, value, unit, source_name FROM samples "
        + "UNION ALL SELECT id, type, start_at, end_at, duration_s, activity_type, source_name FROM workouts ORDER BY 1"

    /// A push of `export` to a real daemon (user alice) and an import of the same bytes as a file
    /// into the embedded default store give the same rows, ids included but for the user's part:
    /// here the pushed rows are alice's, so the import reads for alice too (its config's source).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: sqlite3), "needs sqlite3"))
    func aFileGivesTheRowsAPushGivesAndAgainNothing() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let reply = daemon.client.post("/hae", Self.export, token: DaemonProcess.token)
        #expect(reply.status == 200, "\(reply.body)")
        #expect(reply.body.contains("\"skipped\": 1"), "\(reply.body)")
        let pushed = daemon.directory + "/health.sqlite"
        #expect(eventually(within: 10) { (try? Self.sqlite(pushed, "SELECT count(*) FROM samples")) == "4" })
        daemon.stop()
        let pushedRows = try Self.sqlite(pushed, Self.rowsQuery)

        // The embedded default (no config), in a folder of its own, for alice as the push was.
        let directory = makeTemporaryDirectory("hae-file")
        let file = directory + "/HealthAutoExport-2024-01-05-2024-01-05.json"
        try Self.export.write(toFile: file, atomically: true, encoding: .utf8)
        let embedded = try CommandRunner.run(["import", file, "--quiet"], in: directory)
        #expect(embedded.status == 0, "\(embedded.stderr)")
        #expect(embedded.stdout.contains("new         5"), "\(embedded.stdout)")
        // The point that cannot be read is counted, with its reason and place.
        #expect(embedded.stdout.contains("heart_rate point: date: cannot be read as dates, or the end is before the start"),
                "\(embedded.stdout)")
        #expect(embedded.stdout.contains("HealthAutoExport-2024-01-05-2024-01-05.json: heart_rate point #1"), "\(embedded.stdout)")
        let imported = directory + "/healthrouter-data/health.sqlite"
        // Without a user, the ids are not alice's; the rest of each row is the push's.
        let withoutIds = "SELECT type, start_at, end_at, value, unit, source_name FROM (\(Self.rowsQuery)) ORDER BY 1, 2, 4"
        #expect(try Self.sqlite(imported, withoutIds) == Self.sqlite(pushed, withoutIds))
        #expect(try Self.sqlite(imported, "SELECT count(*) FROM samples WHERE user_id IS NULL") == "4")

        // Again: nothing new.
        let again = try CommandRunner.run(["import", file, "--quiet"], in: directory)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("nothing new: every record was already imported"), "\(again.stdout)")

        // For alice, into the daemon's state directory: the pushed samples, every one (0 new).
        let config = try writeConfig("""
            state_directory: \(daemon.directory)/state
            sources:
              files: { type: health_auto_export, path: \(file), user_id: alice }
            sinks:
              local: { type: sqlite, path: \(pushed) }
            """, in: directory)
        let asAlice = try CommandRunner.run(["import", file, "--config", config, "--quiet"], in: directory)
        #expect(asAlice.status == 0, "\(asAlice.stderr)")
        #expect(asAlice.stdout.contains("nothing new: every record was already imported"), "\(asAlice.stdout)")
        #expect(try Self.sqlite(pushed, Self.rowsQuery) == pushedRows)
    }

    /// A folder: a good file, one cut short and one over 64 MiB. The good one is imported; the two
    /// others are named (where the JSON breaks; the size and what to do) and the import exits 65,
    /// as a replay of a file cut short does.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: sqlite3), "needs sqlite3"))
    func aFolderReadsItsGoodFilesAndNamesTheOthers() throws {
        let directory = makeTemporaryDirectory("hae-folder")
        let folder = directory + "/Health Auto Export"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Self.export.write(toFile: folder + "/a-good.json", atomically: true, encoding: .utf8)
        // Cut short in its second line.
        try String(Self.export.prefix(40)).write(toFile: folder + "/b-cut.json", atomically: true, encoding: .utf8)
        // 65 MiB: HAE's start, then spaces (sparse: written by extending the file).
        let large = folder + "/c-large.json"
        try "{\"data\":{\"metrics\":[".write(toFile: large, atomically: true, encoding: .utf8)
        let handle = try #require(FileHandle(forWritingAtPath: large))
        try handle.truncate(atOffset: 65 << 20)
        try handle.close()
        // Another kind of JSON beside them: passed over, and said so.
        try "{\"settings\": true}".write(toFile: folder + "/d-settings.json", atomically: true, encoding: .utf8)

        let result = try CommandRunner.run(["import", folder, "--quiet"], in: directory)
        #expect(result.status == 65, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("new         5"), "\(result.stdout)")
        #expect(result.stdout.contains("not a Health Auto Export JSON file"), "\(result.stdout)")
        #expect(result.stderr.contains("2 of its 4 .json files were not read (the others were)"), "\(result.stderr)")
        #expect(result.stderr.contains("b-cut.json, line 4, column 8 (byte 41): not JSON (the file ends before its JSON does)"), "\(result.stderr)")
        #expect(result.stderr.contains("c-large.json: 65.0 MiB, over the 64 MiB a Health Auto Export file may have"),
                "\(result.stderr)")
        #expect(result.stderr.contains("export a shorter date range, or split the export by metric"), "\(result.stderr)")
        #expect(try Self.sqlite(directory + "/healthrouter-data/health.sqlite", "SELECT count(*) FROM samples") == "4")

        // The large file alone is refused before anything is read or created.
        let alone = makeTemporaryDirectory("hae-large")
        let refused = try CommandRunner.run(["import", large, "--quiet"], in: alone)
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(refused.stderr.contains("c-large.json: 65.0 MiB, over the 64 MiB"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: alone + "/healthrouter-data"))
    }

    /// A file of the folder this user may not read is named as one not read (exit 66 when no file
    /// was), where it was passed over as "not a Health Auto Export JSON file" and the import
    /// exited 0: its samples were lost without a word. The readable file beside it is imported.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: sqlite3), "needs sqlite3"))
    func aFileThatCannotBeReadIsNamedNotPassedOver() throws {
        let directory = makeTemporaryDirectory("hae-unreadable")
        chmod(directory, 0o777)
        let folder = directory + "/exports"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Self.export.write(toFile: folder + "/a-good.json", atomically: true, encoding: .utf8)
        try Self.export.replacingOccurrences(of: "2024-01-05", with: "2024-02-05")
            .write(toFile: folder + "/b-closed.json", atomically: true, encoding: .utf8)
        chmod(folder + "/b-closed.json", 0o000)
        CommandRunner.giveToUnprivilegedUser(folder + "/a-good.json")
        let work = directory + "/work"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        CommandRunner.giveToUnprivilegedUser(work)
        let result = try CommandRunner.runUnprivileged(["import", folder, "--quiet"], in: work)
        #expect(result.status == 65, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("new         5"), "\(result.stdout)")
        #expect(!result.stdout.contains("not a Health Auto Export JSON file"), "\(result.stdout)")
        #expect(result.stderr.contains("1 of its 2 .json files was not read (the others were)"), "\(result.stderr)")
        #expect(result.stderr.contains("b-closed.json: cannot be read"), "\(result.stderr)")
        #expect(result.stderr.contains("hint: check the file's permissions"), "\(result.stderr)")
    }

    /// A symbolic link to a file over 64 MiB is refused by the size of the file it leads to, as
    /// the file is; the size of the link itself (its target's name) let the file be read whole.
    @Test func aLinkToAFileOver64MiBIsRefusedByItsTargetsSize() throws {
        let directory = makeTemporaryDirectory("hae-link")
        let large = directory + "/large.json"
        try "{\"data\":{\"metrics\":[".write(toFile: large, atomically: true, encoding: .utf8)
        let handle = try #require(FileHandle(forWritingAtPath: large))
        try handle.truncate(atOffset: (64 << 20) + 1)
        try handle.close()
        let link = directory + "/HealthAutoExport-link.json"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: large)
        let work = makeTemporaryDirectory("hae-link-work")
        let refused = try CommandRunner.run(["import", link, "--quiet"], in: work)
        #expect(refused.status == 65, "\(refused.stderr)")
        // Just over: the bytes, as 64.0 MiB would read as the limit.
        #expect(refused.stderr.contains("HealthAutoExport-link.json: 67108865 bytes, over the 64 MiB"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: work + "/healthrouter-data"))
    }

    /// `import FILE` with a config of two health_auto_export sources of different users: a file in
    /// one source's folder is read with that source's user_id; a file elsewhere is refused (64),
    /// naming both, before anything is created. It was read with no user's, and its samples took
    /// the place of the user's rows of the same ids (a v2 workout's id is its own).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: sqlite3), "needs sqlite3"))
    func aFileWithSourcesOfTwoUsersIsReadAsItsFoldersOrRefused() throws {
        let directory = makeTemporaryDirectory("hae-two-users")
        for folder in ["alice", "bob"] {
            try FileManager.default.createDirectory(atPath: directory + "/" + folder, withIntermediateDirectories: true)
        }
        let config = try writeConfig("""
            state_directory: \(directory)/state
            sources:
              alice_files: { type: health_auto_export, path: \(directory)/alice, user_id: alice }
              bob_files: { type: health_auto_export, path: \(directory)/bob/, user_id: bob }
            sinks:
              local: { type: sqlite, path: \(directory)/health.sqlite }
            """, in: directory)
        let elsewhere = directory + "/HealthAutoExport-2024-01-05-2024-01-05.json"
        try Self.export.write(toFile: elsewhere, atomically: true, encoding: .utf8)
        let refused = try CommandRunner.run(["import", elsewhere, "--config", config, "--quiet"], in: directory)
        #expect(refused.status == 64, "\(refused.stdout)\(refused.stderr)")
        #expect(refused.stderr.contains("the config has 2 health_auto_export sources of different users (alice_files: alice, "
                                        + "bob_files: bob), so whose samples the file holds is not known"), "\(refused.stderr)")
        #expect(refused.stderr.contains("hint: make it (or its folder) the path of the source it belongs to"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/state"))

        let bobs = directory + "/bob/HealthAutoExport-2024-01-05-2024-01-05.json"
        try Self.export.write(toFile: bobs, atomically: true, encoding: .utf8)
        let asBob = try CommandRunner.run(["import", bobs, "--config", config, "--quiet"], in: directory)
        #expect(asBob.status == 0, "\(asBob.stderr)")
        #expect(try Self.sqlite(directory + "/health.sqlite", "SELECT user_id, count(*) FROM workouts GROUP BY 1") == "bob|1")
        #expect(try Self.sqlite(directory + "/health.sqlite", "SELECT DISTINCT user_id FROM samples") == "bob")
    }

    /// A folder of .ndjson files (replay's) that also holds Health Auto Export's .json files: both
    /// are read, and the folder is named once. The .json files were left out without a word (exit 0).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: sqlite3), "needs sqlite3"))
    func aFolderOfNDJSONAndHealthAutoExportFilesReadsBoth() throws {
        let directory = makeTemporaryDirectory("hae-mixed")
        let folder = directory + "/exports"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Self.export.write(toFile: folder + "/HealthAutoExport-2024-01-05-2024-01-05.json", atomically: true, encoding: .utf8)
        try #"{"uuid":"u-1","type":"HKQuantityTypeIdentifierStepCount","start":"2024-01-01T00:00:00Z","end":"2024-01-01T00:01:00Z","value":5,"unit":"count"}"#
            .appending("\n").write(toFile: folder + "/stepCount.ndjson", atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(["import", folder, "--quiet"], in: directory)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("imported \(folder) in "), "\(result.stdout)")
        #expect(result.stdout.contains("new         6"), "\(result.stdout)")
        let database = directory + "/healthrouter-data/health.sqlite"
        #expect(try Self.sqlite(database, "SELECT count(*) FROM samples") == "5")
        #expect(try Self.sqlite(database, "SELECT count(*) FROM workouts") == "1")

        // `backfill --from` the same folder reads both too (it read the .ndjson files alone), and
        // the store it fills holds what the import wrote, ids included.
        try """
            state_directory: ./healthrouter-data
            sinks:
              fresh: { type: sqlite, path: ./fresh.sqlite }
            routes:
              - types: ["*"]
                to: [fresh]
            """.write(toFile: directory + "/backfill.yaml", atomically: true, encoding: .utf8)
        let backfill = try CommandRunner.run(["backfill", "fresh", "--from", folder, "--config", "backfill.yaml", "-q"],
                                             in: directory)
        #expect(backfill.status == 0, "\(backfill.stdout)\n\(backfill.stderr)")
        #expect(backfill.stdout.contains("6 samples and 0 tombstones delivered"), "\(backfill.stdout)")
        // The point whose date cannot be read is counted as the import counts it.
        #expect(backfill.stdout.contains("heart_rate point: date: cannot be read"), "\(backfill.stdout)")
        #expect(try Self.sqlite(directory + "/fresh.sqlite", Self.rowsQuery) == Self.sqlite(database, Self.rowsQuery))
    }

    /// Pretty-printed JSON that is not Health Auto Export's (no `data.metrics`, or a `data` that is
    /// no object) is still refused by replay, saying what it is; one-line NDJSON stays replay's.
    @Test func otherJSONIsStillRefusedAsNoNDJSON() throws {
        let directory = makeTemporaryDirectory("hae-other")
        for (name, text) in [("list.json", "{\n  \"items\": [\n    1, 2\n  ]\n}\n"),
                             ("data-list.json", "{\n  \"data\": [\n    {\"metrics\": []}\n  ]\n}\n")] {
            let file = directory + "/" + name
            try text.write(toFile: file, atomically: true, encoding: .utf8)
            #expect(!HealthAutoExportFileSource.recognizes(file))
            let result = try CommandRunner.run(["import", file, "--quiet"], in: directory)
            #expect(result.status == 65, "\(result.stderr)")
            #expect(result.stderr.contains("this is not NDJSON of health samples"), "\(result.stderr)")
            // What import takes names Health Auto Export's files, which are no longer to be pushed instead.
            #expect(result.stderr.contains("or a JSON file of Health Auto Export's ({\"data\": {\"metrics\": […]}}"), "\(result.stderr)")
        }
        // JSON that no source reads (`null`, a list, nothing) is told as JSON, not as "not an Apple
        // Health export" with the Health app's hint, and nothing is created.
        for (name, text, problem) in [("null.json", "null\n", "this JSON is neither Health Auto Export's export"),
                                      ("list.json.JSON", "[1, 2]\n", "this JSON is neither Health Auto Export's export"),
                                      ("empty.json", "", "the file is empty (0 bytes)")] {
            let folder = makeTemporaryDirectory("hae-json")
            let file = folder + "/" + name
            try text.write(toFile: file, atomically: true, encoding: .utf8)
            let result = try CommandRunner.run(["import", file], in: folder)
            #expect(result.status == 65, "\(result.stderr)")
            #expect(result.stderr.contains(problem), "\(result.stderr)")
            #expect(!result.stderr.contains("Apple Health export"), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: folder + "/healthrouter-data"))
        }
        // Minified on one line, and HAE's keys at the top level: Health Auto Export's.
        let minified = directory + "/minified.json"
        try #"{"metrics":[{"name":"step_count","units":"count","data":[{"qty":1,"date":"2024-01-05 09:00:00 -0500"}]}]}"#
            .write(toFile: minified, atomically: true, encoding: .utf8)
        #expect(HealthAutoExportFileSource.recognizes(minified))
        // Two lines of HAE bodies are NDJSON, not one document.
        let lines = directory + "/lines.ndjson"
        try "{\"data\":{\"metrics\":[]}}\n{\"data\":{\"metrics\":[]}}\n".write(toFile: lines, atomically: true, encoding: .utf8)
        #expect(!HealthAutoExportFileSource.recognizes(lines))
    }
}
