import TestSupport
import Foundation
import HealthRouterCore
import Testing
@testable import NDJSONSink

@Suite struct NDJSONSinkTests {
    // MARK: - Helpers

    func makeSink(_ directory: String) -> NDJSONSink {
        NDJSONSink(configuration: .init(directory: directory), context: SinkFixtures.context(directory))
    }

    /// A prepared sink writing into `<temporary>/out`; `body` gets it and the folder.
    func withSink(_ body: (NDJSONSink, String) throws -> Void) throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.path + "/out"
        let sink = makeSink(directory)
        #expect(try sink.prepare() == 0)
        defer { sink.close() }
        try body(sink, directory)
    }

    /// Every `.ndjson` file's bytes, by file name.
    func contents(_ directory: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) where name.hasSuffix(".ndjson") {
            files[name] = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))
        }
        return files
    }

    /// The lines of one file, parsed.
    func objects(_ directory: String, _ name: String) throws -> [[String: Any]] {
        let text = try String(contentsOfFile: directory + "/" + name, encoding: .utf8)
        return try text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
    }

    /// Every sample id in the directory, once per line.
    func sampleIds(_ directory: String) throws -> [String] {
        try contents(directory).keys.filter { $0 != "_deleted.ndjson" }.flatMap { name in
            try objects(directory, name).compactMap { $0["uuid"] as? String }
        }
    }

    /// The file samples of `type` go to.
    func file(_ type: String) -> String {
        NDJSONFileStem.stem(forType: type) + ".ndjson"
    }

    func appendRaw(_ text: String, to path: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8))
        try handle.close()
    }

    // MARK: - Layout and fields

    /// A file where the folder should be says which key to change, not a raw Foundation error.

    /// A folder the system refuses to make (/proc refuses even root) is misconfigured, in the
    /// config's terms, not Foundation's "NSCocoaErrorDomain Code=4" retried as an outage.
    @Test func aFolderThatCannotBeMadeSaysWhichKeyToChange() throws {
        let lake = NDJSONSink(configuration: .init(directory: "/proc/healthrouter-test/nd"), context: SinkFixtures.context(TestScratch.path))
        defer { lake.close() }
        do {
            _ = try lake.prepare()
            Issue.record("a folder under /proc prepared")
        } catch SinkError.misconfigured(let reason) {
            #expect(reason.hasPrefix("cannot create the folder /proc/healthrouter-test/nd: No such file or directory: set `directory`"))
        }
    }
    @Test func aFileWhereTheFolderShouldBeSaysWhichKeyToChange() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try "x".write(toFile: directory.path + "/lake", atomically: true, encoding: .utf8)
        for (folder, expected) in [
            (directory.path + "/lake", "\(directory.path)/lake is a file, not a folder: set `directory` to a folder (it is created when missing)"),
            (directory.path + "/lake/ndjson", "\(directory.path)/lake is a file, so \(directory.path)/lake/ndjson cannot be a folder: set `directory` to another folder"),
        ] {
            let sink = NDJSONSink(configuration: .init(directory: folder), context: SinkFixtures.context(directory.path))
            #expect(throws: SinkError.misconfigured(expected)) { _ = try sink.prepare() }
            sink.close()
        }
    }

    @Test func writesOneFilePerTypeInPulsoLayout() throws {
        try withSink { sink, directory in
            try sink.write(SinkFixtures.entries(SinkFixtures.all), cursor: 12)
            let names = Set(try contents(directory).keys)
            #expect(names == Set(SinkFixtures.all.map { file($0.type) }))
            // Pulso's keys for the types Pulso has; identifiers made file-safe for the others.
            #expect(names.isSuperset(of: ["heartRate.ndjson", "stepCount.ndjson", "sleepAnalysis.ndjson",
                                         "workout.ndjson", "com_example_Future_Thing__.ndjson"]))
            #expect(try sampleIds(directory).sorted() == SinkFixtures.all.map(\.id).sorted())
            // Compact: no spaces after separators, one object a line, a newline at the end.
            let heart = try #require(try contents(directory)["heartRate.ndjson"])
            let line = String(decoding: heart, as: UTF8.self)
            #expect(line.hasPrefix(#"{"uuid":"9F1C5A52-1D2B-4A55-9E0B-2D7F6C1A0001","type":"heartRate","start":"#))
            #expect(line.hasSuffix("}\n"))
            #expect(line.filter { $0 == "\n" }.count == 1)
        }
    }

    /// A type longer than a file name can be (a producer's garbage) gets a file of its own with a
    /// cut name, instead of `open` failing ("File name too long") and the sink retrying it forever
    /// while every later entry waited.
    @Test func aTypeLongerThanAFileNameGetsACutNameOfItsOwn() throws {
        try withSink { sink, directory in
            var long = SinkFixtures.all[0]
            long.type = String(repeating: "a", count: 300)
            long.id = "9F1C5A52-1D2B-4A55-9E0B-2D7F6C1A0F01"
            var other = long
            other.type = String(repeating: "a", count: 299) + "b"
            other.id = "9F1C5A52-1D2B-4A55-9E0B-2D7F6C1A0F02"
            try sink.write(SinkFixtures.entries([long, other]), cursor: 2)
            let names = try contents(directory).keys.sorted()
            #expect(names.count == 2 && names.allSatisfy { $0.utf8.count == PulsoFileStem.maximumLength + 7 }, "\(names)")
            #expect(try sampleIds(directory).sorted() == [long.id, other.id])
        }
    }

    @Test func linesCarryPulsoFieldNames() throws {
        try withSink { sink, directory in
            try sink.write(SinkFixtures.entries(SinkFixtures.all), cursor: 12)

            let heart = try #require(try objects(directory, "heartRate.ndjson").first)
            let sample = SinkFixtures.heartRate
            #expect(heart["uuid"] as? String == sample.id)
            #expect(heart["type"] as? String == "heartRate")
            #expect(heart["start"] as? String == TimestampFormatter.iso8601(sample.start))
            #expect(heart["end"] as? String == TimestampFormatter.iso8601(sample.end))
            #expect(heart["value"] as? Double == 72)
            #expect(heart["unit"] as? String == "count/min")
            #expect(heart["source"] as? String == SinkFixtures.awkwardSource)
            #expect(heart["receivedAt"] is String)
            // Local time with its offset, `+00:00` in UTC as well (the reference server's Python form).
            let instant = Date(timeIntervalSince1970: 1_704_488_823.6)
            let utc = String(decoding: NDJSONSink.receivedAtSuffix(now: instant, zone: TimeZone(identifier: "UTC")!), as: UTF8.self)
            #expect(utc == ",\"receivedAt\":\"2024-01-05T21:07:03+00:00\"}\n")
            let kolkata = String(decoding: NDJSONSink.receivedAtSuffix(now: instant, zone: TimeZone(identifier: "Asia/Kolkata")!),
                                as: UTF8.self)
            #expect(kolkata == ",\"receivedAt\":\"2024-01-06T02:37:03+05:30\"}\n")
            let metadata = try #require(heart["metadata"] as? [String: Any])
            #expect(metadata["HKMetadataKeyHeartRateMotionContext"] as? Double == 1)
            #expect(metadata["note"] as? String == SinkFixtures.injection)
            #expect(metadata["HKWasUserEntered"] as? Bool == false)
            let text = try String(contentsOfFile: directory + "/heartRate.ndjson", encoding: .utf8)
            #expect(text.contains(#""HKWasUserEntered":false"#))
            #expect(text.contains(#""HKMetadataKeyHeartRateMotionContext":1,"#))
            // Additive fields for what Pulso lacks.
            #expect(heart["identifier"] as? String == "HKQuantityTypeIdentifierHeartRate")
            #expect(heart["kind"] as? String == "quantity")
            #expect(heart["sourceVersion"] as? String == "10.2")
            #expect(heart["device"] as? String == sample.device)
            #expect(heart["creationDate"] as? String == TimestampFormatter.iso8601(sample.createdAt!))
            #expect(heart["userId"] as? String == "alice")

            let sleep = try #require(try objects(directory, "sleepAnalysis.ndjson").first)
            let stage = CategoryValueNames.pulsoName("HKCategoryValueSleepAnalysisAsleepREM", type: SinkFixtures.sleep.type)
            #expect(sleep["value"] as? String == stage)
            #expect((sleep["metadata"] as? [String: Any])?["timeZone"] as? String == "Europe/Lisbon")
            #expect(sleep["sourceBundleId"] as? String == "com.apple.health")
            #expect(sleep["categoryValue"] as? String
                        == (stage == "HKCategoryValueSleepAnalysisAsleepREM" ? nil : "HKCategoryValueSleepAnalysisAsleepREM"))
            #expect(sleep["unit"] == nil)

            let workout = try #require(try objects(directory, "workout.ndjson").first)
            #expect(workout["workoutActivityType"] as? String == "traditionalStrengthTraining")
            #expect(workout["activityType"] as? String == "HKWorkoutActivityTypeTraditionalStrengthTraining")
            #expect(workout["duration"] as? Double == 3612.4)
            #expect(workout["totalEnergyBurned"] as? Double == 412)
            #expect(workout["totalBasalEnergyBurned"] as? Double == 96.5)
            #expect(workout["averageHeartRate"] as? Double == 132.5)
            #expect(workout["minimumHeartRate"] as? Double == 88)
            #expect(workout["maximumHeartRate"] as? Double == 171)
            #expect(workout["totalDistance"] == nil)
            #expect(workout["value"] == nil)
            #expect((workout["metadata"] as? [String: Any])?["HKWorkoutBrandName"] as? String == "Push Day A")
            #expect((workout["events"] as? [Any])?.count == 2)
            #expect((workout["statistics"] as? [Any])?.count == 1)
            let activity = try #require((workout["activities"] as? [[String: Any]])?.first)
            #expect(activity["uuid"] as? String == "A-1")
            #expect((activity["events"] as? [Any])?.count == 1)
            let route = try #require((workout["routes"] as? [[String: Any]])?.first)
            #expect(route["filePath"] as? String == "/workout-routes/route_2026-07-05_6.30pm.gpx")
            let points = try #require(route["points"] as? [[String: Any]])
            #expect(points.count == 2)
            #expect(points[0]["speed"] as? Double == 2.75)
            #expect(points[1]["altitude"] == nil)

            let hrv = try #require(try objects(directory, file(SinkFixtures.hrv.type)).first)
            #expect((hrv["beats"] as? [[String: Any]])?.map { $0["bpm"] as? Double } == [61, 63.5])
            let pressure = try #require(try objects(directory, file(SinkFixtures.bloodPressure.type)).first)
            #expect(pressure["members"] as? [String] == ["BP-S", "BP-D"])
            #expect(pressure["kind"] as? String == "correlation")
            let summary = try #require(try objects(directory, file(SinkFixtures.activitySummary.type)).first)
            let record = try #require(summary["record"] as? [String: Any])
            #expect(record["element"] as? String == "ActivitySummary")
            #expect((record["attributes"] as? [String: String])?["appleStandHoursGoal"] == "12")
            let audiogram = try #require(try objects(directory, file(SinkFixtures.audiogram.type)).first)
            #expect(((audiogram["record"] as? [String: Any])?["children"] as? [Any])?.count == 1)
            let unknown = try #require(try objects(directory, "com_example_Future_Thing__.ndjson").first)
            #expect(unknown["type"] as? String == "com.example/Future Thing ü")
            #expect(unknown["source"] as? String == "Lab\n\"quoted\"\tapp")
            #expect(unknown["identifier"] == nil)
        }
    }

    // MARK: - Idempotency

    @Test func sameBatchTwiceLeavesIdenticalFiles() throws {
        try withSink { sink, directory in
            let entries = SinkFixtures.entries(SinkFixtures.all) + [SinkFixtures.tombstone(["gone-1"], sequence: 13)]
            try sink.write(entries, cursor: 13)
            let first = try contents(directory)
            try sink.write(entries, cursor: 13)
            #expect(try contents(directory) == first)
            // The same samples numbered otherwise, as a migration or backfill delivers them (with
            // the sink's own cursor), add nothing either.
            try sink.write(SinkFixtures.entries(SinkFixtures.all, from: 50), cursor: 13)
            #expect(try contents(directory) == first)

            // A restarted sink re-delivering the batch.
            sink.close()
            let again = makeSink(directory)
            #expect(try again.prepare() == 13)
            try again.write(entries, cursor: 13)
            again.close()
            #expect(try contents(directory) == first)
        }
    }

    @Test func duplicateIdsInsideARedeliveredBatchAreWrittenOnce() throws {
        try withSink { sink, directory in
            try sink.write(SinkFixtures.entries([SinkFixtures.steps]), cursor: 1)
            // A re-delivery (the cursor does not move) is checked line by line, within the batch too.
            let entries = SinkFixtures.entries([SinkFixtures.heartRate, SinkFixtures.heartRate, SinkFixtures.steps])
            try sink.write(entries, cursor: 1)
            #expect(try sampleIds(directory).count == 2)
            #expect(try objects(directory, "heartRate.ndjson").count == 1)
        }
    }

    /// A new journal (the state directory recreated) delivers everything again under its own
    /// numbers, batch after batch: none of them writes a line the folder holds, also past the
    /// first batch, whose cursor is below the folder's.
    @Test func aNewJournalsRedeliveryWritesNothingTheFolderHolds() throws {
        try withSink { sink, directory in
            let all = [SinkFixtures.heartRate, SinkFixtures.steps, SinkFixtures.sleep, SinkFixtures.hrv]
            try sink.write(SinkFixtures.entries(all), cursor: 4)
            try sink.write([SinkFixtures.tombstone(["GONE-1"], sequence: 5)], cursor: 5)
            let before = try contents(directory)
            // The new journal numbers them otherwise, and delivers them in two batches.
            let renumbered = SinkFixtures.entries([SinkFixtures.steps, SinkFixtures.heartRate, SinkFixtures.hrv, SinkFixtures.sleep])
            try sink.write(Array(renumbered[0..<2]), cursor: 2)
            try sink.write(Array(renumbered[2...]), cursor: 4)
            try sink.write([SinkFixtures.tombstone(["GONE-1"], sequence: 5)], cursor: 5)
            #expect(try contents(directory) == before)
            // Prepared again, it keeps checking.
            sink.close()
            #expect(try sink.prepare() == 5)
            try sink.write(SinkFixtures.entries([SinkFixtures.sleep], from: 6), cursor: 6)
            #expect(try contents(directory) == before)
        }
    }

    @Test func freshBatchesSkipTheKeyIndexAndARedeliveryRebuildsIt() throws {
        try withSink { sink, directory in
            let index = directory + "/" + NDJSONIndex.fileName
            func keyIndexed() throws -> Bool {
                try SQLiteDatabase(path: index).scalarInt(
                    "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'ids_key'") == 1
            }
            try sink.write(SinkFixtures.entries([SinkFixtures.heartRate, SinkFixtures.steps]), cursor: 2)
            var changed = SinkFixtures.heartRate
            changed.value = 75
            try sink.write(SinkFixtures.entries([changed], from: 3), cursor: 3)
            #expect(try !keyIndexed())
            #expect(try SQLiteDatabase(path: index).scalarInt("SELECT count(*) FROM ids") == 3)
            let before = try contents(directory)

            // Prepared again (the next import): the files are covered, so nothing needs the key index yet.
            sink.close()
            #expect(try sink.prepare() == 3)
            #expect(try !keyIndexed())

            // Re-delivered from the start: every line is known (the changed one by its later row).
            try sink.write(SinkFixtures.entries([SinkFixtures.heartRate, SinkFixtures.steps, changed]), cursor: 3)
            #expect(try keyIndexed())
            #expect(try contents(directory) == before)
            #expect(try objects(directory, "heartRate.ndjson").map { $0["value"] as? Double } == [72, 75])
        }
    }

    @Test func cursorIsStoredInTheIndexAndReturnedByPrepare() throws {
        try withSink { sink, directory in
            try sink.write(SinkFixtures.entries([SinkFixtures.heartRate]), cursor: 7)
            try sink.write([], cursor: 9)
            sink.close()
            let reopened = makeSink(directory)
            #expect(try reopened.prepare() == 9)
            reopened.close()
        }
    }

    @Test func changedSampleAppendsALineAndOlderVersionsAreNotRewritten() throws {
        try withSink { sink, directory in
            try sink.write(SinkFixtures.entries([SinkFixtures.heartRate]), cursor: 1)
            var changed = SinkFixtures.heartRate
            changed.value = 75
            try sink.write(SinkFixtures.entries([changed], from: 2), cursor: 2)
            let lines = try objects(directory, "heartRate.ndjson")
            #expect(lines.map { $0["value"] as? Double } == [72, 75])
            // Re-delivery of both versions, in journal order: nothing new.
            try sink.write(SinkFixtures.entries([SinkFixtures.heartRate, changed]), cursor: 2)
            #expect(try objects(directory, "heartRate.ndjson").count == 2)
        }
    }

    // MARK: - Tombstones

    @Test func tombstonesAreAppendedOnceToTheDeletedFile() throws {
        try withSink { sink, directory in
            try sink.write(SinkFixtures.entries([SinkFixtures.heartRate, SinkFixtures.workout]), cursor: 2)
            try sink.write([SinkFixtures.tombstone(["W-1", "never-seen", "W-1"], sequence: 3, userId: "alice")], cursor: 3)
            var lines = try objects(directory, "_deleted.ndjson")
            #expect(lines.count == 1)
            #expect(lines[0]["deleted"] as? [String] == ["W-1", "never-seen"])
            #expect(lines[0]["userId"] as? String == "alice")
            #expect(lines[0]["receivedAt"] is String)

            // Re-delivered, or naming only ids already deleted (in a re-delivery: the journal itself
            // never passes a deletion twice): nothing written.
            try sink.write([SinkFixtures.tombstone(["W-1", "never-seen"], sequence: 3, userId: "alice")], cursor: 3)
            try sink.write([SinkFixtures.tombstone(["never-seen"], sequence: 4)], cursor: 3)
            lines = try objects(directory, "_deleted.ndjson")
            #expect(lines.count == 1)

            // A sample sent again after its deletion is stored again, and a later deletion recorded again.
            try sink.write(SinkFixtures.entries([SinkFixtures.workout], from: 5), cursor: 5)
            try sink.write([SinkFixtures.tombstone(["W-1"], sequence: 6)], cursor: 6)
            #expect(try objects(directory, "workout.ndjson").count == 2)
            #expect(try objects(directory, "_deleted.ndjson").map { $0["deleted"] as? [String] } == [["W-1", "never-seen"], ["W-1"]])

            // Re-delivery of that whole history changes nothing.
            let before = try contents(directory)
            try sink.write(SinkFixtures.entries([SinkFixtures.heartRate, SinkFixtures.workout])
                           + [SinkFixtures.tombstone(["W-1", "never-seen", "W-1"], sequence: 3, userId: "alice")]
                           + SinkFixtures.entries([SinkFixtures.workout], from: 5)
                           + [SinkFixtures.tombstone(["W-1"], sequence: 6)], cursor: 6)
            #expect(try contents(directory) == before)
        }
    }

    // MARK: - Crash recovery

    /// Simulates a kill between the append and the index commit: the files hold the batch,
    /// the index is what it was before (with `in_flight` set, as the sink sets it before appending).
    func crashAfterAppend(directory: String, inFlight: Bool, batch: [JournalEntry], cursor: Int64) throws {
        let indexPath = directory + "/" + NDJSONIndex.fileName
        let saved = directory + "/../index-before"
        try FileManager.default.copyItem(atPath: indexPath, toPath: saved)
        let sink = makeSink(directory)
        _ = try sink.prepare()
        try sink.write(batch, cursor: cursor)
        sink.close()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: indexPath + suffix) }
        try FileManager.default.moveItem(atPath: saved, toPath: indexPath)
        if inFlight {
            let index = try NDJSONIndex(path: indexPath)
            try index.setInFlight(true)
        }
    }

    @Test func crashBetweenAppendAndIndexCommitWritesNoDuplicates() throws {
        try withSink { sink, directory in
            try sink.write(SinkFixtures.entries([SinkFixtures.heartRate, SinkFixtures.sleep]), cursor: 2)
            sink.close()
            let batch = SinkFixtures.entries([SinkFixtures.steps, SinkFixtures.workout, SinkFixtures.hrv], from: 3)
                + [SinkFixtures.tombstone(["ABC-123"], sequence: 6)]
            try crashAfterAppend(directory: directory, inFlight: true, batch: batch, cursor: 6)
            #expect(try sampleIds(directory).count == 5)

            let restarted = makeSink(directory)
            #expect(try restarted.prepare() == 2)
            // The unacknowledged lines are gone until the batch comes again.
            #expect(try sampleIds(directory).sorted() == [SinkFixtures.heartRate.id, SinkFixtures.sleep.id].sorted())
            try restarted.write(batch, cursor: 6)
            restarted.close()
            let ids = try sampleIds(directory)
            #expect(ids.count == 5)
            #expect(Set(ids).count == 5)
            #expect(try objects(directory, "_deleted.ndjson").count == 1)
        }
    }

    @Test func linesAppendedBehindTheIndexAreIndexed() throws {
        try withSink { sink, directory in
            try sink.write(SinkFixtures.entries([SinkFixtures.heartRate]), cursor: 1)
            sink.close()
            let batch = SinkFixtures.entries([SinkFixtures.steps, SinkFixtures.workout], from: 2)
                + [SinkFixtures.tombstone(["gone"], sequence: 4)]
            // No batch of the sink's was in flight: the lines are someone else's, and kept.
            try crashAfterAppend(directory: directory, inFlight: false, batch: batch, cursor: 4)
            let files = try contents(directory)

            let restarted = makeSink(directory)
            #expect(try restarted.prepare() == 1)
            try restarted.write(batch, cursor: 4)
            restarted.close()
            #expect(try contents(directory) == files)
        }
    }

    @Test func partialLastLineIsCutOffOrTerminated() throws {
        try withSink { sink, directory in
            try sink.write(SinkFixtures.entries([SinkFixtures.heartRate]), cursor: 1)
            sink.close()
            let path = directory + "/heartRate.ndjson"
            let before = try Data(contentsOf: URL(fileURLWithPath: path))

            // Our own batch, killed mid-line: cut off.
            try NDJSONIndex(path: directory + "/" + NDJSONIndex.fileName).setInFlight(true)
            try appendRaw(#"{"uuid":"half","type":"heartRate","sta"#, to: path)
            let first = makeSink(directory)
            _ = try first.prepare()
            first.close()
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)

            // Someone else's partial line: kept, terminated, and our next line starts on its own.
            try appendRaw(#"{"uuid":"half","type":"heartRate","sta"#, to: path)
            let second = makeSink(directory)
            _ = try second.prepare()
            try second.write(SinkFixtures.entries([SinkFixtures.steps, { var s = SinkFixtures.heartRate; s.id = "H2"; return s }()],
                                                  from: 2), cursor: 3)
            second.close()
            let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
            #expect(lines.count == 3)
            #expect(lines[1] == #"{"uuid":"half","type":"heartRate","sta"#)
            #expect(lines[2].hasPrefix(#"{"uuid":"H2""#))
        }
    }

    @Test func deletedIndexIsRebuiltFromTheFiles() throws {
        try withSink { sink, directory in
            let entries = SinkFixtures.entries(SinkFixtures.all) + [SinkFixtures.tombstone(["gone"], sequence: 13)]
            try sink.write(entries, cursor: 13)
            sink.close()
            let files = try contents(directory)
            for suffix in ["", "-wal", "-shm"] {
                try? FileManager.default.removeItem(atPath: directory + "/" + NDJSONIndex.fileName + suffix)
            }
            let rebuilt = makeSink(directory)
            #expect(try rebuilt.prepare() == 0)
            try rebuilt.write(entries, cursor: 13)
            rebuilt.close()
            #expect(try contents(directory) == files)
        }
    }

    @Test func fileShorterThanTheIndexSaysRebuildsTheIndex() throws {
        try withSink { sink, directory in
            try sink.write(SinkFixtures.entries([SinkFixtures.heartRate, SinkFixtures.steps]), cursor: 2)
            sink.close()
            try Data().write(to: URL(fileURLWithPath: directory + "/heartRate.ndjson"))
            let restarted = makeSink(directory)
            #expect(try restarted.prepare() == 0)
            try restarted.write(SinkFixtures.entries([SinkFixtures.heartRate, SinkFixtures.steps]), cursor: 2)
            restarted.close()
            #expect(try sampleIds(directory).sorted() == [SinkFixtures.heartRate.id, SinkFixtures.steps.id].sorted())
        }
    }

    @Test func secondWriterOnTheSameFolderIsRefused() throws {
        try withSink { _, directory in
            let second = makeSink(directory)
            #expect {
                _ = try second.prepare()
            } throws: { error in
                guard case .unavailable(let reason) = error as? SinkError else { return false }
                return reason.contains("in use")
            }
        }
    }

    // MARK: - Parts

    @Test func fileStemsFollowThePulsoServer() {
        #expect(NDJSONFileStem.stem(forType: "HKQuantityTypeIdentifierHeartRate") == "heartRate")
        #expect(NDJSONFileStem.stem(forType: "com.example/Future Thing ü") == "com_example_Future_Thing__")
        #expect(NDJSONFileStem.stem(forType: "") == "unknown")
        #expect(NDJSONFileStem.stem(forType: "_deleted") == "unknown")
        #expect(NDJSONFileStem.stem(forType: "a-b_C9") == "a-b_C9")
        #expect(NDJSONFileStem.stem(forType: "🏃‍♀️") == "____")
    }

    @Test func lineParserReadsIdsAndHashesWithoutReceivedAt() {
        let line = Array(#"{"uuid":"X-1","type":"heartRate","value":1,"receivedAt":"2024-01-05T21:07:03+01:00"}"#.utf8)
        let same = Array(#"{"uuid":"X-1","type":"heartRate","value":1,"receivedAt":"2025-02-01T00:00:00Z"}"#.utf8)
        let changed = Array(#"{"uuid":"X-1","type":"heartRate","value":2,"receivedAt":"2024-01-05T21:07:03+01:00"}"#.utf8)
        guard case .sample(let id, let hash)? = NDJSONLineParser.parse(line[...]) else {
            Issue.record("not a sample"); return
        }
        #expect(id == "X-1")
        #expect(hash == NDJSONLineHash.hash(Array(#"{"uuid":"X-1","type":"heartRate","value":1"#.utf8)))
        #expect(NDJSONLineParser.parse(same[...]) == .sample(id: "X-1", contentHash: hash))
        #expect(NDJSONLineParser.parse(changed[...]) != .sample(id: "X-1", contentHash: hash))
        #expect(NDJSONLineParser.parse(Array(#"{"type":"x","uuid":"Y\"2"}"#.utf8)[...])
                    == .sample(id: "Y\"2", contentHash: NDJSONLineHash.hash(Array(#"{"type":"x","uuid":"Y\"2""#.utf8))))
        #expect(NDJSONLineParser.parse(Array(#"{"deleted":["A",3,"B"],"uuid":"C"}"#.utf8)[...]) == .tombstone(ids: ["A", "B"]))
        #expect(NDJSONLineParser.parse(Array(#"{"deleted":"A"}"#.utf8)[...]) == .tombstone(ids: []))
        #expect(NDJSONLineParser.parse(Array("[1,2]".utf8)[...]) == nil)
        #expect(NDJSONLineParser.parse(Array("not json".utf8)[...]) == nil)
    }

    @Test func indexTellsIdsWithTheSameKeyApart() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let index = try NDJSONIndex(path: temporary.path + "/index.sqlite")
        // A row of another id under A's key, as a 64-bit collision would leave it.
        try index.database.execute(
            "INSERT INTO ids (id_key, id, content_hash, journal_seq) VALUES (\(NDJSONIndex.key("A")), 'B', 1, 99)")
        #expect(try index.lookup("A") == nil)
        #expect(try index.lookup("B") == nil)
        try index.store("A", NDJSONIndex.Entry(contentHash: 5, sequence: 1))
        #expect(try index.lookup("A") == NDJSONIndex.Entry(contentHash: 5, sequence: 1, row: 2))
        try index.store("A", NDJSONIndex.Entry(contentHash: nil, sequence: 2, row: 2))
        #expect(try index.lookup("A") == NDJSONIndex.Entry(contentHash: nil, sequence: 2, row: 2))
    }

    @Test func lineHashDiffersForEveryLengthAndByte() {
        var seen = Set<Int64>()
        var bytes: [UInt8] = []
        for length in 0..<64 {
            #expect(seen.insert(NDJSONLineHash.hash(bytes)).inserted)
            for position in 0..<bytes.count {
                var flipped = bytes
                flipped[position] ^= 1
                #expect(NDJSONLineHash.hash(flipped) != NDJSONLineHash.hash(bytes))
            }
            bytes.append(UInt8(truncatingIfNeeded: length &* 37))
        }
    }
}

@Suite struct NDJSONSinkLockTests {
    /// A failed prepare must not leave the folder locked: the worker's retry with a fresh
    /// instance has to be able to take it.
    @Test func aFailedPrepareReleasesTheFolder() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let folder = directory.path + "/lake"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // An index file that is not a SQLite database makes prepare fail after the lock is taken.
        try Data("not a database, not at all: 0123456789abcdef".utf8).write(to: URL(fileURLWithPath: folder + "/.healthrouter-index.sqlite"))
        let first = NDJSONSink(configuration: .init(directory: folder), context: SinkFixtures.context(directory.path))
        #expect(throws: (any Error).self) { _ = try first.prepareOrClose() }
        try FileManager.default.removeItem(atPath: folder + "/.healthrouter-index.sqlite")
        let second = NDJSONSink(configuration: .init(directory: folder), context: SinkFixtures.context(directory.path))
        // Throws "in use by another healthrouter process" if the first kept its lock.
        let cursor = try second.prepareOrClose()
        #expect((cursor ?? 0) == 0)
        second.close()
        withExtendedLifetime(first) {}
    }
}
