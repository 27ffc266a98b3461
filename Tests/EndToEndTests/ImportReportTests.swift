import Testing
@testable import HealthRouterCore
@testable import HealthRouterCLI

/// The summary's wording where the counts could seem to contradict each other.
@Suite struct ImportReportTests {
    func report(written: Int, failure: String? = nil) -> ImportReport {
        var counters = ImportCounters()
        counters.appended.duplicates[.quantity] = 120
        var sink = SinkWorker.Progress()
        sink.written = written
        var summary = ImportRun.Summary()
        summary.sources = [ImportRun.SourceResult(name: "history", counters: counters, failure: failure)]
        summary.sinks["local"] = sink
        return ImportReport(summary: summary, inputs: ["export.zip"], sinkTypes: ["local": "sqlite"])
    }

    /// A file every element of which was skipped exits 65, unless it deleted something; a
    /// misconfigured sink (78) or one whose store is down (1) is said first.
    @Test func aFileOfNothingButSkipsIsADataErrorAfterTheSinksState() {
        func summary(deleted: Int = 0, sink: (inout SinkWorker.Progress) -> Void = { _ in }) -> ImportRun.Summary {
            var counters = ImportCounters()
            counters.skipped["Record with an unreadable startDate"] = 2
            counters.skippedExamples["Record with an unreadable startDate"] = "line 2"
            counters.appended.new[.profile] = 1
            counters.appended.deletedIds = deleted
            var progress = SinkWorker.Progress()
            sink(&progress)
            var summary = ImportRun.Summary()
            summary.sources = [ImportRun.SourceResult(name: "import", counters: counters)]
            summary.sinks["local"] = progress
            return summary
        }
        #expect(ImportCommand.exitCode(summary()) == .dataError)
        let errors = ImportReport(summary: summary(), inputs: ["old.xml"], sinkTypes: ["local": "sqlite"]).errors()
        #expect(errors.first?.hasPrefix("old.xml: none of its records could be imported: 2 elements skipped, "
                                        + "2 × Record with an unreadable startDate, first at line 2\n  hint: ") == true, "\(errors)")
        #expect(ImportCommand.exitCode(summary(deleted: 2)) == .success)
        #expect(ImportCommand.exitCode(summary { $0.gaveUp = "down"; $0.gaveUpMisconfigured = true }) == .config)
        #expect(ImportCommand.exitCode(summary { $0.gaveUp = "connection refused" }) == .incomplete)
    }

    @Test func nothingNewWithRowsWrittenSaysTheSinksCaughtUp() {
        let quiet = report(written: 0).render()
        #expect(quiet.contains("nothing new: every record was already imported"))
        let catchingUp = report(written: 40).render()
        #expect(!catchingUp.contains("every record was already imported"))
        #expect(catchingUp.contains("already in the journal; the sinks below caught up on what an earlier run left undelivered"))
        #expect(catchingUp.contains("local  sqlite  40 rows written"))
    }

    /// The records kept before an error are said once, at the end of the problem, before the hint.
    @Test func whatWasKeptIsSaidOnce() {
        let told = report(written: 0, failure: "export.zip: the XML ends early (the 120 items read before this point were kept)"
                                                + "\n  hint: copy the file again")
        #expect(told.errors() == ["export.zip: the XML ends early (the 120 items read before this point were kept)\n  hint: copy the file again"])
        let untold = report(written: 0, failure: "export.zip: not a zip")
        #expect(untold.errors() == ["export.zip: not a zip (the 120 records read before the error were kept)"])
        let hinted = report(written: 0, failure: "export.zip: not a zip\n  hint: give the export.zip")
        #expect(hinted.errors() == ["export.zip: not a zip (the 120 records read before the error were kept)\n  hint: give the export.zip"])
    }

    /// `--time-zone` on an import that met samples already in the journal says that those keep
    /// their offsets (a later import with the option changes nothing of them); not without the
    /// option, nor when nothing was already there (a first import's duplicates are records read twice).
    @Test func aTimeZoneGivenLateIsSaidToLeaveEarlierSamplesAlone() {
        var summary = report(written: 0).summary
        summary.sources[0].counters.appended.duplicates[.quantity] = 1_200
        let late = ImportReport(summary: summary, inputs: ["export.zip"], sinkTypes: ["local": "sqlite"], timeZone: "Europe/Berlin")
        #expect(late.render().contains("\n  time zone   --time-zone Europe/Berlin gives its offsets to samples new to the journal; "
                                        + "the 1,200 already in it keep the ones they were first imported with"), "\(late.render())")
        let without = ImportReport(summary: summary, inputs: ["export.zip"], sinkTypes: ["local": "sqlite"])
        #expect(!without.render().contains("time zone"))
        var fresh = report(written: 3).summary
        // A first import's duplicates: records the file gives twice.
        fresh.sources[0].counters.appended.duplicates = [.quantity: 5]
        fresh.sources[0].counters.appended.repeatedInInput = 5
        fresh.sources[0].counters.appended.new[.quantity] = 3
        let first = ImportReport(summary: fresh, inputs: ["export.zip"], sinkTypes: ["local": "sqlite"], timeZone: "Europe/Berlin")
        #expect(!first.render().contains("time zone"), "\(first.render())")
    }

    /// One record is one record, not "1 records".
    @Test func oneRecordIsSingular() {
        var summary = report(written: 1).summary
        summary.sources[0].counters.appended.duplicates[.quantity] = 1
        let text = ImportReport(summary: summary, inputs: ["export.zip"], sinkTypes: ["local": "sqlite"]).render()
        #expect(text.contains("\n  read        1 record: 1 quantity\n"), "\(text)")
    }

    /// Sink types of different lengths stay in a column, so the counts line up.
    @Test func sinkTypesArePaddedToAColumn() {
        var summary = report(written: 3).summary
        summary.sinks["tsdb"] = SinkWorker.Progress()
        let text = ImportReport(summary: summary, inputs: ["export.zip"], sinkTypes: ["local": "sqlite", "tsdb": "timescaledb"])
            .render()
        #expect(text.contains("\n    local  sqlite       3 rows written, caught up\n    tsdb   timescaledb  0 rows written, caught up"),
                "\(text)")
        // In the config's order, as `status` lists them; one it does not name after them.
        summary.sinks["archive"] = SinkWorker.Progress()
        let ordered = ImportReport(summary: summary, inputs: ["export.zip"], sinkTypes: ["local": "sqlite", "tsdb": "timescaledb"],
                                   sinkOrder: ["tsdb", "local"]).render()
        #expect(ordered.contains("\n    tsdb     timescaledb  0 rows written, caught up\n    local    sqlite       3 rows written, "
                                 + "caught up\n    archive               0 rows written, caught up"), "\(ordered)")
    }

    /// A config without sinks: the summary says where the samples went, and `check` warns.
    @Test func withoutSinksTheSummarySaysSo() throws {
        var summary = report(written: 0).summary
        summary.sinks = [:]
        let text = ImportReport(summary: summary, inputs: ["export.zip"], sinkTypes: [:]).render()
        #expect(text.contains("  sinks       none in the config: what was read stays in the journal (add one under sinks:)"))
        let config = try HealthRouterConfig.parse(yaml: "state_directory: ./data\n")
        #expect(config.warnings.map(\.message) == ["no sinks: samples are journaled but delivered nowhere"])
    }

    /// A file that failed after only skipped records still shows the summary with the skips' reasons
    /// (the error alone would hide why nothing was read); one that failed before anything shows none.
    @Test func aFailedImportThatOnlySkippedShowsTheSkips() {
        var counters = ImportCounters()
        counters.skipped["Record without a startDate"] = 2
        counters.skippedExamples["Record without a startDate"] = "line 3"
        var summary = ImportRun.Summary()
        summary.sources = [ImportRun.SourceResult(name: "import", counters: counters, failure: "cut.xml: truncated")]
        let report = ImportReport(summary: summary, inputs: ["cut.xml"], sinkTypes: [:])
        #expect(report.readAnything)
        let text = report.render()
        #expect(text.hasPrefix("imported cut.xml in "), "\(text)")
        #expect(text.contains("2 × Record without a startDate, first at line 3"), "\(text)")
        summary.sources = [ImportRun.SourceResult(name: "import", counters: ImportCounters(), failure: "cut.xml: truncated")]
        #expect(!ImportReport(summary: summary, inputs: ["cut.xml"], sinkTypes: [:]).readAnything)
    }

    /// With several files, where a skip was seen names its file; one file's summary stays as it was.
    @Test func skipPlacesNameTheirFileWhenSeveralWereRead() {
        var first = ImportCounters(), second = ImportCounters()
        first.appended.new[.quantity] = 10
        first.skipped["end before start"] = 2
        first.skippedExamples["end before start"] = "line 41"
        second.appended.new[.quantity] = 5
        second.skipped["not JSON"] = 1
        second.skippedExamples["not JSON"] = "b.ndjson:3"
        var summary = ImportRun.Summary()
        summary.sources = [ImportRun.SourceResult(name: "import", counters: first),
                           ImportRun.SourceResult(name: "import", counters: second)]
        let text = ImportReport(summary: summary, inputs: ["/tmp/a.xml", "/tmp/b.ndjson"], sinkTypes: [:]).render()
        #expect(text.contains("2 × end before start, first at /tmp/a.xml, line 41"), "\(text)")
        #expect(text.contains("1 × not JSON, first at /tmp/b.ndjson:3"), "\(text)")
        summary.sources.removeLast()
        let alone = ImportReport(summary: summary, inputs: ["/tmp/a.xml"], sinkTypes: [:]).render()
        #expect(alone.contains("2 × end before start, first at line 41"), "\(alone)")
    }

    /// Entries pruned at the end of the import (journal.retain) are said, with how long it took: the
    /// progress line stood at 100% meanwhile (4.5 s for 4.7M entries), and the summary said nothing.
    @Test func entriesPrunedAtTheEndAreSaid() {
        var summary = report(written: 3).summary
        #expect(!ImportReport(summary: summary, inputs: ["export.zip"], sinkTypes: ["local": "sqlite"], retain: "30d")
            .render().contains("pruned"))
        summary.pruned = 4_680_000
        summary.pruneSeconds = 4.5
        let text = ImportReport(summary: summary, inputs: ["export.zip"], sinkTypes: ["local": "sqlite"], retain: "30d").render()
        #expect(text.hasSuffix("\n  journal     pruned 4,680,000 entries older than 30d (journal.retain) in 4.5s"), "\(text)")
    }

    @Test func aCommandFailureInALogReadsAsItsMessageAndHint() {
        let missing = CommandFailure(message: "config file /etc/h.yaml does not exist", hint: "check the path", code: .config)
        #expect("\(missing)" == "config file /etc/h.yaml does not exist (hint: check the path)")
        #expect("\(CommandFailure(message: "no journal yet", hint: nil, code: .noInput))" == "no journal yet")
    }
}
