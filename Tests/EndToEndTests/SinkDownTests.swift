import TestSupport
import Foundation
import Testing
import HealthRouterCore

/// `healthrouter import` with one sink whose store is down (an HTTP server that refuses
/// connections on loopback): the other sink gets everything, the import waits out its retries,
/// says which sink has not caught up and why, exits non-zero, and keeps the entries for later.
@Suite struct SinkDownTests {
    @Test func anImportSaysWhichSinkIsNotCaughtUpAndWhy() throws {
        let directory = makeTemporaryDirectory()
        let export = directory + "/export.zip"
        try CommandRunner.generateExport(records: 400, to: export, zip: true, quirks: false)
        let config = try writeConfig("""
            state_directory: \(directory)/state
            sinks:
              local: { type: sqlite, path: \(directory)/state/health.sqlite }
              mirror: { type: http, url: "http://127.0.0.1:1", token: t }
            routes:
              - types: ["*"]
                to: [local, mirror]
            """, in: directory)

        let started = Date()
        let result = try CommandRunner.run(["import", export, "--config", config], in: directory)
        // Five tries, 0.5 s, 1 s, 2 s and 4 s apart: the store had 7.5 s to come back.
        #expect(Date().timeIntervalSince(started) >= 7)
        #expect(result.status == 1, "stdout: \(result.stdout) stderr: \(result.stderr)")
        #expect(try CommandRunner.exitCodesInHelp("import").contains(1))
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains("local") && $0.contains("caught up") && !$0.contains("NOT") })
        let notCaughtUp = try #require(lines.first { $0.contains("NOT caught up") }, "\(result.stdout)")
        #expect(notCaughtUp.contains("unavailable") && notCaughtUp.contains("127.0.0.1"), "\(notCaughtUp)")
        #expect(result.stdout.contains("the entries stay in the journal"))
        #expect(result.stderr.contains("retrying in 0.5s") && result.stderr.contains("gave up"), "\(result.stderr)")
        // Its store was never reached: the log does not speak of a write.
        #expect(result.stderr.contains("warning: cannot open the sink, retrying in 0.5s sink=mirror")
                && !result.stderr.contains("write failed"), "\(result.stderr)")

        let stored = try SQLiteDatabase(path: directory + "/state/health.sqlite", readOnly: true)
        #expect(try stored.scalarInt("SELECT count(*) FROM samples") ?? 0 > 100)

        // status names the sink, its lag and the whole error.
        let status = try CommandRunner.run(["status", "--config", config], in: directory)
        #expect(status.status == 1)
        let mirror = try #require(status.stdout.split(separator: "\n").first { $0.hasPrefix("mirror") }, "\(status.stdout)")
        let columns = mirror.split(separator: " ")
        #expect(columns.count > 6 && columns[2] == "0" && (Int(columns[3]) ?? 0) > 100, "\(mirror)")  // cursor 0, lag
        #expect(columns.dropFirst(6).joined(separator: " ").hasPrefix("unavailable: http://127.0.0.1:1"), "\(mirror)")
        #expect(status.stdout.contains("\nlast error of mirror: unavailable: http://127.0.0.1:1/health: "), "\(status.stdout)")
    }

    /// A sqlite store whose pages were damaged says what to do (no retry mends it): move it away,
    /// and the next run makes a new one, filled from the journal. It said SQLite's words only.
    @Test func aDamagedSQLiteStoreSaysHowToGetANewOne() throws {
        let directory = makeTemporaryDirectory()
        let export = directory + "/export.xml"
        try CommandRunner.generateExport(records: 400, to: export, zip: false, quirks: false)
        let store = directory + "/health.sqlite"
        let config = try writeConfig("""
            state_directory: \(directory)/state
            sinks:
              local: { type: sqlite, path: \(store) }
            """, in: directory)
        #expect(try CommandRunner.run(["import", export, "--config", config, "-q"], in: directory).status == 0)
        let rows = try SQLiteDatabase(path: store, readOnly: true).scalarInt("SELECT count(*) FROM samples") ?? 0
        #expect(rows > 100)
        // Every page after the first two overwritten, as a failing disk might.
        let handle = try #require(FileHandle(forUpdatingAtPath: store))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: 2 * 16_384)
        try handle.write(contentsOf: Data(repeating: 0x5A, count: Int(size) - 2 * 16_384))
        try handle.close()

        let damaged = try CommandRunner.run(["import", export, "--config", config, "-q"], in: directory)
        #expect(damaged.status == 1, "\(damaged.stdout)\(damaged.stderr)")
        let line = try #require(damaged.stdout.split(separator: "\n").first { $0.contains("NOT caught up") }, "\(damaged.stdout)")
        #expect(line.contains("(SQLite code 11)") && line.contains("the file is damaged") && line.contains("move it away and "
                + "healthrouter makes a new one, filled from the journal"), "\(line)")

        try FileManager.default.moveItem(atPath: store, toPath: directory + "/damaged.sqlite")
        let again = try CommandRunner.run(["import", export, "--config", config, "-q"], in: directory)
        #expect(again.status == 0, "\(again.stdout)\(again.stderr)")
        #expect(try SQLiteDatabase(path: store, readOnly: true).scalarInt("SELECT count(*) FROM samples") == rows)
    }

    /// A sink that opens and finds nothing new to write, and then fails to keep its cursor, is
    /// still failing: the import gives up on it after five tries instead of counting every
    /// reopening as a recovery and retrying forever.
    @Test func aSinkThatReopensAndFailsAgainIsGivenUpOn() throws {
        let directory = makeTemporaryDirectory()
        try CommandRunner.generateExport(records: 200, to: directory + "/first.xml", zip: false, quirks: false, seed: 3)
        try CommandRunner.generateExport(records: 200, to: directory + "/second.xml", zip: false, quirks: false, seed: 4)
        let config = try writeConfig("""
            state_directory: \(directory)/state
            sinks:
              local: { type: sqlite, path: \(directory)/state/health.sqlite }
              lake: { type: ndjson, directory: \(directory)/lake }
            """, in: directory)
        #expect(try CommandRunner.run(["import", "first.xml", "--config", config, "-q"], in: directory).status == 0)
        let journal = try SQLiteDatabase(path: directory + "/state/journal.sqlite")
        try journal.execute("""
            CREATE TRIGGER refuse_lake BEFORE UPDATE ON cursors WHEN NEW.sink = 'lake' AND NEW.seq <> OLD.seq
            BEGIN SELECT RAISE(ABORT, 'cursor refused'); END
            """)
        let started = Date()
        let result = try CommandRunner.run(["import", "second.xml", "--config", config, "-q"], in: directory,
                                           shellSetup: "exec timeout 60 \"$0\" \"$@\"")
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(Date().timeIntervalSince(started) < 40)
        #expect(result.stderr.contains("gave up") && !result.stderr.contains("the sink works again"), "\(result.stderr)")
    }

    /// A sink whose store is down but whose routes select nothing the import reads (a mirror of
    /// pushed workouts, say, while an export of heart rates is imported) does not hold the import
    /// up: no retries waited out, exit 0, and the summary says why it did not catch up and what
    /// waits for it. One whose routes select what the import reads is waited for, also when the
    /// import brings nothing new: running it again is how that sink gets what it missed.
    @Test func aSinkTheImportRoutesNothingToIsNotWaitedFor() throws {
        let directory = makeTemporaryDirectory()
        let export = directory + "/export.xml"
        try CommandRunner.generateExport(records: 300, to: export, zip: false, quirks: false)
        func config(mirrorTypes: String) throws -> String {
            try writeConfig("""
                state_directory: \(directory)/state
                sinks:
                  local: { type: sqlite, path: \(directory)/state/health.sqlite }
                  mirror: { type: http, url: "http://127.0.0.1:1", token: t }
                routes:
                  - { types: [\(mirrorTypes)], to: [mirror] }
                  - { types: ["*"], to: [local] }
                """, in: directory)
        }
        var started = Date()
        var result = try CommandRunner.run(["import", export, "--config", try config(mirrorTypes: "HKQuantityTypeIdentifierInsulinDelivery")],
                                           in: directory)
        // The first retry is 0.5 s away and the next 1 s: the worker was stopped at the first.
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
        var lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains("local") && $0.contains("caught up") })
        let mirror = try #require(lines.firstIndex { $0.contains("mirror") }, "\(result.stdout)")
        #expect(lines[mirror].hasSuffix("0 rows written, none from this import (its routes select nothing it read)"), "\(lines[mirror])")
        #expect(lines[mirror + 1].contains("not waited for: unavailable: http://127.0.0.1:1"), "\(result.stdout)")
        #expect(lines[mirror + 2].trimmingCharacters(in: .whitespaces) == "nothing waits for it", "\(result.stdout)")
        #expect(!result.stdout.contains("NOT caught up"))
        #expect(result.stderr.contains("stopped retrying") && !result.stderr.contains("gave up"), "\(result.stderr)")

        // The mirror's routes now select heart rates, which the journal holds. An import of the sleep
        // samples alone (nothing new) reads none: not waited for, and it counts the heart rates that
        // wait; `status` still flags the lag.
        let heartRateConfig = try config(mirrorTypes: "HKQuantityTypeIdentifierHeartRate")
        let journal = try Journal(stateDirectory: directory + "/state", role: .reader)
        let heartRates = try journal.entryCountsByTypeAndSource()
            .filter { $0.type == "HKQuantityTypeIdentifierHeartRate" }.reduce(0) { $0 + $1.count }
        #expect(heartRates > 10)
        let sleep = try CommandRunner.run(["dump", "--types", "sleep", "--config", heartRateConfig, "--output", "sleep.ndjson"], in: directory)
        #expect(sleep.status == 0, "\(sleep.stderr)")
        started = Date()
        result = try CommandRunner.run(["import", "sleep.ndjson", "--config", heartRateConfig], in: directory)
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
        #expect(result.stdout.contains("nothing new"), "\(result.stdout)")
        lines = result.stdout.split(separator: "\n").map(String.init)
        let waiting = try #require(lines.first { $0.contains("its routes select wait for it in the journal") }, "\(result.stdout)")
        #expect(waiting.trimmingCharacters(in: .whitespaces).hasPrefix("\(NumberText.grouped(Int(heartRates))) entries"), "\(waiting)")
        let status = try CommandRunner.run(["status", "--config", heartRateConfig], in: directory)
        #expect(status.status == 1, "\(status.stdout)")

        // The export again: nothing new, but it holds heart rates, so the mirror is waited for
        // (its retries, 7.5 s) and the import exits 1, as the first import that routed to it would.
        started = Date()
        result = try CommandRunner.run(["import", export, "--config", heartRateConfig], in: directory)
        #expect(Date().timeIntervalSince(started) >= 7)
        #expect(result.status == 1, "stdout: \(result.stdout) stderr: \(result.stderr)")
        #expect(result.stdout.contains("nothing new") && result.stdout.contains("NOT caught up"), "\(result.stdout)")
    }

    /// A sink whose configuration is wrong (its folder would be under a file) is not retried as if
    /// its store were down: the import gives up on it at once, says what to fix, exits 78 as
    /// `check --connect` and `backfill` do for it (it exited 1), and the other sink gets everything.
    @Test func aMisconfiguredSinkIsNotRetried() throws {
        let directory = makeTemporaryDirectory()
        let export = directory + "/export.xml"
        try CommandRunner.generateExport(records: 200, to: export, zip: false, quirks: false)
        let config = try Self.configWithAMisconfiguredSink(in: directory, goodSink: "local")
        let result = try CommandRunner.run(["import", export, "--config", config], in: directory)
        #expect(result.status == 78, "stdout: \(result.stdout) stderr: \(result.stderr)")
        #expect(try CommandRunner.exitCodesInHelp("import").contains(78))
        let notCaughtUp = try #require(result.stdout.split(separator: "\n").first { $0.contains("NOT caught up") }, "\(result.stdout)")
        #expect(notCaughtUp.contains("misconfigured: \(directory)/afile is a file, so \(directory)/afile/ndjson cannot be a folder"),
                "\(notCaughtUp)")
        #expect(!result.stderr.contains("retrying") && result.stderr.contains("gave up"), "\(result.stderr)")
        let stored = try SQLiteDatabase(path: directory + "/state/health.sqlite", readOnly: true)
        #expect(try stored.scalarInt("SELECT count(*) FROM samples") ?? 0 > 100)
    }

    /// One sink misconfigured, another whose store is down: 78, the fix the config needs (the
    /// sink that is down catches up by itself on a later run).
    @Test func aMisconfiguredSinkBesideOneThatIsDownExits78() throws {
        let directory = makeTemporaryDirectory()
        let export = directory + "/export.xml"
        try CommandRunner.generateExport(records: 100, to: export, zip: false, quirks: false)
        try "x".write(toFile: directory + "/afile", atomically: true, encoding: .utf8)
        let config = try writeConfig("""
            state_directory: \(directory)/state
            sinks:
              lake: { type: ndjson, directory: \(directory)/afile/ndjson }
              mirror: { type: http, url: "http://127.0.0.1:1", token: t }
            """, in: directory)
        let result = try CommandRunner.run(["import", export, "--config", config], in: directory)
        #expect(result.status == 78, "stdout: \(result.stdout) stderr: \(result.stderr)")
        let notCaughtUp = result.stdout.split(separator: "\n").filter { $0.contains("NOT caught up") }
        #expect(notCaughtUp.count == 2, "\(result.stdout)")
    }

    /// A backfill into a server that stays down ends with exit 73 and a hint about the server
    /// alone: only a file or folder store is held by a running healthrouter.
    @Test func aBackfillIntoAServerThatIsDownDoesNotBlameARunningHealthrouter() throws {
        let directory = makeTemporaryDirectory()
        let export = directory + "/export.xml"
        try CommandRunner.generateExport(records: 50, to: export, zip: false, quirks: false)
        let imported = try CommandRunner.run(["import", export, "--config", try writeConfig("""
            state_directory: \(directory)/state
            sinks:
              local: { type: sqlite, path: \(directory)/state/health.sqlite }
            """, in: directory)], in: directory)
        #expect(imported.status == 0, "\(imported.stderr)")
        let config = try writeConfig("""
            state_directory: \(directory)/state
            sinks:
              local: { type: sqlite, path: \(directory)/state/health.sqlite }
              mirror: { type: http, url: "http://127.0.0.1:1", token: t }
            """, in: directory)
        let result = try CommandRunner.run(["backfill", "mirror", "--config", config], in: directory)
        #expect(result.status == 73, "stdout: \(result.stdout) stderr: \(result.stderr)")
        #expect(result.stderr.contains("cannot open the sink 'mirror' (http)") && result.stderr.contains("check that the store is reachable"),
                "\(result.stderr)")
        #expect(!result.stderr.contains("running healthrouter"), "\(result.stderr)")
    }

    /// A config in `directory` with a sqlite sink `goodSink` and an ndjson sink `lake` whose folder
    /// would be under the file `directory/afile` (misconfigured); its path.
    static func configWithAMisconfiguredSink(in directory: String, goodSink: String) throws -> String {
        try "x".write(toFile: directory + "/afile", atomically: true, encoding: .utf8)
        return try writeConfig("""
            state_directory: \(directory)/state
            sinks:
              \(goodSink): { type: sqlite, path: \(directory)/state/health.sqlite }
              lake: { type: ndjson, directory: \(directory)/afile/ndjson }
            """, in: directory)
    }
}
