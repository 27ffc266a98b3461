import TestSupport
import Foundation
import HealthRouterCore
import NDJSONSink
import SQLiteSink
import Testing

@Suite struct ReadBackTests {
    /// `reader` prepared for reading and read whole: nil, or the reason of the
    /// `SinkError.unreadable` it stopped with.
    static func unreadableReason(_ reader: any ReadableSink) throws -> String? {
        try reader.prepareForReading()
        defer { reader.close() }
        do {
            _ = try readAll(reader)
            return nil
        } catch SinkError.unreadable(let reason) {
            return reason
        }
    }

    static func readAll(_ sink: any ReadableSink) throws -> (samples: [String: Sample], tombstones: [Tombstone]) {
        var samples: [String: Sample] = [:]
        var tombstones: [Tombstone] = []
        try sink.readBack { item in
            switch item {
            case .sample(let s): samples[s.id] = s
            case .tombstone(let t): tombstones.append(t)
            }
        }
        return (samples, tombstones)
    }

    static func fixtureEntries() -> [JournalEntry] {
        var entries = SinkFixtures.entries(SinkFixtures.all)
        var changed = SinkFixtures.steps
        changed.value = 200
        entries.append(JournalEntry(sequence: 100, source: "history", item: .sample(changed)))
        entries.append(SinkFixtures.tombstone([SinkFixtures.standHour.id, "NEVER-SEEN"], sequence: 101, userId: "alice"))
        return entries
    }

    static func expected() -> [String: Sample] {
        var out = Dictionary(uniqueKeysWithValues: SinkFixtures.all.map { ($0.id, $0) })
        out[SinkFixtures.steps.id]!.value = 200
        out[SinkFixtures.standHour.id] = nil
        return out
    }

    /// The tombstones `sink` reads back after `fixtureEntries()` are written to it (prepared here,
    /// then closed), its samples checked to be `expected()`'s, each and no more.
    static func tombstonesReadBackAfterTheFixtures(_ sink: any ReadableSink) throws -> [Tombstone] {
        _ = try sink.prepare()
        try sink.write(fixtureEntries(), cursor: 101)
        let read = try readAll(sink)
        sink.close()
        for (id, sample) in expected() { #expect(read.samples[id] == sample, "\(id)") }
        #expect(read.samples.count == expected().count)
        return read.tombstones
    }

    @Test func sqliteSinkReadsBackEveryCanonicalSample() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let sink = SQLiteSink(configuration: .init(path: directory.path + "/h.sqlite"), context: SinkFixtures.context(directory.path))
        let tombstones = try Self.tombstonesReadBackAfterTheFixtures(sink)
        #expect(Set(tombstones.flatMap(\.ids)) == [SinkFixtures.standHour.id, "NEVER-SEEN"])
    }

    /// How the message of a row it cannot read ends: the backfill that writes the sample again,
    /// while the journal holds it.
    static let rewriteAdvice = "run `healthrouter backfill test`, which writes it again from the journal (while it still "
        + "holds the sample: see `journal.retain`; else `--from` an export or a dump)"

    /// A sqlite store, `h.sqlite` in `directory`, holding `SinkFixtures.all`: its path.
    static func fixtureStore(in directory: TemporaryDirectory) throws -> String {
        let path = directory.path + "/h.sqlite"
        let sink = SQLiteSink(configuration: .init(path: path), context: SinkFixtures.context(directory.path))
        _ = try sink.prepare()
        try sink.write(SinkFixtures.entries(SinkFixtures.all), cursor: Int64(SinkFixtures.all.count))
        sink.close()
        return path
    }

    /// A stored time edited by hand into no time (`'noon'`), in a sample's row or in one of its parts
    /// (a workout's event), makes the read back fail naming the store's file, the table, the column,
    /// the sample and what to do: it said `sqlite: unreadable time 'noon' in a stored row`, no file.
    /// The `DELETE` it gives runs, and the store reads back without the sample.
    @Test func anUnreadableStoredTimeNamesTheFileTheRowAndWhatToDo() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try Self.fixtureStore(in: directory)
        func problem() throws -> String? {
            try Self.unreadableReason(SQLiteSink(configuration: .init(path: path), context: SinkFixtures.context(directory.path)))
        }
        func edit(_ sql: String) throws {
            let database = try SQLiteDatabase(path: path)
            try database.execute(sql)
        }
        #expect(try problem() == nil)

        try edit("UPDATE workout_events SET date_at = 'noon' WHERE workout_id = 'W-1' AND type = 'HKWorkoutEventTypeResume'")
        let part = try #require(try problem())
        #expect(part.hasPrefix(path + ": column date_at of table workout_events, in the row of sample 'W-1' (a part of the "
                               + "sample in table workouts), holds 'noon', which is no time"), "\(part)")
        #expect(part.contains("`DELETE FROM workouts WHERE id = 'W-1'` in sqlite3") && part.contains("`healthrouter backfill test`"),
                "\(part)")
        // The backfill writes it again only while the journal holds it.
        #expect(part.hasSuffix(Self.rewriteAdvice), "\(part)")

        // The sample's own row; its start as SQLite's CHECK (end_at >= start_at) lets it be edited.
        try edit("DELETE FROM workouts WHERE id = 'W-1'")
        let id = SinkFixtures.heartRate.id
        try edit("UPDATE samples SET start_at = substr(start_at, 1, 10) || ' noon' WHERE id = '\(id)'")
        let own = try #require(try problem())
        #expect(own.hasPrefix(path + ": column start_at of table samples, in the row of sample '\(id)', holds '"), "\(own)")
        #expect(own.contains(" noon', which is no time (healthrouter writes 2024-03-07T13:00:00.000Z): was the file edited by hand?"),
                "\(own)")
        try edit("DELETE FROM samples WHERE id = '\(id)'")
        #expect(try problem() == nil)

        // A JSON column that is no JSON: the sample's row and what to do, as for a time.
        let step = SinkFixtures.steps.id
        try edit("UPDATE samples SET metadata = '{oops' WHERE id = '\(step)'")
        let json = try #require(try problem())
        #expect(json.hasPrefix(path + ": a JSON column of the row of sample '\(step)' in table samples (or of one of its parts) "
                               + "is unreadable: "), "\(json)")
        #expect(json.contains("`DELETE FROM samples WHERE id = '\(step)'` in sqlite3") && json.contains("`healthrouter backfill test`"),
                "\(json)")
        #expect(json.hasSuffix(Self.rewriteAdvice), "\(json)")
        try edit("DELETE FROM samples WHERE id = '\(step)'")
        #expect(try problem() == nil)

        // JSON, but not of the shape written (a record's child without its element): the same, where it
        // said `record without element` alone, naming no file nor row (found by fuzzing).
        let audiogram = SinkFixtures.audiogram.id
        try edit(#"UPDATE other_records SET children = '[{"attributes":{}}]' WHERE id = '\#(audiogram)'"#)
        let shape = try #require(try problem())
        #expect(shape.hasPrefix(path + ": a JSON column of the row of sample '\(audiogram)' in table other_records (or of one of "
                                + "its parts) is unreadable: record without element: was the file edited by hand?"), "\(shape)")
        #expect(shape.contains("`DELETE FROM other_records WHERE id = '\(audiogram)'` in sqlite3"), "\(shape)")
        #expect(shape.hasSuffix(Self.rewriteAdvice), "\(shape)")
    }

    /// A row edited by hand stays unreadable when the file changes while it is read: a running
    /// daemon writes the store (its checkpoints change the file's size and time) as `cp` over it
    /// would, and the row was taken for one of a file copied over, retried five times, exit 1.
    @Test func anUnreadableRowInAStoreWrittenMeanwhileIsStillUnreadable() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try Self.fixtureStore(in: directory)
        let step = SinkFixtures.steps.id
        try SQLiteDatabase(path: path).execute("UPDATE samples SET metadata = '{oops' WHERE id = '\(step)'")
        let reader = SQLiteSink(configuration: .init(path: path), context: SinkFixtures.context(directory.path))
        try reader.prepareForReading()
        defer { reader.close() }
        var read = 0
        var failure: (any Error)?
        do {
            try reader.readBack { _ in
                read += 1
                guard read == 1 else { return }
                // The file written meanwhile: another size and time.
                let file = try #require(FileHandle(forWritingAtPath: path))
                try file.seekToEnd()
                try file.write(contentsOf: Data(count: 4096))
                try file.close()
            }
        } catch {
            failure = error
        }
        guard case SinkError.unreadable(let reason) = try #require(failure) else {
            Issue.record("expected unreadable, got \(String(describing: failure)) after \(read) items")
            return
        }
        #expect(reason.contains("a JSON column of the row of sample '\(step)'"), "\(reason)")
    }

    /// A file copied over the store while it is read back (`cp backup.sqlite FILE`: the same
    /// inode, its pages rewritten) reads as damaged, "database disk image is malformed", though the
    /// file there is whole: unavailable, so that `dump --from` and `migrate` read it again, not
    /// unreadable (it failed them at once, exit 65, calling the file damaged). Opened again
    /// (`reconnect()`), it reads the file now there: the old connection kept pages of the old file
    /// and failed again. (Damage in a file that stays as it was is still unreadable:
    /// `MigrationCommandTests.aStoreHoldingARowItCannotReadFailsAtOnce`.)
    @Test func sqliteSinkReadBackOfAFileCopiedOverMeanwhileIsUnavailable() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        func store(_ path: String, count: Int, prefix: String, note: String? = nil) throws {
            let sink = SQLiteSink(configuration: .init(path: path), context: SinkFixtures.context(directory.path))
            _ = try sink.prepare()
            let samples = (0..<count).map { index -> Sample in
                var sample = SinkFixtures.steps
                sample.id = "\(prefix)-\(index)"
                sample.start.epochMilliseconds += Int64(index) * 60_000
                sample.end.epochMilliseconds += Int64(index) * 60_000
                if let note { sample.metadata = [MetadataEntry("note", .string(note))] }
                return sample
            }
            try sink.write(SinkFixtures.entries(samples), cursor: Int64(count))
            sink.close()
            try SQLiteDatabase(path: path).execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        let path = directory.path + "/h.sqlite", backup = directory.path + "/backup.sqlite"
        try store(path, count: 20_000, prefix: "A")
        // Rows of another size: no page of one file fits where the other's was.
        try store(backup, count: 15_000, prefix: "B", note: String(repeating: "x", count: 300))
        let reader = SQLiteSink(configuration: .init(path: path), context: SinkFixtures.context(directory.path))
        try reader.prepareForReading()
        defer { reader.close() }
        var read = 0
        var failure: SinkError?
        do {
            try reader.readBack { _ in
                read += 1
                guard read == 1 else { return }
                let file = try #require(FileHandle(forWritingAtPath: path))
                try file.write(contentsOf: try Data(contentsOf: URL(fileURLWithPath: backup)))
                try file.truncate(atOffset: try file.offset())
                try file.close()
            }
        } catch let error as SinkError {
            failure = error
        }
        guard case .unavailable(let reason) = failure else {
            Issue.record("expected unavailable, got \(String(describing: failure)) after \(read) items")
            return
        }
        #expect(reason.contains("the file changed while it was read"), "\(reason)")
        // Read again, the file now there reads whole.
        try reader.reconnect()
        #expect(try Self.readAll(reader).samples.count == 15_000)
    }

    /// A store written to while it is read back (a daemon writing, a dump reading) is read
    /// as it was when the read began: later tables do not show what was written meanwhile.
    @Test func sqliteSinkReadsBackOneSnapshotWhileAnotherConnectionWrites() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/h.sqlite"
        let reader = SQLiteSink(configuration: .init(path: path), context: SinkFixtures.context(directory.path))
        _ = try reader.prepare()
        try reader.write(Self.fixtureEntries(), cursor: 101)
        let writer = SQLiteSink(configuration: .init(path: path), context: SinkFixtures.context(directory.path))
        _ = try writer.prepare()
        defer { writer.close(); reader.close() }
        var laterWorkout = SinkFixtures.workout
        laterWorkout.id = "W-2"
        var wroteMeanwhile = false
        var read: [String: Sample] = [:]
        try reader.readBack { item in
            guard case .sample(let sample) = item else { return }
            read[sample.id] = sample
            if !wroteMeanwhile {
                wroteMeanwhile = true
                try writer.write([JournalEntry(sequence: 102, source: "phone", item: .sample(laterWorkout)),
                                  SinkFixtures.tombstone([SinkFixtures.bloodPressure.id], sequence: 103)], cursor: 103)
            }
        }
        #expect(wroteMeanwhile)
        #expect(Set(read.keys) == Set(Self.expected().keys))
        #expect(read[SinkFixtures.bloodPressure.id] == Self.expected()[SinkFixtures.bloodPressure.id])
        // What was written meanwhile is there for the next read.
        let after = try Self.readAll(reader)
        #expect(after.samples["W-2"] != nil && after.samples[SinkFixtures.bloodPressure.id] == nil)
    }

    @Test func ndjsonSinkReadsBackTheLastLineOfEachId() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let sink = NDJSONSink(configuration: .init(directory: directory.path + "/lake"), context: SinkFixtures.context(directory.path))
        let tombstones = try Self.tombstonesReadBackAfterTheFixtures(sink)
        #expect(tombstones.flatMap(\.ids) == [SinkFixtures.standHour.id, "NEVER-SEEN"])
    }

    /// A line of the folder it cannot read (edited by hand: a sample's last line, a tombstone's)
    /// fails the read back naming the file, the line and what to do, as a row of the other stores
    /// does: it was left out with a warning, so `dump --from` and `migrate` went on without the
    /// sample or the deletion, and `migrate --verify`, reading the folder alike, found nothing
    /// missing (found by fuzzing).
    @Test func ndjsonSinkLineItCannotReadNamesTheFileTheLineAndWhatToDo() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let folder = directory.path + "/lake"
        let sink = NDJSONSink(configuration: .init(directory: folder), context: SinkFixtures.context(directory.path))
        _ = try sink.prepare()
        try sink.write(Self.fixtureEntries(), cursor: 101)
        sink.close()
        func problem() throws -> String? {
            try Self.unreadableReason(NDJSONSink(configuration: .init(directory: folder), context: SinkFixtures.context(directory.path)))
        }
        // Replaces `old` in `file` of the folder by `new`, of its length (the index's byte counts hold).
        func edit(_ file: String, _ old: String, _ new: String) throws {
            let path = folder + "/" + file
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(text.contains(old) && old.utf8.count == new.utf8.count)
            try text.replacingOccurrences(of: old, with: new).write(toFile: path, atomically: false, encoding: .utf8)
        }
        #expect(try problem() == nil)

        try edit("_deleted.ndjson", #"{"deleted":"#, #"{"deleteX":"#)
        let tombstone = try #require(try problem())
        #expect(tombstone.hasPrefix(folder + "/_deleted.ndjson:1 is not a tombstone line: was the file edited by hand? Write the "
                                    + "tombstone back as healthrouter wrote it, or delete the line and "), "\(tombstone)")
        #expect(tombstone.hasSuffix(Self.rewriteAdvice), "\(tombstone)")
        try edit("_deleted.ndjson", #"{"deleteX":"#, #"{"deleted":"#)
        #expect(try problem() == nil)

        // The heart rate's one line, its start no time.
        try edit("heartRate.ndjson", #""start":"2024-01-05T"#, #""start":"2024-01-05x"#)
        let sample = try #require(try problem())
        #expect(sample.hasPrefix(folder + "/heartRate.ndjson:1, the line of sample '\(SinkFixtures.heartRate.id)', is unreadable: "
                                 + "start '2024-01-05x"), "\(sample)")
        #expect(sample.contains(": was the file edited by hand? Write the line back as healthrouter wrote it, or delete the line and "),
                "\(sample)")
        #expect(sample.hasSuffix(Self.rewriteAdvice), "\(sample)")
    }
}
