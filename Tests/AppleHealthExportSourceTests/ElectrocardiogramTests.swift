import Foundation
import Testing
import HealthRouterCore
import AppleHealthExportSource

/// The ECG CSVs of an export (`electrocardiograms/ecg_2022-01-01.csv`), from a zip and from an
/// unpacked folder: each one a sample kept whole, every header row and every voltage.
@Suite struct ElectrocardiogramTests {
    static let english = """
        Name,Jane Appleseed
        Date of Birth,1990-02-02
        Recorded Date,2022-01-01 09:15:30 -0800
        Classification,Sinus Rhythm
        Symptoms,"Rapid, pounding, or fluttering heartbeat"
        Software Version,1.90
        Device,"Watch6,2"
        Sample Rate,512 hertz


        Lead,Lead I
        Unit,µV

        -3.954
        12.5,
        1e-3

        """

    /// A German phone's: localized labels, decimal commas, a trailing comma, CRLF line ends.
    static let german = "Name,Jane\r\nGeburtsdatum,1990-02-02\r\nAufnahmedatum,2022-01-02 10:00:00 +0100\r\n"
        + "Klassifizierung,Sinusrhythmus\r\nAbtastrate,512 Hertz\r\n\r\nAbleitung,Ableitung I\r\nEinheit,µV\r\n\r\n"
        + (0..<1024).map { "-12,\($0 % 10)," }.joined(separator: "\r\n") + "\r\n"

    /// The attribute names of an ECG's header rows, in Apple's order.
    static let names = ["name", "dateOfBirth", "recordedDate", "classification", "symptoms", "softwareVersion", "device",
                        "sampleRate", "lead", "unit"]

    static let heartRate = #"<Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Watch" unit="count/min" "#
        + #"startDate="2022-01-01 09:00:00 -0800" endDate="2022-01-01 09:00:00 -0800" value="60"/>"#

    static func electrocardiograms(_ output: CollectingOutput) -> [Sample] {
        output.samples.filter { $0.type == "HKDataTypeIdentifierElectrocardiogram" }
    }

    static func record(_ sample: Sample) throws -> GenericRecord {
        guard case .record(let record) = sample.detail else { throw FixtureError(message: "no record") }
        return record
    }

    @Test func zippedECGsAreSamplesKeptWhole() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("export.zip")
        try Fixtures.zip([("apple_health_export/electrocardiograms/ecg_2022-01-01.csv", Self.english),
                          ("apple_health_export/export.xml", Fixtures.export(Self.heartRate)),
                          ("apple_health_export/electrocardiograms/ecg_2022-01-02.csv", Self.german)], to: path)
        let output = try Fixtures.read(path, stateDirectory: directory.path)
        #expect(output.skips.isEmpty)
        let ecgs = Self.electrocardiograms(output)
        try #require(ecgs.count == 2)
        // After the data file's samples (whose ExportDate the journal hears first), one a batch.
        #expect(output.samples.first?.type == "HKQuantityTypeIdentifierHeartRate")
        #expect(output.batchSizes == [1, 1, 1])

        let english = ecgs[0]
        #expect(english.kind == .other)
        #expect(english.start.epochMilliseconds == 1_641_057_330_000)
        #expect(english.start.utcOffsetSeconds == -28_800)
        // 3 voltages at 512 Hz.
        #expect(english.end.epochMilliseconds - english.start.epochMilliseconds == 6)
        #expect(english.device == "Watch6,2")
        #expect(english.sourceVersion == "1.90")
        #expect(english.userId == "u1")
        let record = try Self.record(english)
        #expect(record.element == "Electrocardiogram")
        #expect(record.attributes.map(\.name) == Self.names)
        #expect(record[attribute: "symptoms"] == "Rapid, pounding, or fluttering heartbeat")
        #expect(record[attribute: "unit"] == "µV")
        #expect(record.children.count == 1)
        #expect(record.children.first?.element == "VoltageMeasurements")
        #expect(record.children.first?[attribute: "count"] == "3")
        #expect(record.children.first?[attribute: "values"] == "[-3.954,12.5,0.001]")

        // Localized labels kept as written; the date found among them; decimal commas read.
        let german = ecgs[1]
        #expect(german.start.epochMilliseconds == 1_641_114_000_000)
        #expect(german.end.epochMilliseconds - german.start.epochMilliseconds == 2_000)
        let germanRecord = try Self.record(german)
        #expect(germanRecord[attribute: "Klassifizierung"] == "Sinusrhythmus")
        #expect(germanRecord.children.first?[attribute: "count"] == "1024")
        #expect(germanRecord.children.first?[attribute: "values"]?.hasPrefix("[-12,-12.1,-12.2,") == true)

        // Progress does not stand at the zip's end while the ECGs are read: the last ECG's bytes
        // move it there, never back.
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        let reports = output.progressReports
        #expect(reports.last?.bytes == Int64(size))
        #expect(reports.allSatisfy { $0.total == Int64(size) })
        #expect(reports.filter { $0.itemsBefore < output.items.count }.allSatisfy { $0.bytes < Int64(size) })
        #expect(reports.contains { $0.itemsBefore == output.items.count - 1 })
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.bytes <= $1.bytes })
    }

    /// The same ECG under another file name (a later export numbers a day's ECGs otherwise) keeps its id.
    @Test func theIdComesFromTheContentNotTheFileName() throws {
        let directory = try TemporaryDirectory()
        let first = directory.file("first.zip")
        let second = directory.file("second.zip")
        try Fixtures.zip([("a/export.xml", Fixtures.export("")), ("a/electrocardiograms/ecg_2022-01-01.csv", Self.english)],
                         to: first)
        try Fixtures.zip([("b/export.xml", Fixtures.export("")), ("b/electrocardiograms/ecg_2022-01-01_2.csv", Self.english),
                          ("b/electrocardiograms/ecg_2022-01-01_3.csv", Self.english.replacingOccurrences(of: "12.5,", with: "12.6"))],
                         to: second)
        let one = Self.electrocardiograms(try Fixtures.read(first, stateDirectory: directory.path)).map(\.id)
        let two = Self.electrocardiograms(try Fixtures.read(second, stateDirectory: directory.path)).map(\.id)
        #expect(one.count == 1)
        #expect(two.count == 2)
        #expect(two.first == one.first)
        #expect(two.last != one.first)
    }

    /// A CSV that is not a whole ECG is reported with its reason and file, not stored; the others are.
    @Test func unusableCSVsAreReported() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("export.zip")
        let noDate = Self.english.replacingOccurrences(of: "Recorded Date,2022-01-01 09:15:30 -0800\n", with: "")
        let badVoltage = Self.english.replacingOccurrences(of: "12.5,\n", with: "12.5\nlead off\n")
        let noRate = Self.english.replacingOccurrences(of: "Sample Rate,512 hertz\n", with: "")
        try Fixtures.zip([("e/export.xml", Fixtures.export("")),
                          ("e/electrocardiograms/a.csv", "Date,Steps\n2022-01-01,1200\n"),
                          ("e/electrocardiograms/b.csv", noDate),
                          ("e/electrocardiograms/c.csv", badVoltage),
                          ("e/electrocardiograms/d.csv", "\n\n"),
                          ("e/electrocardiograms/e.csv", Self.english.components(separatedBy: "Lead,").first!),
                          ("e/electrocardiograms/f.csv", noRate)], to: path)
        let output = try Fixtures.read(path, stateDirectory: directory.path)
        let reasons = Dictionary(output.skips.map { ($0.location ?? "", $0.reason) }) { first, _ in first }
        #expect(reasons["entry e/electrocardiograms/a.csv"]?.contains("not an ECG") == true)
        #expect(reasons["entry e/electrocardiograms/b.csv"]?.contains("without a readable recorded date") == true)
        #expect(reasons["entry e/electrocardiograms/c.csv"]?.contains("unreadable voltage (\"lead off\") at line 16") == true)
        #expect(reasons["entry e/electrocardiograms/d.csv"]?.contains("empty") == true)
        #expect(reasons["entry e/electrocardiograms/e.csv"]?.contains("without voltages") == true)
        #expect(output.skips.count == 5)
        // No sample rate: no length.
        let kept = Self.electrocardiograms(output)
        #expect(kept.count == 1)
        #expect(kept.first.map { $0.end == $0.start } == true)
    }

    /// An unpacked export: the CSVs in `electrocardiograms/` and `ecg*.csv` in a folder of another
    /// (localized) name are read; other CSVs, symbolic links and deeper folders are not.
    @Test func unpackedExportFolder() throws {
        let directory = try TemporaryDirectory()
        let xml = try directory.write("apple_health_export/export.xml", Fixtures.export(Self.heartRate))
        try directory.write("apple_health_export/electrocardiograms/ecg_2022-01-01.csv", Self.english)
        try directory.write("apple_health_export/elektrokardiogramme/ecg_2022-01-02.csv", Self.german)
        try directory.write("apple_health_export/elektrokardiogramme/notizen.csv", "a,b\n")
        try directory.write("apple_health_export/workout-routes/deeper/ecg_2022-01-03.csv", Self.english)
        try directory.write("elsewhere/ecg_2022-01-04.csv", Self.english.replacingOccurrences(of: "12.5,", with: "13"))
        try FileManager.default.createSymbolicLink(atPath: directory.file("apple_health_export/electrocardiograms/ecg_link.csv"),
                                                   withDestinationPath: directory.file("elsewhere/ecg_2022-01-04.csv"))
        let output = try Fixtures.read(xml, stateDirectory: directory.path)
        let ecgs = Self.electrocardiograms(output)
        #expect(ecgs.count == 2)
        #expect(Set(ecgs.map(\.start.epochMilliseconds)) == [1_641_057_330_000, 1_641_114_000_000])
        #expect(output.skips.isEmpty)
        // Progress counts the two ECG files after export.xml, and moves while they are read.
        func size(_ name: String) throws -> Int64 {
            Int64(try #require(try FileManager.default.attributesOfItem(atPath: directory.file(name))[.size] as? Int))
        }
        let xmlSize = try size("apple_health_export/export.xml")
        let total = try xmlSize + size("apple_health_export/electrocardiograms/ecg_2022-01-01.csv")
            + size("apple_health_export/elektrokardiogramme/ecg_2022-01-02.csv")
        #expect(output.progressReports.allSatisfy { $0.total == total })
        #expect(output.progressReports.map(\.bytes).suffix(3)
            == [xmlSize, try xmlSize + size("apple_health_export/electrocardiograms/ecg_2022-01-01.csv"), total])
    }

    /// With the source's `time_zone`, an ECG gets that zone's offset at its instant, as the
    /// export's other samples, whatever offset its file wrote.
    @Test func aTimeZoneGivesTheECGItsOffset() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("export.zip")
        let summer = Self.english.replacingOccurrences(of: "2022-01-01 09:15:30 -0800", with: "2022-07-01 09:15:30 -0800")
        try Fixtures.zip([("e/export.xml", Fixtures.export("")), ("e/electrocardiograms/ecg_2022-07-01.csv", summer)], to: path)
        let source = AppleHealthExportSource(
            configuration: .init(path: path, timeZone: "America/Los_Angeles"),
            context: PluginContext(name: "history", stateDirectory: directory.path, logger: Logger(minimumLevel: .error)))
        let output = CollectingOutput()
        try source.read(into: output)
        let ecg = try #require(Self.electrocardiograms(output).first)
        #expect(ecg.start.utcOffsetSeconds == -25_200)
        #expect(ecg.end.utcOffsetSeconds == -25_200)
        #expect(Self.electrocardiograms(try Fixtures.read(path, stateDirectory: directory.path)).first?.start.utcOffsetSeconds
                == -28_800)
    }

    /// A localized file laid out as Apple writes it (eight rows, a blank one, lead and unit): its rows
    /// get the English names by their place, so `classification` and the device are there in every
    /// language; a rate in another script (`512ヘルツ`) is read by its number. The same recording in
    /// another language, or under another profile name, is the same sample (its id is its type,
    /// instant and voltages).
    @Test func aLocalizedFileIsTheSameECG() throws {
        func file(_ labels: [String], name: String, rate: String) -> String {
            let values = [name, "1990-02-02", "2022-01-01 09:15:30 -0800", "Sinus Rhythm", "None", "1.90", "\"Watch6,2\"", rate]
            return zip(labels, values).map { "\($0),\($1)" }.joined(separator: "\n") + "\n\n"
                + "\(labels[8]),Lead I\n\(labels[9]),µV\n\n-3.954\n12.5,\n1e-3\n"
        }
        let english = ["Name", "Date of Birth", "Recorded Date", "Classification", "Symptoms", "Software Version", "Device",
                       "Sample Rate", "Lead", "Unit"]
        let german = ["Name", "Geburtsdatum", "Aufnahmedatum", "Klassifizierung", "Symptome", "Softwareversion", "Gerät",
                      "Abtastrate", "Ableitung", "Einheit"]
        let japanese = ["名前", "生年月日", "記録日", "分類", "症状", "ソフトウェアバージョン", "デバイス", "サンプルレート", "誘導", "単位"]
        let directory = try TemporaryDirectory()
        var ids: [String] = []
        for (index, (labels, name, rate)) in [(english, "Jane", "512 hertz"), (german, "Jane", "512 Hertz"),
                                               (japanese, "Jane Doe", "512ヘルツ")].enumerated() {
            let path = directory.file("export\(index).zip")
            try Fixtures.zip([("e/export.xml", Fixtures.export("")),
                              ("e/electrocardiograms/ecg_2022-01-01.csv", file(labels, name: name, rate: rate))], to: path)
            let output = try Fixtures.read(path, stateDirectory: directory.path)
            let ecg = try #require(Self.electrocardiograms(output).first, "export \(index)")
            let record = try Self.record(ecg)
            #expect(record.attributes.map(\.name) == Self.names, "export \(index)")
            #expect(record[attribute: "classification"] == "Sinus Rhythm", "export \(index)")
            #expect(ecg.device == "Watch6,2", "export \(index)")
            #expect(ecg.sourceVersion == "1.90", "export \(index)")
            #expect(ecg.end.epochMilliseconds - ecg.start.epochMilliseconds == 6, "export \(index)")
            ids.append(ecg.id)
        }
        #expect(Set(ids).count == 1)
    }

    /// A sample rate that would make the recording longer than a day (near 0 Hz, which overflowed
    /// and trapped) leaves its end at its start, as no rate does; the ECG is kept.
    @Test func anImplausibleSampleRateLeavesTheEndAtTheStart() throws {
        for rate in ["0.0000000000000000000001 hertz", "0.00001 hertz", "-512 hertz", "0 hertz"] {
            let directory = try TemporaryDirectory()
            let path = directory.file("export.zip")
            try Fixtures.zip([("e/export.xml", Fixtures.export("")),
                              ("e/electrocardiograms/ecg.csv", Self.english.replacingOccurrences(of: "512 hertz", with: rate))],
                             to: path)
            let output = try Fixtures.read(path, stateDirectory: directory.path)
            let ecg = try #require(Self.electrocardiograms(output).first, "\(rate)")
            #expect(ecg.end == ecg.start, "\(rate)")
        }
        // So does one that would end past the year 9999, which no store holds.
        let directory = try TemporaryDirectory()
        let path = directory.file("export.zip")
        try Fixtures.zip([("e/export.xml", Fixtures.export("")),
                          ("e/electrocardiograms/ecg.csv", Self.english.replacingOccurrences(of: "2022-01-01 09:15:30 -0800",
                                                                                          with: "9999-12-31 23:59:59 +0000")
                                                           .replacingOccurrences(of: "512 hertz", with: "1 hertz"))], to: path)
        let late = try #require(Self.electrocardiograms(try Fixtures.read(path, stateDirectory: directory.path)).first)
        #expect(late.end == late.start)
    }

    /// One entry libarchive cannot read (here a compression method it does not know, 99) is left
    /// out and said so; the entries after it are read, not taken for a zip that ends early, and
    /// the workout whose route it was says nothing more of it.
    @Test func anUnreadableEntryIsLeftOutAndTheRestIsRead() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("export.zip")
        let workout = #"<Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" sourceName="Watch" "#
            + #"startDate="2022-01-01 08:00:00 -0800" endDate="2022-01-01 08:30:00 -0800"><WorkoutRoute sourceName="Watch">"#
            + #"<FileReference path="/workout-routes/route.gpx"/></WorkoutRoute></Workout>"#
        try Fixtures.zip([("e/export.xml", Fixtures.export(workout)), ("e/workout-routes/route.gpx", WorkoutTests.gpx),
                          ("e/electrocardiograms/ecg.csv", Self.english)], to: path)
        // The route's compression method, in its local header and its central directory record, becomes 99.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let name = Array("e/workout-routes/route.gpx".utf8)
        for (signature, methodAt, nameAt) in [([0x50, 0x4B, 3, 4] as [UInt8], 8, 30), ([0x50, 0x4B, 1, 2], 10, 46)] {
            let header = try #require((0..<(bytes.count - nameAt - name.count)).first { at in
                Array(bytes[at..<at + 4]) == signature && Array(bytes[at + nameAt..<at + nameAt + name.count]) == name
            })
            bytes[header + methodAt] = 99
            bytes[header + methodAt + 1] = 0
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let output = try Fixtures.read(path, stateDirectory: directory.path)
        #expect(Self.electrocardiograms(output).count == 1)
        #expect(output.samples(.workout).count == 1)
        let reasons = output.skips.map(\.reason)
        #expect(reasons.count == 1 && reasons[0].hasPrefix("Zip entry that cannot be read (")
                    && reasons[0].contains("Unsupported ZIP compression method") && reasons[0].hasSuffix("): left out"), "\(reasons)")
    }

    /// A CSV with NUL bytes is not text: skipped, not stored with bytes a database refuses.
    @Test func aFileWithNULBytesIsSkipped() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("export.zip")
        try Fixtures.zip([("e/export.xml", Fixtures.export("")),
                          ("e/electrocardiograms/ecg.csv", Self.english.replacingOccurrences(of: "Sinus Rhythm", with: "Sinus\u{0}Rhythm"))],
                         to: path)
        let output = try Fixtures.read(path, stateDirectory: directory.path)
        #expect(Self.electrocardiograms(output).isEmpty)
        #expect(output.skips.map(\.reason) == ["CSV file with NUL bytes (not a text file): not imported"])
    }
}
