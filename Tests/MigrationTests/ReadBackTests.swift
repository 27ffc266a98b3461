import TestSupport
import Foundation
import HealthRouterCore
import NDJSONSink
import SQLiteSink
import Testing

@Suite struct ReadBackTests {
    static func readAll(_ sink: any ReadableSink) throws -> (samples: [String: Sample], tombstones: [Tombstone]) {
        var samples: [String: Sample] = [:]
        var tombstones: [Tombstone] = []
        try sink.readBack { item in
            switch item {
            case .sample(let s): samples[s.id] = s
            case .tombstone(let t): tombstones.append(t)
            }
        }
        return (samples, tombstones)
    }

    static func fixtureEntries() -> [JournalEntry] {
        var entries = SinkFixtures.entries(SinkFixtures.all)
        var changed = SinkFixtures.steps
        changed.value = 200
        entries.append(JournalEntry(sequence: 100, source: "history", item: .sample(changed)))
        entries.append(SinkFixtures.tombstone([SinkFixtures.standHour.id, "NEVER-SEEN"], sequence: 101, userId: "alice"))
        return entries
    }

    static func expected() -> [String: Sample] {
        var out = Dictionary(uniqueKeysWithValues: SinkFixtures.all.map { ($0.id, $0) })
        out[SinkFixtures.steps.id]!.value = 200
        out[SinkFixtures.standHour.id] = nil
        return out
    }

    @Test func sqliteSinkReadsBackEveryCanonicalSample() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let sink = SQLiteSink(configuration: .init(path: directory.path + "/h.sqlite"), context: SinkFixtures.context(directory.path))
        _ = try sink.prepare()
        try sink.write(Self.fixtureEntries(), cursor: 101)
        let read = try Self.readAll(sink)
        sink.close()
        for (id, sample) in Self.expected() { #expect(read.samples[id] == sample, "\(id)") }
        #expect(read.samples.count == Self.expected().count)
        #expect(Set(read.tombstones.flatMap(\.ids)) == [SinkFixtures.standHour.id, "NEVER-SEEN"])
    }

    @Test func ndjsonSinkReadsBackTheLastLineOfEachId() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let sink = NDJSONSink(configuration: .init(directory: directory.path + "/lake"), context: SinkFixtures.context(directory.path))
        _ = try sink.prepare()
        try sink.write(Self.fixtureEntries(), cursor: 101)
        let read = try Self.readAll(sink)
        sink.close()
        for (id, sample) in Self.expected() { #expect(read.samples[id] == sample, "\(id)") }
        #expect(read.samples.count == Self.expected().count)
        #expect(read.tombstones.flatMap(\.ids) == [SinkFixtures.standHour.id, "NEVER-SEEN"])
    }
}
