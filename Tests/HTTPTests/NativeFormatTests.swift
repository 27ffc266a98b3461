import Foundation
import HealthRouterCore
import Testing
@testable import HTTPPushSource
@testable import HTTPSink

/// The native format: NDJSON on `POST /v1/samples`, and the `http` sink's `format: native`.
@Suite("native format")
struct NativeFormatTests {
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
