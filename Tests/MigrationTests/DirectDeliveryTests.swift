import TestSupport
import Foundation
import HealthRouterCore
import SQLiteSink
import Testing

@Suite struct DirectDeliveryTests {
    @Test func writesInBatchesResumesFiltersAndIsolatesRefusedEntries() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let sink = SQLiteSink(configuration: .init(path: directory.path + "/s.sqlite"), context: SinkFixtures.context(directory.path))
        _ = try sink.prepare()
        defer { sink.close() }
        var bad = SinkFixtures.steps
        bad.id = "BAD"
        bad.end = Timestamp(epochMilliseconds: bad.start.epochMilliseconds - 1)  // end before start: the store refuses it
        let entries = SinkFixtures.entries(SinkFixtures.all + [bad])
        var positions: [Int64] = []
        // Resume after the first two entries; sleep samples filtered out.
        let delivery = DirectDelivery(sink: sink, sinkCursor: 7, filter: SampleFilter(types: ["quantity*", "HK*"]),
                                      resumeAfter: 2, batchSize: 4) { position, _ in positions.append(position) }
        for entry in entries { try delivery.accept(entry) }
        try delivery.finish()
        let counts = delivery.counts
        #expect(counts.resumed == 2)
        #expect(counts.rejected == 1)
        #expect(counts.rejectionReasons.first?.contains("CHECK") == true)
        #expect(positions.last == Int64(entries.count))
        var stored = Set<String>()
        try sink.readBack { if case .sample(let s) = $0 { stored.insert(s.id) } }
        #expect(!stored.contains(SinkFixtures.heartRate.id))  // before the resume point
        #expect(!stored.contains("BAD"))
        #expect(stored.contains(SinkFixtures.workout.id))
        // The counts say what the store holds: the refused sample is not among them.
        #expect(counts.samples == stored.count)
        #expect(counts.samplesByType[bad.type] == stored.filter { $0 == SinkFixtures.steps.id }.count)
        let database = try SQLiteDatabase(path: directory.path + "/s.sqlite", readOnly: true)
        #expect(try database.scalarInt("SELECT journal_seq FROM sink_cursor") == 7)  // the sink's cursor did not move
    }

    /// A resumed run narrowed by `--types` or `--since` counts as done before only the entries the
    /// filter selects, which the interrupted run delivered: it counted every position it passed
    /// over ("489,500 delivered by the interrupted run before", where about 91,000 were).
    @Test func aResumedNarrowedRunCountsAsDoneBeforeOnlyWhatItsFilterSelects() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let entries = SinkFixtures.entries(SinkFixtures.all)
        func counts(resumingAfter position: Int64) throws -> DirectDelivery.Counts {
            let sink = SQLiteSink(configuration: .init(path: directory.path + "/\(position).sqlite"),
                                  context: SinkFixtures.context(directory.path))
            _ = try sink.prepare()
            defer { sink.close() }
            let delivery = DirectDelivery(sink: sink, sinkCursor: 0, filter: SampleFilter(types: ["quantity*", "HK*"]),
                                          resumeAfter: position) { _, _ in }
            for entry in entries { try delivery.accept(entry) }
            try delivery.finish()
            return delivery.counts
        }
        let whole = try counts(resumingAfter: 0)
        #expect(whole.filtered > 0 && whole.resumed == 0)
        let resumed = try counts(resumingAfter: Int64(entries.count))
        #expect(resumed.resumed == entries.count - whole.filtered, "\(resumed.resumed) of \(entries.count)")
    }

    /// A reader that failed reads its input again from the start (`migrate`'s source lost
    /// mid-read): after `rewind()` the entries up to the position acknowledged are passed over and
    /// those taken since are taken again, so the counts (resumed, filtered, written) and the
    /// store end as after one read.
    @Test func aRewoundReadCountsAndWritesEveryEntryOnce() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let entries = SinkFixtures.entries(SinkFixtures.all)
        let interruptedAfter = 7
        #expect(entries.count > interruptedAfter + 1)
        func deliver(_ name: String, rewinding: Bool) throws -> (DirectDelivery.Counts, [Int64], Set<String>) {
            let sink = SQLiteSink(configuration: .init(path: directory.path + "/\(name).sqlite"),
                                  context: SinkFixtures.context(directory.path))
            _ = try sink.prepare()
            defer { sink.close() }
            var positions: [Int64] = []
            let delivery = DirectDelivery(sink: sink, sinkCursor: 0, filter: SampleFilter(types: ["quantity*", "HK*"]),
                                          resumeAfter: 2, batchSize: 3) { position, _ in positions.append(position) }
            if rewinding {
                for entry in entries.prefix(interruptedAfter) { try delivery.accept(entry) }
                #expect(delivery.counts.position < Int64(interruptedAfter), "something is pending when the read fails")
                delivery.rewind()
            }
            for entry in entries { try delivery.accept(entry) }
            try delivery.finish()
            var stored = Set<String>()
            try sink.readBack { if case .sample(let s) = $0 { stored.insert(s.id) } }
            return (delivery.counts, positions, stored)
        }
        let (once, oncePositions, onceStored) = try deliver("once", rewinding: false)
        let (rewound, rewoundPositions, rewoundStored) = try deliver("rewound", rewinding: true)
        #expect(once.filtered > 0)
        #expect(rewound.resumed == once.resumed && rewound.filtered == once.filtered && rewound.tombstones == once.tombstones)
        #expect(rewound.samplesByType == once.samplesByType && rewound.position == once.position)
        #expect(Set(rewoundPositions) == Set(oncePositions))
        #expect(rewoundStored == onceStored)
    }

    /// A backfill from a file beside a daemon: a sample a tombstone deletes while its batch fills
    /// (a push the daemon took) is left out when the batch is written, not written back over the
    /// deletion; checked only when its entry came, it was.
    @Test func aSampleDeletedWhileItsBatchFillsIsNotWrittenBack() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let journal = try Journal(stateDirectory: directory.path)
        try journal.append([.sample(SinkFixtures.heartRate), .sample(SinkFixtures.steps)], source: "phone")
        let sink = SQLiteSink(configuration: .init(path: directory.path + "/s.sqlite"), context: SinkFixtures.context(directory.path))
        _ = try sink.prepare()
        defer { sink.close() }
        let delivery = DirectDelivery(sink: sink, sinkCursor: 0, filter: SampleFilter(), resumeAfter: 0, batchSize: 1_000) { _, _ in }
        let output = DirectDeliveryOutput(delivery: delivery, sourceName: "backfill", journal: journal)
        try output.emit([.sample(SinkFixtures.heartRate), .sample(SinkFixtures.steps)])
        try journal.append([.tombstone(Tombstone(ids: [SinkFixtures.heartRate.id]))], source: "phone")
        try delivery.finish()
        var stored = Set<String>()
        try sink.readBack { if case .sample(let s) = $0 { stored.insert(s.id) } }
        #expect(stored == [SinkFixtures.steps.id])
        #expect(output.skipped[DirectDeliveryOutput.deletedReason] == 1)
        #expect(delivery.counts.samples == 1)
    }

    /// The same, the tombstone coming while the batch is written: the daemon delivers it to the
    /// store first, the batch then writes the sample back, and the backfill deletes it again.
    @Test func aSampleDeletedWhileItsBatchIsWrittenIsDeletedAgain() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let journal = try Journal(stateDirectory: directory.path)
        try journal.append([.sample(SinkFixtures.heartRate), .sample(SinkFixtures.steps)], source: "phone")
        let store = SQLiteSink(configuration: .init(path: directory.path + "/s.sqlite"), context: SinkFixtures.context(directory.path))
        let sink = DeletedDuringWrite(store: store, journal: journal, id: SinkFixtures.heartRate.id)
        _ = try sink.prepare()
        defer { sink.close() }
        let delivery = DirectDelivery(sink: sink, sinkCursor: 0, filter: SampleFilter(), resumeAfter: 0, batchSize: 1_000) { _, _ in }
        let output = DirectDeliveryOutput(delivery: delivery, sourceName: "backfill", journal: journal)
        try output.emit([.sample(SinkFixtures.heartRate), .sample(SinkFixtures.steps)])
        try delivery.finish()
        var stored = Set<String>()
        try store.readBack { if case .sample(let s) = $0 { stored.insert(s.id) } }
        #expect(sink.deletedDuringWrite)
        #expect(stored == [SinkFixtures.steps.id])
        #expect(delivery.counts.tombstones == 1)

        // A store that refuses that tombstone: counted as refused, not as written too.
        let again = try TemporaryDirectory()
        defer { again.remove() }
        let otherJournal = try Journal(stateDirectory: again.path)
        let otherStore = SQLiteSink(configuration: .init(path: again.path + "/s.sqlite"), context: SinkFixtures.context(again.path))
        let refusing = DeletedDuringWrite(store: otherStore, journal: otherJournal, id: SinkFixtures.heartRate.id, refusesTombstones: true)
        _ = try refusing.prepare()
        defer { refusing.close() }
        let refused = DirectDelivery(sink: refusing, sinkCursor: 0, filter: SampleFilter(), resumeAfter: 0, batchSize: 1_000) { _, _ in }
        try DirectDeliveryOutput(delivery: refused, sourceName: "backfill", journal: otherJournal)
            .emit([.sample(SinkFixtures.heartRate), .sample(SinkFixtures.steps)])
        try refused.finish()
        #expect(refusing.deletedDuringWrite)
        #expect(refused.counts.tombstones == 0 && refused.counts.rejected == 1, "\(refused.counts)")
    }

    /// A sqlite sink whose first write meets a tombstone of `id`, journaled and delivered to the
    /// store just before (as a daemon beside a backfill does with a push).
    final class DeletedDuringWrite: Sink {
        let store: SQLiteSink
        let journal: Journal
        let id: String
        /// Whether it refuses the tombstone the delivery sends after the write.
        let refusesTombstones: Bool
        private(set) var deletedDuringWrite = false

        init(store: SQLiteSink, journal: Journal, id: String, refusesTombstones: Bool = false) {
            self.store = store
            self.journal = journal
            self.id = id
            self.refusesTombstones = refusesTombstones
        }

        func prepare() throws -> Int64? { try store.prepare() }
        func close() { store.close() }

        func write(_ entries: [JournalEntry], cursor: Int64) throws {
            if !deletedDuringWrite, entries.contains(where: { if case .sample(let s) = $0.item { s.id == id } else { false } }) {
                deletedDuringWrite = true
                let tombstone = HealthItem.tombstone(Tombstone(ids: [id]))
                try journal.append([tombstone], source: "phone")
                try store.write([JournalEntry(sequence: try journal.head(), source: "phone", item: tombstone)], cursor: cursor)
            } else if refusesTombstones, entries.contains(where: { if case .tombstone = $0.item { true } else { false } }) {
                throw SinkError.rejected("tombstones are refused here")
            }
            try store.write(entries, cursor: cursor)
        }
    }

    @Test func filterByTimeAndType() {
        let filter = SampleFilter(since: HealthDateParser.parse("2024-01-05"), until: HealthDateParser.parse("2024-01-06"),
                                  types: ["heartRate", "sleep"])
        #expect(filter.selects(.sample(SinkFixtures.heartRate)))
        #expect(!filter.selects(.sample(SinkFixtures.steps)))
        #expect(!filter.selects(.sample(SinkFixtures.sleep)))  // 2026: outside the range
        #expect(filter.selects(.tombstone(Tombstone(ids: ["x"]))))
        #expect(SampleFilter(types: ["hartRate"]).unknownTypes == ["hartRate"])
    }
}
