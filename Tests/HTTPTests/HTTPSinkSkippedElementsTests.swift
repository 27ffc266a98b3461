import Foundation
import HealthRouterCore
import Testing
import TestSupport
@testable import HTTPPushSource
@testable import HTTPSink

/// A receiving healthrouter that answers 200 but leaves elements out (the parser skipped them, or
/// the journal refused another user's id) lists them in its reply's `skipped`; the sending `http`
/// sink parks exactly those as dead letters with the receiver's reason, and the rest is delivered.
@Suite("http sink: elements a receiver skipped", .serialized)
struct HTTPSinkSkippedElementsTests {
    /// A heart rate `id` of `user`, at second `offset`, without a value when `value` is nil.
    static func heartRate(_ id: String, user: String?, offset: Int64, value: Double? = 60) -> HealthItem {
        .sample(Sample(id: id, type: "HKQuantityTypeIdentifierHeartRate", kind: .quantity,
                       start: Timestamp(epochSeconds: 1_780_000_000 + offset, utcOffsetSeconds: 0),
                       end: Timestamp(epochSeconds: 1_780_000_000 + offset, utcOffsetSeconds: 0),
                       value: value, unit: "count/min", sourceName: "Watch", userId: user))
    }

    /// The sending side's journal: four good samples, one the receiver skips (no value), one
    /// under an id alice pushed to the receiver, a deletion of another of alice's ids without a
    /// user (an import's upstream), and a deletion of one of the good samples. Returns its directory.
    static func senderJournal() throws -> String {
        let directory = TestScratch.path + "sender-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let items: [HealthItem] = [
            heartRate("G-0", user: nil, offset: 0),
            heartRate("G-1", user: "carol", offset: 1),
            heartRate("NOVALUE", user: nil, offset: 2, value: nil),
            heartRate("A-1", user: "carol", offset: 3, value: 99),
            heartRate("G-2", user: nil, offset: 4),
            .tombstone(Tombstone(ids: ["A-2"])),
            .tombstone(Tombstone(ids: ["G-2"])),
            heartRate("G-3", user: nil, offset: 5),
        ]
        _ = try Journal(stateDirectory: directory).append(items, source: "history")
        return directory
    }

    /// The receiver: alice pushed A-1 and A-2 herself; bob's token forwards (`forwarded_user_ids`).
    static func receiver() throws -> PushServerFixture {
        let server = try PushServerFixture { $0.users?["bob"]?.forwardedUserIds = true }
        let alices = [("A-1", "08:00:00"), ("A-2", "08:01:00")].map { id, time in
            #"{"uuid":"\#(id)","type":"heartRate","start":"2026-07-06T\#(time)Z","end":"2026-07-06T\#(time)Z","value":60,"source":"W"}"#
        }
        let reply = server.client.post("/ingest", Array(("[" + alices.joined(separator: ",") + "]").utf8),
                                       token: PushServerFixture.tokens["alice"]!)
        #expect(reply.body == #"{"received": 2, "new": 2, "deleted": 0}"#)
        return server
    }

    static func configuration(_ server: PushServerFixture, format: HTTPSink.Configuration.Format) -> HTTPSink.Configuration {
        var configuration = HTTPSink.Configuration(url: "http://127.0.0.1:\(server.source.listeningPort)",
                                                   token: PushServerFixture.tokens["bob"])
        configuration.format = format
        return configuration
    }

    /// Runs a sink worker of an `http` sink `mirror` in `format`, sending the sender's journal in
    /// `directory` to `server`, until its cursor reaches `cursor` (20 s at the most): its progress.
    static func forward(_ directory: String, to server: PushServerFixture, format: HTTPSink.Configuration.Format,
                        until cursor: Int64) -> SinkWorker.Progress {
        var settings = SinkWorker.Settings()
        settings.retryInitial = 0.02
        settings.retryCap = 0.1
        let context = PluginContext(name: "mirror", stateDirectory: directory, logger: Logger(minimumLevel: .error))
        let configuration = Self.configuration(server, format: format)
        let worker = SinkWorker(name: "mirror", stateDirectory: directory, settings: settings, logger: Logger(minimumLevel: .error),
                                makeSink: { try HTTPSink(configuration: configuration, context: context) },
                                selects: { _, _ in true })
        let control = WorkerControl()
        control.finishInput()
        let done = DispatchGroup()
        done.enter()
        Thread {
            worker.run(control: control)
            done.leave()
        }.start()
        let deadline = Date(timeIntervalSinceNow: 20)
        while worker.progress.cursor < cursor && Date() < deadline { usleep(10_000) }
        control.requestStop()
        done.wait()
        return worker.progress
    }

    /// A sink worker forwards the sender's journal to a receiving healthrouter, in either format:
    /// the three elements the receiver left out (a sample without its value, a sample under
    /// alice's id, a deletion of alice's id) are the sink's dead letters with the receiver's
    /// reasons; the rest is delivered and counted so. Before, all eight counted as delivered and
    /// only the receiver's log told of the three.
    @Test func theElementsAReceiverSkippedAreDeadLetters() throws {
        for format in [HTTPSink.Configuration.Format.pulso, .native] {
            let server = try Self.receiver()
            let directory = try Self.senderJournal()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let progress = Self.forward(directory, to: server, format: format, until: 8)
            #expect(progress.cursor == 8, "\(format) \(progress)")
            #expect(progress.written == 5 && progress.deadLetters == 3, "\(format) \(progress)")
            let deadLetters = try Journal(stateDirectory: directory, role: .reader).deadLetters(sink: "mirror")
            #expect(deadLetters.map(\.sequence) == [3, 4, 6], "\(format) \(deadLetters)")
            let reasons = deadLetters.map(\.reason)
            #expect(reasons.count == 3)
            if reasons.count == 3 {
                #expect(reasons[0].hasPrefix("HKQuantityTypeIdentifierHeartRate NOVALUE: ") && reasons[0].contains("but skipped it: value: missing"),
                        "\(reasons[0])")
                #expect(reasons[1].hasPrefix("HKQuantityTypeIdentifierHeartRate A-1: ")
                            && reasons[1].contains("uuid: another user's sample has this id"), "\(reasons[1])")
                #expect(reasons[2].contains("A-2") && reasons[2].contains("deleted: another user's samples have ids it names"),
                        "\(reasons[2])")
            }
            // The receiver holds the rest: alice's two samples, the four good ones, the deletion of G-2.
            let received = try server.journalItems().map { item -> String in
                switch item {
                case .sample(let sample): "\(sample.id) \(sample.userId ?? "-")"
                case .tombstone(let tombstone): "deleted \(tombstone.ids.joined(separator: ","))"
                }
            }
            #expect(received == ["A-1 alice", "A-2 alice", "G-0 bob", "G-1 carol", "G-2 bob", "deleted G-2", "G-3 bob"],
                    "\(format) \(received)")
        }
    }

    /// A backfill or migration through the sink (`DirectDelivery`) counts the skipped elements as
    /// refused with the receiver's reasons, not as written.
    @Test func aBackfillCountsTheSkippedElementsAsRefused() throws {
        let server = try Self.receiver()
        let directory = try Self.senderJournal()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let context = PluginContext(name: "mirror", stateDirectory: directory, logger: Logger(minimumLevel: .error))
        let sink = try HTTPSink(configuration: Self.configuration(server, format: .pulso), context: context)
        let delivery = DirectDelivery(sink: sink, sinkCursor: 0, filter: SampleFilter(), resumeAfter: 0, onBatch: { _, _ in })
        for entry in try Journal(stateDirectory: directory, role: .reader).entries(after: 0, limit: 100) {
            try delivery.accept(try entry.decoded())
        }
        try delivery.finish()
        #expect(delivery.counts.rejected == 3)
        #expect(delivery.counts.samples == 4 && delivery.counts.tombstones == 1, "\(delivery.counts)")
        #expect(delivery.counts.rejectionReasons.first?.contains("value: missing") == true, "\(delivery.counts.rejectionReasons)")
    }

    /// A forwarded body may carry a sample and a deletion of one id as two users': the reply
    /// names the one refused, not the other, which was stored (or deleted). Before, both were
    /// listed whenever either was refused, and the sender parked a delivered element as a dead letter.
    @Test func aForwardedBodyListsOnlyTheElementRefused() throws {
        let server = try PushServerFixture { $0.users?["bob"]?.forwardedUserIds = true }
        let bob = PushServerFixture.tokens["bob"]!
        func heartRate(_ id: String, user: String, time: String) -> String {
            #"{"uuid":"\#(id)","type":"heartRate","start":"2026-07-06T\#(time)Z","end":"2026-07-06T\#(time)Z","value":60,"source":"W","userId":"\#(user)"}"#
        }
        // Alice's sample, stored; a deletion of it without a user (bob's here), refused.
        let stored = server.client.post("/ingest", Array(("[" + heartRate("X1", user: "alice", time: "08:00:00")
                                                             + #",{"deleted":["X1"]}]"#).utf8), token: bob)
        #expect(stored.body == #"{"received": 2, "new": 1, "deleted": 0, "skipped": [{"index":1,"field":"deleted","#
                + #""reason":"another user's samples have ids it names, which were not deleted: 'X1' (an id is deleted by the user "#
                + #"who pushed it first)"}]}"#)
        // Carol's sample under alice's id, refused; alice's deletion of it, taken.
        let alices = server.client.post("/ingest", Array(#"[{"uuid":"W1","type":"heartRate","start":"2026-07-06T09:00:00Z","end":"2026-07-06T09:00:00Z","value":60,"source":"W"}]"#.utf8),
                                        token: PushServerFixture.tokens["alice"]!)
        #expect(alices.body == #"{"received": 1, "new": 1, "deleted": 0}"#)
        let deleted = server.client.post("/ingest", Array(("[" + heartRate("W1", user: "carol", time: "09:00:00")
                                                              + #",{"deleted":["W1"],"userId":"alice"}]"#).utf8), token: bob)
        #expect(deleted.body == #"{"received": 2, "new": 0, "deleted": 1, "skipped": [{"index":0,"uuid":"W1","field":"uuid","#
                + #""reason":"another user's sample has this id (an id is changed or deleted by the user who pushed it first)"}]}"#)
    }

    /// One forwarded body holds two users' deletions of one id: alice's, who pushed the id to the
    /// receiver herself, is taken; carol's is refused. A sink worker forwarding the sender's
    /// journal parks only carol's deletion (and a sample under alice's id) as dead letters;
    /// alice's deletion counts as delivered. Before, the receiver listed every element naming the
    /// id once one was refused, and the sender parked alice's deletion, which it had taken.
    @Test func ofTwoUsersDeletionsOfOneIdOnlyTheOneRefusedIsADeadLetter() throws {
        let server = try PushServerFixture { $0.users?["bob"]?.forwardedUserIds = true }
        let alices = #"[{"uuid":"D1","type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":60,"source":"W"}]"#
        #expect(server.client.post("/ingest", Array(alices.utf8), token: PushServerFixture.tokens["alice"]!).body
                    == #"{"received": 1, "new": 1, "deleted": 0}"#)
        // The sender's journal: alice's deletion of D1; a sample stored under D1 since (at another
        // start: the id is not deleted any more), which the receiver refuses as alice's id; carol's
        // deletion of D1.
        let directory = TestScratch.path + "sender-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try Journal(stateDirectory: directory).append([
            Self.heartRate("G-0", user: nil, offset: 0),
            .tombstone(Tombstone(ids: ["D1"], userId: "alice")),
            Self.heartRate("D1", user: nil, offset: 7),
            .tombstone(Tombstone(ids: ["D1"], userId: "carol")),
            Self.heartRate("G-1", user: nil, offset: 8),
        ], source: "history")
        let sent = try Journal(stateDirectory: directory, role: .reader).entries(after: 0, limit: 100).map { entry -> String in
            switch try entry.decoded().item {
            case .sample(let sample): "\(sample.id) \(sample.userId ?? "-")"
            case .tombstone(let tombstone): "deleted \(tombstone.ids.joined(separator: ",")) \(tombstone.userId ?? "-")"
            }
        }
        #expect(sent == ["G-0 -", "deleted D1 alice", "D1 -", "deleted D1 carol", "G-1 -"])

        let progress = Self.forward(directory, to: server, format: .pulso, until: 5)
        #expect(progress.cursor == 5 && progress.written == 3 && progress.deadLetters == 2, "\(progress)")
        let deadLetters = try Journal(stateDirectory: directory, role: .reader).deadLetters(sink: "mirror")
        #expect(deadLetters.map(\.sequence) == [3, 4], "\(deadLetters)")
        if deadLetters.count == 2 {
            #expect(deadLetters[0].reason.contains("uuid: another user's sample has this id"), "\(deadLetters[0].reason)")
            #expect(deadLetters[1].reason.contains("deleted: another user's samples have ids it names"), "\(deadLetters[1].reason)")
        }
        // The receiver took alice's deletion: her sample is deleted there.
        let received = try server.journalItems().map { item -> String in
            switch item {
            case .sample(let sample): "\(sample.id) \(sample.userId ?? "-")"
            case .tombstone(let tombstone): "deleted \(tombstone.ids.joined(separator: ",")) \(tombstone.userId ?? "-")"
            }
        }
        #expect(received == ["D1 alice", "G-0 bob", "deleted D1 alice", "G-1 bob"], "\(received)")
    }

    /// The reply lists each element left out with its index in the body; the sink reads those
    /// naming one of the body's elements, once each. A reply without `skipped` (Pulso's server)
    /// lists none: everything counts as delivered, as before.
    @Test func theReplyNamesEachSkippedElementByItsIndex() throws {
        let server = try PushServerFixture()
        let body = #"[{"uuid":"K","type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":60,"source":"W"},"#
            + #"7,{"uuid":"L","type":"heartRate","start":"tomorrow","end":"2026-07-06T08:00:00Z","value":60,"source":"W"}]"#
        let reply = server.client.post("/ingest", Array(body.utf8), token: PushServerFixture.tokens["alice"]!)
        #expect(reply.body == #"{"received": 3, "new": 1, "deleted": 0, "skipped": [{"index":1,"field":"element","reason":"not a JSON object"},"#
                + #"{"index":2,"uuid":"L","field":"start","reason":"'tomorrow' cannot be read as a date"}]}"#)
        let listed = HTTPSink.skipped(in: Array(reply.body.utf8), elements: 3)
        #expect(listed.map(\.index) == [1, 2])
        #expect(listed.map(\.reason) == ["element: not a JSON object", "start: 'tomorrow' cannot be read as a date"])
        #expect(HTTPSink.skipped(in: Array(#"{"received": 3, "new": 2, "deleted": 0}"#.utf8), elements: 3).isEmpty)
        let odd = #"{"received": 3, "skipped": [{"index": 3}, {"index": 1.5}, {"index": -1}, 5, {"index": 0}, {"index": 0, "reason": "again"}]}"#
        #expect(HTTPSink.skipped(in: Array(odd.utf8), elements: 3).map(\.index) == [0])
        // What another server says is stored and shown on one line: a line break would forge a line of `status`.
        let forged = #"{"received": 1, "skipped": [{"index": 0, "field": "va\nlue", "reason": "bad\n  1: forged\u0000 \u2028end"}]}"#
        #expect(HTTPSink.skipped(in: Array(forged.utf8), elements: 1).map(\.reason) == ["va?lue: bad?  1: forged? ?end"])
    }
}
