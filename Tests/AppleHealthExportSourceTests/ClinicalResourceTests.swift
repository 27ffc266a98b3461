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
}
