import TestSupport
import Foundation
import Testing
@testable import HealthRouterCLI

/// Inputs that are not there, or not what import reads, fail before anything is created;
/// `~` in a config is the home directory of the command's environment.
@Suite struct InputCheckTests {
    @Test func aMissingExportNamedInTheConfigIsNamedByItsKeyAndLeavesNoJournal() throws {
        let directory = makeTemporaryDirectory()
        let config = try writeConfig("""
        state_directory: \(directory)/state
        sources:
          history:
            type: apple_health_export
            path: \(directory)/Downloads/export.zip
        sinks:
          local: { type: sqlite, path: \(directory)/state/health.sqlite }
        """, in: directory)

        let result = try CommandRunner.run(["import", "--config", config], in: directory)
        #expect(result.status == 66, "\(result.stderr)")
        #expect(try CommandRunner.exitCodesInHelp("import").contains(result.status))
        #expect(result.stderr.contains("\(config):5:11: sources.history.path: \(directory)/Downloads/export.zip does not exist"),
                "\(result.stderr)")
        #expect(result.stderr.contains("hint: put the file there, change sources.history.path in \(config)"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/state/journal.sqlite"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/state/health.sqlite"))

        let status = try CommandRunner.run(["status", "--config", config], in: directory)
        #expect(status.status == 66, "\(status.stdout)\(status.stderr)")
        #expect(status.stderr.contains("there is no state directory \(directory)/state"), "\(status.stderr)")
    }

    /// A state directory another user could change is refused before anything is written in it
    /// (exit 73): one every user may write to (made in a shared folder by someone else), or
    /// another user's (as root, when the tests run as root). Another user's symbolic links there
    /// would have healthrouter write through them with its rights; its journal would be theirs.
    @Test func aStateDirectoryAnotherUserCouldChangeIsRefused() throws {
        let directory = makeTemporaryDirectory()
        let export = directory + "/export.xml"
        try #"<?xml version="1.0"?><HealthData locale="en_US"><Record type="HKQuantityTypeIdentifierStepCount" sourceName="P" unit="count" startDate="2024-01-01 08:00:00 +0000" endDate="2024-01-01 08:01:00 +0000" value="5"/></HealthData>"#
            .write(toFile: export, atomically: true, encoding: .utf8)
        let shared = directory + "/healthrouter-data"
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        chmod(shared, 0o777)
        let open = try CommandRunner.run(["import", export], in: directory)
        #expect(open.status == 73, "\(open.stderr)")
        #expect(open.stderr.contains("healthrouter-data may be written by every user (mode 777)"), "\(open.stderr)")
        #expect(open.stderr.contains("/healthrouter-data if the folder is yours"), "\(open.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: shared).isEmpty)
        chmod(shared, 0o755)
        if geteuid() == 0 {
            chown(shared, 65534, 65534)
            let foreign = try CommandRunner.run(["import", export], in: directory)
            #expect(foreign.status == 73, "\(foreign.stderr)")
            #expect(foreign.stderr.contains("not to the user running healthrouter"), "\(foreign.stderr)")
            #expect(foreign.stderr.contains("hint: run healthrouter as its owner (sudo -u "), "\(foreign.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: shared).isEmpty)
            // Nor through a symbolic link another user made (to a folder of this user's).
            let linked = directory + "/linked"
            try FileManager.default.createDirectory(atPath: directory + "/elsewhere", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: linked, withDestinationPath: directory + "/elsewhere")
            lchown(linked, 65534, 65534)
            let config = try writeConfig("state_directory: \(linked)\n", in: directory)
            let throughLink = try CommandRunner.run(["import", export, "--config", config], in: directory)
            #expect(throughLink.status == 73 && throughLink.stderr.contains("is a symbolic link another user (uid 65534) made"),
                    "\(throughLink.stderr)")
            // `check --connect` (root checking the service's config) is not refused: it writes no journal.
            let check = try CommandRunner.run(["check", "--connect"], in: directory)
            #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
            chown(shared, 0, 0)
        }
        let mine = try CommandRunner.run(["import", export], in: directory)
        #expect(mine.status == 0, "\(mine.stderr)")
    }

    /// A path that exists but cannot be reached is not said to be missing: a symbolic link that
    /// leads round in a loop says so (as does a folder on the path this user cannot open, which
    /// root, who runs the tests, can), with exit 66 and nothing created.
    /// A file name that is not UTF-8 (Latin-1 bytes) was called missing: Swift hands it over with
    /// the bad bytes replaced. It is named as what it is, with the fix, before anything is created.
    @Test func aFileNameThatIsNotUTF8IsSaidToBeSo() throws {
        let directory = makeTemporaryDirectory()
        let result = try CommandRunner.run([], in: directory,
                                           shellSetup: #"touch $'caf\xe9.zip'; exec "$0" import $'caf\xe9.zip'"#)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(try CommandRunner.exitCodesInHelp("import").contains(result.status))
        #expect(result.stderr.contains("argument 2 (caf\u{FFFD}.zip) is not valid UTF-8"), "\(result.stderr)")
        #expect(result.stderr.contains("rename it to a UTF-8 name"))
        #expect(!result.stderr.contains("does not exist"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/healthrouter-data"))
        // In the log format asked for.
        let json = try CommandRunner.run([], in: directory,
                                         shellSetup: #"exec "$0" import --log-format json $'caf\xe9.zip'"#)
        #expect(json.status == 64)
        let line = try #require(try JSONSerialization.jsonObject(with: Data(json.stderr.utf8)) as? [String: Any], "\(json.stderr)")
        #expect((line["message"] as? String)?.contains("is not valid UTF-8") == true && line["exit_code"] as? Int == 64)
    }

    @Test func aLinkInALoopIsNotCalledMissing() throws {
        let directory = makeTemporaryDirectory()
        let config = try writeConfig("state_directory: \(directory)/state\n", in: directory)
        try FileManager.default.createSymbolicLink(atPath: directory + "/export.xml", withDestinationPath: directory + "/export.xml")
        let result = try CommandRunner.run(["import", directory + "/export.xml", "--config", config], in: directory)
        #expect(result.status == 66)
        #expect(result.stderr.contains("\(directory)/export.xml is a symbolic link that leads round in a loop"), "\(result.stderr)")
        #expect(!result.stderr.contains("does not exist"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/state"))
        // As a config too.
        try FileManager.default.createSymbolicLink(atPath: directory + "/loop.yaml", withDestinationPath: directory + "/loop.yaml")
        let loop = try CommandRunner.run(["check", "--config", directory + "/loop.yaml"], in: directory)
        #expect(loop.status == 78)
        #expect(loop.stderr.contains("config file \(directory)/loop.yaml is a symbolic link that leads round in a loop"), "\(loop.stderr)")
    }

    @Test func aFolderOnTheCommandLineGetsACommandLineHint() throws {
        let directory = makeTemporaryDirectory()
        let config = try writeConfig("state_directory: \(directory)/state\n", in: directory)
        let empty = directory + "/empty"
        let unpacked = directory + "/unpacked"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: unpacked + "/apple_health_export", withIntermediateDirectories: true)
        try CommandRunner.generateExport(records: 50, to: unpacked + "/apple_health_export/export.xml", zip: false, quirks: false)
        let listed = try CommandRunner.exitCodesInHelp("import")

        let none = try CommandRunner.run(["import", empty + "/", "--config", config], in: directory)
        #expect(none.status == 65)
        #expect(listed.contains(none.status))
        #expect(none.stderr.contains("is a folder without .ndjson files or Health Auto Export .json files"), "\(none.stderr)")
        #expect(none.stderr.contains("hint: give the path of the export.zip or export.xml (or a folder of .ndjson replay files, or of "
                                     + "Health Auto Export's .json files)"))
        #expect(!none.stderr.contains("`path`"))

        // A Pulso reference server's folder keeps its NDJSON in data/: the hint names it.
        let pulso = directory + "/pulso-data"
        try FileManager.default.createDirectory(atPath: pulso + "/data", withIntermediateDirectories: true)
        try "{\"deleted\":[\"A\"]}\n".write(toFile: pulso + "/data/_deleted.ndjson", atomically: true, encoding: .utf8)
        let server = try CommandRunner.run(["import", pulso + "/", "--config", config], in: directory)
        #expect(server.status == 65)
        #expect(server.stderr.contains("hint: give the data folder inside it (Pulso's reference server keeps its files there): "
                                       + "\(pulso)/data"), "\(server.stderr)")
        // So as a config's replay source: its `path` is the key to set.
        let replay = directory + "/replay.yaml"
        try "state_directory: \(directory)/state\nsources:\n  archive: { type: replay, path: \(pulso) }\n"
            .write(toFile: replay, atomically: true, encoding: .utf8)
        let configured = try CommandRunner.run(["import", "--config", replay], in: directory)
        #expect(configured.status == 65, "\(configured.stdout)\(configured.stderr)")
        #expect(configured.stderr.contains("holds no .ndjson files; its data/ folder has them"), "\(configured.stderr)")
        #expect(configured.stderr.contains("set `path` to the data folder inside it (Pulso's reference server keeps its files "
                                           + "there): \(pulso)/data"), "\(configured.stderr)")

        let export = try CommandRunner.run(["import", unpacked, "--config", config], in: directory)
        #expect(export.status == 65)
        #expect(export.stderr.contains("hint: give the export.xml inside it: \(unpacked)/apple_health_export/export.xml"),
                "\(export.stderr)")
        // Found by content, whatever the name (localized; export_cda.xml is not the data file).
        let localized = directory + "/exportado"
        try FileManager.default.createDirectory(atPath: localized, withIntermediateDirectories: true)
        try "<?xml version=\"1.0\"?>\n<ClinicalDocument/>\n".write(toFile: localized + "/export_cda.xml", atomically: true,
                                                                     encoding: .utf8)
        // Apple's internal DTD runs past the first 4 KiB, so <HealthData comes late; the DOCTYPE names it first.
        let dtd = (0..<300).map { "<!ATTLIST Record attribute\($0) CDATA #IMPLIED>" }.joined(separator: "\n")
        try "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE HealthData [\n\(dtd)\n]>\n<HealthData locale=\"pt_PT\">\n</HealthData>\n"
            .write(toFile: localized + "/导出.xml", atomically: true, encoding: .utf8)
        let named = try CommandRunner.run(["import", localized, "--config", config], in: directory)
        #expect(named.status == 65)
        #expect(named.stderr.contains("an unpacked Apple Health export"), "\(named.stderr)")
        #expect(named.stderr.contains("hint: give the export.xml inside it: \(localized)/导出.xml"), "\(named.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/state/journal.sqlite"))
    }

    /// A file that is plainly not an export or a replay file (empty, an image, another JSON
    /// document) fails before the journal and the stores are made: no data directory is left.
    @Test func aFilePlainlyNotAnExportLeavesNoStateBehind() throws {
        let directory = makeTemporaryDirectory()
        _ = FileManager.default.createFile(atPath: directory + "/empty.zip", contents: Data())
        _ = FileManager.default.createFile(atPath: directory + "/pic.png", contents: Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0]))
        try #"{"hello":[1,2,3]}"#.write(toFile: directory + "/random.json", atomically: true, encoding: .utf8)
        // A real zip of a text file (as `zip n.zip a.txt` makes): it was read, summed up and failed
        // after the journal and both stores were made.
        try "<!DOCTYPE html>\n<!-- <HealthData> -->\n<html lang=\"en\"><body>export</body></html>\n"
            .write(toFile: directory + "/page.html", atomically: true, encoding: .utf8)
        try "\u{FEFF}<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>\n"
            .write(toFile: directory + "/image.svg", atomically: true, encoding: .utf8)
        try "hi\n".write(toFile: directory + "/a.txt", atomically: true, encoding: .utf8)
        // An export.xml an editor saved as UTF-16 (with its byte-order mark, as Foundation writes it).
        try "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<HealthData locale=\"en_US\"/>\n"
            .write(toFile: directory + "/utf16.xml", atomically: true, encoding: .utf16)
        // Without a byte-order mark or declaration, little-endian.
        try "<HealthData locale=\"en_US\"/>\n".write(toFile: directory + "/utf16le.xml", atomically: true, encoding: .utf16LittleEndian)
        // NDJSON saved as UTF-16 (PowerShell's `>` writes it so), with a byte-order mark and without.
        let sampleLine = #"{"end":"2026-07-06T08:01:00Z","source":"W","start":"2026-07-06T08:01:00Z","type":"heartRate","unit":"count/min","uuid":"H-1","value":61}"# + "\n"
        try sampleLine.write(toFile: directory + "/utf16.ndjson", atomically: true, encoding: .utf16)
        try sampleLine.write(toFile: directory + "/utf16le.ndjson", atomically: true, encoding: .utf16LittleEndian)
        try sampleLine.write(toFile: directory + "/utf32.ndjson", atomically: true, encoding: .utf32LittleEndian)
        try "<HealthData locale=\"en_US\"/>\n".write(toFile: directory + "/utf32.xml", atomically: true, encoding: .utf32)
        // A file of blank lines; an NDJSON file gzipped (`dump | gzip`).
        try "\n\n \n".write(toFile: directory + "/blank.ndjson", atomically: true, encoding: .utf8)
        // Past the first MiB too (it was called neither a zip file nor XML).
        try String(repeating: "\n", count: 2 << 20).write(toFile: directory + "/long-blank.ndjson", atomically: true, encoding: .utf8)
        try sampleLine.write(toFile: directory + "/lines.ndjson", atomically: true, encoding: .utf8)
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        gzip.arguments = ["gzip", directory + "/lines.ndjson"]
        try gzip.run()
        gzip.waitUntilExit()
        /// A real zip (as `zip` makes) of `file`, named `entry` inside.
        func zip(_ file: String, as entry: String, into archive: String) throws {
            let zip = Process()
            zip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            zip.arguments = ["python3", "-c", "import sys, zipfile; zipfile.ZipFile(sys.argv[1], 'w').write(sys.argv[2], sys.argv[3])",
                             directory + "/" + archive, directory + "/" + file, entry]
            try zip.run()
            zip.waitUntilExit()
        }
        try zip("a.txt", as: "a.txt", into: "n.zip")
        // A zip of a web page named like the data file: its content tells.
        try zip("page.html", as: "page.xml", into: "page.zip")
        for (file, says) in [("n.zip", "this zip is not an Apple Health export: it holds no file that could be the Health data (its files: a.txt)"),
                             ("page.zip", "this zip is not an Apple Health export: it holds no file that could be the Health data (its files: page.xml)"),
                             ("empty.zip", "the file is empty (0 bytes)"),
                             ("pic.png", "this is not an Apple Health export (neither a zip file nor XML)"),
                             ("random.json", "random.json, line 1: this is not NDJSON of health samples: its line is not one "
                                              + "(uuid: missing or not a string)"),
                             ("page.html", "this is not an Apple Health export: the document element is <html>, not <HealthData>"),
                             ("image.svg", "the document element is <svg>, not <HealthData>"),
                             ("utf16.xml", "this XML is UTF-16; healthrouter reads export.xml in UTF-8"),
                             ("utf16le.xml", "this XML is UTF-16; healthrouter reads export.xml in UTF-8"),
                             ("utf16.ndjson", "this NDJSON is UTF-16; healthrouter reads NDJSON in UTF-8"),
                             ("utf16le.ndjson", "iconv -f UTF-16LE -t UTF-8 'utf16le.ndjson' > 'utf16le-utf8.ndjson'"),
                             ("utf32.ndjson", "this NDJSON is UTF-32; healthrouter reads NDJSON in UTF-8"),
                             ("utf32.ndjson", "iconv -f UTF-32LE -t UTF-8"),
                             ("utf32.xml", "this file is UTF-32; healthrouter reads an export.xml, JSON and NDJSON in UTF-8"),
                             ("blank.ndjson", "blank.ndjson: the file holds nothing but white space"),
                             ("long-blank.ndjson", "long-blank.ndjson: the file holds nothing but white space"),
                             ("lines.ndjson.gz", "Decompress it first (gunzip -c 'lines.ndjson.gz' > 'lines.ndjson')"),
                             // Each kind import reads is named, Health Auto Export's JSON too.
                             ("lines.ndjson.gz", "reads an export.zip, an export.xml, Health Auto Export's JSON or NDJSON as they are")] {
            let result = try CommandRunner.run(["import", file], in: directory)
            #expect(result.status == 65, "\(file): \(result.stderr)")
            #expect(result.stderr.contains(says) && result.stderr.contains("hint: "), "\(file): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 2, "\(file): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: directory + "/healthrouter-data"), "\(file) left a data directory")
        }
    }

    /// healthkit-to-sqlite's command line (`export.zip healthkit.db`, its output file after the
    /// export) given to import: a missing `.db` file, or a SQLite database (here a store import
    /// wrote), is told where import writes, before anything is created; the database was called
    /// "neither a zip file nor XML", and the missing file was hinted to be an export.
    @Test func aDatabaseGivenAsAnOutputFileIsToldWhereImportWrites() throws {
        let directory = makeTemporaryDirectory()
        let elsewhere = makeTemporaryDirectory("elsewhere")
        try CommandRunner.generateExport(records: 20, to: directory + "/export.xml", zip: false, quirks: false)
        let store = try CommandRunner.run(["import", directory + "/export.xml"], in: elsewhere)
        #expect(store.status == 0, "\(store.stderr)")
        let database = elsewhere + "/healthrouter-data/health.sqlite"
        for (output, status, says) in [("healthkit.db", Int32(66), "healthkit.db does not exist"),
                                       ("Health.SQLITE3", Int32(66), "Health.SQLITE3 does not exist"),
                                       (database, Int32(65), "\(database) is a SQLite database, not an input import reads")] {
            let result = try CommandRunner.run(["import", "export.xml", output], in: directory)
            #expect(result.status == status, "\(output): \(result.stderr)")
            #expect(try CommandRunner.exitCodesInHelp("import").contains(result.status))
            #expect(result.stderr.contains(says), "\(output): \(result.stderr)")
            #expect(result.stderr.contains("hint: import writes the stores the config names, none given on the command line "
                                           + "(without a config, ./healthrouter-data/health.sqlite; a sqlite sink's `path` "
                                           + "chooses the file)"), "\(output): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: directory + "/healthrouter-data"), "\(output) left a data directory")
        }
        // Another missing file keeps the hint at what import reads.
        let missing = try CommandRunner.run(["import", "export.zip"], in: directory)
        #expect(missing.status == 66 && missing.stderr.contains("hint: give the path of the export.zip or export.xml"),
                "\(missing.stderr)")
    }

    /// A store given to `backfill --from` (the sqlite sink's file, to fill another sink from it) is
    /// told what backfill reads and how a store gets into another, not where import writes, which
    /// it was told by import's check ("not an input import reads"); a missing `.db` file keeps the
    /// hint at what it reads.
    @Test func aDatabaseGivenToBackfillIsToldHowAStoreGetsIntoAnother() throws {
        let directory = makeTemporaryDirectory()
        try CommandRunner.generateExport(records: 20, to: directory + "/export.xml", zip: false, quirks: false)
        let imported = try CommandRunner.run(["import", "export.xml"], in: directory)
        #expect(imported.status == 0, "\(imported.stderr)")
        let database = directory + "/healthrouter-data/health.sqlite"
        let store = try CommandRunner.run(["backfill", "lake", "--from", database], in: directory)
        #expect(store.status == 65, "\(store.stderr)")
        #expect(store.stderr.contains("\(database) is a SQLite database, not an input backfill reads"), "\(store.stderr)")
        #expect(store.stderr.contains("hint: backfill --from reads an export or NDJSON, not a store: copy a store of healthrouter's "
                                      + "into the sink with `healthrouter migrate --from SINK --to SINK`, or dump it "
                                      + "(`healthrouter dump --from SINK --output FILE`) and give that file"), "\(store.stderr)")
        #expect(!store.stderr.contains("import"), "\(store.stderr)")
        let missing = try CommandRunner.run(["backfill", "lake", "--from", "healthkit.db"], in: directory)
        #expect(missing.status == 66 && missing.stderr.contains("healthkit.db does not exist")
                    && missing.stderr.contains("hint: give the path of the export.zip or export.xml"), "\(missing.stderr)")
    }

    /// NDJSON led by more than 1 MiB of blank lines is read as NDJSON, named `.ndjson` or not (its
    /// first other byte is `{`): the check read its first MiB only, and called it no Apple Health
    /// export, neither zip nor XML (exit 65).
    @Test func ndjsonAfterMoreThan1MiBOfBlankLinesIsRead() throws {
        let directory = makeTemporaryDirectory()
        let sampleLine = #"{"end":"2026-07-06T08:01:00Z","source":"W","start":"2026-07-06T08:01:00Z","type":"heartRate","unit":"count/min","uuid":"H-1","value":61}"# + "\n"
        let text = String(repeating: "\r\n", count: 600_000) + sampleLine
        for name in ["late.ndjson", "late.txt"] {
            try text.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
            let result = try CommandRunner.run(["import", name], in: directory)
            #expect(result.status == 0, "\(name): \(result.stderr)")
            #expect(result.stdout.contains("read        1 record: 1 quantity"), "\(name): \(result.stdout)")
        }
    }

    /// A journal file that is not a database is not a permissions problem: the hint says what to do.
    @Test func aJournalThatIsNotADatabaseSaysSo() throws {
        let directory = makeTemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory + "/healthrouter-data", withIntermediateDirectories: true)
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: directory + "/healthrouter-data/journal.sqlite"))
        try CommandRunner.generateExport(records: 20, to: directory + "/export.xml", zip: false, quirks: false)
        let result = try CommandRunner.run(["import", "export.xml"], in: directory)
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr.contains("journal.sqlite is not a journal healthrouter can read"), "\(result.stderr)")
        #expect(!result.stderr.contains("writable"), "\(result.stderr)")
        // The commands that read the journal say the same (they exited 1 with SQLite's words alone).
        for command in [["status"], ["dump", "--output", "all.ndjson"], ["backfill", "local"]] {
            let read = try CommandRunner.run(command, in: directory)
            #expect(read.status == 73, "\(command): \(read.stderr)")
            #expect(read.stderr.contains("cannot open the journal in") && read.stderr.contains("is not a journal healthrouter can read"),
                    "\(command): \(read.stderr)")
        }
    }

    @Test func tildeInTheConfigIsTheHomeOfTheCommandsEnvironment() throws {
        let home = makeTemporaryDirectory("home")
        try CommandRunner.generateExport(records: 100, to: home + "/export.xml", zip: false, quirks: false)
        let config = home + "/hr.yaml"
        try """
        state_directory: ~/state
        sources:
          history: { type: apple_health_export, path: ~/export.xml }
        sinks:
          local: { type: sqlite, path: ~/store/health.sqlite }
          lake: { type: ndjson, directory: ~/lake }
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let literalTilde = FileManager.default.currentDirectoryPath + "/~"
        let tildeExistedBefore = FileManager.default.fileExists(atPath: literalTilde)

        // In process: the environment passed in, not this process's HOME, decides.
        let code = HealthRouterCommand.main(["import", "--config", config, "-q"], environment: ["HOME": home])
        #expect(code == 0)
        #expect(FileManager.default.fileExists(atPath: home + "/state/journal.sqlite"))
        #expect(FileManager.default.fileExists(atPath: home + "/store/health.sqlite"))
        let lake = try FileManager.default.contentsOfDirectory(atPath: home + "/lake")
        #expect(lake.contains { $0.hasSuffix(".ndjson") })
        #expect(FileManager.default.fileExists(atPath: literalTilde) == tildeExistedBefore)
    }
}
