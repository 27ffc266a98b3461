import Foundation
import TestSupport
import HealthRouterCore
import AppleHealthExportSource

/// A `SourceOutput` that keeps everything, for assertions.
final class CollectingOutput: SourceOutput {
    var items: [HealthItem] = []
    var batchSizes: [Int] = []
    var skips: [(reason: String, location: String?)] = []
    /// Each progress report, with how many items had been emitted when it came.
    var progressReports: [(bytes: Int64, total: Int64?, itemsBefore: Int)] = []

    func emit(_ items: [HealthItem]) throws {
        batchSizes.append(items.count)
        // As every output does: a sample the source left without an id gets its fingerprint id.
        for var item in items {
            item.assignFingerprintIdIfMissing()
            self.items.append(item)
        }
    }

    func skipped(_ reason: String, location: String?) {
        skips.append((reason, location))
    }

    func progress(bytes: Int64, total: Int64?) {
        progressReports.append((bytes, total, items.count))
    }

    var samples: [Sample] {
        items.compactMap { if case .sample(let sample) = $0 { sample } else { nil } }
    }

    func samples(_ kind: SampleKind) -> [Sample] {
        samples.filter { $0.kind == kind }
    }

    func skipCount(containing text: String) -> Int {
        skips.filter { $0.reason.contains(text) }.count
    }
}

/// A fresh directory in `TestScratch.path`, removed at deinit.
final class TemporaryDirectory {
    let path: String

    init() throws {
        path = TestScratch.path + "healthrouter-export-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    func file(_ name: String) -> String { path + "/" + name }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        try write(name, Data(text.utf8))
    }

    @discardableResult
    func write(_ name: String, _ data: Data) throws -> String {
        let target = file(name)
        let folder = (target as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: target))
        return target
    }
}

/// What `scripts/generate-export.py` says it wrote.
struct GeneratorManifest: Decodable {
    var records: Int
    var quantity: Int
    var category: Int
    var correlation: Int
    var correlationMembers: Int
    var workout: Int
    var activitySummary: Int
    var profile: Int
    var other: Int
    var hrvRecords: Int
    var hrvBeats: Int
    var gpxRoutes: Int
    var gpxPoints: Int
    var locationRoutes: Int
    var locationPoints: Int
    var recordsWithoutStartDate: Int
    var isoDateRecords: Int
    var workoutsWithStatistics: Int
    var dataEntry: String?
    var days: Int
    /// ECG CSVs in the zip (none in an export.xml alone).
    var electrocardiograms: Int?
    /// ClinicalRecords, whose FHIR files only the zip holds.
    var clinicalRecords: Int?

    enum CodingKeys: String, CodingKey {
        case records, quantity, category, correlation, workout, profile, other, days
        case correlationMembers = "correlation_members", activitySummary = "activity_summary"
        case hrvRecords = "hrv_records", hrvBeats = "hrv_beats", gpxRoutes = "gpx_routes", gpxPoints = "gpx_points"
        case locationRoutes = "location_routes", locationPoints = "location_points"
        case recordsWithoutStartDate = "records_without_start_date", isoDateRecords = "iso_date_records"
        case workoutsWithStatistics = "workouts_with_statistics", dataEntry = "data_entry", electrocardiograms
        case clinicalRecords = "clinical_records"
    }
}

enum Fixtures {
    /// The repository root (this file is Tests/AppleHealthExportSourceTests/ExportTestSupport.swift).
    static let repositoryRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// Runs `python3` with `arguments`; returns standard output.
    static func python(_ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw FixtureError(message: "python3 \(arguments.joined(separator: " ")) failed with \(process.terminationStatus)")
        }
        return data
    }

    /// Runs the generator into `path`.
    static func generate(records: Int, to path: String, zip: Bool = false, quirks: Bool = false,
                         seed: Int = 1) throws -> GeneratorManifest {
        var arguments = [repositoryRoot + "/scripts/generate-export.py", "--records", String(records), "--out", path,
                         "--seed", String(seed)]
        if zip { arguments.append("--zip") }
        if quirks { arguments.append("--quirks") }
        return try JSONDecoder().decode(GeneratorManifest.self, from: python(arguments))
    }

    /// Writes a real zip file at `path` with `entries` (name, content) in order, with Python's zipfile.
    static func zip(_ entries: [(String, String)], to path: String, stored: Bool = false) throws {
        let script = """
        import json, sys, zipfile
        with open(sys.argv[2], encoding="utf-8") as listing:
            entries = json.load(listing)
        with zipfile.ZipFile(sys.argv[1], "w", compression=zipfile.\(stored ? "ZIP_STORED" : "ZIP_DEFLATED")) as archive:
            for name, text in entries:
                archive.writestr(name, text.encode("utf-8"))
        """
        // The entries go through a file: an argument holds at most 128 KiB (Linux's MAX_ARG_STRLEN).
        let json = try JSONSerialization.data(withJSONObject: entries.map { [$0.0, $0.1] })
        let listing = path + ".entries.json"
        try json.write(to: URL(fileURLWithPath: listing))
        defer { try? FileManager.default.removeItem(atPath: listing) }
        _ = try python(["-c", script, path, listing])
    }

    /// An export.xml around `body` (Records and other top-level elements).
    static func export(_ body: String, exportDate: String = "2023-01-02 10:00:00 -0800") -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <HealthData locale="en_US">
         <ExportDate value="\(exportDate)"/>
        \(body)
        </HealthData>

        """
    }

    /// Reads `path` with the source (user `u1`), state in `directory`.
    static func read(_ path: String, stateDirectory: String = TestScratch.path) throws -> CollectingOutput {
        let output = CollectingOutput()
        try source(path, stateDirectory: stateDirectory).read(into: output)
        return output
    }

    static func source(_ path: String, stateDirectory: String = TestScratch.path) -> AppleHealthExportSource {
        AppleHealthExportSource(
            configuration: .init(path: path, userId: "u1"),
            context: PluginContext(name: "history", stateDirectory: stateDirectory, logger: Logger(minimumLevel: .error)))
    }

    /// Reads `path`, expecting a `SourceError`; returns it and what was emitted before.
    static func readFailing(_ path: String) -> (SourceError?, CollectingOutput) {
        let output = CollectingOutput()
        do {
            try source(path).read(into: output)
            return (nil, output)
        } catch let error as SourceError {
            return (error, output)
        } catch {
            return (nil, output)
        }
    }
}

struct FixtureError: Error {
    var message: String
}
