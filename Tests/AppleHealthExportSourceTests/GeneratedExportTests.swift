import Foundation
import Testing
import HealthRouterCore
import AppleHealthExportSource

/// Whole exports written by scripts/generate-export.py, checked against its manifest.
@Suite struct GeneratedExportTests {
    @Test func plainXMLLandsEveryElementAsItsKind() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("export.xml")
        let manifest = try Fixtures.generate(records: 400, to: path)
        let output = try Fixtures.read(path)

        #expect(output.samples(.quantity).count == manifest.quantity)
        #expect(output.samples(.category).count == manifest.category)
        #expect(output.samples(.correlation).count == manifest.correlation)
        #expect(output.samples(.workout).count == manifest.workout)
        #expect(output.samples(.activitySummary).count == manifest.activitySummary)
        #expect(output.samples(.profile).count == manifest.profile)
        #expect(output.samples(.other).count == manifest.other)
        // No GPX folder next to this export.xml: each GPX route is reported, kept without points; no
        // clinical-records folder either: each clinical record is reported, kept without its FHIR resource.
        #expect(output.skipCount(containing: "WorkoutRoute file not found") == manifest.gpxRoutes)
        #expect(output.skipCount(containing: "FHIR resource file not found") == manifest.clinicalRecords)
        #expect(manifest.clinicalRecords == 3)
        #expect(output.skips.count == manifest.gpxRoutes + 3)
        #expect(Set(output.samples.map(\.id)).count == output.samples.count)
        #expect(output.samples.allSatisfy { $0.userId == "u1" })
    }

    @Test func zipWithLocalizedNameRoutesAndJunk() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("export.zip")
        let manifest = try Fixtures.generate(records: 300, to: path, zip: true)
        let output = try Fixtures.read(path, stateDirectory: directory.path)

        #expect(manifest.dataEntry == "apple_health_export/导出.xml")
        #expect(output.samples(.quantity).count == manifest.quantity)
        #expect(output.samples(.workout).count == manifest.workout)
        let routes = output.samples(.workout).compactMap { sample -> Workout? in
            if case .workout(let workout) = sample.detail { workout } else { nil }
        }.flatMap(\.routes)
        let gpxRoutes = routes.filter { $0.filePath != nil }
        #expect(gpxRoutes.count == manifest.gpxRoutes)
        #expect(gpxRoutes.map(\.points.count).reduce(0, +) == manifest.gpxPoints)
        #expect(gpxRoutes.allSatisfy { !$0.points.isEmpty && $0.points.allSatisfy { $0.speed != nil && $0.altitude != nil } })
        // The ECG CSV is an ECG; __MACOSX, .DS_Store and export_cda.xml are ignored.
        #expect(output.skips.isEmpty)
        #expect(manifest.electrocardiograms == 1)
        #expect(output.samples(.other).count == manifest.other + 1)
        // Each clinical record with its FHIR resource from the zip.
        let clinical = output.samples(.other).filter { $0.type.hasPrefix("HKClinicalTypeIdentifier") }
        #expect(clinical.count == manifest.clinicalRecords)
        #expect(clinical.allSatisfy { sample in
            if case .record(let record) = sample.detail { record.children.last?[attribute: "json"]?.contains("\"resourceType\"") == true } else { false }
        })
        let ecgs = output.samples.filter { $0.type == "HKDataTypeIdentifierElectrocardiogram" }
        #expect(ecgs.count == 1)
        #expect(ecgs.first.map { $0.end.epochMilliseconds - $0.start.epochMilliseconds } == 30_000)
        #expect(output.progressReports.last?.bytes == output.progressReports.last?.total)
    }

    @Test func quirksAreTolerated() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("export.xml")
        let manifest = try Fixtures.generate(records: 250, to: path, quirks: true, seed: 7)
        let output = try Fixtures.read(path)

        #expect(manifest.recordsWithoutStartDate == 1)
        #expect(output.skipCount(containing: "Record without a startDate") == 1)
        #expect(output.skips.first { $0.reason.contains("startDate") }?.location?.hasPrefix("line ") == true)
        // ISO 8601 dates are read like the export's own format.
        #expect(output.samples(.quantity).count == manifest.quantity)
        #expect(output.samples(.category).count == manifest.category)
        // The \x0b became a space; &amp; in a source name is decoded.
        let comment = output.samples.compactMap { $0.metadata[key: "HKMetadataKeyUserComment"] }
        #expect(comment == [.string("felt great")])
        #expect(output.samples.contains { $0.sourceName == "Fitness & Co" })
        // HRV beat times with U+202F and comma decimals all resolve.
        let beats = output.samples.compactMap { sample -> [Heartbeat]? in
            if case .heartbeats(let beats) = sample.detail { beats } else { nil }
        }
        #expect(beats.count == manifest.hrvRecords)
        #expect(beats.map(\.count).reduce(0, +) == manifest.hrvBeats)
        #expect(output.skipCount(containing: "InstantaneousBeatsPerMinute") == 0)
    }

    @Test func idsAreStableAcrossRuns() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("export.zip")
        _ = try Fixtures.generate(records: 200, to: path, zip: true, quirks: true)
        let first = try Fixtures.read(path, stateDirectory: directory.path)
        let second = try Fixtures.read(path, stateDirectory: directory.path)
        #expect(!first.samples.isEmpty)
        #expect(first.samples.map(\.id) == second.samples.map(\.id))
        #expect(first.items == second.items)
    }

    @Test func itemsComeInBoundedBatchesWithProgress() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("export.xml")
        _ = try Fixtures.generate(records: 14_000, to: path)
        let output = try Fixtures.read(path)
        #expect(output.batchSizes.count >= 3)
        #expect(output.batchSizes.allSatisfy { $0 <= 7000 })
        #expect(output.batchSizes.dropLast().allSatisfy { $0 >= 5000 })
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(output.progressReports.last?.bytes == Int64(size))
        #expect(output.progressReports.allSatisfy { $0.total == Int64(size) })
        #expect(zip(output.progressReports, output.progressReports.dropFirst()).allSatisfy { $0.bytes <= $1.bytes })
    }

    /// Reads a big export when HEALTHROUTER_BIG_EXPORT names one (a benchmark, not a unit test):
    /// prints items, time and peak memory.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["HEALTHROUTER_BIG_EXPORT"] != nil))
    func bigExportStreamsInFlatMemory() throws {
        let path = ProcessInfo.processInfo.environment["HEALTHROUTER_BIG_EXPORT"]!
        final class CountingOutput: SourceOutput {
            var count = 0
            var skipped = 0
            func emit(_ items: [HealthItem]) throws { count += items.count }
            func skipped(_ reason: String, location: String?) { skipped += 1 }
            func progress(bytes: Int64, total: Int64?) {}
        }
        let output = CountingOutput()
        let started = Date()
        try Fixtures.source(path).read(into: output)
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        print("big export: \(output.count) items, \(output.skipped) skipped, \(Date().timeIntervalSince(started)) s, max RSS \(usage.ru_maxrss / 1024) MB")
        #expect(output.count > 0)
    }
}
