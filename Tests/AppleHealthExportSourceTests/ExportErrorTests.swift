import Foundation
import Testing
import HealthRouterCore
import AppleHealthExportSource

/// Unusable inputs end the read with a `SourceError` that names the file and says what to do.
@Suite struct ExportErrorTests {
    @Test func missingFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("nope.zip")
        let (error, _) = Fixtures.readFailing(path)
        let failure = try #require(error)
        #expect(failure.input == path)
        #expect(failure.problem.contains("No such file"))
        #expect(failure.hint != nil)
    }

    /// An element nested 60,000 levels deep (a hostile file) is kept to 64 levels and reported, not
    /// walked recursively until the stack overflows; the records around it are kept.
    @Test func elementsNestedTooDeepAreCutAndReported() throws {
        let directory = try TemporaryDirectory()
        let depth = 60_000
        let body = #"<Record type="HKQuantityTypeIdentifierHeartRate" sourceName="X" unit="count/min" value="61" "#
            + #"startDate="2023-01-01 10:00:00 -0800" endDate="2023-01-01 10:00:00 -0800"/>"#
            + String(repeating: "<Foo>", count: depth) + String(repeating: "</Foo>", count: depth)
            + #"<ClinicalRecord type="x" sourceName="H">"# + String(repeating: "<a>", count: depth)
            + String(repeating: "</a>", count: depth) + "</ClinicalRecord>"
        let path = try directory.write("export.xml", Fixtures.export(body))
        let output = try Fixtures.read(path)
        #expect(output.samples(.quantity).count == 1)
        #expect(output.samples(.other).count == 2)
        #expect(output.skipCount(containing: "elements nested more than 64 levels deep in a <Foo>") == 1)
        #expect(output.skipCount(containing: "elements nested more than 64 levels deep in a <ClinicalRecord>") == 1)
        func depthOf(_ record: GenericRecord) -> Int { 1 + (record.children.map(depthOf).max() ?? 0) }
        for sample in output.samples(.other) {
            guard case .record(let record) = sample.detail else { Issue.record("no record"); continue }
            #expect(depthOf(record) == 64)
        }
    }

    /// An export.xml whose lines end in CR alone (an old Mac's, every `\n` a `\r`) names the lines
    /// of its problems, as one of LF or CR LF does: libxml2 counts LFs only, and said line 1 of all.
    @Test func problemsOfAFileWithCarriageReturnsAloneNameTheirLines() throws {
        let record = #"<Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" "#
            + #"startDate="2023-01-01 08:00:00 -0800" endDate="2023-01-01 08:10:00 -0800" value="10"/>"#
        let body = [record, record.replacingOccurrences(of: "value=\"10\"", with: "value=\"lots\""),
                    record.replacingOccurrences(of: "startDate=\"2023-01-01 08:00:00 -0800\" ", with: ""),
                    record.replacingOccurrences(of: "08:", with: "09:"), "<Bad></Worse>"].joined(separator: "\n")
        let directory = try TemporaryDirectory()
        for (name, lineEnd) in [("cr.xml", "\r"), ("crlf.xml", "\r\n"), ("lf.xml", "\n")] {
            let path = try directory.write(name, Fixtures.export(body).replacingOccurrences(of: "\n", with: lineEnd))
            let (error, output) = Fixtures.readFailing(path)
            #expect(output.skips.map(\.location) == ["line 5", "line 6"], "\(name): \(output.skips)")
            #expect(output.samples(.quantity).count == 2)
            #expect(error?.location == "line 8", "\(name): \(String(describing: error))")
            #expect(error?.problem.contains("mismatch") == true, "\(name): \(String(describing: error))")
        }
    }

    /// A tag that runs on for more than 1 MiB (an attribute value of gigabytes, a few MiB of zip)
    /// ends the read at its line, as a file that is not well-formed does, the records before it kept;
    /// libxml2 held it whole (XML_PARSE_HUGE lifts its own limit) and looked through all of it again
    /// at every chunk: a 4 MB zip had not finished after 5 minutes. In a GPX file it ends that file's points.
    @Test func aTagLongerThan1MiBEndsTheReadAtItsLine() throws {
        let directory = try TemporaryDirectory()
        let record = #"<Record type="HKQuantityTypeIdentifierHeartRate" sourceName="X" unit="count/min" value="61" "#
            + #"startDate="2023-01-01 10:00:00 -0800" endDate="2023-01-01 10:00:00 -0800""#
        let body = record + "/>\n" + record.replacingOccurrences(of: "10:00:00", with: "11:00:00") + ">\n"
            + #"  <MetadataEntry key="k" value=""# + String(repeating: "9", count: 2 << 20) + "\"/>\n</Record>"
        let path = try directory.write("export.xml", Fixtures.export(body))
        let (error, output) = Fixtures.readFailing(path)
        let failure = try #require(error)
        #expect(failure.input == path)
        #expect(failure.location == "line 6", "\(failure.location ?? "")")
        #expect(failure.problem.contains("more than 1 MiB without the end of the tag"), "\(failure.problem)")
        #expect(output.samples(.quantity).count == 1)

        // So does a tag of 200,000 attributes (3 MB), which libxml2 2.9 checks against each other:
        // read whole, it took 23 s (a million, minutes).
        let attributes = (0..<200_000).map { " a\($0)=\"\($0)\"" }.joined()
        let many = try directory.write("many.xml", Fixtures.export(record + "/>\n" + record + attributes + "/>"))
        let (manyError, manyOutput) = Fixtures.readFailing(many)
        #expect(manyError?.problem.contains("more than 1 MiB without the end of the tag") == true, "\(String(describing: manyError))")
        #expect(manyOutput.samples(.quantity).count == 1)

        // A GPX file's: its points after it are left out and reported, the import goes on.
        let workout = #"<Workout workoutActivityType="HKWorkoutActivityTypeRunning" sourceName="W" "#
            + #"startDate="2023-01-01 08:00:00 -0800" endDate="2023-01-01 09:00:00 -0800">"#
            + #"<WorkoutRoute sourceName="W"><FileReference path="/workout-routes/route.gpx"/></WorkoutRoute></Workout>"#
        let gpx = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n<gpx version=\"1.1\"><trk><trkseg>\n"
            + #"<trkpt lon="-122.03" lat="37.33"><time>2023-01-01T16:00:00Z</time></trkpt>"# + "\n"
            + #"<trkpt lon="-122.03" lat=""# + String(repeating: "3", count: 2 << 20) + "\"/>\n</trkseg></trk></gpx>\n"
        try directory.write("e/export.xml", Fixtures.export(workout))
        try directory.write("e/workout-routes/route.gpx", gpx)
        let zip = directory.file("export.zip")
        _ = try Fixtures.python(["-c", """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w", compression=zipfile.ZIP_DEFLATED) as archive:
                for name in ("e/export.xml", "e/workout-routes/route.gpx"):
                    archive.write(sys.argv[2] + "/" + name, name)
            """, zip, directory.path])
        let zipped = try Fixtures.read(zip, stateDirectory: directory.path)
        let route = try #require(zipped.samples(.workout).first.flatMap { sample -> WorkoutRoute? in
            guard case .workout(let workout) = sample.detail else { return nil }
            return workout.routes.first
        })
        #expect(route.points.count == 1)
        #expect(zipped.skips.map(\.reason) == ["GPX file is not well-formed (points after the error not imported): more than 1 MiB "
                                                + "without the end of the tag, comment or declaration that starts here (no Health "
                                                + "export has one so long)"], "\(zipped.skips)")
        #expect(zipped.skips.first?.location == "entry e/workout-routes/route.gpx, line 4")
    }

    /// A workout keeps its first 100,000 events, statistics, activities and routes and 250,000 route
    /// points (in all routes together, inline `Location`s and a GPX file's alike), an HRV record its
    /// first 100,000 beats and a correlation its first 10,000 members; past them the rest is left out
    /// and reported once: a zip of 7 MB holding 27 million of any of them took more than 3 GB.
    @Test func partsPastTheirLimitAreLeftOutAndReportedOnce() throws {
        let directory = try TemporaryDirectory()
        let dated = #"startDate="2023-01-01 08:00:00 -0800" endDate="2023-01-01 09:00:00 -0800""#
        var body = #"<Workout workoutActivityType="HKWorkoutActivityTypeRunning" sourceName="W" "# + dated + ">\n"
        for _ in 0..<100_001 { body += #"<WorkoutEvent type="HKWorkoutEventTypePause" date="2023-01-01 08:10:00 -0800"/>"# + "\n" }
        body += "</Workout>\n"
        body += #"<Workout workoutActivityType="HKWorkoutActivityTypeRunning" sourceName="W" "#
            + dated.replacingOccurrences(of: "2023-01-01", with: "2023-01-02") + ">\n<WorkoutRoute sourceName=\"W\">\n"
        for second in 0..<250_001 {
            body += #"<Location date="2023-01-02 08:00:00 -0800" latitude="52.5" longitude="13."# + "\(second)\"/>\n"
        }
        body += "</WorkoutRoute>\n<WorkoutRoute sourceName=\"W\"><FileReference path=\"/workout-routes/route.gpx\"/></WorkoutRoute>\n</Workout>\n"
        body += #"<Record type="HKQuantityTypeIdentifierHeartRateVariabilitySDNN" sourceName="W" unit="ms" value="48" "# + dated
            + ">\n<HeartRateVariabilityMetadataList>\n"
        for _ in 0..<100_001 { body += #"<InstantaneousBeatsPerMinute bpm="62" time="8:05:01.23 AM"/>"# + "\n" }
        body += "</HeartRateVariabilityMetadataList>\n</Record>\n"
        body += #"<Correlation type="HKCorrelationTypeIdentifierFood" sourceName="P" "# + dated + ">\n"
        for value in 0..<10_001 {
            body += #"<Record type="HKQuantityTypeIdentifierDietaryEnergyConsumed" sourceName="P" unit="kcal" value=""#
                + "\(value + 1)\" " + dated + "/>\n"
        }
        body += "</Correlation>\n"
        let path = try directory.write("export.xml", Fixtures.export(body))
        try directory.write("workout-routes/route.gpx", #"<?xml version="1.0" encoding="UTF-8"?>"#
            + #"<gpx><trk><trkseg><trkpt lon="13.4" lat="52.5"><time>2023-01-02T16:00:00Z</time></trkpt></trkseg></trk></gpx>"#)
        let output = try Fixtures.read(path)
        let workouts = output.samples(.workout).compactMap { if case .workout(let workout) = $0.detail { workout } else { nil } }
        #expect(workouts.map(\.events.count) == [100_000, 0])
        #expect(workouts.last?.routes.map(\.points.count) == [250_000, 0])
        let beats = output.samples(.quantity).compactMap { if case .heartbeats(let beats) = $0.detail { beats.count } else { nil } }
        #expect(beats == [100_000])
        let members = output.samples(.correlation).compactMap { if case .correlation(let ids) = $0.detail { ids.count } else { nil } }
        #expect(members == [10_000])
        #expect(output.samples(.quantity).count == 1 + 10_000)
        #expect(output.skips.map(\.reason) == [
            "Workout with more than 100,000 events, statistics, activities and routes: the rest left out",
            "Workout with more than 250,000 route points: the rest left out",
            "Record with more than 100,000 InstantaneousBeatsPerMinute: the rest left out",
            "Correlation with more than 10,000 member Records: the rest left out",
        ], "\(output.skips.prefix(8))")
        #expect(output.skips.map(\.location) == ["line 100005", "line 350009", "line 450015", "line 460019"])
    }

    /// What a zip's GPX and FHIR files take on disk while it is read is bounded by 16 times its size
    /// (at least 64 MiB): a file past it is reported and its points (or text) left out. A zip of 14 MB
    /// holding 200 GPX files of 250,000 identical points took 3.5 GB of the state directory's disk,
    /// one of 4 MB holding 250 FHIR files of 16 MiB of one letter 4.2 GB.
    @Test func whatAZipsRoutesAndClinicalFilesTakeOnDiskIsBounded() throws {
        let directory = try TemporaryDirectory()
        try directory.write("e/export.xml", Fixtures.export(""))
        let zip = directory.file("export.zip")
        // Five GPX files of 250,000 points (72 bytes each on disk: 90 MB) and five FHIR files of
        // 15 MiB, a few hundred KiB of zip: past 64 MiB, the fourth route is cut and the fifth of
        // each kind left out.
        _ = try Fixtures.python(["-c", """
            import sys, zipfile
            point = b'<trkpt lat="52.5" lon="13.4"><time>2023-01-01T10:00:00Z</time></trkpt>\\n'
            gpx = b'<?xml version="1.0" encoding="UTF-8"?><gpx><trk><trkseg>' + point * 250000 + b'</trkseg></trk></gpx>'
            with zipfile.ZipFile(sys.argv[1], "w", compression=zipfile.ZIP_DEFLATED) as archive:
                archive.write(sys.argv[2] + "/e/export.xml", "e/export.xml")
                for index in range(5):
                    archive.writestr("e/workout-routes/route_%d.gpx" % index, gpx)
                    archive.writestr("e/clinical-records/Observation-%d.json" % index, b'"' + b"x" * (15 << 20) + b'"')
            """, zip, directory.path])
        let output = try Fixtures.read(zip, stateDirectory: directory.path)
        let gpx = "GPX file past the 64 MiB the zip's routes may take on disk (16 times the zip's size, at least 64 MiB: a zip "
            + "that expands far more than an export does; its points from here on not imported)"
        let json = "JSON file past the 64 MiB the zip's clinical records may take on disk (16 times the zip's size, at least "
            + "64 MiB: a zip that expands far more than an export does; not imported)"
        #expect(output.skips.filter { $0.reason == gpx }.map(\.location)
                == ["entry e/workout-routes/route_3.gpx", "entry e/workout-routes/route_4.gpx"], "\(output.skips)")
        #expect(output.skips.filter { $0.reason == json }.map(\.location) == ["entry e/clinical-records/Observation-4.json"],
                "\(output.skips)")
    }

    /// A value in range as written but not once converted to the canonical unit (`1e308 mi` in
    /// metres, `1e308 min` in seconds) is skipped and reported, not stored as no value.
    @Test func aValueOutOfRangeOnceConvertedIsSkipped() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("export.xml", Fixtures.export("""
         <Record type="HKQuantityTypeIdentifierDistanceWalkingRunning" sourceName="P" unit="mi" value="1e308" startDate="2023-01-01 01:00:00 -0800" endDate="2023-01-01 01:10:00 -0800"/>
         <Record type="HKQuantityTypeIdentifierDistanceWalkingRunning" sourceName="P" unit="mi" value="2" startDate="2023-01-01 02:00:00 -0800" endDate="2023-01-01 02:10:00 -0800"/>
         <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="1e308" durationUnit="min" sourceName="W" startDate="2023-01-01 01:00:00 -0800" endDate="2023-01-01 01:30:00 -0800"/>
         <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" sourceName="W" startDate="2023-01-01 03:00:00 -0800" endDate="2023-01-01 03:30:00 -0800">
          <WorkoutEvent type="HKWorkoutEventTypeSegment" date="2023-01-01 03:00:00 -0800" duration="1e308" durationUnit="min"/>
         </Workout>
        """))
        let output = try Fixtures.read(path)
        #expect(output.samples.count == 1)
        #expect(output.skipCount(containing: "Workout with a workout event duration out of range") == 1, "\(output.skips)")
        #expect(output.samples.first?.value ?? 0 > 3218)
        #expect(output.skipCount(containing: "Quantity Record with a value out of range once converted from mi to m") == 1, "\(output.skips)")
        #expect(output.skipCount(containing: "Workout with a workout total out of range") == 1)
    }

    @Test func emptyFile() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("export.zip", "")
        let failure = try #require(Fixtures.readFailing(path).0)
        #expect(failure.input == path)
        #expect(failure.problem.contains("empty"))
    }

    @Test func truncatedXMLKeepsWhatCameBefore() throws {
        let directory = try TemporaryDirectory()
        let full = directory.file("full.xml")
        _ = try Fixtures.generate(records: 3000, to: full)
        let data = try Data(contentsOf: URL(fileURLWithPath: full))
        let path = try directory.write("export.xml", data.prefix(data.count * 2 / 3))
        let (error, output) = Fixtures.readFailing(path)
        let failure = try #require(error)
        #expect(failure.input == path)
        #expect(failure.location?.hasPrefix("line ") == true)
        #expect(failure.problem.contains("truncated"))
        #expect(failure.hint?.contains("Export") == true)
        #expect(output.samples.count > 1000)
        // What was kept is said once, at the end of the problem; the hint says what to do, no more.
        #expect(failure.problem.hasSuffix("; it is truncated (the \(NumberText.counted(output.items.count, "item")) read before "
                                          + "this point were kept)"), "\(failure.problem)")
        #expect(failure.hint == "copy the file again in full, or export again from the Health app (Profile → Export All Health Data)")
    }

    /// A file cut inside a tag (`<M` of a MetadataEntry) is truncated, nothing more: the
    /// half tag is not also counted as an unknown element.
    @Test func aFileCutInsideATagIsTruncatedNotAnUnknownElement() throws {
        let directory = try TemporaryDirectory()
        let head = """
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="en_US">
             <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="W" unit="count/min" value="60" \
            startDate="2024-01-15 10:00:00 -0800" endDate="2024-01-15 10:00:00 -0800">
              <Surprise/>
              <M
            """
        let path = try directory.write("export.xml", head)
        let (error, output) = Fixtures.readFailing(path)
        #expect(try #require(error).problem.contains("truncated"))
        #expect(output.skips.map(\.reason) == ["Unknown element <Surprise> inside <Record> not imported"])
    }

    @Test func truncatedZip() throws {
        let directory = try TemporaryDirectory()
        let full = directory.file("full.zip")
        _ = try Fixtures.generate(records: 2000, to: full, zip: true)
        let data = try Data(contentsOf: URL(fileURLWithPath: full))
        let path = try directory.write("export.zip", data.prefix(data.count / 2))
        let (error, _) = Fixtures.readFailing(path)
        let failure = try #require(error)
        #expect(failure.input == path)
        // A hint as every other: lower case, no full stop.
        #expect(failure.hint?.hasPrefix("the zip file is damaged or incomplete (truncated by a copy or a download?): copy it "
                                        + "again in full") == true, "\(failure)")
        #expect(failure.hint?.hasSuffix("(Profile → Export All Health Data)") == true, "\(failure)")
    }

    /// A zip cut in its central directory reads whole as a stream: the items are kept, and the
    /// read still fails saying the copy stopped.
    @Test func zipCutInItsCentralDirectory() throws {
        let directory = try TemporaryDirectory()
        let full = directory.file("full.zip")
        _ = try Fixtures.generate(records: 300, to: full, zip: true)
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: full)))
        // The end-of-central-directory record (no comment): the directory's size and offset.
        let end = data.count - 22
        #expect(Array(data[end..<(end + 4)]) == [0x50, 0x4B, 5, 6])
        func le32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(data[at + $1]) << (8 * $1) } }
        let directoryStart = le32(end + 16), directorySize = le32(end + 12)
        let wholeItems = try Fixtures.read(full).items.count
        for cut in [directoryStart + directorySize / 2, end + 10] {
            let path = try directory.write("cut-\(cut).zip", Data(data[..<cut]))
            let (error, output) = Fixtures.readFailing(path)
            let failure = try #require(error, "cut at \(cut) of \(data.count)")
            #expect(failure.problem.contains("its central directory, the index at its end, is cut off"), "\(failure)")
            #expect(failure.hint?.contains("copy the export.zip again") == true)
            #expect(output.items.count == wholeItems)
        }
    }

    /// An encrypted zip is not called damaged: the hint says what to do with a password.
    @Test func encryptedZip() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write("export.xml", Fixtures.export(""))
        let zip = Process()
        zip.executableURL = URL(fileURLWithPath: "/usr/bin/zip")
        zip.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        zip.arguments = ["-q", "-P", "secret", "locked.zip", "export.xml"]
        try zip.run()
        zip.waitUntilExit()
        #expect(zip.terminationStatus == 0)
        let failure = try #require(Fixtures.readFailing(directory.file("locked.zip")).0)
        #expect(failure.hint?.hasPrefix("the zip is encrypted") == true, "\(failure)")
        #expect(failure.hint?.hasSuffix("or zip it again without one") == true, "\(failure)")
    }

    @Test func zipWithoutHealthData() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("export.zip")
        try Fixtures.zip([
            ("__MACOSX/apple_health_export/._export.xml", "<HealthData>"),
            ("apple_health_export/export_cda.xml", "<?xml version=\"1.0\"?><ClinicalDocument/>"),
            ("notes.txt", "hello"),
        ], to: path)
        let (error, output) = Fixtures.readFailing(path)
        let failure = try #require(error)
        #expect(failure.input == path)
        #expect(failure.problem.contains("no Apple Health data file"))
        #expect(output.skips.map(\.location) == ["entry notes.txt"])
    }

    /// `checkInput` lists a zip's entries (headers only) and refuses one in which no entry can be
    /// the data file, before the journal is opened; a zip with an `.xml` entry of any name, or an
    /// entry without an extension, passes (its content is looked at when it is read).
    @Test func checkInputRefusesAZipWithoutAnXMLEntry() throws {
        let directory = try TemporaryDirectory()
        let notes = directory.file("notes.zip")
        try Fixtures.zip([("a.txt", "hi"), ("apple_health_export/export_cda.xml", "<ClinicalDocument/>"),
                          ("__MACOSX/._export.xml", "<HealthData>")], to: notes)
        let failure = try #require(throws: SourceError.self) { try Fixtures.source(notes).checkInput() }
        #expect(failure.input == notes)
        #expect(failure.problem.contains("not an Apple Health export") && failure.problem.contains("a.txt"), "\(failure.problem)")
        #expect(failure.hint != nil)
        let localized = directory.file("exportado.zip")
        try Fixtures.zip([("a.txt", "hi"), ("apple_health_export/导出.xml", Fixtures.export(""))], to: localized)
        try Fixtures.source(localized).checkInput()
        // The data file is found by its content: a repacked zip whose data file lost its extension passes too.
        let repacked = directory.file("repacked.zip")
        try Fixtures.zip([("a.txt", "hi"), ("health/export", Fixtures.export(""))], to: repacked)
        try Fixtures.source(repacked).checkInput()
    }

    @Test func nonHealthXML() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("export.xml", "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\"><trk/></gpx>\n")
        let failure = try #require(Fixtures.readFailing(path).0)
        #expect(failure.input == path)
        #expect(failure.location == "line 2")
        #expect(failure.problem.contains("not an Apple Health export"))
        #expect(failure.hint == "give the export.zip the Health app wrote (Profile → Export All Health Data), or the "
                    + "export.xml inside it")
        let clinical = try directory.write("export_cda.xml", "<?xml version=\"1.0\"?>\n<ClinicalDocument/>\n")
        #expect(try #require(Fixtures.readFailing(clinical).0).hint
                    == "this is export_cda.xml (clinical documents): give the export.xml next to it, or the export.zip")
    }

    @Test func notXMLAtAll() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("export.xml", "just some text\n")
        let failure = try #require(Fixtures.readFailing(path).0)
        #expect(failure.input == path)
        // Recognised before parsing: the message says what the file is not, not where XML broke.
        #expect(failure.problem.contains("not an Apple Health export (neither a zip file nor XML)"))
    }

    /// An export.xml (without its XML declaration) led by more than the 64 KiB the file's start is
    /// looked at of blank lines is read, its lines named as the file's: it was refused as neither a
    /// zip file nor XML. Another document so led is named with the line of its element; text so led
    /// is still no XML.
    @Test func anExportLedByMoreThan64KiBOfBlankLinesIsRead() throws {
        let directory = try TemporaryDirectory()
        let lead = String(repeating: "\n", count: 150_000)
        let record = #"<Record type="HKQuantityTypeIdentifierStepCount" sourceName="P" unit="count" "#
            + #"startDate="2023-01-01 08:00:00 -0800" endDate="2023-01-01 08:10:00 -0800" value="10"/>"#
        let export = Fixtures.export(record + "\n" + record.replacingOccurrences(of: "value=\"10\"", with: "value=\"lots\""))
        #expect(export.hasPrefix("<?xml"))
        let path = try directory.write("export.xml", lead + export.drop { $0 != "\n" }.dropFirst())
        let output = try Fixtures.read(path)
        #expect(output.samples(.quantity).count == 1)
        // The second record is line 5 of the export, line 4 without its declaration.
        #expect(output.skips.map(\.location) == ["line \(150_000 + 4)"], "\(output.skips)")

        let page = try directory.write("page.xml", lead + "<html><body/></html>\n")
        let notExport = try #require(Fixtures.readFailing(page).0)
        #expect(notExport.problem.contains("the document element is <html>, not <HealthData>"), "\(notExport.problem)")
        #expect(notExport.location == "line 150001")
        let text = try directory.write("text.xml", lead + "just some text\n")
        #expect(Fixtures.readFailing(text).0?.problem.contains("neither a zip file nor XML") == true)
    }

    /// In a zip too: an export.xml (without its declaration) led by more blank lines (here 200 KiB) than the 16 KiB
    /// an entry's start is looked at is the Health data file, read with its lines named as the
    /// entry's (the zip was refused as holding no file that could be the Health data). An entry of
    /// nothing but white space is still no Health data, reported as a file not imported.
    @Test func anExportInAZipLedByMoreThanItsSniffOfBlankLinesIsRead() throws {
        let directory = try TemporaryDirectory()
        let lead = "\u{FEFF}" + String(repeating: "\n", count: 150_000) + String(repeating: " \t\r\n", count: 10_000)
        #expect(lead.utf8.count > 64 << 10)
        let record = #"<Record type="HKQuantityTypeIdentifierStepCount" sourceName="P" unit="count" "#
            + #"startDate="2023-01-01 08:00:00 -0800" endDate="2023-01-01 08:10:00 -0800" value="10"/>"#
        let export = Fixtures.export(record + "\n" + record.replacingOccurrences(of: "value=\"10\"", with: "value=\"lots\""))
        let body = lead + export.drop { $0 != "\n" }.dropFirst()
        let path = directory.file("export.zip")
        try Fixtures.zip([("apple_health_export/export.xml", body),
                          ("apple_health_export/blank.xml", String(repeating: "\n", count: 100_000))], to: path)
        try Fixtures.source(path).checkInput()
        let output = try Fixtures.read(path)
        #expect(output.samples(.quantity).count == 1)
        // The second record is line 4 of the export without its declaration.
        #expect(output.skips.map(\.location) == ["entry apple_health_export/blank.xml", "line \(160_000 + 4)"],
                "\(output.skips)")
        #expect(output.skips.first?.reason.contains("not imported (not part of the Health data)") == true, "\(output.skips)")

        // Stored, not deflated, the same.
        let stored = directory.file("stored.zip")
        try Fixtures.zip([("apple_health_export/export.xml", body)], to: stored, stored: true)
        try Fixtures.source(stored).checkInput()
        #expect(try Fixtures.read(stored).samples(.quantity).count == 1)

        // Nothing but white space (or text after it) is still no Health data file.
        let blank = directory.file("blank.zip")
        try Fixtures.zip([("apple_health_export/export.xml", lead), ("apple_health_export/text.xml", lead + "just text\n")], to: blank)
        let refused = try #require(throws: SourceError.self) { try Fixtures.source(blank).checkInput() }
        #expect(refused.problem.contains("holds no file that could be the Health data"), "\(refused.problem)")
        #expect(Fixtures.readFailing(blank).0?.problem.contains("contains no Apple Health data file") == true)
    }

    /// A file, or a zip entry that may be the Health data, that begins with more than 64 MiB
    /// (`LeadingWhiteSpace.limit`) of white space is no export, and refused saying so, without
    /// being read further (a zip entry of 512 MiB of spaces was read to its end, 73 s, before it was
    /// refused); 64 MiB of it is still read past, to a document that follows.
    @Test func aFileLedByMoreThan64MiBOfWhiteSpaceIsRefused() throws {
        let directory = try TemporaryDirectory()
        #expect(LeadingWhiteSpace.limit == 64 << 20)
        let export = Data(Fixtures.export("").utf8)
        let atLimit = try directory.write("at.xml", Data(repeating: 0x0A, count: LeadingWhiteSpace.limit) + export)
        try Fixtures.source(atLimit).checkInput()
        let over = try directory.write("over.xml", Data([0xEF, 0xBB, 0xBF]) + Data(repeating: 0x20, count: LeadingWhiteSpace.limit + 1)
                                           + export)
        let refused = try #require(throws: SourceError.self) { try Fixtures.source(over).checkInput() }
        #expect(refused.problem == "the file begins with more than 64 MiB of white space before anything else: it is not an "
                    + "Apple Health export (which begins with <?xml or <HealthData), nor NDJSON", "\(refused.problem)")
        #expect(refused.hint?.contains("give the export.zip the Health app wrote") == true, "\(String(describing: refused.hint))")
        #expect(refused.hint?.hasPrefix("if the data follows them, remove the blank lines that lead it (sed -i "
                                        + "'/[^[:space:]]/,$!d' FILE)") == true, "\(String(describing: refused.hint))")

        // In a zip: an export.xml so led makes the zip none; beside the Health data, a file not imported.
        let zip = directory.file("blank.zip"), beside = directory.file("beside.zip")
        _ = try Fixtures.python(["-c", """
            import sys, zipfile
            limit, export = int(sys.argv[3]), sys.argv[4].encode()
            def blank(archive, name, count, tail=b""):
                with archive.open(name, "w") as entry:
                    for start in range(0, count, 1 << 20):
                        entry.write(b" \\n" * (min(1 << 20, count - start) // 2))
                    entry.write(tail)
            with zipfile.ZipFile(sys.argv[1], "w", compression=zipfile.ZIP_DEFLATED) as archive:
                blank(archive, "apple_health_export/export.xml", limit + 2, export)
            with zipfile.ZipFile(sys.argv[2], "w", compression=zipfile.ZIP_DEFLATED) as archive:
                blank(archive, "apple_health_export/blank.xml", limit + 2, export)
                blank(archive, "apple_health_export/export.xml", 0, export)
            """, zip, beside, String(LeadingWhiteSpace.limit), Fixtures.export("")])
        let notExport = try #require(throws: SourceError.self) { try Fixtures.source(zip).checkInput() }
        #expect(notExport.problem == "this zip is not an Apple Health export: it holds no file that could be the Health data "
                    + "(its files: apple_health_export/export.xml); apple_health_export/export.xml begins with more than 64 MiB "
                    + "of white space", "\(notExport.problem)")
        #expect(Fixtures.readFailing(zip).0?.problem.contains("contains no Apple Health data file") == true)
        try Fixtures.source(beside).checkInput()
        let output = try Fixtures.read(beside)
        #expect(output.skips.map(\.reason) == ["File in the zip not imported (it begins with more than 64 MiB of white space: "
                                                + "not part of the Health data)"], "\(output.skips)")
        #expect(output.skips.map(\.location) == ["entry apple_health_export/blank.xml"], "\(output.skips)")
    }

    /// An export.xml that keeps its XML declaration, led by blank lines, is read, in a plain file
    /// and in a zip: the white space goes after the declaration before libxml2 sees it (which
    /// refused it: "XML declaration allowed only at the start of the document"). The lines keep
    /// their numbers: a record skipped, and a break in the XML past the first read of the file,
    /// are named with their lines in the file, the blank ones counted.
    @Test func anExportLedByBlankLinesKeepingItsDeclarationIsRead() throws {
        let directory = try TemporaryDirectory()
        let record = #"<Record type="HKQuantityTypeIdentifierStepCount" sourceName="P" unit="count" "#
            + #"startDate="2023-01-01 08:00:00 -0800" endDate="2023-01-01 08:10:00 -0800" value="10"/>"#
        let lots = record.replacingOccurrences(of: "value=\"10\"", with: "value=\"lots\"")
        // Past ExportFile.chunkSize (256 KiB): 3,000 records of some 170 bytes.
        let many = (0..<3_000).map { record.replacingOccurrences(of: "08:10", with: "08:\(10 + $0 % 40)") + "\n" }.joined()
        let export = Fixtures.export(record + "\n" + lots)
        let broken = Fixtures.export(record + "\n" + many + #"<Record type="oops" sourceName="P" <broken/>"#)
        #expect(export.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"))
        // `lots` is line 5 of the export; the broken record line 3 + 1 + 3,000 + 1.
        let lead = String(repeating: "\n", count: 100_000)
        let plain = try directory.write("lead.xml", lead + export)
        let output = try Fixtures.read(plain)
        #expect(output.samples(.quantity).count == 1)
        #expect(output.skips.map(\.location) == ["line \(100_000 + 5)"], "\(output.skips)")
        let failure = try #require(Fixtures.readFailing(try directory.write("broken.xml", lead + broken)).0)
        #expect(failure.location == "line \(100_000 + 3_005)", "\(failure)")
        #expect(failure.problem.contains("not well-formed") && !failure.problem.contains("XML declaration"), "\(failure.problem)")

        // In a zip, led by a byte-order mark, CR LFs and tabs too (160,000 line feeds), the DOCTYPE
        // of a real export after the declaration (3 lines more).
        let zipLead = "\u{FEFF}" + String(repeating: "\n", count: 150_000) + String(repeating: " \t\r\n", count: 10_000)
        func doctyped(_ text: String) -> String {
            text.replacingOccurrences(of: "?>\n", with: "?>\n<!DOCTYPE HealthData [\n<!ELEMENT HealthData ANY>\n]>\n")
        }
        let zip = directory.file("export.zip")
        try Fixtures.zip([("apple_health_export/export.xml", zipLead + doctyped(export))], to: zip)
        try Fixtures.source(zip).checkInput()
        let zipped = try Fixtures.read(zip)
        #expect(zipped.samples(.quantity).count == 1)
        #expect(zipped.skips.map(\.location) == ["line \(160_000 + 3 + 5)"], "\(zipped.skips)")
        let brokenZip = directory.file("broken.zip")
        try Fixtures.zip([("apple_health_export/export.xml", zipLead + doctyped(broken))], to: brokenZip)
        let zipFailure = try #require(Fixtures.readFailing(brokenZip).0)
        #expect(zipFailure.location == "entry apple_health_export/export.xml, line \(160_000 + 3 + 3_005)", "\(zipFailure)")
    }

    /// An error inside an XML declaration that blank lines led, which the byte filter moved before
    /// them, is named at the declaration's line in the file (libxml2 said line 1): a declaration after
    /// 5 blank lines at line 6, one of two lines broken in its second at line 7; in a plain file, in a
    /// zip and in a GPX file. An error after the declaration keeps its line.
    @Test func anErrorInADeclarationLedByBlankLinesIsNamedAtItsLine() throws {
        let directory = try TemporaryDirectory()
        let record = #"<Record type="HKQuantityTypeIdentifierStepCount" sourceName="P" unit="count" "#
            + #"startDate="2023-01-01 08:00:00 -0800" endDate="2023-01-01 08:10:00 -0800" value="10"/>"#
        let export = Fixtures.export(record)
        let body = export.drop { $0 != "\n" }   // from the line feed after the declaration on
        let lead = String(repeating: "\n", count: 5)
        let cases: [(name: String, text: String, line: Int, problem: String)] = [
            ("encoding.xml", lead + #"<?xml version="1.0" encoding="bogus-enc"?>"# + body, 6, "Unsupported encoding bogus-enc"),
            ("broken.xml", lead + #"<?xml version="1.0" encoding=?>"# + body, 6, "String not started"),
            ("twoLines.xml", lead + "<?xml version=\"1.0\"\n encoding=\"bogus-enc\"?>" + body, 7, "Unsupported encoding"),
            ("bom.xml", "\u{FEFF}" + lead + " \t\r\n" + #"<?xml version="1.0" encoding="bogus-enc"?>"# + body, 7, "Unsupported encoding"),
            // After the declaration: its line in the file, as before (line 3 of the export, 5 lines on).
            ("after.xml", lead + export.replacingOccurrences(of: "<ExportDate", with: "<ExportDate <"), 8, "not well-formed"),
        ]
        for (name, text, line, problem) in cases {
            let failure = try #require(Fixtures.readFailing(try directory.write(name, text)).0, "\(name)")
            #expect(failure.location == "line \(line)", "\(name): \(failure)")
            #expect(failure.problem.contains(problem), "\(name): \(failure.problem)")
            let zip = directory.file(name + ".zip")
            try Fixtures.zip([("apple_health_export/export.xml", text)], to: zip)
            let zipped = try #require(Fixtures.readFailing(zip).0, "\(name)")
            #expect(zipped.location == "entry apple_health_export/export.xml, line \(line)", "\(name): \(zipped)")
        }
        // Not led by blank lines: line 1 still.
        let unled = try #require(Fixtures.readFailing(try directory.write("unled.xml", export.replacingOccurrences(
            of: "UTF-8", with: "bogus-enc"))).0)
        #expect(unled.location == "line 1", "\(unled)")

        // A GPX file's the same (its points are the ones lost, the import goes on).
        let gpx = "\n\n\n" + #"<?xml version="1.0" encoding="bogus-enc"?>"# + "\n<gpx version=\"1.1\"><trk><trkseg>\n"
            + #"<trkpt lon="-122.03" lat="37.33"><time>2023-01-01T16:00:00Z</time></trkpt>"# + "\n</trkseg></trk></gpx>\n"
        let routed = try directory.write("e/export.xml", Fixtures.export(WorkoutTests.modernWorkout))
        try directory.write("e/workout-routes/route_2023-01-01_8.00am.gpx", gpx)
        let output = try Fixtures.read(routed, stateDirectory: directory.path)
        #expect(output.skips.map(\.location) == [directory.file("e/workout-routes/route_2023-01-01_8.00am.gpx") + ", line 4"],
                "\(output.skips)")
        #expect(output.skips.first?.reason.contains("Unsupported encoding bogus-enc") == true, "\(output.skips)")
    }

    @Test func malformedXMLInsideAZipNamesTheEntryAndLine() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("export.zip")
        try Fixtures.zip([("apple_health_export/export.xml", Fixtures.export("""
         <Record type="HKQuantityTypeIdentifierStepCount" sourceName="P" unit="count" startDate="2023-01-01 01:00:00 +0100" endDate="2023-01-01 01:00:00 +0100" value="5"/>
         <Record type="oops" sourceName="P" <broken/>
        """))], to: path)
        let (error, output) = Fixtures.readFailing(path)
        let failure = try #require(error)
        #expect(failure.input == path)
        #expect(failure.location == "entry apple_health_export/export.xml, line 5")
        #expect(failure.problem.contains("not well-formed"))
        #expect(output.samples.count == 1)
        #expect(failure.problem.hasSuffix(" (the 1 item read before this point was kept)"), "\(failure.problem)")
        #expect(failure.hint == "the export is damaged: export again from the Health app (Profile → Export All Health Data); "
                    + "if it happens again, report the line")
    }

    /// A GPX file in the zip that no workout references is reported (its points are nowhere), not
    /// dropped without a word; a referenced one is not.
    @Test func aRouteFileNoWorkoutReferencesIsReported() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("export.zip")
        let gpx = """
            <?xml version="1.0" encoding="UTF-8"?><gpx version="1.1"><trk><trkseg>\
            <trkpt lon="-122.03" lat="37.33"><ele>10</ele><time>2023-01-01T09:00:00Z</time></trkpt>\
            </trkseg></trk></gpx>
            """
        try Fixtures.zip([
            ("apple_health_export/workout-routes/route_used.gpx", gpx),
            ("apple_health_export/workout-routes/route_orphan.gpx", gpx),
            ("apple_health_export/export.xml", Fixtures.export("""
             <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" sourceName="W" startDate="2023-01-01 01:00:00 -0800" endDate="2023-01-01 01:30:00 -0800">
              <WorkoutRoute sourceName="W" startDate="2023-01-01 01:00:00 -0800" endDate="2023-01-01 01:30:00 -0800">
               <FileReference path="/workout-routes/route_used.gpx"/>
              </WorkoutRoute>
             </Workout>
            """)),
        ], to: path)
        let output = try Fixtures.read(path, stateDirectory: directory.path)
        #expect(output.skipCount(containing: "GPX file that no workout in the export references") == 1)
        #expect(output.skips.contains { $0.location == "entry apple_health_export/workout-routes/route_orphan.gpx" }, "\(output.skips)")
        guard case .workout(let workout)? = output.samples.first?.detail else { Issue.record("no workout"); return }
        #expect(workout.routes.first?.points.count == 1)
    }

    /// Beside an unpacked export.xml, a FileReference is read only as a regular file inside the
    /// export's folder: one that leads out of it (`/../…`) is not opened, nor a pipe at the path
    /// (which would block the import forever); each is reported, the workout kept.
    @Test func aRouteReferenceIsReadOnlyInsideTheExportsFolder() throws {
        let directory = try TemporaryDirectory()
        let gpx = """
            <?xml version="1.0" encoding="UTF-8"?><gpx version="1.1"><trk><trkseg>\
            <trkpt lon="-122.03" lat="37.33"><ele>10</ele><time>2023-01-01T09:00:00Z</time></trkpt>\
            </trkseg></trk></gpx>
            """
        _ = try directory.write("outside.gpx", gpx)
        try FileManager.default.createDirectory(atPath: directory.file("export/workout-routes"), withIntermediateDirectories: true)
        #expect(mkfifo(directory.file("export/workout-routes/pipe.gpx"), 0o644) == 0)
        func workout(_ reference: String) -> String {
            """
             <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" sourceName="W" startDate="2023-01-01 01:00:00 -0800" endDate="2023-01-01 01:30:00 -0800">
              <WorkoutRoute sourceName="W" startDate="2023-01-01 01:00:00 -0800" endDate="2023-01-01 01:30:00 -0800">
               <FileReference path="\(reference)"/>
              </WorkoutRoute>
             </Workout>
            """
        }
        let path = try directory.write("export/export.xml", Fixtures.export(workout("/../outside.gpx") + workout("/workout-routes/pipe.gpx")))
        let output = try Fixtures.read(path, stateDirectory: directory.path)
        #expect(output.skipCount(containing: "route file reference leads out of the export's folder") == 1, "\(output.skips)")
        #expect(output.skipCount(containing: "route file is not a regular file") == 1, "\(output.skips)")
        #expect(output.skipCount(containing: "not found in the export") == 0)
        #expect(output.samples(.workout).count == 2)
        for sample in output.samples(.workout) {
            guard case .workout(let workout) = sample.detail else { continue }
            #expect(workout.routes.first?.points.isEmpty == true)
        }
    }

    /// A data file whose checksum does not match (a stored entry's byte changed: a `5` became a
    /// `7`) is read to its end, its items kept, then the error says the zip is damaged (exit 65
    /// for an import), not a skip line under an exit 0.
    @Test func aDataFileWithABadChecksumIsReadThenAnError() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("export.zip")
        try Fixtures.zip([("apple_health_export/export.xml", Fixtures.export("""
         <Record type="HKQuantityTypeIdentifierStepCount" sourceName="P" unit="count" startDate="2023-01-01 01:00:00 +0100" endDate="2023-01-01 01:00:00 +0100" value="5"/>
        """))], to: path, stored: true)
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        let value = try #require(data.range(of: Data("value=\"5\"".utf8)))
        data[value.upperBound - 2] = UInt8(ascii: "7")
        try data.write(to: URL(fileURLWithPath: path))
        let (error, output) = Fixtures.readFailing(path)
        #expect(output.samples.map(\.value) == [7])
        let failure = try #require(error)
        #expect(failure.location == "entry apple_health_export/export.xml")
        #expect(failure.problem.hasPrefix("the Health data file is damaged (ZIP bad CRC"), "\(failure.problem)")
        #expect(failure.problem.hasSuffix("it was read to its end and its items were kept, but some of them may hold wrong values"))
    }
}
