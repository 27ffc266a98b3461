import Foundation
import Testing
import HealthRouterCore
import AppleHealthExportSource

/// A `ClinicalRecord`'s FHIR resource (`resourceFilePath`, a JSON file of the export) kept with it,
/// from a zip (before or after export.xml) and from an unpacked folder.
@Suite struct ClinicalResourceTests {
    static func record(_ identifier: String, _ file: String) -> String {
        #"<ClinicalRecord type="HKClinicalTypeIdentifierLabResultRecord" identifier=""# + identifier
            + #"" sourceName="Clinic" fhirVersion="4.0.1" receivedDate="2022-05-01 09:00:00 -0700" resourceFilePath="/clinical-records/"#
            + file + #""/>"#
    }

    static let body = [record("a", "Observation-1.json"), record("b", "Observation-2.json")].joined(separator: "\n")
    static let first = #"{"resourceType": "Observation", "id": "1", "code": {"text": "LDL"}, "valueQuantity": {"value": 96}}"#
    static let second = #"{"resourceType": "Observation", "id": "2", "code": {"text": "HDL"}}"#

    static func resources(_ output: CollectingOutput) -> [String?] {
        output.samples(.other).map { sample in
            guard case .record(let record) = sample.detail, record.children.last?.element == "FHIRResource" else { return nil }
            return record.children.last?[attribute: "json"]
        }
    }

    @Test func zippedResourcesBeforeAndAfterTheDataFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("export.zip")
        try Fixtures.zip([("apple_health_export/clinical-records/Observation-1.json", Self.first),
                          ("apple_health_export/export.xml", Fixtures.export(Self.body)),
                          ("apple_health_export/clinical-records/Observation-2.json", Self.second),
                          ("apple_health_export/clinical-records/Orphan-3.json", "{}")], to: path)
        let output = try Fixtures.read(path, stateDirectory: directory.path)
        #expect(Self.resources(output) == [Self.first, Self.second])
        #expect(output.skips.map(\.reason) == ["JSON file that no ClinicalRecord in the export references (not imported)"])
        #expect(output.skips.first?.location == "entry apple_health_export/clinical-records/Orphan-3.json")
    }

    /// The id stays the element's own (as before healthrouter read these files): the same record
    /// with or without its file is one sample, whose content changed.
    @Test func theIdIsTheRecordsWithOrWithoutItsFile() throws {
        let directory = try TemporaryDirectory()
        let with = directory.file("with.zip")
        let without = directory.file("without.zip")
        try Fixtures.zip([("e/export.xml", Fixtures.export(Self.body)), ("e/clinical-records/Observation-1.json", Self.first),
                          ("e/clinical-records/Observation-2.json", Self.second)], to: with)
        try Fixtures.zip([("e/export.xml", Fixtures.export(Self.body))], to: without)
        let read = try Fixtures.read(with, stateDirectory: directory.path)
        let bare = try Fixtures.read(without, stateDirectory: directory.path)
        #expect(read.samples(.other).map(\.id) == bare.samples(.other).map(\.id))
        #expect(Set(read.samples(.other).map(\.id)).count == 2)
        #expect(Self.resources(bare) == [nil, nil])
        #expect(bare.skipCount(containing: "FHIR resource file not found") == 2)
    }

    /// Beside an unpacked export.xml: the folder's file is read; a reference that leads out of the
    /// folder is reported, not followed.
    @Test func unpackedFolder() throws {
        let directory = try TemporaryDirectory()
        let xml = try directory.write("apple_health_export/export.xml", Fixtures.export(
            Self.record("a", "Observation-1.json") + "\n" + Self.record("b", "../../secret.json")))
        try directory.write("apple_health_export/clinical-records/Observation-1.json", Self.first)
        try directory.write("secret.json", #"{"password": "hunter2"}"#)
        let output = try Fixtures.read(xml, stateDirectory: directory.path)
        #expect(Self.resources(output) == [Self.first, nil])
        #expect(output.skips.map(\.reason) == ["clinical-record file reference leads out of the export's folder: not read"])
    }

    /// A damaged entry (its CRC does not match: a byte changed) is not taken for the file: the
    /// record is kept without it, the damage reported once; an ECG likewise.
    @Test func damagedEntriesAreNotImported() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("export.zip")
        let ecg = "Recorded Date,2022-01-01 09:15:30 -0800\nSample Rate,512 hertz\n\n17.25\n"
        try Fixtures.zip([("e/export.xml", Fixtures.export(Self.body)),
                          ("e/clinical-records/Observation-1.json", Self.first),
                          ("e/clinical-records/Observation-2.json", Self.second),
                          ("e/electrocardiograms/ecg.csv", ecg)], to: path, stored: true)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        for (text, damaged) in [(#""value": 96"#, #""value": 98"#), ("17.25", "17.75")] {
            let range = try #require(bytes.range(of: Data(text.utf8)))
            bytes.replaceSubrange(range, with: Data(damaged.utf8))
        }
        try bytes.write(to: URL(fileURLWithPath: path))
        let output = try Fixtures.read(path, stateDirectory: directory.path)
        #expect(Self.resources(output) == [nil, Self.second])
        #expect(output.samples.filter { $0.type == "HKDataTypeIdentifierElectrocardiogram" }.isEmpty)
        #expect(output.skips.map(\.location) == ["entry e/clinical-records/Observation-1.json", "entry e/electrocardiograms/ecg.csv"])
        #expect(output.skips.allSatisfy { $0.reason.hasPrefix("Zip entry may be damaged") })
    }

    /// A reference that climbs out of its folder names no entry of a zip (as beside an unpacked
    /// export it is not followed), though an entry of its file name is there; an empty reference and
    /// a file that is not JSON are reported (the text is kept).
    @Test func unusualReferencesAndFiles() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("export.zip")
        try Fixtures.zip([("e/export.xml", Fixtures.export([Self.record("a", "../../Observation-1.json"), Self.record("b", ""),
                                                           Self.record("c", "Observation-3.json")].joined(separator: "\n")
                                                              .replacingOccurrences(of: "/clinical-records/../../", with: "/../../")
                                                              .replacingOccurrences(of: "resourceFilePath=\"/clinical-records/\"",
                                                                                    with: "resourceFilePath=\"\""))),
                          ("e/Observation-1.json", Self.first),
                          ("e/clinical-records/Observation-3.json", "{not json")], to: path)
        let output = try Fixtures.read(path, stateDirectory: directory.path)
        #expect(Self.resources(output) == [nil, nil, "{not json"])
        #expect(output.skips.map(\.reason).sorted() == [
            "ClinicalRecord with an empty resourceFilePath (kept without a FHIR resource)",
            "ClinicalRecord's FHIR resource file is not valid JSON (kept as text; json_valid() tells)",
            "ClinicalRecord's FHIR resource file not found in the export (record kept without it)",
            "JSON file that no ClinicalRecord in the export references (not imported)",
        ])
    }
}
