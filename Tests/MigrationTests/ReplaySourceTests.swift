import TestSupport
import Foundation
import HealthRouterCore
@testable import ReplaySource
import Testing

/// Collects what a source emits, without a journal.
final class CollectingOutput: SourceOutput {
    var items: [HealthItem] = []
    var skips: [(reason: String, location: String?)] = []
    var bytesRead: Int64 = 0
    func emit(_ items: [HealthItem]) throws { self.items.append(contentsOf: items) }
    func skipped(_ reason: String, location: String?) { skips.append((reason, location)) }
    func progress(bytes: Int64, total: Int64?) { bytesRead = bytes }
}

@Suite struct ReplaySourceTests {
    static func line(_ sample: Sample) -> String {
        var writer = JSONWriter()
        writer.beginObject()
        PulsoJSONEncoder.writeSampleFields(sample, into: &writer)
        writer.key("receivedAt"); writer.string("2026-07-06T09:00:00+01:00")
        writer.endObject()
        return writer.text
    }

    @Test func decoderReproducesEveryFixtureExactly() throws {
        for sample in SinkFixtures.all {
            let (item, isPulso) = try PulsoJSONDecoder.decode(Array(Self.line(sample).utf8)[...])
            #expect(!isPulso)
            #expect(item == .sample(sample), "\(sample.id)")
        }
    }

    @Test func unknownOffsetAndZoneInMetadataSurvive() throws {
        var sample = SinkFixtures.steps
        sample.start = Timestamp(epochMilliseconds: 1_000, utcOffsetSeconds: nil)
        sample.end = Timestamp(epochMilliseconds: 2_500, utcOffsetSeconds: 0)
        sample.timeZone = "Europe/Lisbon"
        sample.metadata = [MetadataEntry("timeZone", .string("own")), MetadataEntry("x", .number(0.1))]
        let (item, _) = try PulsoJSONDecoder.decode(Array(Self.line(sample).utf8)[...])
        #expect(item == .sample(sample))
    }

    @Test func readsAPulsoServerFolderAndSkipsBadLines() throws {
        let directory = TestScratch.path + "replay-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try """
            {"end":"2026-07-06T02:40:00+01:00","metadata":{"timeZone":"Europe/Lisbon"},"source":"Apple Watch","sourceBundleId":"com.apple.health","start":"2026-07-06T01:12:00+01:00","type":"sleepAnalysis","uuid":"ABC-123","value":"asleepREM","receivedAt":"2026-07-06T09:00:00+01:00"}
            not json

            {"uuid":"X","type":"heartRate"}
            {"end":"2026-07-06T01:00:00+01:00","source":"Apple Watch","start":"2026-07-06T01:12:00+01:00","type":"sleepAnalysis","uuid":"BACKWARDS","value":"awake"}
            """.write(toFile: directory + "/sleepAnalysis.ndjson", atomically: true, encoding: .utf8)
        try """
            {"averageHeartRate":132.5,"duration":3612.4,"end":"2026-07-05T19:30:12+01:00","metadata":{"HKIndoorWorkout":true},"source":"SmartGym","start":"2026-07-05T18:30:00+01:00","totalEnergyBurned":412,"type":"workout","uuid":"W-1","workoutActivityType":"traditionalStrengthTraining","receivedAt":"2026-07-06T09:00:00+01:00"}
            """.write(toFile: directory + "/workout.ndjson", atomically: true, encoding: .utf8)
        try #"{"deleted":["U1","U2"],"receivedAt":"2026-07-06T09:00:00+01:00"}"#
            .write(toFile: directory + "/_deleted.ndjson", atomically: true, encoding: .utf8)
        #expect(ReplaySource.recognizes(directory))
        #expect(ReplaySource.recognizes(directory + "/workout.ndjson"))

        let source = ReplaySource(configuration: .init(path: directory),
                                  context: SinkFixtures.context(directory))
        let output = CollectingOutput()
        try source.read(into: output)
        #expect(output.items.count == 3)
        guard case .sample(let sleep) = output.items[0], case .sample(let workout) = output.items[1],
              case .tombstone(let tombstone) = output.items[2] else {
            Issue.record("unexpected order \(output.items)")
            return
        }
        #expect(sleep.type == "HKCategoryTypeIdentifierSleepAnalysis")
        #expect(sleep.kind == .category)
        // Pulso's names, stored under HealthKit's, as a push of the same line stores them.
        #expect(sleep.categoryValue == "HKCategoryValueSleepAnalysisAsleepREM")
        #expect(sleep.timeZone == "Europe/Lisbon")
        #expect(sleep.metadata.isEmpty)
        #expect(sleep.start.utcOffsetSeconds == 3600)
        #expect(workout.kind == .workout)
        #expect(workout.type == "HKWorkoutTypeIdentifier")
        if case .workout(let parts) = workout.detail {
            #expect(parts.activityType == "HKWorkoutActivityTypeTraditionalStrengthTraining")
            #expect(parts.totalEnergyBurnedKilocalories == 412)
        } else {
            Issue.record("no workout detail")
        }
        #expect(tombstone.ids == ["U1", "U2"])
        #expect(output.skips.map(\.location) == ["sleepAnalysis.ndjson:2", "sleepAnalysis.ndjson:4", "sleepAnalysis.ndjson:5"])
        #expect(output.skips.last?.reason.contains("end before start") == true, "\(output.skips)")
        // A line without a start names the field, as a push's reply does.
        #expect(output.skips.dropFirst().first?.reason == "start: missing or not a string", "\(output.skips)")
    }

    /// A line that escapes half a UTF-16 surrogate pair (`"\ud800"`, or a low half alone) is
    /// skipped, with its line and why, as the push source refuses a batch that holds one: it was
    /// kept with U+FFFD in its place without a word (and `\ud800\u0041` lost its `A` too). A file
    /// whose only line is one is a replay file with a bad line, not another format; a whole pair
    /// is a character.
    @Test func aLoneSurrogateEscapeSkipsItsLine() throws {
        let directory = TestScratch.path + "replay-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func line(_ id: String, source: String) -> String {
            #"{"end":"2026-07-06T08:01:00Z","source":"\#(source)","start":"2026-07-06T08:01:00Z","type":"heartRate","unit":"count/min","uuid":"\#(id)","value":61}"#
        }
        let path = directory + "/heartRate.ndjson"
        try [line("H-1", source: #"W\ud800X"#), line("H-2", source: #"W\ud800\u0041"#), line("H-3", source: #"W\ud83d\ude00"#),
             line("H-4", source: #"W\udc00"#), line(#"H-5\ud800"#, source: "W")].joined(separator: "\n")
            .write(toFile: path, atomically: true, encoding: .utf8)
        let output = CollectingOutput()
        try ReplaySource(configuration: .init(path: path), context: SinkFixtures.context(directory)).read(into: output)
        let samples = output.items.compactMap { if case .sample(let sample) = $0 { sample } else { nil } }
        #expect(samples.map(\.id) == ["H-3"])
        #expect(samples.first?.sourceName == "W\u{1F600}")
        #expect(output.skips.map(\.location) == ["heartRate.ndjson:1", "heartRate.ndjson:2", "heartRate.ndjson:4", "heartRate.ndjson:5"])
        #expect(output.skips.allSatisfy { $0.reason == ReplaySource.loneSurrogateProblem }, "\(output.skips)")

        let alone = directory + "/alone.ndjson"
        try (line("H-1", source: #"W\ud800"#) + "\n").write(toFile: alone, atomically: true, encoding: .utf8)
        #expect(try ReplaySource.formatProblem(alone) == nil)
    }

    /// A sample without `type`, which a Pulso server takes and files in `unknown.ndjson`, is read
    /// as of type `unknown`, as the push source takes it (the file was refused whole as "not
    /// NDJSON of health samples").
    @Test func aPulsoServersUnknownFileIsRead() throws {
        let directory = TestScratch.path + "replay-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try #"{"uuid":"U-1","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":5,"unit":"count","source":"P","receivedAt":"2026-07-06T08:00:01+00:00"}"#
            .write(toFile: directory + "/unknown.ndjson", atomically: true, encoding: .utf8)
        let output = CollectingOutput()
        try ReplaySource(configuration: .init(path: directory), context: SinkFixtures.context(directory)).read(into: output)
        #expect(output.skips.isEmpty, "\(output.skips)")
        guard output.items.count == 1, case .sample(let sample) = output.items[0] else {
            Issue.record("\(output.items)")
            return
        }
        #expect(sample.id == "U-1" && sample.type == "unknown" && sample.value == 5 && sample.unit == "count")
    }

    /// A first line longer than the 64 MiB the format check looks at is a sample still when it
    /// starts as one (the ndjson sink writes a workout with a million route points so), not a file
    /// of another format left unread; a long line that starts otherwise is still another format.
    @Test func aFirstLineLongerThanTheFormatCheckIsReadWhenItStartsAsASample() throws {
        let directory = TestScratch.path + "replay-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let padding = String(repeating: "x", count: ReplaySource.maxLineBytesToLookAt + 1024)
        let line = #"{"end":"2026-07-06T08:01:00Z","source":"W","start":"2026-07-06T08:01:00Z","type":"heartRate","unit":"count/min","uuid":"H-1","value":61,"metadata":{"note":""# + padding + "\"}}\n"
        try line.write(toFile: directory + "/big.ndjson", atomically: false, encoding: .utf8)
        #expect(try ReplaySource.formatProblem(directory + "/big.ndjson") == nil)
        let output = CollectingOutput()
        try ReplaySource(configuration: .init(path: directory + "/big.ndjson"), context: SinkFixtures.context(directory)).read(into: output)
        #expect(output.items.count == 1)
        try ("[" + padding + "]\n").write(toFile: directory + "/other.ndjson", atomically: false, encoding: .utf8)
        #expect(try ReplaySource.formatProblem(directory + "/other.ndjson") != nil)
        // After a blank line too; but not a document that wraps samples in a list.
        try ("\n" + line).write(toFile: directory + "/blank.ndjson", atomically: false, encoding: .utf8)
        #expect(try ReplaySource.formatProblem(directory + "/blank.ndjson") == nil)
        try (#"{"samples":["# + line.dropLast() + "]}\n").write(toFile: directory + "/wrapped.ndjson", atomically: false, encoding: .utf8)
        #expect(try ReplaySource.formatProblem(directory + "/wrapped.ndjson") != nil)
    }

    /// A field that must be text given as another type is a bad line, not a field left out: an
    /// `end` of epoch seconds read as absent made a sleep stage last no time, a `userId` of a
    /// number gave the sample to no user. Absent or null, each is left out as before.
    @Test func aTextFieldOfAnotherTypeIsABadLine() {
        let base = #""source":"W","start":"2026-07-06T08:00:00Z","type":"sleepAnalysis","uuid":"S-1","value":"asleepCore""#
        for (field, value) in [("end", "1783324800"), ("end", "[]"), ("end", "true"), ("userId", "42"), ("creationDate", "{}"),
                               ("timeZone", "3600"), ("type", "42")] {
            guard case .failure(let failure) = ReplaySource.item(ArraySlice("{\(base),\"\(field)\":\(value)}".utf8)) else {
                Issue.record("\(field): \(value) taken")
                continue
            }
            #expect(failure.problem == "\(field) is not a string", "\(field): \(value)")
        }
        guard case .success(.sample(let sample)) = ReplaySource.item(ArraySlice("{\(base),\"end\":null,\"userId\":null}".utf8)) else {
            Issue.record("null fields not taken")
            return
        }
        #expect(sample.end == sample.start && sample.userId == nil)
    }

    /// Up to 64 MiB (`LeadingWhiteSpace.limit`) of blank lines lead a file taken for NDJSON; past
    /// them the sniff stops (a file of 512 MiB of spaces was read to its end) and the file is not
    /// taken, named `.ndjson` or not: the export source refuses it, saying what it begins with.
    @Test func replayFilesAreNotRecognizedPast64MiBOfBlankLines() throws {
        let directory = makeTemporaryDirectory()
        let good = Data((Self.line(SinkFixtures.heartRate) + "\n").utf8)
        for (name, count, recognized) in [("at.txt", LeadingWhiteSpace.limit, true), ("at.ndjson", LeadingWhiteSpace.limit, true),
                                          ("over.txt", LeadingWhiteSpace.limit + 1, false),
                                          ("over.ndjson", LeadingWhiteSpace.limit + 1, false)] {
            let path = directory + "/" + name
            try (Data([0xEF, 0xBB, 0xBF]) + Data(repeating: 0x0A, count: count) + good).write(to: URL(fileURLWithPath: path))
            #expect(ReplaySource.recognizes(path) == recognized, "\(name)")
            try FileManager.default.removeItem(atPath: path)
        }
    }

    /// A file is taken for NDJSON by its first non-blank byte, however many blank lines lead it
    /// (past 4 KiB of them it was called no export and refused), or by its name (`.ndjson`,
    /// `.jsonl`: a bad first line is then counted as bad, not taken for another format).
    @Test func replayFilesAreRecognizedPastBlankLinesAndByName() throws {
        let directory = makeTemporaryDirectory()
        let good = Self.line(SinkFixtures.heartRate)
        let blanks = directory + "/blanks.txt"
        try (String(repeating: "\n \r\n", count: 20_000) + good + "\n").write(toFile: blanks, atomically: true, encoding: .utf8)
        #expect(ReplaySource.recognizes(blanks))
        let named = directory + "/named.ndjson"
        try ("[1,2]\n" + good + "\n").write(toFile: named, atomically: true, encoding: .utf8)
        #expect(ReplaySource.recognizes(named))
        let unnamed = directory + "/unnamed.txt"
        try ("[1,2]\n" + good + "\n").write(toFile: unnamed, atomically: true, encoding: .utf8)
        #expect(!ReplaySource.recognizes(unnamed))
    }

    /// A Pulso line whose value leaves the range of a double once converted (`1e308 mi` in metres)
    /// is a bad line, not a sample without a value.
    @Test func aValueOutOfRangeOnceConvertedIsABadLine() {
        let line = #"{"end":"2026-07-06T08:01:00Z","source":"W","start":"2026-07-06T08:01:00Z","type":"distanceWalkingRunning","unit":"mi","uuid":"D-1","value":1e308}"#
        guard case .failure(let failure) = ReplaySource.item(ArraySlice(line.utf8)) else {
            Issue.record("taken")
            return
        }
        #expect(failure.problem == "value out of range once converted to its canonical unit")
        // healthrouter's own line (with `kind`, not converted) out of range as written: a bad line too.
        let own = #"{"end":"2026-07-06T08:01:00Z","kind":"quantity","source":"W","start":"2026-07-06T08:01:00Z","type":"stepCount","unit":"count","uuid":"S-1","value":1e400}"#
        guard case .failure(let ownFailure) = ReplaySource.item(ArraySlice(own.utf8)) else {
            Issue.record("taken")
            return
        }
        #expect(ownFailure.problem == "value out of a double's range")
        // A route point's coordinate out of range (stored, it was null, and the sqlite sink refused the workout).
        let route = #"{"end":"2026-07-06T08:30:00Z","kind":"workout","source":"W","start":"2026-07-06T08:00:00Z","type":"workout","uuid":"W-1","activityType":"running","routes":[{"points":[{"time":"2026-07-06T08:01:00Z","latitude":1e400,"longitude":13.4}]}]}"#
        guard case .success(.sample(let workout)) = ReplaySource.item(ArraySlice(route.utf8)),
              case .workout(let detail) = workout.detail else {
            Issue.record("not read")
            return
        }
        // The point is left out (as GPX, an export's Location and HAE leave it out), not the workout.
        #expect(detail.routes.first?.points.isEmpty == true)
    }

    /// A key given twice in a line counts once, with its last value, as the push source and
    /// Pulso's server read it: the line replayed is the sample it was pushed as.
    @Test func aRepeatedKeyTakesItsLastValue() throws {
        let line = #"{"uuid":"DK-1","type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":60,"value":99,"unit":"count/min","source":"First","source":"Last"}"#
        guard case .success(.sample(let sample)) = ReplaySource.item(ArraySlice(line.utf8)) else {
            Issue.record("not read")
            return
        }
        #expect(sample.value == 99 && sample.sourceName == "Last")
        // In metadata too.
        let nested = #"{"uuid":"DK-2","type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":60,"unit":"count/min","source":"S","metadata":{"k":"first","a":1,"k":"last"}}"#
        guard case .success(.sample(let withMetadata)) = ReplaySource.item(ArraySlice(nested.utf8)) else {
            Issue.record("not read")
            return
        }
        #expect(withMetadata.metadata == [MetadataEntry("a", .number(1)), MetadataEntry("k", .string("last"))])
    }

    /// A folder's `*.ndjson` entries that are not regular files (a folder, a pipe, which would
    /// block the read forever) are passed over; the files beside them are read.
    @Test func aFolderReadsItsRegularFilesOnly() throws {
        let directory = TestScratch.path + "replay-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory + "/c.ndjson", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try (#"{"end":"2026-07-06T08:01:00Z","source":"W","start":"2026-07-06T08:01:00Z","type":"heartRate","unit":"count/min","uuid":"H-1","value":61}"# + "\n")
            .write(toFile: directory + "/a.ndjson", atomically: true, encoding: .utf8)
        #expect(mkfifo(directory + "/b.ndjson", 0o644) == 0)
        try FileManager.default.createSymbolicLink(atPath: directory + "/d.ndjson", withDestinationPath: directory + "/gone.ndjson")
        #expect(try ReplaySource.files(in: directory) == [directory + "/a.ndjson"])
        let output = CollectingOutput()
        try ReplaySource(configuration: .init(path: directory), context: SinkFixtures.context(directory)).read(into: output)
        #expect(output.items.count == 1)
        // Each one passed over is said so, by name.
        #expect(output.skips.map { $0.location ?? "" } == ["b.ndjson", "c.ndjson", "d.ndjson"], "\(output.skips)")
        // A gzipped file among them (`dump | gzip > e.ndjson`) is skipped saying it is gzip.
        try Data([0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0, 3]).write(to: URL(fileURLWithPath: directory + "/e.ndjson"))
        // And one saved under its own name, which no *.ndjson pattern takes.
        try Data([0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0, 3]).write(to: URL(fileURLWithPath: directory + "/dump.ndjson.gz"))
        let again = CollectingOutput()
        try ReplaySource(configuration: .init(path: directory), context: SinkFixtures.context(directory)).read(into: again)
        #expect(again.skips.contains { $0.location == "e.ndjson" && $0.reason.contains("gzip-compressed")
                    && $0.reason.contains("gunzip -c") }, "\(again.skips)")
        #expect(again.skips.contains { $0.location == "dump.ndjson.gz" && $0.reason.contains("gunzip -c")
                    && $0.reason.contains("/dump.ndjson'") }, "\(again.skips)")
    }

    /// A file cut short (a copy that stopped mid-line): what comes before the cut is kept, and the
    /// read fails saying so, rather than skipping the cut line as a bad one and succeeding. A bad
    /// last line that is whole (JSON, or followed by its newline) is still a skipped line.
    @Test func aFileCutInTheMiddleOfALineFailsAfterKeepingTheLinesBefore() throws {
        let directory = TestScratch.path + "replay-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let good = (1...3).map { #"{"end":"2026-07-06T08:0\#($0):00Z","source":"Watch","start":"2026-07-06T08:0\#($0):00Z","type":"heartRate","unit":"count/min","uuid":"H-\#($0)","value":6\#($0)}"# }
        let path = directory + "/dump.ndjson"
        try (good.joined(separator: "\n") + "\n" + #"{"end":"2026-07-06T08:04:00Z","source":"Wat"#)
            .write(toFile: path, atomically: true, encoding: .utf8)
        let output = CollectingOutput()
        let source = ReplaySource(configuration: .init(path: path), context: SinkFixtures.context(directory))
        let error = #expect(throws: SourceError.self) { try source.read(into: output) }
        #expect(error?.location == "line 4")
        #expect(error?.problem.contains("the file ends in the middle of a line") == true, "\(String(describing: error))")
        #expect(output.items.count == 3)
        #expect(output.skips.isEmpty)
        // The summary's "how far it was read": to the cut, the file's end (a small file sent no progress before).
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(output.bytesRead == Int64(size))
        // The same cut line followed by its newline: a bad line, skipped.
        try (good.joined(separator: "\n") + "\n" + #"{"end":"2026-07-06T08:04:00Z","source":"Wat"# + "\n")
            .write(toFile: path, atomically: true, encoding: .utf8)
        let whole = CollectingOutput()
        try source.read(into: whole)
        #expect(whole.items.count == 3)
        #expect(whole.skips.map(\.location) == ["dump.ndjson:4"])
    }

    @Test func aByteOrderMarkBeforeTheFirstLineIsIgnored() throws {
        let directory = TestScratch.path + "replay-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/dump.ndjson"
        let lines = """
            {"end":"2026-07-06T08:00:00Z","source":"Watch","start":"2026-07-06T08:00:00Z","type":"heartRate","unit":"count/min","uuid":"H-1","value":61}
            {"end":"2026-07-06T08:01:00Z","source":"Watch","start":"2026-07-06T08:01:00Z","type":"heartRate","unit":"count/min","uuid":"H-2","value":62}

            """
        try Data([0xEF, 0xBB, 0xBF] + Array(lines.utf8)).write(to: URL(fileURLWithPath: path))
        #expect(ReplaySource.recognizes(path))
        let output = CollectingOutput()
        try ReplaySource(configuration: .init(path: path), context: SinkFixtures.context(directory)).read(into: output)
        #expect(output.skips.isEmpty, "\(output.skips)")
        #expect(output.items.compactMap { if case .sample(let sample) = $0 { sample.id } else { nil } } == ["H-1", "H-2"])
    }

    /// A file led by a megabyte of blank lines (`\n`, spaces and tabs before `\r\n`, one cut in two by
    /// the reader's 1 MiB reads) is read as NDJSON: the lines after them are imported, and a bad line
    /// among them is named by its own number. A line holding a lone `\r` between spaces is no blank
    /// line: it is handed out (and skipped as bad). The reader passes a run of blank lines over in
    /// one scan (line by line, 20 MB of them read at about 1 MB/s).
    @Test func linesAfterAMegabyteOfBlankLinesKeepTheirNumbers() throws {
        let directory = TestScratch.path + "replay-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func sample(_ id: String) -> String {
            #"{"end":"2026-07-06T08:00:00Z","source":"Watch","start":"2026-07-06T08:00:00Z","type":"heartRate","unit":"count/min","uuid":"\#(id)","value":61}"#
        }
        // A byte-order mark, 700,002 `\n` and 100,000 `  \r\n`: the first read ends between the `\r`
        // and the `\n` of a blank line (3 + 700,002 + 4 × 87,142 + 3 = 1 MiB).
        var bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + [UInt8](repeating: 0x0A, count: 700_002)
        for _ in 0..<100_000 { bytes += Array("  \r\n".utf8) }
        #expect(bytes[(1 << 20) - 1] == 0x0D && bytes[1 << 20] == 0x0A)
        bytes += Array((sample("H-1") + "\n" + " \r \n" + "\t\n\n \n\t \r\n" + sample("H-2") + "\r\n  ").utf8)
        let path = directory + "/late.txt"
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        var lines: [(text: String, number: Int)] = []
        try NDJSONLineReader.forEachLine(path: path) { line, number, _ in lines.append((String(decoding: line, as: UTF8.self), number)) }
        #expect(lines.map(\.number) == [800_003, 800_004, 800_009], "\(lines.map(\.number))")
        #expect(lines.map(\.text) == [sample("H-1"), " \r ", sample("H-2")])

        #expect(ReplaySource.recognizes(path))
        let source = ReplaySource(configuration: .init(path: path), context: SinkFixtures.context(directory))
        try source.checkInput()
        let output = CollectingOutput()
        try source.read(into: output)
        #expect(output.items.compactMap { if case .sample(let sample) = $0 { sample.id } else { nil } } == ["H-1", "H-2"])
        #expect(output.skips.map(\.location) == ["late.txt:800004"], "\(output.skips)")
        #expect(output.bytesRead == Int64(bytes.count))
    }

    /// A line with a byte that is not UTF-8 (a damaged copy: `0x2D` `-` flipped to `0xAD` in an id)
    /// is skipped and counted with its line, not read with U+FFFD in place of the byte: the damaged
    /// id stood for the sample in the journal, and the right file imported after it added nothing.
    @Test func aLineThatIsNotUTF8IsABadLine() throws {
        let directory = TestScratch.path + "replay-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/dump.ndjson"
        let good = #"{"end":"2026-07-06T08:00:00Z","source":"Watch","start":"2026-07-06T08:00:00Z","type":"heartRate","unit":"count/min","uuid":"7A00F3C2-0000-4000-8000-000000000001","value":61}"#
        var damaged = Array(good.replacingOccurrences(of: "000000000001", with: "000000000002").utf8)
        let dash = Array(good.utf8).count - Array(#"0000-4000-8000-000000000001","value":61}"#.utf8).count - 1
        #expect(damaged[dash] == UInt8(ascii: "-"))
        damaged[dash] = 0xAD
        // And one whose damaged byte also makes a field unreadable (`2026\u{AD}07-06`): the byte is the reason.
        var date = Array(good.replacingOccurrences(of: "000000000001", with: "000000000003").utf8)
        date[date.firstIndex(of: UInt8(ascii: "-"))!] = 0xAD
        try Data(Array(good.utf8) + [0x0A] + damaged + [0x0A] + date + [0x0A]).write(to: URL(fileURLWithPath: path))
        let output = CollectingOutput()
        try ReplaySource(configuration: .init(path: path), context: SinkFixtures.context(directory)).read(into: output)
        #expect(output.items.compactMap { if case .sample(let sample) = $0 { sample.id } else { nil } }
                == ["7A00F3C2-0000-4000-8000-000000000001"])
        #expect(output.skips.count == 2)
        #expect(output.skips.first?.reason == "byte \(dash + 1) is not UTF-8 (a damaged file?)", "\(output.skips)")
        #expect(output.skips.first?.location == "dump.ndjson:2", "\(output.skips)")
        #expect(output.skips.last?.reason == "byte 13 is not UTF-8 (a damaged file?)", "\(output.skips)")
        #expect(output.skips.last?.location == "dump.ndjson:3", "\(output.skips)")
    }

    /// A file whose first lines are none of them samples is another format (a JSON document, a
    /// pretty-printed export of another app): refused with the reason, not imported as skips. Bad
    /// lines before the first good one are still skipped one by one.
    @Test func aFileWithoutSamplesIsNotAReplayFile() throws {
        let directory = TestScratch.path + "replay-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func read(_ text: String) throws -> CollectingOutput {
            let path = directory + "/input.json"
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            let output = CollectingOutput()
            try ReplaySource(configuration: .init(path: path), context: SinkFixtures.context(directory)).read(into: output)
            return output
        }
        for document in [#"{"hello":[1,2,3]}"#, "{\n  \"data\": {\n    \"metrics\": [\n      {\"name\": \"step_count\"}\n    ]\n  }\n}\n"] {
            #expect {
                _ = try read(document)
            } throws: { error in
                let text = "\(error)"
                return text.contains("input.json, line 1: this is not NDJSON of health samples")
                    && text.contains("hint: import an export.zip or export.xml")
            }
        }
        let good = Self.line(SinkFixtures.heartRate)
        let late = try read("not json\n{\"uuid\":\"X\"}\n" + good + "\n")
        #expect(late.items.count == 1)
        #expect(late.skips.map(\.location) == ["input.json:1", "input.json:2"])
        // Samples with a bad value (a kind a newer healthrouter wrote) are the right format: skipped.
        let newer = try read(String(repeating: good.replacingOccurrences(of: "\"kind\":\"quantity\"", with: "\"kind\":\"hologram\"") + "\n",
                                    count: 6))
        #expect(newer.items.isEmpty && newer.skips.count == 6 && newer.skips[0].reason == "unknown kind 'hologram'",
                "\(newer.skips)")

        // Lines are found however they are cut into reads, and one longer than asked for stops the reader.
        let long = directory + "/long.ndjson"
        try (String(repeating: "x", count: 3_000_000) + "\n" + good + "\n").write(toFile: long, atomically: true, encoding: .utf8)
        var lengths: [Int] = []
        try NDJSONLineReader.forEachLine(path: long) { line, _, _ in lengths.append(line.count) }
        #expect(lengths == [3_000_000, good.utf8.count])
        #expect(throws: NDJSONLineReader.LineTooLong.self) {
            try NDJSONLineReader.forEachLine(path: long, maxLineBytes: 1 << 20) { _, _, _ in }
        }
        // A run of NUL bytes (a power cut's) ends the line before it and is no line, however long and
        // wherever the reads cut it (3 MiB of them were a line of 3 MiB; a gigabyte, a gigabyte).
        let zeros = directory + "/zeros.ndjson"
        var bytes = Array((good + "\n" + good).utf8) + [UInt8](repeating: 0, count: 3 << 20) + Array((good + "\n").utf8)
        bytes += [UInt8](repeating: 0, count: (1 << 20) - bytes.count % (1 << 20)) + Array((good + "\n").utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: zeros))
        var found: [(Int, Int)] = []
        try NDJSONLineReader.forEachLine(path: zeros) { line, number, _ in found.append((line.count, number)) }
        #expect(found.map(\.0) == Array(repeating: good.utf8.count, count: 4))
        #expect(found.map(\.1) == [1, 2, 2, 3])
        // A run in the middle of a line cuts it in two parts of that line's number: the lines after
        // keep theirs.
        let middle = directory + "/middle.ndjson"
        try Data(Array("ab".utf8) + [0, 0, 0] + Array("cd\n".utf8) + Array((good + "\n").utf8)).write(to: URL(fileURLWithPath: middle))
        var numbered: [(String, Int)] = []
        try NDJSONLineReader.forEachLine(path: middle) { line, number, _ in numbered.append((String(decoding: line, as: UTF8.self), number)) }
        #expect(numbered.map(\.0) == ["ab", "cd", good] && numbered.map(\.1) == [1, 1, 2], "\(numbered)")
        let afterZeros = try read(String(decoding: bytes, as: UTF8.self))
        #expect(afterZeros.items.count == 4 && afterZeros.skips.isEmpty, "\(afterZeros.items.count) \(afterZeros.skips)")

        // In a folder, a file of another format is skipped and the others are read.
        let folder = directory + "/lake"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try (good + "\n").write(toFile: folder + "/heartRate.ndjson", atomically: true, encoding: .utf8)
        try "{\n  \"not\": \"ndjson\"\n}\n".write(toFile: folder + "/notes.ndjson", atomically: true, encoding: .utf8)
        let source = ReplaySource(configuration: .init(path: folder), context: SinkFixtures.context(directory))
        try source.checkInput()
        let output = CollectingOutput()
        try source.read(into: output)
        #expect(output.items.count == 1)
        #expect(output.skips.map(\.location) == ["notes.ndjson"])
        #expect(output.skips.first?.reason.hasPrefix("not NDJSON of health samples (file not read): this is not NDJSON") == true)
    }
}

/// A journal dump lists every version of a changed sample: importing it (or an ndjson folder)
/// gives the sample its last version, one sample, not a second one beside the first.
@Suite struct ReplayOfChangedSamplesTests {
    @Test func aDumpWithEveryVersionOfAChangedSampleImportsAsItsLastVersion() throws {
        let directory = makeTemporaryDirectory()
        func export(_ motion: Int) -> String {
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="en_US">
             <ExportDate value="2024-03-08 10:00:00 -0800"/>
             <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Watch" unit="count/min" value="61" \
            startDate="2024-03-07 13:00:00 -0800" endDate="2024-03-07 13:00:00 -0800">
              <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="\(motion)"/>
             </Record>
            </HealthData>
            """
        }
        try export(0).write(toFile: directory + "/first.xml", atomically: true, encoding: .utf8)
        try export(2).write(toFile: directory + "/second.xml", atomically: true, encoding: .utf8)
        for file in ["first.xml", "second.xml"] {
            #expect(try CommandRunner.run(["import", file, "-q"], in: directory).status == 0)
        }
        let dump = try CommandRunner.run(["dump", "--output", "journal.ndjson"], in: directory)
        #expect(dump.status == 0, "\(dump.stderr)")
        let lines = try String(contentsOfFile: directory + "/journal.ndjson", encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2)
        let config = try writeConfig("""
            state_directory: \(directory)/fresh
            sinks:
              local: { type: sqlite, path: \(directory)/fresh/health.sqlite }
            """, in: directory)
        for input in ["journal.ndjson", "healthrouter-data/ndjson"] {
            let replayed = try CommandRunner.run(["import", input, "--config", config, "-q"], in: directory)
            #expect(replayed.status == 0, "\(replayed.stdout)\(replayed.stderr)")
            let store = try SQLiteDatabase(path: directory + "/fresh/health.sqlite", readOnly: true)
            #expect(try store.scalarInt("SELECT count(*) FROM samples") == 1, "\(input)")
            #expect(try store.scalarText("SELECT metadata FROM samples") == #"{"HKMetadataKeyHeartRateMotionContext":2}"#, "\(input)")
        }
    }
}
