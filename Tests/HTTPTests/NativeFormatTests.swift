import Foundation
import HealthRouterCore
import Testing
import TestSupport
@testable import HTTPPushSource
@testable import HTTPSink

/// The native format: NDJSON on `POST /v1/samples`, and the `http` sink's `format: native`.
@Suite("native format")
struct NativeFormatTests {
    /// An `http` sink in `format` posting to `server` with `user`'s token.
    static func sink(to server: PushServerFixture, as user: String, format: HTTPSink.Configuration.Format) throws -> HTTPSink {
        let context = PluginContext(name: "peer", stateDirectory: server.directory, logger: Logger(minimumLevel: .error))
        var configuration = HTTPSink.Configuration(url: "http://127.0.0.1:\(server.source.listeningPort)",
                                                   token: PushServerFixture.tokens[user])
        configuration.format = format
        return try HTTPSink(configuration: configuration, context: context)
    }

    @Test func sinkInNativeFormatRoundTrips() throws {
        let server = try PushServerFixture()
        let context = PluginContext(name: "peer", stateDirectory: server.directory, logger: Logger(minimumLevel: .error))
        var configuration = HTTPSink.Configuration(url: "http://127.0.0.1:\(server.source.listeningPort)",
                                                   token: PushServerFixture.tokens["bob"])
        configuration.format = .native
        let sink = try HTTPSink(configuration: configuration, context: context)
        var entries = HTTPSinkTests.samples(20, prefix: "N")
        entries.append(JournalEntry(sequence: 21, source: "x", item: .tombstone(Tombstone(ids: ["N-3"]))))
        try sink.write(entries, cursor: 21)
        let expected = entries.map { entry -> HealthItem in
            switch entry.item {
            case .sample(var sample): sample.userId = "bob"; return .sample(sample)
            case .tombstone(var tombstone): tombstone.userId = "bob"; return .tombstone(tombstone)
            }
        }
        #expect(try server.journalItems() == expected)
    }

    /// A forward from another healthrouter carries a sample's parts (a workout's events,
    /// statistics, activities and routes, HRV beats, a correlation's members), in either format:
    /// a receiver that never had them stores them whole.
    @Test func aForwardCarriesTheParts() throws {
        for format in [HTTPSink.Configuration.Format.native, .pulso] {
            let server = try PushServerFixture()
            let sink = try Self.sink(to: server, as: "bob", format: format)
            var whole = [SinkFixtures.workout, SinkFixtures.hrv, SinkFixtures.bloodPressure]
            for index in whole.indices { whole[index].userId = "bob" }
            try sink.write(SinkFixtures.entries(whole), cursor: 3)
            let received = try server.journalItems()
            #expect(received == whole.map(HealthItem.sample), "\(format)")
            guard case .sample(let workout)? = received.first, case .workout(let parts) = workout.detail else {
                Issue.record("no workout")
                continue
            }
            #expect(!parts.events.isEmpty && !parts.routes.isEmpty, "\(format)")
        }
    }

    /// A token with `forwarded_user_ids` (another healthrouter forwarding a household) keeps each
    /// sample's and tombstone's own user; one without takes its token's user, whatever the body
    /// says (a phone cannot write as someone else).
    @Test func aForwardingTokenKeepsEachSamplesUser() throws {
        for (keeps, format) in [(true, HTTPSink.Configuration.Format.native), (true, .pulso), (false, .native)] {
            let server = try PushServerFixture { configuration in
                configuration.users?["bob"]?.forwardedUserIds = keeps
            }
            let sink = try Self.sink(to: server, as: "bob", format: format)
            var entries = HTTPSinkTests.samples(3, prefix: "U")
            for index in 0..<2 {
                guard case .sample(var sample) = entries[index].item else { continue }
                sample.userId = index == 0 ? "carol" : nil
                entries[index] = JournalEntry(sequence: entries[index].sequence, source: "x", item: .sample(sample))
            }
            try sink.write(entries, cursor: 3)
            let deletion = JournalEntry(sequence: 4, source: "x", item: .tombstone(Tombstone(ids: ["U-0"], userId: "carol")))
            try sink.write([deletion], cursor: 4)
            let users = try server.journalItems().map { item -> String in
                switch item {
                case .sample(let sample): sample.userId ?? "-"
                case .tombstone(let tombstone): "deletion " + (tombstone.userId ?? "-")
                }
            }
            #expect(users == (keeps ? ["carol", "bob", "bob", "deletion carol"] : ["bob", "bob", "bob", "deletion bob"]),
                    "\(keeps) \(format)")
        }
    }

    /// A forwarding token's own user owns the ids of the samples it forwarded without a user (an
    /// import's, upstream), stamped with it: a deletion the forwarding healthrouter took of one is
    /// taken here too, and so is a change giving it to another user (the upstream journal gave it
    /// to them). Before, the mirror kept the deleted sample for good. An id another user pushed
    /// here stays theirs: neither replaced nor deleted by what is forwarded as someone else's.
    @Test func aForwardingTokensDeletionsAndChangesPassTheOwnerChecks() throws {
        let server = try PushServerFixture { $0.users?["bob"]?.forwardedUserIds = true }
        let sink = try Self.sink(to: server, as: "bob", format: .pulso)
        let entries = HTTPSinkTests.samples(2, prefix: "F")
        try sink.write(entries, cursor: 2)
        guard case .sample(var changed) = entries[1].item else { Issue.record("no sample"); return }
        changed.value = 99
        changed.userId = "carol"
        let deletion = JournalEntry(sequence: 3, source: "x", item: .tombstone(Tombstone(ids: ["F-0"], userId: "carol")))
        try sink.write([deletion, JournalEntry(sequence: 4, source: "x", item: .sample(changed))], cursor: 4)
        let items = try server.journalItems()
        #expect(items.count == 4)
        #expect(items.contains(.tombstone(Tombstone(ids: ["F-0"], userId: "carol"))), "\(items)")
        #expect(items.last.flatMap { if case .sample(let sample) = $0 { sample.value } else { nil } } == 99)
        // A phone's token still may not delete what another user pushed.
        let phone = server.client.post("/ingest", Array(#"[{"deleted":["F-1"]}]"#.utf8), token: PushServerFixture.tokens["alice"]!)
        #expect(phone.body.hasPrefix(#"{"received": 1, "new": 0, "deleted": 0, "skipped": [{"index":0,"field":"deleted""#), "\(phone.body)")
        // Alice's own push is hers: what comes forwarded as carol's or as nobody's does not take it.
        let alices = #"[{"uuid":"A-1","type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":60,"source":"W"}]"#
        #expect(server.client.post("/ingest", Array(alices.utf8), token: PushServerFixture.tokens["alice"]!).status == 200)
        var taken = try #require(server.journalItems().last.flatMap { if case .sample(let sample) = $0 { sample } else { nil } })
        taken.value = 99
        let before = try server.journalItems().count
        for user in ["carol", nil] {
            taken.userId = user
            // The receiver says it left both out: the sink's worker parks them as dead letters.
            do {
                try sink.write([JournalEntry(sequence: 5, source: "x", item: .sample(taken)),
                                JournalEntry(sequence: 6, source: "x", item: .tombstone(Tombstone(ids: ["A-1"], userId: user)))], cursor: 6)
                Issue.record("taken whole")
            } catch SinkError.partlyRefused(let refusals) {
                #expect(refusals.map(\.sequence) == [5, 6], "\(refusals)")
            }
        }
        #expect(try server.journalItems().count == before)
        let update = alices.replacingOccurrences(of: #""value":60"#, with: #""value":61"#)
        #expect(server.client.post("/ingest", Array(update.utf8), token: PushServerFixture.tokens["alice"]!).body
                == #"{"received": 1, "new": 1, "deleted": 0}"#)
    }

    /// Another healthrouter forwarding samples this one holds whole (imported from the same
    /// export) sends them without the parts its format does not carry back (workout events,
    /// statistics, activities and routes, HRV beats, correlation members): they are the same
    /// samples, and the parts stay; a changed value still counts, with the parts kept.
    @Test func aForwardWithoutTheDetailKeepsTheDetailThisJournalHolds() throws {
        let server = try PushServerFixture()
        var whole = [SinkFixtures.workout, SinkFixtures.hrv, SinkFixtures.bloodPressure]
        for index in whole.indices { whole[index].userId = "bob" }
        _ = try Journal(stateDirectory: server.directory).append(whole.map(HealthItem.sample), source: "history")
        let context = PluginContext(name: "peer", stateDirectory: server.directory, logger: Logger(minimumLevel: .error))
        var configuration = HTTPSink.Configuration(url: "http://127.0.0.1:\(server.source.listeningPort)",
                                                   token: PushServerFixture.tokens["bob"])
        configuration.format = .native
        let sink = try HTTPSink(configuration: configuration, context: context)
        try sink.write(SinkFixtures.entries(whole), cursor: 3)
        #expect(try server.journalItems() == whole.map(HealthItem.sample))

        var changed = whole[1]
        changed.value = 50
        try sink.write(SinkFixtures.entries([changed], from: 4), cursor: 4)
        #expect(try server.journalItems() == (whole + [changed]).map(HealthItem.sample))
    }

    /// A batch holding two versions of one sample (a change the receiver was down for) sends the
    /// later one only: a receiver keeps the first element of a uuid in a body, in either format.
    @Test func aBatchWithTwoVersionsOfASampleSendsTheLaterOne() throws {
        for format in [HTTPSink.Configuration.Format.pulso, .native] {
            let server = try PushServerFixture()
            let sink = try Self.sink(to: server, as: "bob", format: format)
            var entries = HTTPSinkTests.samples(3, prefix: "V")
            guard case .sample(var changed) = entries[1].item else { Issue.record("no sample"); return }
            changed.value = 99
            entries.append(JournalEntry(sequence: 4, source: "x", item: .tombstone(Tombstone(ids: ["V-0"]))))
            entries.append(JournalEntry(sequence: 5, source: "x", item: .sample(changed)))
            try sink.write(entries, cursor: 5)
            let values = try server.journalItems().compactMap { item -> String? in
                guard case .sample(let sample) = item else { return nil }
                return "\(sample.id)=\(sample.value ?? 0)"
            }
            #expect(values == ["V-0=50.0", "V-2=52.0", "V-1=99.0"], "\(format)")
        }
    }

    @Test func ndjsonBodies() throws {
        let server = try PushServerFixture()
        let alice = PushServerFixture.tokens["alice"]!
        let lines = """
            {"uuid":"L-1","type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":60,"unit":"count/min","source":"W"}

            {"deleted":["L-0"]}
            {"uuid":"L-2","type":"heartRate","start":"2026-07-06T08:01:00Z","end":"2026-07-06T08:01:00Z","value":61,"unit":"count/min","source":"W","metadata":{"n":{"x":1}}}
            """
        #expect(server.client.post("/v1/samples", lines, token: alice, gzip: true).body == #"{"received": 3, "new": 2, "deleted": 1}"#)
        #expect(server.client.post("/v1/samples", "{\"uuid\":\n", token: alice).body == #"{"error": "bad json"}"#)
        #expect(server.client.post("/v1/samples", "[]", token: alice).body == #"{"error": "bad json"}"#)
        #expect(server.client.post("/v1/samples", lines, token: "nope").status == 401)
    }
}
