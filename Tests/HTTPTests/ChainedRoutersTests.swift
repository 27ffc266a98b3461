import Foundation
import HealthRouterCore
import Synchronization
import Testing
import TestSupport

/// client → router A (`http` sink) → router B (sqlite) ends with the same rows as the same
/// pushes straight into a router with a sqlite sink.
@Suite("chained routers", .serialized)
struct ChainedRoutersTests {
    /// The store behind a sink is down when data comes (the next healthrouter is not started
    /// yet): the daemon answers the push, writes its other sink, keeps the rest in the journal
    /// and tries again after 1 s, 2 s, 4 s…, not in a loop; once the store is up it gets everything.
    @Test func aSinkWhoseStoreComesUpLaterCatchesUp() throws {
        let downstreamPort = DaemonProcess.randomListenPort()
        let b = try DaemonProcess(port: downstreamPort)
        let upstream = TestScratch.path + "daemon-\(UUID().uuidString)"
        let a = try DaemonProcess(directory: upstream, sinks: """
            sinks:
              local:
                type: sqlite
                path: \(upstream)/health.sqlite
              mirror:
                type: http
                url: http://127.0.0.1:\(downstreamPort)
                token: "${TEST_TOKEN}"
            routes:
              - types: ["*"]
                to: [local, mirror]
            """)
        try a.start()
        let batch = DaemonProcess.batch(prefix: "D", count: 200)
        #expect(a.client.post("/ingest", String(decoding: batch.body, as: UTF8.self), token: DaemonProcess.token,
                              gzip: true).status == 200)
        // Backing off: at most three tries in 2.5 s (a loaded machine may not have made the first yet).
        Thread.sleep(forTimeInterval: 2.5)
        let retries = { a.log.components(separatedBy: ", retrying in ").count - 1 }
        #expect(retries() <= 3, "\(a.log)")
        #expect(eventually(within: 30) { retries() >= 1 }, "\(a.log)")
        try b.start()
        let deadline = Date(timeIntervalSinceNow: 30)
        // The store may exist before its tables do (b is starting): not yet is not a failure.
        while Date() < deadline, (try? b.sinkIds()) != Set(batch.ids) { usleep(100_000) }
        #expect(try b.sinkIds() == Set(batch.ids))
        #expect(try a.sinkIds() == Set(batch.ids))
        // The warnings said the sink failed; a line says it works again.
        let recovered = Date(timeIntervalSinceNow: 10)
        while Date() < recovered, !a.log.contains("the sink works again") { usleep(100_000) }
        #expect(a.log.contains("the sink works again"), "\(a.log)")
        #expect(a.stop() == 0)
        #expect(b.stop() == 0)
    }

    @Test func forwardedRowsEqualDirectRows() throws {
        let b = try DaemonProcess()
        try b.start()
        let a = try DaemonProcess(sinks: """
            sinks:
              mirror:
                type: http
                url: http://127.0.0.1:\(b.port)
                token: "${TEST_TOKEN}"
            routes:
              - types: ["*"]
                to: [mirror]
            """)
        try a.start()
        let direct = try DaemonProcess()
        try direct.start()
        let bodies = [PulsoProtocolTests.goldenSleep, PulsoProtocolTests.goldenWorkout, PulsoProtocolTests.protocolExample,
                      String(decoding: DaemonProcess.batch(prefix: "C", count: 300).body, as: UTF8.self),
                      #"[{"deleted":["C-1","C-2"]}]"#]
        for body in bodies {
            #expect(a.client.post("/ingest", body, token: DaemonProcess.token, gzip: true).status == 200)
            #expect(direct.client.post("/ingest", body, token: DaemonProcess.token, gzip: true).status == 200)
        }
        let tables = ["samples", "sleep_stages", "workouts", "deleted_samples"]
        let deadline = Date(timeIntervalSinceNow: 10)
        func settled() throws -> Bool {
            try tables.allSatisfy { try b.sinkRows($0).count == direct.sinkRows($0).count }
        }
        while Date() < deadline, try !settled() { usleep(50_000) }
        #expect(a.stop() == 0)
        #expect(b.stop() == 0)
        #expect(direct.stop() == 0)
        #expect(try direct.sinkRows("samples").count == 298)
        for table in tables where table != "deleted_samples" {
            #expect(try b.sinkRows(table) == direct.sinkRows(table), "\(table)")
        }
        #expect(try b.sinkIds() == direct.sinkIds())
    }
}
