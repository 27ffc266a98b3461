import Foundation
import TestSupport
import Testing
@testable import HealthRouterCore

/// A finite source over a fixed list of items (the real file sources have their own tests).
struct ListSource: FiniteSource {
    var items: [HealthItem]
    var failAfter: Int?

    struct Broken: Error, CustomStringConvertible { var description: String { "list.ndjson, line 7: broken" } }

    func read(into output: SourceOutput) throws {
        for (index, chunk) in stride(from: 0, to: items.count, by: 100).enumerated() {
            if let failAfter, index >= failAfter { throw Broken() }
            try output.emit(Array(items[chunk..<min(items.count, chunk + 100)]))
        }
    }
}

@Suite struct ImportRunTests {
    func spec(_ directory: String, selects: @escaping @Sendable (String?, String) -> Bool = { _, _ in true }) -> SinkSpec {
        let budget = FailureBudget(0)
        return SinkSpec(name: "table", type: "test", makeSink: {
            try CheckedTableSink(path: directory + "/sink.sqlite", failures: budget)
        }, selects: selects)
    }

    func run(_ directory: String, _ source: ListSource, retain: Double?) throws -> ImportRun.Summary {
        let run = ImportRun(stateDirectory: directory, sinks: [spec(directory)], settings: SinkWorker.Settings(),
                            retainSeconds: retain, logger: Logger(minimumLevel: .error))
        return try run.run(sources: [("list", source)])
    }

    @Test func everythingReachesTheSinkAndRetainDecidesWhatStays() throws {
        let items = (0..<1_000).map { HealthItem.sample(heartRate(Double($0 % 90), at: Int64($0))) }
        let kept = makeTemporaryDirectory()
        let summary = try run(kept, ListSource(items: items), retain: nil)
        #expect(summary.succeeded)
        #expect(summary.sinks["table"]?.written == 1_000)
        #expect(summary.sources.map(\.name) == ["list"])
        #expect(summary.sources.first?.counters.appended.newCount == 1_000)
        #expect(summary.pruned == 0)
        #expect(try Journal(stateDirectory: kept).counts().entries == 1_000)

        let pruned = makeTemporaryDirectory()
        let second = try run(pruned, ListSource(items: items), retain: 0)
        #expect(second.pruned == 1_000)
        #expect(try Journal(stateDirectory: pruned).counts().entries == 0)
        // Pruned entries are still known: importing them again adds nothing.
        let again = try run(pruned, ListSource(items: items), retain: 0)
        #expect(again.sources.first?.counters.appended.newCount == 0)
        #expect(again.sinks["table"]?.written == 0)
    }

    /// The journal's commits reach the disk before their entries go to the sinks, and a worker's
    /// own writes (dead letters, gaps) before its sink's cursor passes them: a power cut must never
    /// leave a sink's durable cursor past the journal's durable end (the journal would hand the
    /// lost sequence numbers to new entries, which that sink would never get).
    @Test func theJournalsCommitsAreDurableBeforeTheSinksSeeThem() throws {
        let directory = makeTemporaryDirectory()
        let run = ImportRun(stateDirectory: directory, sinks: [spec(directory)], settings: SinkWorker.Settings(),
                            retainSeconds: nil, logger: Logger(minimumLevel: .error))
        var durable: [Bool] = []
        _ = try run.run(sources: [("list", ListSource(items: [.sample(heartRate(60, at: 0))]))]) { outputs, _ in
            durable = outputs.map(\.journalCommitsAreDurable)
        }
        #expect(durable == [true])
        #expect(try SinkWorker.openJournal(stateDirectory: directory).commitsAreDurable)
        #expect(try !Journal(stateDirectory: directory).commitsAreDurable)
    }

    /// A sink that starts past entries pruned before it wrote them (added later, or out of the
    /// config while they were pruned) records the gap, which `status` shows: its lag said 0.
    @Test func aSinkAddedAfterPruningRecordsWhatItLacks() throws {
        let directory = makeTemporaryDirectory()
        let first = (0..<300).map { HealthItem.sample(heartRate(60, at: Int64($0))) }
        #expect(try run(directory, ListSource(items: first), retain: 0).pruned == 300)
        #expect(try Journal(stateDirectory: directory).prunedGaps(sink: "table").isEmpty)
        let late = SinkSpec(name: "late", type: "test", makeSink: {
            try CheckedTableSink(path: directory + "/late.sqlite", failures: FailureBudget(0))
        }, selects: { _, _ in true })
        let next = (300..<400).map { HealthItem.sample(heartRate(61, at: Int64($0))) }
        let summary = try ImportRun(stateDirectory: directory, sinks: [late], settings: SinkWorker.Settings(),
                                    retainSeconds: nil, logger: Logger(minimumLevel: .error)).run(sources: [("list", ListSource(items: next))])
        #expect(summary.sinks["late"]?.written == 100)
        let gaps = try Journal(stateDirectory: directory).prunedGaps(sink: "late")
        #expect(gaps.map(\.first) == [1] && gaps.map(\.last) == [300])
        // Added to a journal every entry of which was pruned, by a run that brings nothing new:
        // the gap is found from the journal's head.
        _ = try run(directory, ListSource(items: []), retain: 0)
        let empty = SinkSpec(name: "empty", type: "test", makeSink: {
            try CheckedTableSink(path: directory + "/empty.sqlite", failures: FailureBudget(0))
        }, selects: { _, _ in true })
        _ = try ImportRun(stateDirectory: directory, sinks: [empty], settings: SinkWorker.Settings(),
                          retainSeconds: nil, logger: Logger(minimumLevel: .error)).run(sources: [("list", ListSource(items: first))])
        #expect(try Journal(stateDirectory: directory).prunedGaps(sink: "empty").map(\.last) == [400])
        // A backfill brought them back (and forgot the gap): the sink, whose cursor it did not
        // move, does not note them again at its next start.
        try Journal(stateDirectory: directory).clearPrunedGaps(sink: "empty")
        _ = try ImportRun(stateDirectory: directory, sinks: [empty], settings: SinkWorker.Settings(),
                          retainSeconds: nil, logger: Logger(minimumLevel: .error)).run(sources: [("list", ListSource(items: []))])
        #expect(try Journal(stateDirectory: directory).prunedGaps(sink: "empty").isEmpty)
        // The first store under another name (its cursor this journal never recorded): delivered
        // again whole, and it lacks nothing.
        let renamed = SinkSpec(name: "renamed", type: "test", makeSink: {
            try CheckedTableSink(path: directory + "/sink.sqlite", failures: FailureBudget(0))
        }, selects: { _, _ in true })
        _ = try ImportRun(stateDirectory: directory, sinks: [renamed], settings: SinkWorker.Settings(),
                          retainSeconds: nil, logger: Logger(minimumLevel: .error)).run(sources: [("list", ListSource(items: []))])
        #expect(try Journal(stateDirectory: directory).prunedGaps(sink: "renamed").isEmpty)
        // A sink renamed while it was out of the config: its store's cursor is where the old name
        // stopped (400), and what was pruned after that (401–500) it lacks.
        let more = (400..<500).map { HealthItem.sample(heartRate(62, at: Int64($0))) }
        #expect(try run(directory, ListSource(items: more), retain: 0).pruned == 100)
        let lateRenamed = SinkSpec(name: "late-renamed", type: "test", makeSink: {
            try CheckedTableSink(path: directory + "/late.sqlite", failures: FailureBudget(0))
        }, selects: { _, _ in true })
        _ = try ImportRun(stateDirectory: directory, sinks: [lateRenamed], settings: SinkWorker.Settings(),
                          retainSeconds: nil, logger: Logger(minimumLevel: .error)).run(sources: [("list", ListSource(items: []))])
        let lateGaps = try Journal(stateDirectory: directory).prunedGaps(sink: "late-renamed")
        #expect(lateGaps.map(\.first) == [401] && lateGaps.map(\.last) == [500])
    }

    @Test func aFailingSourceKeepsWhatItReadBeforeTheError() throws {
        let directory = makeTemporaryDirectory()
        let items = (0..<1_000).map { HealthItem.sample(heartRate(60, at: Int64($0))) }
        let summary = try run(directory, ListSource(items: items, failAfter: 3), retain: nil)
        #expect(summary.firstFailed?.failure?.contains("line 7") == true)
        #expect(summary.sinks["table"]?.written == 300)
        #expect(try SQLiteDatabase(path: directory + "/sink.sqlite").scalarInt("SELECT count(*) FROM rows") == 300)
    }
}
