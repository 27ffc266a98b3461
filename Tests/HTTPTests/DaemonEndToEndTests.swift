import Foundation
import HealthRouterCore
import Synchronization
import Testing

/// The real `healthrouter run` binary: push, SIGTERM, rows in the sqlite sink; kill -9 while
/// pushing, restart: every sample answered 200 reaches the sink.
@Suite("healthrouter run end to end", .serialized)
struct DaemonEndToEndTests {
    @Test func pushThenSigtermDeliversEverything() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        var expected = Set<String>()
        for round in 0..<3 {
            let batch = DaemonProcess.batch(prefix: "R\(round)", count: 500)
            let reply = daemon.client.post("/ingest", batch.body, token: DaemonProcess.token, gzip: true)
            #expect(reply.body == #"{"received": 500, "new": 500, "deleted": 0}"#)
            expected.formUnion(batch.ids)
        }
        #expect(daemon.client.post("/ingest", #"[{"deleted":["R0-0","R0-1"]}]"#, token: DaemonProcess.token).status == 200)
        expected.subtract(["R0-0", "R0-1"])
        #expect(daemon.stop(signal: SIGTERM) == 0, "\(daemon.log)")
        #expect(daemon.log.contains("stopped"))
        #expect(try daemon.sinkIds() == expected)
    }

    @Test func killNineWhilePushingLosesNothingAcknowledged() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let acknowledged = Mutex(Set<String>())
        let stopPushing = Atomic<Bool>(false)
        let group = DispatchGroup()
        let client = daemon.client
        for pusher in 0..<3 {
            group.enter()
            Thread {
                var round = 0
                while !stopPushing.load(ordering: .relaxed) {
                    let batch = DaemonProcess.batch(prefix: "K\(pusher)-\(round)", count: 200)
                    let reply = client.post("/ingest", batch.body, token: DaemonProcess.token, gzip: true)
                    if reply.status == 200 { acknowledged.withLock { $0.formUnion(batch.ids) } }
                    if reply.status != 200 { break }
                    round += 1
                }
                group.leave()
            }.start()
        }
        usleep(400_000)
        daemon.stop(signal: SIGKILL)
        stopPushing.store(true, ordering: .relaxed)
        group.wait()
        let acked = acknowledged.withLock { $0 }
        #expect(acked.count > 0)

        try daemon.start()
        let deadline = Date(timeIntervalSinceNow: 10)
        while Date() < deadline, try !acked.isSubset(of: daemon.sinkIds()) { usleep(50_000) }
        #expect(daemon.stop(signal: SIGINT) == 0)
        let missing = acked.subtracting(try daemon.sinkIds())
        #expect(missing.isEmpty, "\(missing.count) acknowledged samples missing")
    }

    @Test func addressInUseExits69() throws {
        let first = try DaemonProcess()
        try first.start()
        let second = try DaemonProcess(port: first.port)
        let process = try second.launch()
        process.waitUntilExit()
        #expect(process.terminationStatus == 69, "\(second.log)")
        #expect(second.log.contains("cannot listen"))
        #expect(first.stop() == 0)
    }
}
