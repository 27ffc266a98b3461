import Foundation
import TestSupport
import HealthRouterCore
import Testing
@testable import HTTPPushSource

/// The `admin` listener: /metrics in Prometheus text, /status as JSON, 404 elsewhere.
@Suite("admin endpoints")
struct AdminSourceTests {
    @Test func metricsAndStatusShowPushesAndSinks() throws {
        let server = try PushServerFixture()
        #expect(server.client.post("/ingest", PulsoProtocolTests.protocolExample, token: PushServerFixture.tokens["alice"]!).status == 200)
        let journal = try Journal(stateDirectory: server.directory)
        try journal.setCursor(sink: "local", to: 1, written: 1)
        try journal.setLastError(sink: "local", "disk full")
        let running = try Self.startAdmin(server, sinkNames: ["local"])
        defer { running.stop() }
        let client = HTTPTestClient(port: running.listeningPort)
        let metrics = client.get("/metrics")
        #expect(metrics.status == 200)
        #expect(metrics.body.contains("healthrouter_journal_head_sequence 2\n"))
        #expect(metrics.body.contains("healthrouter_push_samples_accepted_total 1\n"))
        #expect(metrics.body.contains("healthrouter_push_deleted_ids_total 2\n"))
        #expect(metrics.body.contains("healthrouter_sink_lag_entries{sink=\"local\"} 1\n"))
        #expect(metrics.body.contains("healthrouter_sink_write_failing{sink=\"local\"} 1\n"))
        #expect(metrics.body.contains("# TYPE healthrouter_sink_written_total counter\n"))
        let status = client.get("/status")
        #expect(status.status == 200)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(status.body.utf8)) as? [String: Any])
        let sinks = try #require(object["sinks"] as? [[String: Any]])
        #expect(sinks.first?["name"] as? String == "local")
        #expect(sinks.first?["last_error"] as? String == "disk full")
        #expect(client.get("/nope").status == 404)
    }

    @Test func everyConfiguredSinkIsShownBeforeItWrites() throws {
        let server = try PushServerFixture()
        // A sink the journal remembers from an earlier config, gone from this one.
        try Journal(stateDirectory: server.directory).setCursor(sink: "retired", to: 0, written: 0)
        let running = try Self.startAdmin(server, sinkNames: ["local", "archive"])
        defer { running.stop() }
        let client = HTTPTestClient(port: running.listeningPort)
        let metrics = client.get("/metrics")
        #expect(metrics.status == 200)
        for sink in ["local", "archive"] {
            #expect(metrics.body.contains("healthrouter_sink_cursor_sequence{sink=\"\(sink)\"} 0\n"))
            #expect(metrics.body.contains("healthrouter_sink_lag_entries{sink=\"\(sink)\"} 0\n"))
            #expect(metrics.body.contains("healthrouter_sink_written_total{sink=\"\(sink)\"} 0\n"))
            #expect(metrics.body.contains("healthrouter_sink_dead_letters{sink=\"\(sink)\"} 0\n"))
            #expect(metrics.body.contains("healthrouter_sink_write_failing{sink=\"\(sink)\"} 0\n"))
        }
        #expect(!metrics.body.contains("retired"))
        // Entries pruned before a sink wrote them show, in both.
        try Journal(stateDirectory: server.directory).notePrunedGap(sink: "archive", from: 1, through: 40)
        #expect(client.get("/metrics").body.contains("healthrouter_sink_pruned_entries_lacking{sink=\"archive\"} 40\n"))
        let status = client.get("/status")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(status.body.utf8)) as? [String: Any])
        let sinks = try #require(object["sinks"] as? [[String: Any]])
        #expect(sinks.map { $0["name"] as? String } == ["local", "archive"])
        #expect(sinks.map { $0["written"] as? Int } == [0, 0])
        #expect(sinks.map { $0["pruned_entries_lacking"] as? Int } == [0, 40])
    }

    /// A sink's lag counts what its routes select, as `status` does: a sink for workouts has
    /// only the tombstone (every sink gets those) to deliver of a push of a sleep sample and a
    /// tombstone, not the sleep sample it will pass over.
    @Test func lagCountsWhatTheSinksRoutesSelect() throws {
        let server = try PushServerFixture()
        #expect(server.client.post("/ingest", PulsoProtocolTests.protocolExample, token: PushServerFixture.tokens["alice"]!).status == 200)
        let config = try HealthRouterConfig.parse(yaml: """
            sinks:
              local: { type: sqlite, path: a.sqlite }
              training: { type: sqlite, path: b.sqlite }
            routes:
              - types: ["*"]
                to: local
              - types: [workout]
                to: training
            """, environment: [:])
        let running = try Self.startAdmin(server, sinkNames: ["local", "training"], routes: RouteTable(config: config))
        defer { running.stop() }
        let metrics = HTTPTestClient(port: running.listeningPort).get("/metrics").body
        #expect(metrics.contains("healthrouter_sink_lag_entries{sink=\"local\"} 2\n"), "\(metrics)")
        #expect(metrics.contains("healthrouter_sink_lag_entries{sink=\"training\"} 1\n"), "\(metrics)")
    }

    /// An admin source on a random loopback port, over `server`'s journal and ingest.
    static func startAdmin(_ server: PushServerFixture, sinkNames: [String], routes: RouteTable? = nil) throws -> AdminSource {
        for _ in 0..<20 {
            let context = PluginContext(name: "ops", stateDirectory: server.directory, logger: Logger(minimumLevel: .error),
                                        sinkNames: sinkNames, routes: routes)
            let candidate = try AdminSource(configuration: .init(listen: "127.0.0.1:\(DaemonProcess.randomListenPort())"), context: context)
            if (try? candidate.start(ingest: server.ingest)) != nil { return candidate }
        }
        throw AdminDidNotStart()
    }

    struct AdminDidNotStart: Error {}

    @Test func remoteListenNeedsOptIn() {
        let context = PluginContext(name: "ops", stateDirectory: TestScratch.path, logger: Logger())
        #expect(throws: ConfigError.self) { _ = try AdminSource(configuration: .init(listen: "0.0.0.0:9187"), context: context) }
    }
}
