import TestSupport
import Foundation
import Testing
@testable import HealthRouterCore
@testable import HealthRouterCLI

/// The import's progress line, on a real terminal: `script` runs `healthrouter` on a
/// pseudo-terminal and records what it drew. Without a terminal, or with `--quiet`, nothing is drawn.
@Suite struct ProgressLineTests {
    /// Runs `healthrouter arguments…` in `directory` on a pseudo-terminal; returns its exit status
    /// and everything it wrote there (standard output and error together, as a terminal shows them).
    static func onTerminal(_ arguments: [String], in directory: String) throws -> (status: Int32, screen: String) {
        let (process, output) = try CommandRunner.startOnTerminal(arguments, in: directory)
        let screen = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: screen, as: UTF8.self))
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs script (bsdutils)"))
    func aTerminalSeesBytesRecordsRateAndETA() throws {
        let directory = makeTemporaryDirectory()
        try CommandRunner.generateExport(records: 60_000, to: directory + "/export.xml", zip: false, quirks: false)

        let first = try Self.onTerminal(["import", "export.xml"], in: directory)
        #expect(first.status == 0, "\(first.screen.suffix(2_000))")
        // Each redraw returns to the line's start and clears it.
        let draws = first.screen.components(separatedBy: "\r\u{1B}[K").dropFirst().map {
            $0.split(separator: "\r").first.map(String.init) ?? ""
        }
        #expect(draws.count >= 2, "\(first.screen.prefix(2_000))")
        #expect(draws.allSatisfy { $0.hasPrefix("importing export.xml  ") })
        // Bytes of the total with the share done, records, the rate, and an ETA while under way.
        let underWay = draws.filter { $0.contains(" / ") && $0.contains("%") && $0.contains("ETA ") }
        #expect(!underWay.isEmpty, "\(draws)")
        // (A first draw on a slow machine may come before the first MB: `512.0 kB / 27.1 MB`.)
        #expect(underWay.allSatisfy { $0.contains("B / ") && $0.contains(" MB  ") && $0.contains(" records  ") && $0.contains("/s") },
                "\(underWay)")
        // The last redraw, when the reading ended, agrees with the summary.
        #expect(first.screen.contains("imported export.xml in "))
        let read = try #require(first.screen.firstMatch(of: /read +([0-9,]+) records/)?.1, "\(first.screen.suffix(2_000))")
        #expect(draws.last?.contains("100%") == true && draws.last?.contains("  \(read) records  ") == true, "\(draws.last ?? "")")

        // --quiet on a terminal, and any run without one, draw nothing; the summary stays.
        let quiet = try Self.onTerminal(["import", "export.xml", "--quiet"], in: directory)
        #expect(quiet.status == 0)
        #expect(!quiet.screen.contains("\u{1B}[K") && quiet.screen.contains("nothing new"), "\(quiet.screen)")
        let piped = try CommandRunner.run(["import", "export.xml"], in: directory)
        #expect(piped.status == 0)
        #expect(!piped.stderr.contains("\u{1B}[K") && piped.stdout.contains("nothing new"), "\(piped.stderr)")
    }

    /// The redraws on `screen`: each returns to the line's start and clears it.
    static func draws(_ screen: String) -> [String] {
        screen.components(separatedBy: "\r\u{1B}[K").dropFirst().map { $0.split(separator: "\r").first.map(String.init) ?? "" }
    }

    /// The redraws of `backfill`'s and `migrate`'s line on `screen`: each returns to the line's
    /// start, then clears what is left of it after the text.
    static func deliveryDraws(_ screen: String) -> [String] {
        screen.components(separatedBy: "\r").filter { $0.count > 3 && $0.hasSuffix("\u{1B}[K") }.map { String($0.dropLast(3)) }
    }

    /// The journal pruned at the end of an import (journal.retain) is said on the line while it goes
    /// on, and in the summary: at 4.7M entries it took 4.5 s with the line at 100% and nothing said.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs script (bsdutils)"))
    func aTerminalSeesThePruningAtTheEnd() throws {
        let directory = makeTemporaryDirectory()
        try CommandRunner.generateExport(records: 2_000, to: directory + "/export.xml", zip: false, quirks: false)
        let config = try writeConfig("""
            state_directory: \(directory)/state
            journal: { retain: 0s }
            sinks:
              local: { type: sqlite, path: \(directory)/state/health.sqlite }
            """, in: directory)
        let run = try Self.onTerminal(["import", "export.xml", "--config", config], in: directory)
        #expect(run.status == 0, "\(run.screen.suffix(2_000))")
        let draws = Self.draws(run.screen)
        #expect(draws.contains { $0.hasPrefix("importing export.xml  ") && $0.hasSuffix("  pruning the journal (journal.retain)") },
                "\(draws)")
        // The last draw, after the pruning, no longer says it.
        #expect(draws.last?.contains("pruning") == false, "\(draws)")
        let entries = try #require(run.screen.firstMatch(of: /new +([0-9,]+)/)?.1, "\(run.screen)")
        #expect(run.screen.contains("  journal     pruned \(entries) entries older than 0s (journal.retain) in "), "\(run.screen)")
    }

    /// `backfill` from the journal and `migrate` from a sqlite store know what they go through: the
    /// line shows how far they are of it, the share done and an ETA (it showed samples written alone).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs script (bsdutils)"))
    func backfillAndMigrateShowTheirTotal() throws {
        let directory = makeTemporaryDirectory()
        try CommandRunner.generateExport(records: 3_000, to: directory + "/export.xml", zip: false, quirks: false)
        let config = try writeConfig("""
            state_directory: \(directory)/state
            sinks:
              local: { type: sqlite, path: \(directory)/state/health.sqlite }
              lake: { type: ndjson, directory: \(directory)/lake }
            """, in: directory)
        #expect(try CommandRunner.run(["import", "export.xml", "--config", config, "--quiet"], in: directory).status == 0)
        let head = try Journal(stateDirectory: directory + "/state").head()

        let backfill = try Self.onTerminal(["backfill", "lake", "--batch-size", "100", "--config", config], in: directory)
        #expect(backfill.status == 0, "\(backfill.screen.suffix(2_000))")
        let backfillDraws = Self.deliveryDraws(backfill.screen)
        #expect(!backfillDraws.isEmpty, "\(backfill.screen.prefix(2_000))")
        let total = "/ \(NumberText.grouped(head)) entries  "
        #expect(backfillDraws.allSatisfy { $0.hasPrefix("backfilling lake: ") && $0.contains(total) && $0.contains("% ")
                                           && $0.contains(" samples written, ") }, "\(backfillDraws)")

        let migrate = try Self.onTerminal(["migrate", "--from", "local", "--to", "lake", "--batch-size", "100", "--config", config],
                                          in: directory)
        #expect(migrate.status == 0, "\(migrate.screen.suffix(2_000))")
        let migrated = try #require(migrate.screen.firstMatch(of: /([0-9,]+) samples and ([0-9,]+) tombstones delivered/),
                                    "\(migrate.screen)")
        let items = try #require(Int(migrated.1.replacingOccurrences(of: ",", with: ""))) + Int(migrated.2)!
        let migrateDraws = Self.deliveryDraws(migrate.screen)
        #expect(!migrateDraws.isEmpty, "\(migrate.screen.prefix(2_000))")
        #expect(migrateDraws.allSatisfy { $0.hasPrefix("migrating local → lake: ") && $0.contains("/ \(NumberText.grouped(items)) items  ")
                                          && $0.contains("% ") }, "\(migrateDraws)")
    }

    /// The ETA shows while a run with a known span is under way, measured from where it resumed.
    @Test func theDeliveryLineShowsTheShareDoneAndAnETA() {
        var counts = DirectDelivery.Counts()
        counts.samplesByType = ["HKQuantityTypeIdentifierHeartRate": 1_000]
        counts.position = 1_500
        let span = DeliveryProgress.Span(before: 500, last: 4_500, resumedAfter: 1_000, noun: "entries")
        #expect(DeliveryProgress.text(label: "backfilling lake", counts: counts, span: span, seconds: 10)
                == "backfilling lake: 1,000 / 4,000 entries  25%  1,000 samples written, 100/s  ETA 1m00s")
        #expect(DeliveryProgress.text(label: "backfilling lake", counts: counts, span: nil, seconds: 10)
                == "backfilling lake: 1,000 samples written, 100/s")
        // Past the last known position, without a newer one: the line stops at its total, without an ETA.
        counts.position = 5_000
        #expect(DeliveryProgress.text(label: "backfilling lake", counts: counts, span: span, seconds: 10)
                == "backfilling lake: 4,000 / 4,000 entries  100%  1,000 samples written, 100/s")
    }

    /// A backfill beside a daemon whose pushes grow the journal: once it reaches the head it
    /// started with, its total grows to the head now, and the line is under 100 % again.
    @Test func theDeliveryLineFollowsAGrowingJournal() throws {
        let progress = DeliveryProgress(label: "backfilling lake", quiet: true, notices: NoticeOutput(format: .text))
        progress.span = DeliveryProgress.Span(before: 500, last: 4_500, resumedAfter: 500, noun: "entries")
        var asked = 0
        progress.currentLast = { asked += 1; return 9_000 }
        progress.extendSpan(reaching: 4_000)
        #expect(asked == 0 && progress.span?.last == 4_500)
        progress.extendSpan(reaching: 4_500)
        #expect(asked == 1 && progress.span?.last == 9_000)
        var counts = DirectDelivery.Counts()
        counts.samplesByType = ["HKQuantityTypeIdentifierHeartRate": 4_000]
        counts.position = 4_500
        let span = try #require(progress.span)
        #expect(DeliveryProgress.text(label: "backfilling lake", counts: counts, span: span, seconds: 10)
                == "backfilling lake: 4,000 / 8,500 entries  47%  4,000 samples written, 400/s  ETA 11s")
    }
}
