import TestSupport
import Foundation
import Synchronization
import HealthRouterCore
import NDJSONSink
import SQLiteSink
import Testing

/// The real binary: dump, import of NDJSON, backfill and migrate, on a generated export.
@Suite(.serialized) struct MigrationCommandTests {
    static let config = """
        state_directory: ./state
        sinks:
          local:
            type: sqlite
            path: ./local.sqlite
          lake:
            type: ndjson
            directory: ./lake
          copy:
            type: ndjson
            directory: ./copy
          back:
            type: sqlite
            path: ./back.sqlite
        routes:
          - types: ["*"]
            to: [local, lake]
        """

    /// A directory with the config and an imported export of `records` records.
    static func imported(records: Int = 1_500) throws -> String {
        let directory = makeTemporaryDirectory("migrate")
        try config.write(toFile: directory + "/healthrouter.yaml", atomically: true, encoding: .utf8)
        try CommandRunner.generateExport(records: records, to: directory + "/export.zip", zip: true, quirks: true)
        let result = try CommandRunner.run(["import", "export.zip", "-q"], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        return directory
    }

    static func samples(sqlite path: String) throws -> [String: Sample] {
        let sink = SQLiteSink(configuration: .init(path: path), context: SinkFixtures.context(TestScratch.path))
        _ = try sink.prepare()
        defer { sink.close() }
        var out: [String: Sample] = [:]
        try sink.readBack { if case .sample(let s) = $0 { out[s.id] = s } }
        return out
    }

    static func cursors(_ directory: String) throws -> [String] {
        let database = try SQLiteDatabase(path: directory + "/state/journal.sqlite", readOnly: true)
        let statement = try database.prepare("SELECT sink, seq, written, updated_at, coalesce(last_error, '') FROM cursors ORDER BY sink")
        var rows: [String] = []
        while try statement.step() {
            rows.append((0..<5).map { statement.string(Int32($0)) ?? "" }.joined(separator: "|"))
        }
        return rows
    }

    static func files(_ directory: String) throws -> [String: Data] {
        var out: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            out[name] = FileManager.default.contents(atPath: directory + "/" + name)
        }
        return out
    }

    @Test func roundTripSQLiteToNDJSONToSQLiteKeepsEveryCanonicalSample() throws {
        let directory = try Self.imported()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try CommandRunner.run(["migrate", "--from", "local", "--to", "copy", "--verify", "-q"], in: directory)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let second = try CommandRunner.run(["migrate", "--from", "copy", "--to", "back", "--verify", "-q"], in: directory)
        #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
        #expect(second.stdout.contains("verified"))
        let original = try Self.samples(sqlite: directory + "/local.sqlite")
        #expect(original.count > 1_000)
        #expect(try Self.samples(sqlite: directory + "/back.sqlite") == original)
    }

    /// Two dumps to one file at once each write a temporary file of their own: both succeed, and
    /// the file is one of the two whole (with one temporary name, each wrote into and renamed the
    /// other's: one said it wrote its samples to a file that held the other's, the other exited 73).
    @Test func twoDumpsToOneFileAtOnceBothSucceed() throws {
        let directory = try Self.imported(records: 3_000)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let whole = try CommandRunner.run(["dump", "--from", "local", "--output", "whole.ndjson"], in: directory)
        let heart = try CommandRunner.run(["dump", "--from", "local", "--types", "heartRate", "--output", "heart.ndjson"], in: directory)
        #expect(whole.status == 0 && heart.status == 0)
        let expected = [try String(contentsOfFile: directory + "/whole.ndjson", encoding: .utf8),
                        try String(contentsOfFile: directory + "/heart.ndjson", encoding: .utf8)]
        for round in 1...3 {
            let results = Mutex<[Int32]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                let arguments = index == 0 ? ["dump", "--from", "local", "--output", "same.ndjson"]
                    : ["dump", "--from", "local", "--types", "heartRate", "--output", "same.ndjson"]
                let status = (try? CommandRunner.run(arguments, in: directory).status) ?? -1
                results.withLock { $0.append(status) }
            }
            #expect(results.withLock { $0 } == [0, 0], "round \(round)")
            let same = try String(contentsOfFile: directory + "/same.ndjson", encoding: .utf8)
            #expect(expected.contains(same), "round \(round): the file is neither dump whole")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.contains(".partial") }
            #expect(leftovers.isEmpty, "\(leftovers)")
        }
    }

    /// A journal entry damaged on disk does not stop `dump` or `backfill`: each says it left the
    /// entry out and goes on with the entries after it (both stopped at it, and backfill's "run
    /// the same command again" met it again).
    @Test func aDamagedJournalEntryIsLeftOutByDumpAndBackfill() throws {
        let directory = try Self.imported(records: 100)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let whole = try CommandRunner.run(["dump", "--output", "whole.ndjson"], in: directory)
        #expect(whole.status == 0, "\(whole.stderr)")
        let journal = try SQLiteDatabase(path: directory + "/state/journal.sqlite")
        try journal.execute("UPDATE entries SET payload = x'00ff00ff' WHERE seq = 5")
        let dump = try CommandRunner.run(["dump", "--output", "all.ndjson"], in: directory)
        #expect(dump.status == 0, "\(dump.stderr)")
        #expect(dump.stderr.contains("warning: journal entry 5 ") && dump.stderr.contains("left out of the dump"), "\(dump.stderr)")
        func lines(_ file: String) throws -> Int {
            try String(contentsOfFile: directory + "/" + file, encoding: .utf8).split(separator: "\n").count
        }
        #expect(try lines("all.ndjson") == lines("whole.ndjson") - 1)
        let backfill = try CommandRunner.run(["backfill", "local"], in: directory)
        #expect(backfill.status == 0, "\(backfill.stdout)\(backfill.stderr)")
        #expect(backfill.stdout.contains("journal entry that cannot be read (damaged on disk): left out, still a dead letter"),
                "\(backfill.stdout)")
    }

    /// A sqlite store that holds a row healthrouter cannot read (a time edited by hand, a JSON
    /// column that is no JSON) or a damaged page fails `dump --from`, `migrate` and `migrate
    /// --verify-only` at once, exit 65 (the store's data are not right), with the message that
    /// names the sink, the file, the row and what to do: each was retried five times over some
    /// 7.5 s as a store that is down ("trying again in 4.0 s (attempt 5 of 5)"), then exit 1.
    @Test func aStoreHoldingARowItCannotReadFailsAtOnce() throws {
        let directory = try Self.imported(records: 300)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/local.sqlite"
        let pristine = try Data(contentsOf: URL(fileURLWithPath: path))
        func edit(_ sql: String) throws {
            try pristine.write(to: URL(fileURLWithPath: path))
            try SQLiteDatabase(path: path).execute(sql)
        }
        func expectFailsAtOnce(_ problem: String, _ sourceLocation: SourceLocation = #_sourceLocation) throws {
            let commands = [["dump", "--from", "local", "--output", "out.ndjson"], ["migrate", "--from", "local", "--to", "copy", "-q"],
                            ["migrate", "--from", "local", "--to", "lake", "--verify-only"]]
            for arguments in commands {
                let started = Date()
                let result = try CommandRunner.run(arguments, in: directory)
                let seconds = Date().timeIntervalSince(started)
                #expect(result.status == 65, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
                #expect(!result.stderr.contains("trying again") && seconds < 5, "\(arguments) \(seconds) s: \(result.stderr)",
                        sourceLocation: sourceLocation)
                #expect(result.stderr.contains("sink 'local' cannot be read back: ./local.sqlite: " + problem), "\(result.stderr)",
                        sourceLocation: sourceLocation)
                #expect(result.stderr.contains("hint: no retry reads it: mend the store as said, then run the command again"),
                        "\(result.stderr)", sourceLocation: sourceLocation)
                // A migration stopped before the target acknowledged a batch names no resume point.
                if arguments.contains("copy") {
                    #expect(result.stderr.contains("then run the command again (it starts from the beginning)")
                                && !result.stderr.contains("resumes after"), "\(result.stderr)", sourceLocation: sourceLocation)
                }
            }
            #expect(!FileManager.default.fileExists(atPath: directory + "/out.ndjson"), sourceLocation: sourceLocation)
        }
        try edit("UPDATE samples SET start_at = '2021-12-31 noon' WHERE rowid = 2")
        try expectFailsAtOnce("column start_at of table samples, in the row of sample '")
        try edit("UPDATE samples SET metadata = '{oops' WHERE rowid = 2")
        try expectFailsAtOnce("a JSON column of the row of sample '")
        // A page of the samples table damaged (its root: every read of the table meets it).
        try pristine.write(to: URL(fileURLWithPath: path))
        let (root, pageSize) = try { () throws -> (Int64, Int64) in
            let database = try SQLiteDatabase(path: path, readOnly: true)
            return (try #require(try database.scalarInt("SELECT rootpage FROM sqlite_master WHERE name = 'samples'")),
                    try #require(try database.scalarInt("PRAGMA page_size")))
        }()
        let file = try #require(FileHandle(forWritingAtPath: path))
        try file.seek(toOffset: UInt64((root - 1) * pageSize))
        try file.write(contentsOf: Data(repeating: 0xFF, count: Int(pageSize)))
        try file.close()
        try expectFailsAtOnce("database disk image is malformed")
    }

    /// A second migration into an ndjson store brings what changed and what was deleted since the
    /// first: items read from another store carry read positions, not journal sequences, so the
    /// sink must judge them by content (it skipped them as older than its lines).
    @Test func aSecondMigrationIntoNDJSONBringsChangesAndDeletions() throws {
        let directory = try Self.imported()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try CommandRunner.run(["migrate", "--from", "local", "--to", "copy", "-q"], in: directory)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let dump = try CommandRunner.run(["dump", "--from", "local", "--output", "all.ndjson"], in: directory)
        #expect(dump.status == 0, "\(dump.stderr)")
        let lines = try String(contentsOfFile: directory + "/all.ndjson", encoding: .utf8).split(separator: "\n")
        let heartRates = lines.filter { $0.contains("\"type\":\"heartRate\"") }
        let edited = try #require(heartRates.first)
        let value = try #require(edited.range(of: #""value":[0-9.]+"#, options: .regularExpression))
        let gone = try #require(heartRates.dropFirst().first)
        let goneId = try #require(gone.range(of: #""uuid":"[^"]+""#, options: .regularExpression))
        func importAndMigrate(_ lines: String) throws {
            try lines.write(toFile: directory + "/edit.ndjson", atomically: true, encoding: .utf8)
            let edit = try CommandRunner.run(["import", "edit.ndjson"], in: directory)
            #expect(edit.status == 0, "\(edit.stdout)\(edit.stderr)")
            let again = try CommandRunner.run(["migrate", "--from", "local", "--to", "copy", "--verify", "-q"], in: directory)
            #expect(again.status == 0, "\(again.stdout)\(again.stderr)")
        }
        try importAndMigrate(edited.replacingCharacters(in: value, with: "\"value\":199") + "\n")
        let copy = try String(contentsOfFile: directory + "/copy/heartRate.ndjson", encoding: .utf8)
        let editedId = try #require(edited.range(of: #""uuid":"[^"]+""#, options: .regularExpression))
        let last = copy.split(separator: "\n").last { $0.contains(edited[editedId]) }
        #expect(last?.contains("\"value\":199") == true, "\(last ?? "")")

        try importAndMigrate("{\"deleted\":[" + gone[goneId].dropFirst(7) + "]}\n")
        let id = String(gone[goneId].dropFirst(8).dropLast())
        let deleted = try? String(contentsOfFile: directory + "/copy/_deleted.ndjson", encoding: .utf8)
        #expect(deleted?.contains(id) == true)
    }

    /// A copy of the stores that this process may not write (files 0444 in folders 0555, read by
    /// another user than their owner when the tests run as root): `dump --from` and
    /// `migrate --verify-only` read them as they are — every line the writable originals give, a
    /// sample the ndjson index records as deleted left out — and create nothing. (They failed:
    /// opening a store prepared it for writing.)
    @Test func storesThisProcessMayNotWriteAreReadAsTheyAre() throws {
        let directory = try Self.imported(records: 600)
        defer {
            chmodRecursively(directory + "/ro", file: 0o644, folder: 0o755)
            try? FileManager.default.removeItem(atPath: directory)
        }
        // One heart rate deleted: the lake keeps its line and records the deletion in its index.
        #expect(try CommandRunner.run(["dump", "--from", "local", "--output", "before.ndjson"], in: directory).status == 0)
        let before = try String(contentsOfFile: directory + "/before.ndjson", encoding: .utf8)
        let heartRate = try #require(before.split(separator: "\n").first { $0.contains("\"type\":\"heartRate\"") })
        let uuid = try #require(heartRate.range(of: #""uuid":"[^"]+""#, options: .regularExpression))
        let gone = String(heartRate[uuid].dropFirst(8).dropLast())
        try "{\"deleted\":[\"\(gone)\"]}\n".write(toFile: directory + "/gone.ndjson", atomically: true, encoding: .utf8)
        #expect(try CommandRunner.run(["import", "gone.ndjson", "-q"], in: directory).status == 0)
        for sink in ["local", "lake"] {
            let dump = try CommandRunner.run(["dump", "--from", sink, "--output", "\(sink).ndjson"], in: directory)
            #expect(dump.status == 0, "\(dump.stderr)")
        }
        let lakeDump = try String(contentsOfFile: directory + "/lake.ndjson", encoding: .utf8)
        #expect(lakeDump.contains(gone) && !lakeDump.contains("\"uuid\":\"\(gone)\""))

        try FileManager.default.createDirectory(atPath: directory + "/ro", withIntermediateDirectories: false)
        try FileManager.default.copyItem(atPath: directory + "/local.sqlite", toPath: directory + "/ro/local.sqlite")
        try FileManager.default.copyItem(atPath: directory + "/lake", toPath: directory + "/ro/lake")
        chmodRecursively(directory + "/ro", file: 0o444, folder: 0o555)
        try FileManager.default.createDirectory(atPath: directory + "/out", withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o777])
        try """
            state_directory: ./out/state
            sinks:
              local: { type: sqlite, path: ./ro/local.sqlite }
              lake: { type: ndjson, directory: ./ro/lake }
            """.write(toFile: directory + "/ro.yaml", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: directory + "/ro.yaml")
        let listing = try Self.files(directory + "/ro").keys.sorted() + Self.files(directory + "/ro/lake").keys.sorted()

        for sink in ["local", "lake"] {
            let dump = try CommandRunner.runUnprivileged(["dump", "--from", sink, "--config", "ro.yaml", "--output", "out/\(sink).ndjson"],
                                                         in: directory)
            #expect(dump.status == 0, "\(sink): \(dump.stdout)\(dump.stderr)")
            let original = try String(contentsOfFile: directory + "/\(sink).ndjson", encoding: .utf8)
            let readOnly = try? String(contentsOfFile: directory + "/out/\(sink).ndjson", encoding: .utf8)
            #expect(readOnly == original, "\(sink)")
        }
        let verify = try CommandRunner.runUnprivileged(["migrate", "--from", "local", "--to", "lake", "--verify-only", "--config", "ro.yaml"],
                                                       in: directory)
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        #expect(try Self.files(directory + "/ro").keys.sorted() + Self.files(directory + "/ro/lake").keys.sorted() == listing)

        // A tombstone another program appended to the lake, past what its index covers: read as the
        // writable folder's recovery would index it (the deletion wins), in the copy and in the original.
        let dropped = try #require(before.split(separator: "\n").last { $0.contains("\"type\":\"heartRate\"") })
        let droppedUUID = try #require(dropped.range(of: #""uuid":"[^"]+""#, options: .regularExpression))
        let droppedId = String(dropped[droppedUUID].dropFirst(8).dropLast())
        let foreign = "{\"deleted\":[\"\(droppedId)\"]}\n"
        // And one in a sample file, which the recovery indexes all the same.
        let alsoDropped = try #require(before.split(separator: "\n").filter { $0.contains("\"type\":\"heartRate\"") }.dropLast().last)
        let alsoUUID = try #require(alsoDropped.range(of: #""uuid":"[^"]+""#, options: .regularExpression))
        let alsoDroppedId = String(alsoDropped[alsoUUID].dropFirst(8).dropLast())
        chmodRecursively(directory + "/ro", file: 0o644, folder: 0o755)
        for lake in ["lake", "ro/lake"] {
            for (file, line) in [("_deleted", foreign), ("heartRate", "{\"deleted\":[\"\(alsoDroppedId)\"]}\n")] {
                let handle = try #require(FileHandle(forWritingAtPath: directory + "/\(lake)/\(file).ndjson"))
                try handle.seekToEnd()
                try handle.write(contentsOf: Data(line.utf8))
                try handle.close()
            }
        }
        chmodRecursively(directory + "/ro", file: 0o444, folder: 0o555)
        #expect(try CommandRunner.run(["dump", "--from", "lake", "--output", "lake-foreign.ndjson"], in: directory).status == 0)
        let foreignDump = try CommandRunner.runUnprivileged(["dump", "--from", "lake", "--config", "ro.yaml", "--output", "out/lake-foreign.ndjson"],
                                                            in: directory)
        #expect(foreignDump.status == 0, "\(foreignDump.stderr)")
        let writable = try String(contentsOfFile: directory + "/lake-foreign.ndjson", encoding: .utf8)
        #expect(!writable.contains("\"uuid\":\"\(droppedId)\"") && writable.contains(droppedId))
        #expect(!writable.contains("\"uuid\":\"\(alsoDroppedId)\""))
        #expect((try? String(contentsOfFile: directory + "/out/lake-foreign.ndjson", encoding: .utf8)) == writable)

        // While a writer holds the folder (a daemon running), a reader reads what the index
        // committed, nothing past it, instead of waiting for the writer to stop.
        let lock = open(directory + "/ro/lake/.healthrouter-index.lock", O_RDONLY)
        #expect(lock >= 0 && flock(lock, LOCK_EX | LOCK_NB) == 0)
        let committed = try CommandRunner.runUnprivileged(["dump", "--from", "lake", "--config", "ro.yaml", "--output", "out/lake-committed.ndjson"],
                                                          in: directory)
        _ = close(lock)
        #expect(committed.status == 0, "\(committed.stderr)")
        #expect((try? String(contentsOfFile: directory + "/out/lake-committed.ndjson", encoding: .utf8))
                    == (try? String(contentsOfFile: directory + "/lake.ndjson", encoding: .utf8)))

        // A batch that was being appended when its writer died (in flight): the recovery would cut
        // every byte past what the index covers (the tombstone above too), so a reader leaves them out.
        chmodRecursively(directory + "/ro", file: 0o644, folder: 0o755)
        let unacknowledged = heartRate.replacingOccurrences(of: gone, with: "00000000-0000-4000-8000-0000000000AA") + "\n"
        let heartRates = try #require(FileHandle(forWritingAtPath: directory + "/ro/lake/heartRate.ndjson"))
        try heartRates.seekToEnd()
        try heartRates.write(contentsOf: Data(unacknowledged.utf8))
        try heartRates.close()
        try SQLiteDatabase(path: directory + "/ro/lake/.healthrouter-index.sqlite").execute("UPDATE state SET in_flight = 1")
        chmodRecursively(directory + "/ro", file: 0o444, folder: 0o555)
        let inFlight = try CommandRunner.runUnprivileged(["dump", "--from", "lake", "--config", "ro.yaml", "--output", "out/lake-in-flight.ndjson"],
                                                         in: directory)
        #expect(inFlight.status == 0, "\(inFlight.stderr)")
        let indexed = try String(contentsOfFile: directory + "/lake.ndjson", encoding: .utf8)
        #expect((try? String(contentsOfFile: directory + "/out/lake-in-flight.ndjson", encoding: .utf8)) == indexed)

        // A file it may not write in a folder it may: read without a -shm or -wal file of this user's
        // left beside it (it would lock the store's owner out).
        // A copy of the store, 0444, alone in a folder anyone may write, and a config that reads it.
        func copyIntoSharedFolder(_ folder: String, journalMode: String? = nil) throws {
            try FileManager.default.createDirectory(atPath: directory + "/\(folder)", withIntermediateDirectories: false,
                                                    attributes: [.posixPermissions: 0o777])
            try FileManager.default.copyItem(atPath: directory + "/local.sqlite", toPath: directory + "/\(folder)/local.sqlite")
            if let journalMode {
                try SQLiteDatabase(path: directory + "/\(folder)/local.sqlite").execute("PRAGMA journal_mode=\(journalMode)")
            }
            try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: directory + "/\(folder)/local.sqlite")
            try """
                state_directory: ./out/state
                sinks:
                  local: { type: sqlite, path: ./\(folder)/local.sqlite }
                """.write(toFile: directory + "/\(folder).yaml", atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: directory + "/\(folder).yaml")
        }
        try copyIntoSharedFolder("shared")
        let shared = try CommandRunner.runUnprivileged(["dump", "--from", "local", "--config", "shared.yaml", "--output", "out/shared.ndjson"],
                                                       in: directory)
        #expect(shared.status == 0, "\(shared.stderr)")
        let sharedFiles = try FileManager.default.contentsOfDirectory(atPath: directory + "/shared")
        #expect(sharedFiles == ["local.sqlite"], "\(sharedFiles)")
        let original = try String(contentsOfFile: directory + "/local.ndjson", encoding: .utf8)
        #expect((try? String(contentsOfFile: directory + "/out/shared.ndjson", encoding: .utf8)) == original)

        // A store in a rollback journal (as a bulk load leaves it) is read with SQLite's file locks,
        // which make nothing beside it.
        try copyIntoSharedFolder("rollback", journalMode: "DELETE")
        let rollback = try CommandRunner.runUnprivileged(["dump", "--from", "local", "--config", "rollback.yaml", "--output", "out/rollback.ndjson"],
                                                         in: directory)
        #expect(rollback.status == 0, "\(rollback.stderr)")
        #expect((try? String(contentsOfFile: directory + "/out/rollback.ndjson", encoding: .utf8)) == original)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/rollback") == ["local.sqlite"])

        // A store a newer healthrouter wrote is refused when read only, as when prepared (exit 78).
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: directory + "/shared/local.sqlite")
        try SQLiteDatabase(path: directory + "/shared/local.sqlite").execute("INSERT INTO healthrouter_schema (version) VALUES (99)")
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: directory + "/shared/local.sqlite")
        let newer = try CommandRunner.runUnprivileged(["dump", "--from", "local", "--config", "shared.yaml"], in: directory)
        #expect(newer.status == 78 && newer.stderr.contains("written by a newer healthrouter"), "\(newer.stderr)")

        // A -wal file holding writes without its -shm: reading them would leave a -shm file of the
        // reader's there, so it is refused at once (78), saying what to do, and nothing is created.
        try Data(repeating: 1, count: 100).write(to: URL(fileURLWithPath: directory + "/shared/local.sqlite-wal"))
        let stopped = try CommandRunner.runUnprivileged(["dump", "--from", "local", "--config", "shared.yaml"], in: directory)
        #expect(stopped.status == 78 && stopped.stderr.contains("its -wal file holds writes"), "\(stopped.stderr)")
        #expect(!stopped.stderr.contains("retrying"), "\(stopped.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/shared").sorted() == ["local.sqlite", "local.sqlite-wal"])
    }

    /// Sets the mode of every file under `path` to `file` and of every folder (`path` too) to `folder`.
    /// A state directory and stores this process may not write (a backup copy, another user's):
    /// `status` and a journal `dump` read them as they are; a backfill says the state directory is
    /// not writable (73) before opening anything; one into a read-only sqlite store is refused at
    /// once as misconfigured (78), not retried as if the store were down.
    @Test func aStateDirectoryThisProcessMayNotWriteIsReadAndNotWritten() throws {
        let directory = try Self.imported(records: 300)
        defer {
            chmodRecursively(directory, file: 0o644, folder: 0o755)
            try? FileManager.default.removeItem(atPath: directory)
        }
        let status = try CommandRunner.run(["status"], in: directory)
        let journalDump = try CommandRunner.run(["dump", "--output", "journal.ndjson"], in: directory)
        #expect(journalDump.status == 0, "\(journalDump.stderr)")
        let original = try String(contentsOfFile: directory + "/journal.ndjson", encoding: .utf8)
        try FileManager.default.createDirectory(atPath: directory + "/out", withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o777])
        chmodRecursively(directory + "/state", file: 0o444, folder: 0o555)
        chmodRecursively(directory + "/local.sqlite", file: 0o444, folder: 0o555)
        // The ndjson sink made its folder 0700 (health data): its owner lets the other user read it.
        chmodRecursively(directory + "/lake", file: 0o444, folder: 0o555)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: directory)
        let listing = try Self.files(directory + "/state").keys.sorted()

        let readOnlyStatus = try CommandRunner.runUnprivileged(["status"], in: directory)
        #expect(readOnlyStatus.stdout.contains("sample ids known"), "\(readOnlyStatus.stdout)\(readOnlyStatus.stderr)")
        #expect(readOnlyStatus.status == status.status)
        let dump = try CommandRunner.runUnprivileged(["dump", "--output", "out/journal.ndjson"], in: directory)
        #expect(dump.status == 0, "\(dump.stderr)")
        #expect((try? String(contentsOfFile: directory + "/out/journal.ndjson", encoding: .utf8)) == original)

        let verify = try CommandRunner.runUnprivileged(["migrate", "--from", "local", "--to", "lake", "--verify-only"], in: directory)
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        let backfill = try CommandRunner.runUnprivileged(["backfill", "local"], in: directory)
        #expect(backfill.status == 73, "\(backfill.stdout)\(backfill.stderr)")
        #expect(backfill.stderr.contains("state directory") && backfill.stderr.contains("not writable"), "\(backfill.stderr)")
        #expect(try Self.files(directory + "/state").keys.sorted() == listing)

        // A writable state directory, the store read-only: refused at once, not retried five times.
        try """
            state_directory: ./out/state
            sinks:
              local: { type: sqlite, path: ./local.sqlite }
            """.write(toFile: directory + "/out/ro.yaml", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: directory + "/out/ro.yaml")
        let started = Date()
        let intoReadOnly = try CommandRunner.runUnprivileged(["backfill", "local", "--from", "export.zip", "--config", "out/ro.yaml", "-q"],
                                                             in: directory)
        #expect(intoReadOnly.status == 78, "\(intoReadOnly.stdout)\(intoReadOnly.stderr)")
        #expect(intoReadOnly.stderr.contains("may not write"), "\(intoReadOnly.stderr)")
        #expect(!intoReadOnly.stderr.contains("retrying"), "\(intoReadOnly.stderr)")
        #expect(Date().timeIntervalSince(started) < 5)

        // The file read-only in a folder this process may write: refused as well, and no -wal or
        // -shm file of this process's is left beside it.
        try FileManager.default.createDirectory(atPath: directory + "/out/store", withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o755])
        CommandRunner.giveToUnprivilegedUser(directory + "/out/store")
        try FileManager.default.copyItem(atPath: directory + "/local.sqlite", toPath: directory + "/out/store/local.sqlite")
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: directory + "/out/store/local.sqlite")
        CommandRunner.giveToUnprivilegedUser(directory + "/out/store/local.sqlite")
        try """
            state_directory: ./out/state
            sinks:
              local: { type: sqlite, path: ./out/store/local.sqlite }
            """.write(toFile: directory + "/out/file.yaml", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: directory + "/out/file.yaml")
        let intoReadOnlyFile = try CommandRunner.runUnprivileged(["backfill", "local", "--from", "export.zip", "--config", "out/file.yaml", "-q"],
                                                                 in: directory)
        #expect(intoReadOnlyFile.status == 78, "\(intoReadOnlyFile.stdout)\(intoReadOnlyFile.stderr)")
        #expect(intoReadOnlyFile.stderr.contains("may not write the file"), "\(intoReadOnlyFile.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/out/store") == ["local.sqlite"])
    }

    /// An export written `exported` (a day) with a day's activity summary of `energy` kcal, a profile
    /// and a record both exports hold alike.
    static func export(exported: String?, energy: Int, birth: String = "1990-01-01") -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <HealthData locale="en_US">
        \(exported.map { " <ExportDate value=\"\($0) 09:00:00 +0100\"/>" } ?? "")
         <Me HKCharacteristicTypeIdentifierDateOfBirth="\(birth)" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale"/>
         <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" startDate="2022-01-04 10:00:00 +0100" endDate="2022-01-04 10:10:00 +0100" value="100"/>
         <ActivitySummary dateComponents="2022-01-05" activeEnergyBurned="\(energy)" activeEnergyBurnedGoal="500" activeEnergyBurnedUnit="kcal" appleExerciseTime="5" appleExerciseTimeGoal="30" appleStandHours="2" appleStandHoursGoal="12"/>
        </HealthData>

        """
    }

    /// Exports imported in any order, or again, end with the newest one's versions (an older export's
    /// other version of a sample and its profile are left out); a journal dump read again, and a
    /// backfill from it or from the older export, change nothing in any store.
    @Test func olderVersionsDoNotComeBackFromOlderExportsOrReplays() throws {
        let directory = makeTemporaryDirectory("versions")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Self.config.write(toFile: directory + "/healthrouter.yaml", atomically: true, encoding: .utf8)
        try Self.export(exported: "2022-01-05", energy: 100).write(toFile: directory + "/older.xml", atomically: true, encoding: .utf8)
        try Self.export(exported: "2022-01-10", energy: 400).write(toFile: directory + "/newer.xml", atomically: true, encoding: .utf8)
        func run(_ arguments: [String], in folder: String = directory) throws -> CommandRunner.Result {
            let result = try CommandRunner.run(arguments + ["-q"], in: folder)
            #expect(result.status == 0, "\(arguments): \(result.stdout)\(result.stderr)")
            return result
        }
        /// The summary's energy and the profile's date in the sqlite store.
        func stored(_ folder: String = directory) throws -> String {
            let samples = try Self.samples(sqlite: folder + "/local.sqlite").values
            var energy = "none"
            if case .record(let record)? = samples.first(where: { $0.kind == .activitySummary })?.detail {
                energy = record[attribute: "activeEnergyBurned"] ?? "none"
            }
            let profiles = samples.filter { $0.kind == .profile }.map { TimestampFormatter.iso8601($0.start) }
            return energy + " " + profiles.joined(separator: ",")
        }
        func lakeLines(_ folder: String = directory) throws -> Int {
            try Self.files(folder + "/lake").filter { $0.key.hasSuffix(".ndjson") }.values
                .reduce(0) { $0 + $1.filter { $0 == 0x0A }.count }
        }
        // Newer first, then older: the older export adds nothing and changes nothing.
        _ = try run(["import", "newer.xml"])
        let older = try run(["import", "older.xml"])
        #expect(older.stdout.contains("2 of them earlier versions of samples the journal holds in a later one"), "\(older.stdout)")
        #expect(try stored() == "400 2022-01-10T09:00:00+01:00")
        // Both again, in either order: nothing new.
        for file in ["older.xml", "newer.xml", "older.xml"] {
            #expect(try run(["import", file]).stdout.contains("nothing new"))
        }
        #expect(try stored() == "400 2022-01-10T09:00:00+01:00")
        // An export without a date is older than any dated one, for every sample alike.
        try Self.export(exported: nil, energy: 999).write(toFile: directory + "/undated.xml", atomically: true, encoding: .utf8)
        for _ in 0..<2 {
            let undated = try run(["import", "undated.xml", "newer.xml"])
            #expect(undated.stdout.contains("earlier versions") && !undated.stdout.contains("changed"), "\(undated.stdout)")
        }
        #expect(try stored() == "400 2022-01-10T09:00:00+01:00")

        // Older first, then newer: the newer's versions win; the older again takes nothing back.
        let second = makeTemporaryDirectory("versions-2")
        defer { try? FileManager.default.removeItem(atPath: second) }
        for file in ["healthrouter.yaml", "older.xml", "newer.xml"] {
            try FileManager.default.copyItem(atPath: directory + "/" + file, toPath: second + "/" + file)
        }
        _ = try run(["import", "older.xml"], in: second)
        #expect(try run(["import", "newer.xml"], in: second).stdout.contains("changed"))
        #expect(try run(["import", "older.xml"], in: second).stdout.contains("nothing new"))
        #expect(try stored(second) == "400 2022-01-10T09:00:00+01:00")
        // Its journal lists both versions: read again, into itself or twice into a new state, nothing new.
        _ = try run(["dump", "--output", "journal.ndjson"], in: second)
        #expect(try run(["import", "journal.ndjson"], in: second).stdout.contains("nothing new"))
        let replay = makeTemporaryDirectory("versions-3")
        defer { try? FileManager.default.removeItem(atPath: replay) }
        try Self.config.write(toFile: replay + "/healthrouter.yaml", atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(atPath: second + "/journal.ndjson", toPath: replay + "/journal.ndjson")
        _ = try run(["import", "journal.ndjson"], in: replay)
        #expect(try stored(replay) == "400 2022-01-10T09:00:00+01:00")
        // A journal restored from its dump knows its newest export (the profile's date): an older
        // export imported after it changes nothing.
        try FileManager.default.copyItem(atPath: directory + "/older.xml", toPath: replay + "/older.xml")
        #expect(try run(["import", "older.xml"], in: replay).stdout.contains("nothing new"))
        #expect(try stored(replay) == "400 2022-01-10T09:00:00+01:00")
        let lines = try lakeLines(replay)
        #expect(try run(["import", "journal.ndjson"], in: replay).stdout.contains("nothing new"))
        #expect(try lakeLines(replay) == lines)
        // Backfills from the dump and from the older export write no earlier version back.
        let before = try lakeLines(second)
        for _ in 0..<2 {
            let backfill = try run(["backfill", "lake", "--from", "journal.ndjson"], in: second)
            #expect(backfill.stdout.contains("an earlier version of a sample the journal holds in a later one"), "\(backfill.stdout)")
        }
        #expect(try lakeLines(second) == before)
        _ = try run(["backfill", "local", "--from", "older.xml"], in: second)
        #expect(try stored(second) == "400 2022-01-10T09:00:00+01:00")
        #expect(try run(["migrate", "--from", "local", "--to", "lake", "--verify-only"], in: second).status == 0)

        // A profile that changed (another date of birth: another content id) replaces the one before
        // in every store, the ndjson folder's read-back too: one profile a user.
        try Self.export(exported: "2022-01-12", energy: 400, birth: "1991-02-02")
            .write(toFile: second + "/changed.xml", atomically: true, encoding: .utf8)
        let changed = try run(["import", "changed.xml"], in: second)
        #expect(changed.stdout.contains("profile     replaced"), "\(changed.stdout)")
        for sink in ["local", "lake"] {
            let profiles = try run(["dump", "--from", sink], in: second).stdout.split(separator: "\n").filter { $0.contains(#""type":"Me""#) }
            #expect(profiles.count == 1 && profiles.first?.contains("1991-02-02") == true, "\(sink): \(profiles)")
        }
        #expect(try run(["migrate", "--from", "local", "--to", "lake", "--verify-only"], in: second).status == 0)

        // A newer export cut short (a copy that stopped after its date) brought none of its versions:
        // an export between the two is not older than it.
        let cut = makeTemporaryDirectory("versions-cut")
        defer { try? FileManager.default.removeItem(atPath: cut) }
        try Self.config.write(toFile: cut + "/healthrouter.yaml", atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(atPath: directory + "/older.xml", toPath: cut + "/older.xml")
        let newer = Self.export(exported: "2022-01-10", energy: 400)
        try String(newer[..<newer.range(of: "<Me ")!.lowerBound]).write(toFile: cut + "/cut.xml", atomically: true, encoding: .utf8)
        try Self.export(exported: "2022-01-07", energy: 250).write(toFile: cut + "/between.xml", atomically: true, encoding: .utf8)
        _ = try run(["import", "older.xml"], in: cut)
        #expect(try CommandRunner.run(["import", "cut.xml", "-q"], in: cut).status == 65)
        #expect(try run(["import", "between.xml"], in: cut).stdout.contains("changed"))
        #expect(try stored(cut) == "250 2022-01-07T09:00:00+01:00")

        // Each user's exports are ordered apart: bob's export, older than alice's newer one, is his
        // newest, and his summary of the day is taken (another id: the day's and his).
        try (Self.config + "\nsources:\n  bob: { type: apple_health_export, path: ./older.xml, user_id: bob }\n")
            .write(toFile: directory + "/bob.yaml", atomically: true, encoding: .utf8)
        let bob = try run(["import", "--config", "bob.yaml"])
        #expect(!bob.stdout.contains("earlier versions"), "\(bob.stdout)")
        let summaries = try Self.samples(sqlite: directory + "/local.sqlite").values.filter { $0.kind == .activitySummary }
        #expect(summaries.map { $0.userId ?? "-" }.sorted() == ["-", "bob"], "\(summaries.map(\.userId))")
    }

    /// A profile that changes back and forth (A → B → A → B) leaves one profile in every store; a
    /// user whose profile has the content another user's has (equal ids: a profile's id has no user
    /// in it) keeps it when the other user's changes.
    @Test func aChangedProfileReplacesTheOneBeforeOfItsUserOnly() throws {
        let directory = makeTemporaryDirectory("profiles")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try (Self.config + """

            sources:
              xavier: { type: apple_health_export, path: ./x.xml, user_id: xavier }
              yvonne: { type: apple_health_export, path: ./y.xml, user_id: yvonne }
            """).write(toFile: directory + "/healthrouter.yaml", atomically: true, encoding: .utf8)
        func profiles(_ sink: String) throws -> [String] {
            let dump = try CommandRunner.run(["dump", "--from", sink], in: directory)
            return dump.stdout.split(separator: "\n").filter { $0.contains(#""type":"Me""#) }.map { line in
                (line.contains("1991-02-02") ? "1991" : "1990") + (line.contains(#""userId":"yvonne""#) ? " yvonne" : " xavier")
            }.sorted()
        }
        func importX(_ day: String, _ birth: String) throws {
            try Self.export(exported: day, energy: 100, birth: birth).write(toFile: directory + "/x.xml", atomically: true, encoding: .utf8)
            // Both sources again (a file on the command line would have no user: two export sources)
            let imported = try CommandRunner.run(["import", "-q"], in: directory)
            #expect(imported.status == 0, "\(imported.stderr)")
        }
        try Self.export(exported: "2022-01-05", energy: 100).write(toFile: directory + "/x.xml", atomically: true, encoding: .utf8)
        try Self.export(exported: "2022-01-06", energy: 100).write(toFile: directory + "/y.xml", atomically: true, encoding: .utf8)
        #expect(try CommandRunner.run(["import", "-q"], in: directory).status == 0)
        // Xavier's changes: Yvonne's profile, of the content his had, stays.
        try importX("2022-01-10", "1991-02-02")
        for sink in ["local", "lake"] {
            let held = try profiles(sink)
            #expect(held == ["1990 yvonne", "1991 xavier"], "\(sink): \(held)")
        }
        // A single user's profile back and forth: one profile, however often it changed.
        let single = makeTemporaryDirectory("profile")
        defer { try? FileManager.default.removeItem(atPath: single) }
        try Self.config.write(toFile: single + "/healthrouter.yaml", atomically: true, encoding: .utf8)
        for (day, birth) in [("2022-01-05", "1990-01-01"), ("2022-01-10", "1991-02-02"), ("2022-01-15", "1990-01-01"),
                             ("2022-01-20", "1991-02-02")] {
            try Self.export(exported: day, energy: 100, birth: birth).write(toFile: single + "/e.xml", atomically: true, encoding: .utf8)
            #expect(try CommandRunner.run(["import", "e.xml", "-q"], in: single).status == 0)
        }
        let lake = try CommandRunner.run(["dump", "--from", "lake"], in: single).stdout
        let mine = lake.split(separator: "\n").filter { $0.contains(#""type":"Me""#) }
        #expect(mine.count == 1 && mine.first?.contains("1991-02-02") == true, "\(mine)")
        #expect(try CommandRunner.run(["migrate", "--from", "local", "--to", "lake", "--verify-only", "-q"], in: single).status == 0)
    }

    func chmodRecursively(_ path: String, file: Int, folder: Int) {
        let manager = FileManager.default
        var isFolder: ObjCBool = false
        guard manager.fileExists(atPath: path, isDirectory: &isFolder) else { return }
        if isFolder.boolValue {
            try? manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
            for name in (try? manager.contentsOfDirectory(atPath: path)) ?? [] {
                chmodRecursively(path + "/" + name, file: file, folder: folder)
            }
        }
        try? manager.setAttributes([.posixPermissions: isFolder.boolValue ? folder : file], ofItemAtPath: path)
    }

    /// `dump --output` into a named pipe writes into the pipe (it replaced the pipe with a file,
    /// and the reader waited forever); through a symbolic link it replaces the file the link
    /// points at and keeps the link.
    @Test func dumpIntoAPipeOrThroughALinkWritesWhereTheyLead() throws {
        let directory = try Self.imported(records: 300)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try CommandRunner.run(["dump", "--from", "local", "--output", "plain.ndjson"], in: directory).status == 0)
        let expected = try String(contentsOfFile: directory + "/plain.ndjson", encoding: .utf8)
        #expect(expected.count > 1_000)

        #expect(mkfifo(directory + "/pipe", 0o600) == 0)
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/bin/sh")
        reader.arguments = ["-c", "cat pipe > piped.ndjson"]
        reader.currentDirectoryURL = URL(fileURLWithPath: directory)
        try reader.run()
        let piped = try CommandRunner.run(["dump", "--from", "local", "--output", "pipe"], in: directory)
        reader.waitUntilExit()
        #expect(piped.status == 0, "\(piped.stderr)")
        var status = stat()
        #expect(stat(directory + "/pipe", &status) == 0 && status.st_mode & S_IFMT == S_IFIFO)
        #expect(try String(contentsOfFile: directory + "/piped.ndjson", encoding: .utf8) == expected)

        try "old".write(toFile: directory + "/target.ndjson", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: directory + "/link.ndjson", withDestinationPath: "target.ndjson")
        #expect(try CommandRunner.run(["dump", "--from", "local", "--output", "link.ndjson"], in: directory).status == 0)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: directory + "/link.ndjson") == "target.ndjson")
        #expect(try String(contentsOfFile: directory + "/target.ndjson", encoding: .utf8) == expected)

        // A device that refuses the writes: the dump's error names it and says why.
        let full = try CommandRunner.run(["dump", "--from", "local", "--output", "/dev/full"], in: directory)
        #expect(full.status == 73, "\(full.stderr)")
        #expect(try CommandRunner.exitCodesInHelp("dump").contains(73))
        #expect(full.stderr.contains("cannot write the dump to /dev/full: No space left on device"), "\(full.stderr)")
        #expect(!full.stderr.contains("NSCocoaErrorDomain"), "\(full.stderr)")
    }

    /// `dump --output` a folder (or `.`) is refused with 64 and leaves the folder as it was (it was
    /// deleted, recursively, and replaced by the dump).
    @Test func dumpIntoAFolderIsRefusedAndDeletesNothing() throws {
        let directory = try Self.imported(records: 300)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory + "/victim/sub", withIntermediateDirectories: true)
        try "x".write(toFile: directory + "/victim/sub/n.txt", atomically: true, encoding: .utf8)
        for target in ["victim", "victim/", "."] {
            let result = try CommandRunner.run(["dump", "--from", "local", "--output", target], in: directory)
            #expect(result.status == 64, "\(target): \(result.stderr)")
            #expect(result.stderr.contains("is a folder") && result.stderr.contains("dump.ndjson"), "\(result.stderr)")
            #expect(try CommandRunner.exitCodesInHelp("dump").contains(result.status))
        }
        #expect(try String(contentsOfFile: directory + "/victim/sub/n.txt", encoding: .utf8) == "x")
        #expect(FileManager.default.fileExists(atPath: directory + "/local.sqlite"))
        #expect(FileManager.default.fileExists(atPath: directory + "/state/journal.sqlite"))
        let dumped = try CommandRunner.run(["dump", "--output", "victim/dump.ndjson"], in: directory)
        #expect(dumped.status == 0, "\(dumped.stderr)")
        #expect(try String(contentsOfFile: directory + "/victim/sub/n.txt", encoding: .utf8) == "x")
    }

    /// An imported export (`imported(records: 300)`) and then a tombstone for its first sample by
    /// id: the directory, the samples the store held before, and the id deleted.
    static func importedThenOneDeleted() throws -> (directory: String, stored: [String: Sample], gone: String) {
        let directory = try imported(records: 300)
        let stored = try samples(sqlite: directory + "/local.sqlite")
        let gone = try #require(stored.keys.sorted().first)
        try "{\"deleted\":[\"\(gone)\"]}\n".write(toFile: directory + "/delete.ndjson", atomically: true, encoding: .utf8)
        #expect(try CommandRunner.run(["import", "delete.ndjson", "-q"], in: directory).status == 0)
        return (directory, stored, gone)
    }

    /// `backfill --from` the export again after a sample was deleted: the deleted sample is not
    /// written back (an import of the same file adds nothing for it either), and the summary says so.
    @Test func backfillFromAFileLeavesDeletedSamplesDeleted() throws {
        let (directory, stored, gone) = try Self.importedThenOneDeleted()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try CommandRunner.run(["backfill", "back", "--from", "export.zip"], in: directory)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect((result.stdout + result.stderr).contains("deleted since"), "\(result.stdout)\(result.stderr)")
        let back = try Self.samples(sqlite: directory + "/back.sqlite")
        #expect(back[gone] == nil)
        #expect(back.count == stored.count - 1)
    }

    /// The id a phone pushed a reading with (a Pulso sample's HealthKit UUID), and an export
    /// holding that reading and another, in a directory with the config, the push imported.
    static func pushedThenExported() throws -> (directory: String, pushed: String) {
        let directory = makeTemporaryDirectory("pushed")
        try config.write(toFile: directory + "/healthrouter.yaml", atomically: true, encoding: .utf8)
        let pushed = "7A000000-0000-4000-8000-000000000001"
        try """
            {"uuid":"\(pushed)","type":"stepCount","start":"2024-02-04T10:00:00+01:00","end":"2024-02-04T10:10:00+01:00",\
            "value":100,"unit":"count","source":"Phone","identifier":"HKQuantityTypeIdentifierStepCount","kind":"quantity"}

            """.write(toFile: directory + "/pushed.ndjson", atomically: true, encoding: .utf8)
        try """
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="en_US">
             <ExportDate value="2024-03-01 09:00:00 +0100"/>
             <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" startDate="2024-02-04 10:00:00 +0100" endDate="2024-02-04 10:10:00 +0100" value="100"/>
             <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" startDate="2024-02-04 11:00:00 +0100" endDate="2024-02-04 11:10:00 +0100" value="200"/>
            </HealthData>

            """.write(toFile: directory + "/export.xml", atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(["import", "pushed.ndjson", "-q"], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        return (directory, pushed)
    }

    /// `backfill --from` an export holding a reading the journal holds under a push's own id: the
    /// sink gets it once, under the pushed id, as `import` of the export keeps it (an alias, no new
    /// row), where it was written under the export's fingerprint id too, and a new sink held every
    /// pushed reading twice. `--types` still narrows it, and the summary says how many.
    @Test func backfillFromAnExportWritesAPushedReadingUnderThePushedId() throws {
        let (directory, pushed) = try Self.pushedThenExported()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let narrowed = try CommandRunner.run(["backfill", "back", "--from", "export.xml", "--types", "heartRate"], in: directory)
        #expect(narrowed.status == 0, "\(narrowed.stdout)\(narrowed.stderr)")
        #expect(narrowed.stdout.contains("0 samples and 0 tombstones delivered"), "\(narrowed.stdout)")
        #expect(!narrowed.stdout.contains("of them under the id"), "\(narrowed.stdout)")
        #expect(try Self.samples(sqlite: directory + "/back.sqlite").isEmpty)

        let result = try CommandRunner.run(["backfill", "back", "--from", "export.xml"], in: directory)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("2 samples and 0 tombstones delivered"), "\(result.stdout)")
        #expect(result.stdout.contains("  1 of them under the id the journal holds the same reading by"), "\(result.stdout)")
        let back = try Self.samples(sqlite: directory + "/back.sqlite")
        #expect(back.count == 2, "\(back.keys.sorted())")
        #expect(back[pushed]?.value == 100)
        // The ids the import gives: the store the journal delivers to holds the same rows.
        let imported = try CommandRunner.run(["import", "export.xml", "-q"], in: directory)
        #expect(imported.status == 0, "\(imported.stderr)")
        let local = try Self.samples(sqlite: directory + "/local.sqlite")
        #expect(local.count == 2)
        #expect(Set(back.keys) == Set(local.keys))
        #expect(back == local)
    }

    /// The other way round: a replay bringing its own id for a reading the journal holds under an
    /// export's fingerprint id is written under that one; and a pushed reading deleted since is
    /// not written back under the export's id (it was, the tombstone naming only the pushed one).
    @Test func backfillFromAFileWritesReadingsUnderTheJournalsIdsAndLeavesTheirDeletionsDeleted() throws {
        let (directory, pushed) = try Self.pushedThenExported()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "{\"deleted\":[\"\(pushed)\"]}\n".write(toFile: directory + "/delete.ndjson", atomically: true, encoding: .utf8)
        #expect(try CommandRunner.run(["import", "delete.ndjson", "-q"], in: directory).status == 0)
        let result = try CommandRunner.run(["backfill", "back", "--from", "export.xml"], in: directory)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("skipped 1: \(DirectDeliveryOutput.deletedReason)"), "\(result.stdout)")
        let back = try Self.samples(sqlite: directory + "/back.sqlite")
        #expect(back.count == 1, "\(back.keys.sorted())")
        #expect(back.values.allSatisfy { $0.value == 200 })

        let other = makeTemporaryDirectory("exported")
        defer { try? FileManager.default.removeItem(atPath: other) }
        try Self.config.write(toFile: other + "/healthrouter.yaml", atomically: true, encoding: .utf8)
        for file in ["export.xml", "pushed.ndjson"] { try FileManager.default.copyItem(atPath: directory + "/" + file, toPath: other + "/" + file) }
        #expect(try CommandRunner.run(["import", "export.xml", "-q"], in: other).status == 0)
        let replay = try CommandRunner.run(["backfill", "back", "--from", "pushed.ndjson"], in: other)
        #expect(replay.status == 0, "\(replay.stdout)\(replay.stderr)")
        let local = try Self.samples(sqlite: other + "/local.sqlite")
        let replayed = try Self.samples(sqlite: other + "/back.sqlite")
        #expect(replayed.count == 1)
        #expect(replayed[pushed] == nil)
        #expect(replayed.keys.first.map { local[$0] } == replayed.values.first)
    }

    /// `backfill` from the journal: a sample a later tombstone deletes is left out, not written
    /// back until the tombstone comes (a kill between the two would leave it in the store), and a
    /// second backfill is the same: nothing written for it either time.
    @Test func backfillFromTheJournalLeavesSamplesDeletedLaterOut() throws {
        let (directory, stored, gone) = try Self.importedThenOneDeleted()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for run in 1...2 {
            let result = try CommandRunner.run(["backfill", "local", "--restart"], in: directory)
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            #expect(result.stdout.contains("skipped 1: \(DirectDeliveryOutput.deletedReason)"), "run \(run): \(result.stdout)")
            #expect(result.stdout.contains("\(NumberText.grouped(stored.count - 1)) samples and 1 tombstone delivered"),
                    "run \(run): \(result.stdout)")
            let local = try Self.samples(sqlite: directory + "/local.sqlite")
            #expect(local[gone] == nil)
            #expect(local.count == stored.count - 1)
        }
    }

    @Test func dumpThenImportOfTheDumpReproducesTheStore() throws {
        let directory = try Self.imported()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let dump = try CommandRunner.run(["dump", "--from", "local", "--output", "all.ndjson"], in: directory)
        #expect(dump.status == 0, "\(dump.stderr)")
        let other = directory + "/other"
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        try """
            state_directory: ./state
            sinks:
              fresh:
                type: sqlite
                path: ./fresh.sqlite
            """.write(toFile: other + "/healthrouter.yaml", atomically: true, encoding: .utf8)
        let imported = try CommandRunner.run(["import", "../all.ndjson", "-q"], in: other)
        #expect(imported.status == 0, "\(imported.stdout)\(imported.stderr)")
        #expect(try Self.samples(sqlite: other + "/fresh.sqlite") == Self.samples(sqlite: directory + "/local.sqlite"))
        // The journal dump has the same samples, filtered by type.
        let sleep = try CommandRunner.run(["dump", "--types", "sleep"], in: directory)
        let lines = sleep.stdout.split(separator: "\n")
        #expect(!lines.isEmpty)
        #expect(lines.allSatisfy { $0.contains("\"type\":\"sleepAnalysis\"") })
    }

    @Test func verifyCatchesARowAlteredByHand() throws {
        let directory = try Self.imported()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let migrated = try CommandRunner.run(["migrate", "--from", "local", "--to", "back", "-q"], in: directory)
        #expect(migrated.status == 0, "\(migrated.stderr)")
        let clean = try CommandRunner.run(["migrate", "--from", "local", "--to", "back", "--verify-only"], in: directory)
        #expect(clean.status == 0, "\(clean.stdout)")
        let database = try SQLiteDatabase(path: directory + "/back.sqlite")
        try database.execute("UPDATE samples SET value = value + 1 WHERE rowid = (SELECT min(rowid) FROM samples WHERE value IS NOT NULL)")
        let altered = try CommandRunner.run(["migrate", "--from", "local", "--to", "back", "--verify-only"], in: directory)
        #expect(altered.status == 65)
        #expect(try CommandRunner.exitCodesInHelp("migrate").contains(altered.status))
        #expect(altered.stdout.contains("DIFFERENT"))
        #expect(altered.stdout.contains("1 type(s) differ"))
    }

    /// Starts `migrate --from local --to back` 50 samples a batch and kills it (-9) once its resume
    /// cursor is past `position`; returns the cursor file's path.
    static func killMigration(in directory: String, past position: Int64 = 0) throws -> String {
        let process = try CommandRunner.start(["migrate", "--from", "local", "--to", "back", "--batch-size", "50", "-q"],
                                              in: directory)
        let cursorFile = directory + "/state/runs/migrate-local-to-back.cursor"
        func reached() -> Bool {
            guard let text = try? String(contentsOfFile: cursorFile, encoding: .utf8),
                  let saved = text.split(separator: "\n").first.flatMap({ Int64($0) }) else { return false }
            return saved > position
        }
        let deadline = Date().addingTimeInterval(20)
        while !reached(), process.isRunning, Date() < deadline { usleep(2_000) }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal, "the migration finished before it could be killed")
        return cursorFile
    }

    @Test func killedMigrationResumesToTheIdenticalResult() throws {
        let directory = try Self.imported(records: 6_000)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cursorFile = try Self.killMigration(in: directory)
        let resumed = try CommandRunner.run(["migrate", "--from", "local", "--to", "back", "--verify", "-q"], in: directory)
        #expect(resumed.status == 0, "\(resumed.stdout)\(resumed.stderr)")
        #expect(resumed.stderr.contains("resuming"))
        #expect(!FileManager.default.fileExists(atPath: cursorFile))
        #expect(try Self.samples(sqlite: directory + "/back.sqlite") == Self.samples(sqlite: directory + "/local.sqlite"))
    }

    /// A target deleted after the migration into it was interrupted ("start clean") is made
    /// anew, and holds nothing of what the cursor says was written: the run starts over instead
    /// of resuming past it.
    @Test func aMigrationWhoseTargetWasDeletedStartsOver() throws {
        let directory = try Self.imported(records: 6_000)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cursorFile = try Self.killMigration(in: directory, past: 500)
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: directory + "/back.sqlite" + suffix) }
        let resumed = try CommandRunner.run(["migrate", "--from", "local", "--to", "back", "--verify", "-q"], in: directory)
        #expect(resumed.status == 0, "\(resumed.stdout)\(resumed.stderr)")
        #expect(resumed.stderr.contains("'back' was created anew since the interrupted migration local → back: starting over"),
                "\(resumed.stderr)")
        #expect(!resumed.stderr.contains("resuming"))
        #expect(!FileManager.default.fileExists(atPath: cursorFile))
        #expect(try Self.samples(sqlite: directory + "/back.sqlite") == Self.samples(sqlite: directory + "/local.sqlite"))
    }

    /// Rows deleted from the source, before where an interrupted migration stopped, shift what
    /// comes after: resuming at the same position would pass over samples never copied. The
    /// resumed run sees that the source changed and starts over.
    @Test func aMigrationWhoseSourceChangedBeforeItsPositionStartsOver() throws {
        let directory = try Self.imported(records: 6_000)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cursorFile = try Self.killMigration(in: directory, past: 500)
        // The first 400 items the source gives back go (at most one batch after the cursor can have been written).
        let source = SQLiteSink(configuration: .init(path: directory + "/local.sqlite"), context: SinkFixtures.context(TestScratch.path))
        _ = try source.prepare()
        var first: [String] = []
        try source.readBack { item in
            if case .sample(let sample) = item, first.count < 400 { first.append(sample.id) }
        }
        source.close()
        let database = try SQLiteDatabase(path: directory + "/local.sqlite")
        let ids = first.map { "'\($0.replacingOccurrences(of: "'", with: "''"))'" }.joined(separator: ",")
        var deleted = 0
        for table in ["samples", "sleep_stages", "workouts", "correlations", "activity_summaries", "other_records"] {
            try database.execute("DELETE FROM \(table) WHERE id IN (\(ids))")
            deleted += Int(database.changes)
        }
        #expect(deleted == 400)

        let resumed = try CommandRunner.run(["migrate", "--from", "local", "--to", "back", "-q"], in: directory)
        #expect(resumed.status == 0, "\(resumed.stdout)\(resumed.stderr)")
        #expect(resumed.stderr.contains("changed since the interrupted migration"), "\(resumed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cursorFile))
        let left = try Self.samples(sqlite: directory + "/local.sqlite")
        let copied = try Self.samples(sqlite: directory + "/back.sqlite")
        #expect(left.count > 1_000)
        let missing = left.filter { copied[$0.key] != $0.value }.count
        #expect(missing == 0, "\(missing) samples of the source never copied")
    }

    /// A sink that cannot be read back is refused at once, as a wrong option (64), also when its
    /// store is down: it is not tried five times and reported as unreachable (73).
    @Test func aSinkThatCannotBeReadBackIsRefusedBeforeItIsConnected() throws {
        let directory = try Self.imported(records: 200)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = try writeConfig(Self.config.replacingOccurrences(
            of: "sinks:\n", with: "sinks:\n  web: { type: http, url: \"http://127.0.0.1:1\", token: t }\n"), in: directory)
        for command in [["migrate", "--from", "web", "--to", "back"], ["migrate", "--from", "local", "--to", "web", "--verify"],
                        ["dump", "--from", "web"]] {
            let started = Date()
            let result = try CommandRunner.run(command + ["--config", config], in: directory)
            #expect(result.status == 64, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("the sink 'web' (http) cannot be read back"), "\(command): \(result.stderr)")
            #expect(Date().timeIntervalSince(started) < 5, "\(command) tried to connect first")
        }
    }

    @Test func backfillOfOneSinkLeavesTheOthersUntouched() throws {
        let directory = try Self.imported()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let before = try Self.samples(sqlite: directory + "/local.sqlite")
        let database = try SQLiteDatabase(path: directory + "/local.sqlite")
        try database.execute("DELETE FROM samples WHERE rowid IN (SELECT rowid FROM samples LIMIT 25); DELETE FROM workouts")
        #expect(try Self.samples(sqlite: directory + "/local.sqlite").count < before.count)
        let lake = try Self.files(directory + "/lake")
        let cursors = try Self.cursors(directory)

        let result = try CommandRunner.run(["backfill", "local", "-q"], in: directory)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("other sinks and cursors untouched"))
        #expect(try Self.samples(sqlite: directory + "/local.sqlite") == before)
        #expect(try Self.files(directory + "/lake") == lake)
        #expect(try Self.cursors(directory) == cursors)
    }

    @Test func backfillFromAFileWritesThatSinkAlone() throws {
        let directory = try Self.imported()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let dump = try CommandRunner.run(["dump", "--from", "local", "--output", "all.ndjson"], in: directory)
        #expect(dump.status == 0, "\(dump.stderr)")
        let lake = try Self.files(directory + "/lake")
        let local = try Data(contentsOf: URL(fileURLWithPath: directory + "/local.sqlite"))
        let cursors = try Self.cursors(directory)
        let result = try CommandRunner.run(["backfill", "back", "--from", "all.ndjson", "--types", "heartRate,sleep", "-q"],
                                           in: directory)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let expected = try Self.samples(sqlite: directory + "/local.sqlite").filter {
            ["HKQuantityTypeIdentifierHeartRate", "HKCategoryTypeIdentifierSleepAnalysis"].contains($0.value.type)
        }
        #expect(!expected.isEmpty)
        #expect(try Self.samples(sqlite: directory + "/back.sqlite") == expected)
        #expect(try Self.files(directory + "/lake") == lake)
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory + "/local.sqlite")) == local)
        #expect(try Self.cursors(directory) == cursors)
    }

    /// A --from file that is plainly not an input fails before the sink is opened: its store is
    /// not created.
    @Test func backfillFromAFileThatIsNoInputLeavesTheSinkAlone() throws {
        let directory = try Self.imported()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = FileManager.default.createFile(atPath: directory + "/pic.png", contents: Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A]))
        try "state_directory: ./state\nsinks:\n  fresh: { type: sqlite, path: ./fresh.sqlite }\n"
            .write(toFile: directory + "/fresh.yaml", atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(["backfill", "fresh", "--from", "pic.png", "--config", "fresh.yaml"], in: directory)
        #expect(result.status == 65, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("pic.png: this is not an Apple Health export"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/fresh.sqlite"))
    }

    @Test func backfillFromAnExportWritesWhatItsImportWrote() throws {
        // The export's records reach the sink straight from the parser (no journal), which leaves
        // their ids for the output to fill in.
        let directory = try Self.imported()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try CommandRunner.run(["backfill", "back", "--from", "export.zip", "--types", "*", "-q"], in: directory)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let imported = try Self.samples(sqlite: directory + "/local.sqlite")
        #expect(imported.count > 1_000)
        #expect(try Self.samples(sqlite: directory + "/back.sqlite") == imported)
    }

    @Test func killedBackfillResumes() throws {
        let directory = try Self.imported(records: 6_000)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let before = try Self.samples(sqlite: directory + "/local.sqlite")
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: directory + "/local.sqlite" + suffix) }
        #expect(try Self.samples(sqlite: directory + "/local.sqlite").isEmpty)
        let process = try CommandRunner.start(["backfill", "local", "--batch-size", "50", "-q"], in: directory)
        let cursorFile = directory + "/state/runs/backfill-local.cursor"
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: cursorFile), process.isRunning, Date() < deadline {
            usleep(2_000)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal, "the backfill finished before it could be killed")
        let resumed = try CommandRunner.run(["backfill", "local", "-q"], in: directory)
        #expect(resumed.status == 0, "\(resumed.stdout)\(resumed.stderr)")
        #expect(resumed.stderr.contains("resuming"))
        #expect(try Self.samples(sqlite: directory + "/local.sqlite") == before)
        // `back` is routed nothing but tombstones: its backfill writes what its routes select.
        let unrouted = try CommandRunner.run(["backfill", "back", "-q"], in: directory)
        #expect(unrouted.status == 0)
        #expect(try Self.samples(sqlite: directory + "/back.sqlite").isEmpty)
        // … and says what it passed over, and why.
        #expect(unrouted.stdout.contains("0 samples and"), "\(unrouted.stdout)")
        #expect(unrouted.stdout.contains("samples the routes do not send to 'back'"), "\(unrouted.stdout)")
    }

    /// A directory holding only the config: no journal, no store.
    static func empty() throws -> String {
        let directory = makeTemporaryDirectory("migrate")
        try config.write(toFile: directory + "/healthrouter.yaml", atomically: true, encoding: .utf8)
        return directory
    }

    @Test func readingAStoreThatDoesNotExistFailsAndCreatesNothing() throws {
        let directory = try Self.empty()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let runs: [(arguments: [String], missing: String)] = [
            (["migrate", "--from", "local", "--to", "lake"], directory + "/local.sqlite"),
            (["migrate", "--from", "lake", "--to", "local"], directory + "/lake"),
            (["dump", "--from", "local", "--output", "all.ndjson"], directory + "/local.sqlite"),
        ]
        for run in runs {
            let result = try CommandRunner.run(run.arguments, in: directory)
            #expect(result.status == 66, "\(run.arguments): \(result.stdout)\(result.stderr)")
            #expect(try CommandRunner.exitCodesInHelp(run.arguments[0]).contains(result.status))
            #expect(result.stderr.contains("has no store to read: \(run.missing) does not exist"), "\(result.stderr)")
            #expect(result.stderr.contains("hint: check sinks.\(run.arguments[2]) in healthrouter.yaml"))
            #expect(!result.stdout.contains("migrated"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["healthrouter.yaml"])
        }
    }

    /// A file at the store's path without the sink's tables (empty, or another program's
    /// database) holds no store: reading it fails as a missing store does, and the file is left
    /// as it was (the tables were added to it).
    @Test func readingAFileWithoutTheSinksTablesFailsAndLeavesItAsItWas() throws {
        let directory = try Self.empty()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let other = try SQLiteDatabase(path: directory + "/local.sqlite")
        try other.execute("CREATE TABLE foo(x); INSERT INTO foo VALUES (1)")
        for arguments in [["dump", "--from", "local", "--output", "all.ndjson"], ["migrate", "--from", "local", "--to", "lake"]] {
            let result = try CommandRunner.run(arguments, in: directory)
            #expect(result.status == 66, "\(arguments): \(result.stdout)\(result.stderr)")
            #expect(result.stderr.contains("has no store to read: \(directory)/local.sqlite holds none of its tables"),
                    "\(result.stderr)")
            #expect(try other.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'table'") == 1)
        }
    }

    /// A backfill from the journal before there is one exits 66 and leaves no empty state
    /// directory behind (it made ./state first).
    @Test func aBackfillWithoutAJournalCreatesNothing() throws {
        let directory = try Self.empty()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try CommandRunner.run(["backfill", "local"], in: directory)
        #expect(result.status == 66, "\(result.stderr)")
        #expect(result.stderr.contains("there is no state directory \(directory)/"), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["healthrouter.yaml"])
    }

    /// Two sinks of one store (the same database and schema) are one store: a migration between
    /// them is refused as one into itself, before anything is touched. Two sinks of one file or
    /// folder (the same file by two paths) are refused by the config itself, for every command.
    @Test func aMigrationIntoTheStoreItReadsIsRefused() throws {
        let directory = try Self.imported(records: 100)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let before = try Self.files(directory)
        for (extra, to, shown) in [("  alias:\n    type: sqlite\n    path: ./state/../local.sqlite\n", "alias", "./state/../local.sqlite"),
                                   ("  lake2:\n    type: ndjson\n    directory: lake/\n", "lake2", "lake/")] {
            let config = Self.config.replacingOccurrences(of: "\nroutes:", with: "\n" + extra + "routes:")
            try config.write(toFile: directory + "/healthrouter.yaml", atomically: true, encoding: .utf8)
            let from = to == "alias" ? "local" : "lake"
            let result = try CommandRunner.run(["migrate", "--from", from, "--to", to], in: directory)
            #expect(result.status == 78, "\(from) → \(to): \(result.stderr)")
            #expect(result.stderr.contains("\(shown) is also the store of sink '\(from)': two sinks cannot share a"), "\(result.stderr)")
        }
        let extra = """
              pg1: { type: postgres, url: "postgres://u:secret@db/x", user_id: me }
              pg2: { type: postgres, url: "postgres://u:secret@db/x", user_id: me }
            routes:
            """
        let config = Self.config.replacingOccurrences(of: "\nroutes:", with: "\n" + extra)
        try config.write(toFile: directory + "/healthrouter.yaml", atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(["migrate", "--from", "pg1", "--to", "pg2"], in: directory)
        #expect(result.status == 64, "pg1 → pg2: \(result.stderr)")
        #expect(result.stderr.contains("--from 'pg1' and --to 'pg2' are one store"), "\(result.stderr)")
        #expect(result.stderr.contains("one database url, schema public"), "\(result.stderr)")
        #expect(!result.stderr.contains("secret"))
        try Self.config.write(toFile: directory + "/healthrouter.yaml", atomically: true, encoding: .utf8)
        #expect(try Self.files(directory) == before)
    }

    /// `--verify` and `--verify-only` ask for two different runs: both at once is a usage error,
    /// before any store is opened.
    @Test func verifyAndVerifyOnlyTogetherAreRefused() throws {
        let directory = try Self.imported(records: 100)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let before = try Self.files(directory)
        let result = try CommandRunner.run(["migrate", "--from", "local", "--to", "lake", "--verify", "--verify-only"],
                                           in: directory)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("give one of them"), "\(result.stderr)")
        #expect(try Self.files(directory) == before)
    }

    @Test func anUnknownSinkIsReportedBeforeAMissingJournal() throws {
        let directory = try Self.empty()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try CommandRunner.run(["backfill", "nosuch"], in: directory)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(try CommandRunner.exitCodesInHelp("backfill").contains(result.status))
        #expect(result.stderr.contains("no sink called 'nosuch'"))
        let dump = try CommandRunner.run(["dump"], in: directory)
        #expect(dump.status == 66)
        #expect(try CommandRunner.exitCodesInHelp("dump").contains(dump.status))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["healthrouter.yaml"])
    }

    @Test func aBackfillOfAnUpToDateSinkSaysDeliveredAndItsTypesAddUp() throws {
        let directory = try Self.imported()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The lines, not the index beside them (its bookkeeping may be written again).
        let lines = { try Self.files(directory + "/lake").filter { $0.key.hasSuffix(".ndjson") } }
        let before = try lines()
        #expect(!before.isEmpty)
        let result = try CommandRunner.run(["backfill", "lake", "-q"], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try lines() == before)
        let printed = result.stdout.split(separator: "\n").map(String.init)
        #expect(!result.stdout.contains("written"))
        #expect(printed.contains("  the sink stores what it lacks or what changed; rows it already held are left as they are"))
        // `backfill of 'lake' (ndjson) from the journal: 1,234 samples and 5 tombstones delivered in …`
        let total = try #require(Self.number(before: " samples and", in: printed[0]))
        var listed = 0
        for line in printed.dropFirst() {
            if line.hasPrefix("  … and ") {
                listed += try #require(Self.number(before: " samples", in: line))
            } else if line.hasPrefix("  "), let type = line.dropFirst(2).split(separator: ":").first, !type.contains(" "),
                      let count = Self.number(after: ": ", in: line) {
                listed += count
            }
        }
        #expect(listed == total, "\(result.stdout)")
    }

    /// The grouped number (`15,333`) just before `marker` in `line`.
    static func number(before marker: String, in line: String) -> Int? {
        guard let range = line.range(of: marker) else { return nil }
        let digits = line[..<range.lowerBound].reversed().prefix { $0.isNumber || $0 == "," }
        return Int(String(digits.reversed()).replacingOccurrences(of: ",", with: ""))
    }

    /// The grouped number that ends `line` after `separator`.
    /// A `--batch-size` above the largest is a usage error naming the option and the largest: a
    /// batch is held in memory until the sink acknowledges it (100,000,000 asked for 31 GB at once,
    /// and the command crashed). The largest itself is taken.
    @Test func aBatchSizeAboveTheLargestIsRefused() throws {
        let directory = makeTemporaryDirectory("migrate")
        try Self.config.write(toFile: directory + "/healthrouter.yaml", atomically: true, encoding: .utf8)
        for command in [["backfill", "local"], ["migrate", "--from", "local", "--to", "back"]] {
            let refused = try CommandRunner.run(command + ["--batch-size", "100000000"], in: directory)
            #expect(refused.status == 64, "\(command): \(refused.stderr)")
            #expect(refused.stderr.hasPrefix("healthrouter: --batch-size takes at most 1,000,000 entries, not 100000000"),
                    "\(command): \(refused.stderr)")
            // No journal, no store yet: what is said then, not the batch size.
            let largest = try CommandRunner.run(command + ["--batch-size", "1000000"], in: directory)
            #expect(largest.status == 66, "\(command): \(largest.stderr)")
        }
    }

    /// The folder where backfill and migrate keep their place (`runs/`) is its owner's alone
    /// (0700), as the state directory is, whatever the umask: under `umask 000` it was 0777.
    @Test func theRunsFolderIsPrivateWhateverTheUmask() throws {
        let directory = try Self.imported(records: 100)
        let backfill = try CommandRunner.run(["backfill", "local", "--batch-size", "10", "-q"], in: directory, shellSetup: "umask 000")
        #expect(backfill.status == 0, "\(backfill.stderr)")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: directory + "/state/runs")[.posixPermissions] as? Int)
        #expect(mode == 0o700, "\(String(mode, radix: 8))")
    }

    static func number(after separator: String, in line: String) -> Int? {
        guard let range = line.range(of: separator, options: .backwards) else { return nil }
        return Int(line[range.upperBound...].replacingOccurrences(of: ",", with: ""))
    }
}
