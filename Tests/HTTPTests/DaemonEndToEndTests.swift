import Foundation
import HealthRouterCore
import Synchronization
import Testing
import TestSupport

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

    /// The daemon prunes the journal as `journal.retain` says (it never did: only an import
    /// pruned): entries every sink passed go once they are older than that; the store keeps them.
    /// A push user's samples go to the postgres sink under the UUIDv5 of the user's name, not the
    /// sink's user_id: the log says which, once, so that health4ai can be set to read them.
    @Test func aPostgresSinkSaysUnderWhichUserIdAPushUsersSamplesGo() throws {
        guard let url = ProcessInfo.processInfo.environment["PG_URL"] else { return }
        let directory = NSTemporaryDirectory() + "daemon-\(UUID().uuidString)"
        let schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        let supa = "  supa:\n    type: postgres\n    url: \"\(url)\"\n    schema: \(schema)\n"
            + "    user_id: 00000000-0000-4000-8000-000000000001\n"
        let daemon = try DaemonProcess(directory: directory, sinks: DaemonProcess.localSink(in: directory, more: supa))
        try daemon.start()
        for prefix in ["A", "B"] {
            let batch = DaemonProcess.batch(prefix: prefix, count: 2)
            #expect(daemon.client.post("/ingest", batch.body, token: DaemonProcess.token).status == 200)
        }
        let stored = UUIDv5.string(name: "alice").lowercased()
        let line = "warning: samples of user alice are stored as user_id \(stored) (set HEALTHKIT_USER_ID=\(stored) for health4ai"
        var deadline = Date().addingTimeInterval(10)
        while !daemon.log.contains(line) && Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        // A reload makes the sink anew (it connects again): it does not say it again.
        kill(try #require(daemon.process?.processIdentifier), SIGHUP)
        deadline = Date().addingTimeInterval(10)
        while daemon.log.components(separatedBy: "config reloaded").count < 2 && Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        var status = 0
        while status != 200 && Date() < deadline {
            status = daemon.client.post("/ingest", DaemonProcess.batch(prefix: "C", count: 2).body, token: DaemonProcess.token).status
            if status != 200 { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(status == 200)
        // The new sink wrote the push (its cursor reached the journal's head).
        let journal = try Journal(stateDirectory: directory + "/state", role: .reader)
        let head = try journal.head()
        let delivered = { (try? journal.cursor(sink: "supa")) ?? nil }
        while delivered() != head && Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        daemon.stop()
        #expect(daemon.log.contains("config reloaded"))
        #expect(head == 6 && delivered() == head)
        #expect(daemon.log.components(separatedBy: line).count == 2, "\(daemon.log)")
    }

    @Test func theDaemonPrunesTheJournal() throws {
        let directory = NSTemporaryDirectory() + "daemon-\(UUID().uuidString)"
        let daemon = try DaemonProcess(directory: directory, sinks: DaemonProcess.localSink(in: directory, preamble: "journal:\n  retain: 1s\n"))
        try daemon.start()
        let batch = DaemonProcess.batch(prefix: "P", count: 300)
        #expect(daemon.client.post("/ingest", batch.body, token: DaemonProcess.token).status == 200)
        let journal = try Journal(stateDirectory: directory + "/state", role: .reader)
        let deadline = Date(timeIntervalSinceNow: 30)
        while try journal.counts().entries > 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.25) }
        #expect(try journal.counts().entries == 0)
        #expect(try journal.counts().samples == 300)  // identities stay: a re-push is still a duplicate
        #expect(daemon.client.post("/ingest", batch.body, token: DaemonProcess.token).body == #"{"received": 300, "new": 0, "deleted": 0}"#)
        #expect(daemon.stop(signal: SIGTERM) == 0, "\(daemon.log)")
        #expect(daemon.log.contains("pruned the journal"))
        #expect(try daemon.sinkIds() == Set(batch.ids))
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

    @Test func sigtermFinishesTheRequestInFlight() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let batch = DaemonProcess.batch(prefix: "F", count: 20_000)
        let client = daemon.client
        let reply = Mutex<HTTPTestClient.Response?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            let response = client.post("/ingest", batch.body, token: DaemonProcess.token, gzip: true)
            reply.withLock { $0 = response }
            done.signal()
        }.start()
        usleep(100_000)
        kill(daemon.process!.processIdentifier, SIGTERM)
        done.wait()
        #expect(daemon.stop() == 0)
        let response = try #require(reply.withLock { $0 })
        // Either it was in flight and finished (200, and durable), or it came after the stop.
        if response.status == 200 {
            #expect(response.body == #"{"received": 20000, "new": 20000, "deleted": 0}"#)
            try daemon.start()
            let deadline = Date(timeIntervalSinceNow: 10)
            while Date() < deadline, try daemon.sinkIds().count < 20_000 { usleep(50_000) }
            #expect(daemon.stop() == 0)
            #expect(try daemon.sinkIds() == Set(batch.ids))
        } else {
            #expect(response.status == -1)
        }
        #expect(daemon.log.contains("finishing those in flight"))
    }

    /// A body still arriving (a phone on a slow link, a client trickling bytes) does not hold
    /// a reload or a stop for long: it is cut after a few seconds (nothing of it was accepted;
    /// a client without a reply sends again), and the push port is back at once.
    @Test func anUploadStillArrivingHoldsAReloadOrAStopAFewSecondsOnly() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        func trickle() throws -> RawConnection {
            let slow = try #require(daemon.client.connection())
            #expect(slow.send("POST /ingest HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(DaemonProcess.token)\r\n"
                                  + "Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n[{"))
            usleep(200_000)
            return slow
        }
        var slow = try trickle()
        let reload = Date()
        kill(daemon.process!.processIdentifier, SIGHUP)
        let reloaded = Date(timeIntervalSinceNow: 20)
        while Date() < reloaded, !daemon.log.contains("config reloaded") { usleep(50_000) }
        #expect(daemon.log.contains("config reloaded"), "\(daemon.log)")
        #expect(Date().timeIntervalSince(reload) < 10)
        #expect(daemon.client.get("/health").status == 200)
        #expect(slow.receiveResponse(seconds: 1).closed)
        slow = try trickle()
        let stop = Date()
        #expect(daemon.stop() == 0)
        #expect(Date().timeIntervalSince(stop) < 10)
        _ = slow
    }

    @Test func adminShowsEveryConfiguredSinkBeforeAnyPush() throws {
        let daemon = try DaemonProcess(admin: true)
        try daemon.start()
        var status = daemon.adminClient.get("/status")
        let deadline = Date(timeIntervalSinceNow: 10)
        while Date() < deadline, status.status != 200 {
            usleep(20_000)
            status = daemon.adminClient.get("/status")
        }
        #expect(status.status == 200, "\(daemon.log)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(status.body.utf8)) as? [String: Any])
        let sinks = try #require(object["sinks"] as? [[String: Any]])
        #expect(sinks.map { $0["name"] as? String } == ["local"])
        #expect(sinks.first?["cursor"] as? Int == 0)
        #expect(sinks.first?["written"] as? Int == 0)
        let metrics = daemon.adminClient.get("/metrics").body
        #expect(metrics.contains("healthrouter_sink_cursor_sequence{sink=\"local\"} 0\n"))
        #expect(metrics.contains("healthrouter_sink_lag_entries{sink=\"local\"} 0\n"))
        #expect(metrics.contains("healthrouter_sink_written_total{sink=\"local\"} 0\n"))
        #expect(metrics.contains("healthrouter_sink_write_failing{sink=\"local\"} 0\n"))
        #expect(daemon.stop() == 0)
    }

    @Test func addressInUseExits69() throws {
        let first = try DaemonProcess()
        try first.start()
        let second = try DaemonProcess(port: first.port)
        let process = try second.launch()
        process.waitUntilExit()
        #expect(process.terminationStatus == 69, "\(second.log)")
        #expect(second.log.contains("source 'phone' (127.0.0.1:\(first.port)): cannot listen"), "\(second.log)")
        #expect(first.stop() == 0)
    }

    /// An import beside a running daemon (same state directory) journals what it reads and leaves
    /// the delivery to the daemon, whose workers look in the journal also while pushes keep them
    /// busy from memory: the export's rows reach the daemon's store.
    @Test func anImportBesideTheDaemonIsDeliveredByIt() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        defer { daemon.stop() }
        let pushed = #"[{"uuid":"P-1","type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":60,"source":"W"}]"#
        #expect(daemon.client.post("/ingest", pushed, token: DaemonProcess.token).status == 200)
        let export = CommandRunner.repository + "/samples/export.zip"
        let imported = try CommandRunner.run(["import", export, "--config", daemon.directory + "/config.yaml"], in: daemon.directory,
                                             environment: ["TEST_TOKEN": DaemonProcess.token])
        #expect(imported.status == 0, "\(imported.stdout)\(imported.stderr)")
        #expect(imported.stdout.contains("delivered by the running daemon (healthrouter run, pid"), "\(imported.stdout)")
        let deadline = Date(timeIntervalSinceNow: 20)
        var rows = 0
        while Date() < deadline {
            rows = (try? daemon.sinkIds().count) ?? 0
            if rows > 10_000 { break }
            Thread.sleep(forTimeInterval: 0.2)
        }
        #expect(rows > 10_000, "\(rows)")
    }

    /// An import beside a running daemon leaves the journal's pruning to the daemon, which knows
    /// its sinks' cursors: with `retain: 0s` and an http sink whose receiver is down, the import
    /// had pruned with no sink to hold it back, so the pushed sample that sink had yet to send was
    /// gone from the journal for good (a push has no export to backfill it from).
    @Test func anImportBesideTheDaemonKeepsWhatItsSinksHaveYetToWrite() throws {
        let directory = NSTemporaryDirectory() + "daemon-\(UUID().uuidString)"
        let daemon = try DaemonProcess(directory: directory, sinks: DaemonProcess.localSink(
            in: directory, preamble: "journal:\n  retain: 0s\n", more: "  mirror:\n    type: http\n    url: http://127.0.0.1:1\n"))
        try daemon.start()
        defer { daemon.stop() }
        let pushed = #"[{"uuid":"P-1","type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":60,"source":"W"}]"#
        #expect(daemon.client.post("/ingest", pushed, token: DaemonProcess.token).status == 200)
        let export = CommandRunner.repository + "/samples/export.zip"
        let imported = try CommandRunner.run(["import", export, "--config", directory + "/config.yaml"], in: directory,
                                             environment: ["TEST_TOKEN": DaemonProcess.token])
        #expect(imported.status == 0, "\(imported.stdout)\(imported.stderr)")
        let journal = try Journal(stateDirectory: directory + "/state", role: .reader)
        #expect(try journal.oldestRetained() == 1, "\(imported.stdout)")
        #expect(try journal.cursor(sink: "mirror") ?? 0 == 0)
    }

    /// An ndjson folder is the daemon's while it runs: a backfill of that sink beside it fails at
    /// once, saying to stop the daemon, instead of retrying for seconds and then telling the user
    /// to give each sink its own folder. A dump of it (which only reads) and a backfill of a
    /// sqlite sink work.
    @Test func aBackfillOfAnNDJSONSinkBesideTheDaemonSaysToStopIt() throws {
        let daemon = try DaemonProcess.withNDJSONSink()
        let directory = daemon.directory
        try daemon.start()
        defer { daemon.stop() }
        let pushed = #"[{"uuid":"P-1","type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":60,"source":"W"}]"#
        #expect(daemon.client.post("/ingest", pushed, token: DaemonProcess.token).status == 200)
        let environment = ["TEST_TOKEN": DaemonProcess.token]
        let started = Date()
        let lake = try CommandRunner.run(["backfill", "lake", "--config", directory + "/config.yaml"], in: directory,
                                         environment: environment)
        #expect(lake.status == 73, "\(lake.stdout)\(lake.stderr)")
        #expect(lake.stderr.contains("the healthrouter run (pid \(daemon.process!.processIdentifier)) on this state directory "
                                     + "writes that folder: stop it"), "\(lake.stderr)")
        #expect(!lake.stderr.contains("retrying"), "\(lake.stderr)")
        #expect(Date().timeIntervalSince(started) < 5)
        let dumped = try CommandRunner.run(["dump", "--from", "lake", "--config", directory + "/config.yaml"], in: directory,
                                           environment: environment)
        #expect(dumped.status == 0 && dumped.stdout.contains(#""uuid":"P-1""#), "\(dumped.stdout)\(dumped.stderr)")
        let local = try CommandRunner.run(["backfill", "local", "--config", directory + "/config.yaml"], in: directory,
                                          environment: environment)
        #expect(local.status == 0, "\(local.stdout)\(local.stderr)")
    }

    /// The journal deleted under the running daemon (`rm state/journal.sqlite*`): a push is no
    /// longer answered 200 into a file nobody can open again, but refused (500), `/health`
    /// answers 503 saying why (and the admin metric 1), and the error is logged, once per 10 s.
    @Test func aJournalDeletedUnderTheDaemonRefusesPushes() throws {
        let daemon = try DaemonProcess(admin: true)
        try daemon.start()
        defer { daemon.stop() }
        let pushed = #"[{"uuid":"J-1","type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":60,"source":"W"}]"#
        #expect(daemon.client.post("/ingest", pushed, token: DaemonProcess.token).status == 200)
        #expect(daemon.client.get("/health").status == 200)
        #expect(daemon.adminClient.get("/metrics").body.contains("healthrouter_journal_write_failing 0\n"))
        let state = daemon.directory + "/state/"
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: state + "journal.sqlite" + suffix) }
        let again = pushed.replacingOccurrences(of: "J-1", with: "J-2")
        for _ in 0..<3 {
            let refused = daemon.client.post("/ingest", again, token: DaemonProcess.token)
            #expect(refused.status == 500, "\(refused.body)")
        }
        let health = daemon.client.get("/health")
        #expect(health.status == 503 && health.body.contains("was deleted or replaced while healthrouter ran"), "\(health.body)")
        #expect(daemon.adminClient.get("/metrics").body.contains("healthrouter_journal_write_failing 1\n"))
        let log = try String(contentsOfFile: daemon.directory + "/daemon.log", encoding: .utf8)
        #expect(log.components(separatedBy: "cannot write the journal").count - 1 == 1, "\(log)")
    }

    /// A sqlite store and an ndjson folder deleted under the running daemon (`rm health.sqlite*`,
    /// `rm -r lake`): the next write notices, and the sinks open them again, new, and fill them
    /// from the journal, the sample pushed before the deletion too. They had written into files
    /// nobody could open again, and said they were caught up.
    @Test func storesDeletedUnderTheDaemonAreFilledAgain() throws {
        let daemon = try DaemonProcess.withNDJSONSink()
        let directory = daemon.directory
        try daemon.start()
        defer { daemon.stop() }
        func push(_ id: String) {
            let body = #"[{"uuid":"ID","type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":60,"source":"W"}]"#
            #expect(daemon.client.post("/ingest", body.replacingOccurrences(of: "ID", with: id), token: DaemonProcess.token).status == 200)
        }
        func lakeLines() -> [String] {
            ((try? String(contentsOfFile: directory + "/lake/heartRate.ndjson", encoding: .utf8)) ?? "")
                .split(separator: "\n").map(String.init)
        }
        func waitFor(_ condition: () -> Bool) -> Bool {
            let deadline = Date(timeIntervalSinceNow: 20)
            while !condition() && Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
            return condition()
        }
        push("BEFORE-1")
        #expect(waitFor { ((try? daemon.sinkIds()) ?? []).contains("BEFORE-1") && lakeLines().count == 1 })
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: directory + "/health.sqlite" + suffix) }
        try FileManager.default.removeItem(atPath: directory + "/lake")
        push("AFTER-1")
        #expect(waitFor { ((try? daemon.sinkIds()) ?? []) == ["BEFORE-1", "AFTER-1"] }, "\((try? daemon.sinkIds()) ?? [])")
        #expect(waitFor { lakeLines().count == 2 }, "\(lakeLines())")
        let log = try String(contentsOfFile: directory + "/daemon.log", encoding: .utf8)
        #expect(log.contains("was deleted or replaced while healthrouter wrote it"), "\(log)")
    }

    /// A journal that opens but takes no write (another user's files) stops `run` at the start
    /// (exit 73, saying whose files to fix), instead of a daemon that answers every push 500.
    @Test func aJournalThatCannotBeWrittenStopsTheDaemonAtTheStart() throws {
        let daemon = try DaemonProcess()
        let state = daemon.directory + "/state"
        let export = CommandRunner.repository + "/samples/export.zip"
        let config = daemon.directory + "/config.yaml"
        let environment = ["TEST_TOKEN": DaemonProcess.token]
        #expect(try CommandRunner.run(["import", export, "--config", config, "-q"], in: daemon.directory,
                                      environment: environment).status == 0)
        // The folders open to all (so that only the journal's files, root's, are closed), and the
        // store too.
        for path in [daemon.directory, state] { try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: path) }
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: daemon.directory + "/health.sqlite")
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: state + "/journal.sqlite" + suffix) {
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: state + "/journal.sqlite" + suffix)
        }
        let result = try CommandRunner.runUnprivileged(["run", "--config", "config.yaml", "-q"], in: daemon.directory,
                                                       environment: environment, timeoutSeconds: 20)
        #expect(result.status == 73, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("cannot write the journal in"), "\(result.stderr)")
        #expect(result.stderr.contains("cannot be written by this user"), "\(result.stderr)")
    }

    /// A second daemon on the same state directory (another port) is refused at the start, naming
    /// the first's pid: two would each deliver every entry to every sink. Once the first is gone
    /// (even by kill -9), the directory is free again.
    @Test func aSecondDaemonOnOneStateDirectoryIsRefused() throws {
        let first = try DaemonProcess()
        try first.start()
        let pid = try #require(first.process?.processIdentifier)
        let second = try DaemonProcess(directory: first.directory)
        let process = try second.launch()
        let deadline = Date(timeIntervalSinceNow: 10)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning { second.stop() }
        #expect(process.terminationStatus == 69, "\(second.log)")
        #expect(second.log.contains("another healthrouter run (pid \(pid)) uses the state directory"), "\(second.log)")
        // daemon.lock deleted as a "stale lock file": the state directory's own lock still holds.
        try FileManager.default.removeItem(atPath: first.directory + "/state/daemon.lock")
        let again = try second.launch()
        let againBy = Date(timeIntervalSinceNow: 10)
        while again.isRunning && Date() < againBy { Thread.sleep(forTimeInterval: 0.05) }
        if again.isRunning { second.stop() }
        #expect(again.terminationStatus == 69, "\(second.log)")
        #expect(second.log.contains("another healthrouter run uses the state directory"), "\(second.log)")
        #expect(first.stop(signal: SIGKILL) != 0)
        let third = try DaemonProcess(directory: first.directory)
        try third.start()

        // A reload onto another state directory whose config cannot start (its port taken) falls
        // back to the running config, whose state directory stays locked.
        let taken = try #require(DaemonProcess.listeningSocket())
        defer { close(taken.descriptor) }
        let path = third.directory + "/config.yaml"
        let config = try String(contentsOfFile: path, encoding: .utf8)
        try config.replacingOccurrences(of: "\(third.directory)/state", with: "\(third.directory)/state2")
            .replacingOccurrences(of: "127.0.0.1:\(third.port)", with: "127.0.0.1:\(taken.port)")
            .write(toFile: path, atomically: true, encoding: .utf8)
        let reloadedAt = Date()
        kill(try #require(third.process?.processIdentifier), SIGHUP)
        while !third.log.contains("keeping the previous one") && Date().timeIntervalSince(reloadedAt) < 10 {
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(third.log.contains("the reloaded config cannot start; keeping the previous one"), "\(third.log)")
        try config.write(toFile: path, atomically: true, encoding: .utf8)
        let fourth = try DaemonProcess(directory: NSTemporaryDirectory() + "daemon-\(UUID().uuidString)")
        let fourthConfig = try String(contentsOfFile: fourth.directory + "/config.yaml", encoding: .utf8)
        try fourthConfig.replacingOccurrences(of: "\(fourth.directory)/state", with: "\(third.directory)/state")
            .write(toFile: fourth.directory + "/config.yaml", atomically: true, encoding: .utf8)
        let refused = try fourth.launch()
        let refusedBy = Date(timeIntervalSinceNow: 10)
        while refused.isRunning && Date() < refusedBy { Thread.sleep(forTimeInterval: 0.05) }
        if refused.isRunning { fourth.stop() }
        #expect(refused.terminationStatus == 69, "\(fourth.log)")
        #expect(third.stop() == 0)
    }
}

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
        let upstream = NSTemporaryDirectory() + "daemon-\(UUID().uuidString)"
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
        Thread.sleep(forTimeInterval: 2.5)
        let retries = a.log.components(separatedBy: "write failed, retrying").count - 1
        #expect((1...3).contains(retries), "\(a.log)")
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

/// SIGHUP reloads the config without losing accepted data; a broken config is not applied,
/// and does not stop the listeners.
@Suite("healthrouter run reload", .serialized)
struct DaemonReloadTests {
    @Test func sighupAppliesANewUserAndKeepsServing() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let first = DaemonProcess.batch(prefix: "H1", count: 100)
        #expect(daemon.client.post("/ingest", first.body, token: DaemonProcess.token).status == 200)
        #expect(daemon.client.post("/ingest", "[]", token: "bob-token-1").status == 401)
        let path = daemon.directory + "/config.yaml"
        let original = try String(contentsOfFile: path, encoding: .utf8)
        try original.replacingOccurrences(of: #"alice: { token: "${TEST_TOKEN}" }"#,
                                          with: "alice: { token: \"${TEST_TOKEN}\" }\n      bob: { token: \"bob-token-1\" }")
            .write(toFile: path, atomically: true, encoding: .utf8)
        kill(daemon.process!.processIdentifier, SIGHUP)
        var status = 0
        let deadline = Date(timeIntervalSinceNow: 10)
        while Date() < deadline {
            status = daemon.client.post("/ingest", DaemonProcess.batch(prefix: "H2", count: 10).body, token: "bob-token-1").status
            if status == 200 { break }
            usleep(50_000)
        }
        #expect(status == 200)
        // A broken config is logged and not applied.
        try "sinks: [".write(toFile: path, atomically: true, encoding: .utf8)
        kill(daemon.process!.processIdentifier, SIGHUP)
        usleep(300_000)
        #expect(daemon.client.get("/health").status == 200)
        #expect(daemon.client.post("/ingest", "[]", token: "bob-token-1").status == 200)
        #expect(daemon.stop() == 0)
        #expect(daemon.log.contains("config reloaded"))
        #expect(daemon.log.contains("config not reloaded"))
        let ids = try daemon.sinkIds()
        #expect(ids.isSuperset(of: first.ids))
        #expect(ids.count == 110)
    }

    /// The listen addresses stay bound across a reload: a client that connects while one config
    /// stops and the next starts waits a moment and is answered, never refused (Health Auto
    /// Export counts a refused connection as a failed sync). A socket the next config does not
    /// listen on is closed once it runs.
    @Test func aReloadRefusesNoConnection() throws {
        let daemon = try DaemonProcess(admin: true)
        try daemon.start()
        let adminPort = try #require(daemon.adminPort)
        struct Tally { var refused = 0, answered = 0, cut = 0 }
        let tally = Mutex([UInt16: Tally]())
        let probing = Mutex(true)
        let probes = DispatchGroup()
        for port in [daemon.port, adminPort] {
            probes.enter()
            Thread {
                // A new connection a probe, back to back, so that some land between the configs.
                while probing.withLock({ $0 }) {
                    guard let connection = RawConnection(port: port) else {
                        tally.withLock { $0[port, default: Tally()].refused += 1 }
                        continue
                    }
                    let path = port == adminPort ? "/metrics" : "/health"
                    connection.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                    let reply = connection.receiveResponse(seconds: 20).text
                    tally.withLock {
                        if reply.hasPrefix("HTTP/1.1 200") { $0[port, default: Tally()].answered += 1 } else { $0[port, default: Tally()].cut += 1 }
                    }
                }
                probes.leave()
            }.start()
        }
        var reloads = 0
        for _ in 1...3 {
            let before = tally.withLock { $0[daemon.port]?.answered ?? 0 }
            kill(daemon.process!.processIdentifier, SIGHUP)
            let deadline = Date(timeIntervalSinceNow: 15)
            while daemon.log.components(separatedBy: "config reloaded").count - 1 == reloads, Date() < deadline { usleep(10_000) }
            reloads += 1
            // Answered again after the reload.
            while tally.withLock({ $0[daemon.port]?.answered ?? 0 }) < before + 20, Date() < deadline { usleep(10_000) }
        }
        probing.withLock { $0 = false }
        probes.wait()
        let counts = tally.withLock { $0 }
        #expect(daemon.log.components(separatedBy: "config reloaded").count - 1 == 3, "\(daemon.log)")
        for port in [daemon.port, adminPort] {
            #expect(counts[port]?.refused == 0, "port \(port): \(String(describing: counts[port]))")
            #expect(counts[port]?.answered ?? 0 >= 10, "port \(port): \(String(describing: counts[port]))")
        }

        // A reload onto another port: the old socket is closed, the new port answers.
        let path = daemon.directory + "/config.yaml"
        let newPort = daemon.port == 32000 ? daemon.port - 1 : daemon.port + 1
        try String(contentsOfFile: path, encoding: .utf8)
            .replacingOccurrences(of: "listen: 127.0.0.1:\(daemon.port)\n", with: "listen: 127.0.0.1:\(newPort)\n")
            .write(toFile: path, atomically: true, encoding: .utf8)
        kill(daemon.process!.processIdentifier, SIGHUP)
        let moved = HTTPTestClient(port: newPort)
        let deadline = Date(timeIntervalSinceNow: 15)
        while moved.get("/health").status != 200, Date() < deadline { usleep(20_000) }
        #expect(moved.get("/health").status == 200, "\(daemon.log)")
        // Closed once the new config's listeners all run (the new port may answer a moment before).
        let closing = Date(timeIntervalSinceNow: 5)
        while RawConnection(port: daemon.port) != nil, Date() < closing { usleep(20_000) }
        #expect(RawConnection(port: daemon.port) == nil, "the old port still accepts connections")
        #expect(daemon.stop() == 0)
    }

    /// A reload from `127.0.0.1:P` to `0.0.0.0:P` (and back) is applied: the kept socket, which
    /// holds the port, is closed for the new listener to bind (it failed with "address in use").
    @Test func aReloadToAnOverlappingAddressOnThePortIsApplied() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let path = daemon.directory + "/config.yaml"
        func reloads() -> Int { daemon.log.components(separatedBy: "config reloaded").count - 1 }
        for (from, to) in [("127.0.0.1", "0.0.0.0"), ("0.0.0.0", "127.0.0.1")] {
            let before = reloads()
            try String(contentsOfFile: path, encoding: .utf8)
                .replacingOccurrences(of: "listen: \(from):\(daemon.port)\n", with: "listen: \(to):\(daemon.port)\n")
                .write(toFile: path, atomically: true, encoding: .utf8)
            kill(daemon.process!.processIdentifier, SIGHUP)
            let deadline = Date(timeIntervalSinceNow: 10)
            while reloads() == before, !daemon.log.contains("cannot start"), Date() < deadline { usleep(20_000) }
            #expect(reloads() == before + 1, "\(from) → \(to): \(daemon.log)")
            #expect(!daemon.log.contains("the reloaded config cannot start"), "\(daemon.log)")
            #expect(daemon.client.get("/health").status == 200)
        }
        #expect(daemon.stop() == 0)
    }

    /// A SIGTERM followed at once by a SIGHUP stops the daemon (the reload came second: it
    /// overwrote the stop, one time in eight, and the daemon went on running).
    @Test func aStopFollowedAtOnceByAReloadStops() throws {
        for attempt in 1...16 {
            let daemon = try DaemonProcess()
            try daemon.start()
            let process = try #require(daemon.process)
            kill(process.processIdentifier, SIGTERM)
            kill(process.processIdentifier, SIGHUP)
            let deadline = Date(timeIntervalSinceNow: 15)
            while process.isRunning, Date() < deadline { usleep(20_000) }
            #expect(!process.isRunning, "attempt \(attempt): still running after SIGTERM, SIGHUP\n\(daemon.log)")
            if process.isRunning { _ = daemon.stop(signal: SIGKILL) } else { #expect(process.terminationStatus == 0) }
        }
    }

    /// SIGHUPs that keep coming while the daemon reloads (a config tool sending one per file it
    /// touched) merge: once they stop, the reloads stop too. Each was one more reload before
    /// (150 of them reloaded for half a minute after the last, pushes slowed to a crawl).
    @Test func reloadsRequestedDuringAReloadAreMerged() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let pid = try #require(daemon.process?.processIdentifier)
        func reloads() -> Int { daemon.log.components(separatedBy: "config reloaded").count - 1 }
        for _ in 1...150 {
            kill(pid, SIGHUP)
            usleep(10_000)
        }
        usleep(2_000_000)
        let settled = reloads()
        usleep(2_000_000)
        #expect(reloads() == settled, "still reloading 2 s after the last SIGHUP: \(settled), then \(reloads())")
        #expect(settled >= 1 && settled < 40, "\(settled) reloads; the log ends: \(daemon.log.suffix(1500))")
        #expect(daemon.client.get("/health").status == 200)
        let stopping = Date()
        #expect(daemon.stop() == 0)
        #expect(Date().timeIntervalSince(stopping) < 10)
    }

    /// The admin source's push counters count this process's pushes: a reload does not reset them
    /// (Prometheus would take the drop for a restart).
    @Test func sighupKeepsThePushCounters() throws {
        let daemon = try DaemonProcess(admin: true)
        try daemon.start()
        #expect(daemon.client.post("/ingest", DaemonProcess.batch(prefix: "C1", count: 7).body, token: DaemonProcess.token).status == 200)
        func accepted() -> String? {
            daemon.adminClient.get("/metrics").body.split(separator: "\n")
                .first { $0.hasPrefix("healthrouter_push_samples_accepted_total ") }.map(String.init)
        }
        var before: String?
        let deadline = Date(timeIntervalSinceNow: 10)
        while Date() < deadline, before == nil { before = accepted(); if before == nil { usleep(20_000) } }
        #expect(before == "healthrouter_push_samples_accepted_total 7", "\(daemon.log)")
        kill(daemon.process!.processIdentifier, SIGHUP)
        // Pushed once the new config runs.
        let reloaded = Date(timeIntervalSinceNow: 10)
        while Date() < reloaded, !daemon.log.contains("config reloaded") { usleep(20_000) }
        #expect(daemon.log.contains("config reloaded"), "\(daemon.log)")
        var status = 0
        while Date() < reloaded {
            status = daemon.client.post("/ingest", DaemonProcess.batch(prefix: "C2", count: 3).body, token: DaemonProcess.token).status
            if status == 200 { break }
            usleep(50_000)
        }
        #expect(status == 200)
        var after: String?
        let again = Date(timeIntervalSinceNow: 10)
        while Date() < again, after != "healthrouter_push_samples_accepted_total 10" { after = accepted(); usleep(20_000) }
        #expect(after == "healthrouter_push_samples_accepted_total 10", "\(daemon.log)")
        #expect(daemon.stop() == 0)
    }

    /// A reload does not wait for a sink that is behind (its store down) to catch up: the push
    /// port is back at once, not after the 5 s a stop gives the workers; nothing accepted is lost.
    @Test func sighupWithASinkBehindKeepsThePortClosedBriefly() throws {
        let daemon = try DaemonProcess.withHTTPSink("away", url: "http://127.0.0.1:9")
        let directory = daemon.directory
        try daemon.start()
        let batch = DaemonProcess.batch(prefix: "B", count: 50)
        #expect(daemon.client.post("/ingest", batch.body, token: DaemonProcess.token).status == 200)
        let started = Date()
        kill(daemon.process!.processIdentifier, SIGHUP)
        usleep(100_000)
        while daemon.client.get("/health").status != 200, Date().timeIntervalSince(started) < 10 { usleep(20_000) }
        let closedFor = Date().timeIntervalSince(started)
        #expect(closedFor < 2.5, "the port was closed for \(closedFor) s")
        #expect(daemon.stop() == 0)
        #expect(try daemon.sinkIds() == Set(batch.ids))
        let journal = try Journal(stateDirectory: directory + "/state", role: .reader)
        #expect(try journal.cursor(sink: "away") ?? 0 == 0)  // still behind: its entries wait in the journal
    }

    /// A worker left behind at a reload records nothing when its call ends at last: the new
    /// worker has delivered the batch meanwhile, and `status` shows its cursor and no error,
    /// not the old worker's stale cursor and timeout.
    @Test func aWorkerLeftBehindAtAReloadRecordsNothingWhenItsCallEnds() throws {
        let receiver = try PulsoStandInServer()
        defer { receiver.stop() }
        let daemon = try DaemonProcess.withHTTPSink("mirror", url: "http://127.0.0.1:\(receiver.port)", options: ["timeout: 12s"])
        let directory = daemon.directory
        try daemon.start()
        let batch = DaemonProcess.batch(prefix: "HANG", count: 5)
        #expect(daemon.client.post("/ingest", batch.body, token: DaemonProcess.token).status == 200)
        usleep(500_000)   // the mirror's worker is inside the hanging request now
        kill(daemon.process!.processIdentifier, SIGHUP)
        let journal = try Journal(stateDirectory: directory + "/state", role: .reader)
        func mirror() throws -> SinkState? { try journal.sinkStates(named: ["mirror"]).first }
        // The new worker delivers the batch again (answered at once), then the old call times out.
        let deadline = Date(timeIntervalSinceNow: 30)
        while Date() < deadline, try mirror()?.cursor != 5 { usleep(100_000) }
        #expect(try mirror()?.cursor == 5)
        sleep(14)
        #expect(daemon.log.contains("sink did not stop in time"))
        let state = try mirror()
        #expect(state?.cursor == 5 && state?.lastError == nil, "\(String(describing: state))")
        #expect(daemon.stop() == 0)
    }

    /// A reloaded config that cannot start (its port is taken) gives way to the one that ran,
    /// which serves again; the log says so, and does not say the config was reloaded.
    @Test func aReloadedConfigThatCannotStartGivesWayToThePreviousOne() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let taken = try #require(DaemonProcess.listeningSocket())
        defer { close(taken.descriptor) }
        let path = daemon.directory + "/config.yaml"
        try String(contentsOfFile: path, encoding: .utf8)
            .replacingOccurrences(of: "listen: 127.0.0.1:\(daemon.port)\n", with: "listen: 127.0.0.1:\(taken.port)\n")
            .write(toFile: path, atomically: true, encoding: .utf8)
        kill(daemon.process!.processIdentifier, SIGHUP)
        let deadline = Date(timeIntervalSinceNow: 10)
        usleep(300_000)
        while !daemon.log.contains("keeping the previous one") || daemon.client.get("/health").status != 200, Date() < deadline {
            usleep(50_000)
        }
        let batch = DaemonProcess.batch(prefix: "P", count: 5)
        #expect(daemon.client.post("/ingest", batch.body, token: DaemonProcess.token).status == 200)
        #expect(daemon.stop() == 0)
        #expect(daemon.log.contains("the reloaded config cannot start; keeping the previous one"))
        #expect(!daemon.log.contains("config reloaded"), "\(daemon.log)")
        #expect(try daemon.sinkIds() == Set(batch.ids))
    }

    /// A sink whose server accepts the connection and never answers holds neither a reload (the
    /// push port is back within seconds) nor a stop (exit 0 well before a service manager's
    /// 90 s): its call is left behind, its batch waits in the journal, the other sink has all.
    @Test func aSinkThatNeverAnswersHoldsNeitherAReloadNorAStop() throws {
        // A listening socket nobody accepts on: the kernel completes connections, nothing answers.
        let silent = try #require(DaemonProcess.listeningSocket())
        defer { close(silent.descriptor) }
        let silentPort = silent.port
        let daemon = try DaemonProcess.withHTTPSink("silent", url: "http://127.0.0.1:\(silentPort)", options: ["timeout: 600s"])
        let directory = daemon.directory
        try daemon.start()
        let batch = DaemonProcess.batch(prefix: "S", count: 20)
        #expect(daemon.client.post("/ingest", batch.body, token: DaemonProcess.token).status == 200)
        usleep(300_000)

        let reloaded = Date()
        kill(daemon.process!.processIdentifier, SIGHUP)
        usleep(100_000)
        while daemon.client.get("/health").status != 200, Date().timeIntervalSince(reloaded) < 30 { usleep(50_000) }
        let closedFor = Date().timeIntervalSince(reloaded)
        #expect(closedFor < 9, "the port was closed for \(closedFor) s")

        let stopped = Date()
        #expect(daemon.stop() == 0)
        let stoppingTook = Date().timeIntervalSince(stopped)
        #expect(stoppingTook < 15, "stopping took \(stoppingTook) s")
        #expect(daemon.log.contains("sink did not stop in time"))
        #expect(try daemon.sinkIds() == Set(batch.ids))
        let journal = try Journal(stateDirectory: directory + "/state", role: .reader)
        #expect(try journal.cursor(sink: "silent") ?? 0 == 0)
    }

    /// A config read from a pipe cannot be read again: SIGHUP says so and keeps the running config,
    /// instead of applying the empty text a second read gives (which would stop every source and sink).
    @Test func sighupWithAConfigFromAPipeKeepsTheRunningConfig() throws {
        let daemon = try DaemonProcess()
        daemon.configThroughPipe = true
        try daemon.start()
        kill(daemon.process!.processIdentifier, SIGHUP)
        let deadline = Date(timeIntervalSinceNow: 10)
        while Date() < deadline, !daemon.log.contains("config not reloaded") { usleep(50_000) }
        let batch = DaemonProcess.batch(prefix: "P", count: 20)
        #expect(daemon.client.post("/ingest", batch.body, token: DaemonProcess.token).status == 200)
        #expect(daemon.stop() == 0)
        #expect(daemon.log.contains("is not a regular file (a pipe is read once, at the start): restart healthrouter"),
                "\(daemon.log)")
        #expect(!daemon.log.contains("config reloaded"))
        #expect(try daemon.sinkIds() == Set(batch.ids))
    }

    /// A config found as ./healthrouter.yaml (no `--config`) that is gone for a moment at a SIGHUP
    /// (an editor replacing it) keeps the running config: the reload took the embedded default,
    /// closing the push listener and starting a journal of its own under ./healthrouter-data.
    @Test func sighupWhileTheFoundConfigIsGoneKeepsTheRunningConfig() throws {
        let daemon = try DaemonProcess()
        daemon.configFound = true
        try daemon.start()
        let found = daemon.directory + "/healthrouter.yaml"
        try FileManager.default.moveItem(atPath: found, toPath: found + ".moved")
        kill(daemon.process!.processIdentifier, SIGHUP)
        let deadline = Date(timeIntervalSinceNow: 10)
        while Date() < deadline, !daemon.log.contains("config not reloaded") { usleep(50_000) }
        try FileManager.default.moveItem(atPath: found + ".moved", toPath: found)
        // Empty for a moment (being written): a config of nothing, which is not taken either.
        let original = try String(contentsOfFile: daemon.directory + "/config.yaml", encoding: .utf8)
        try "# being written\n".write(toFile: daemon.directory + "/config.yaml", atomically: false, encoding: .utf8)
        kill(daemon.process!.processIdentifier, SIGHUP)
        let emptied = Date(timeIntervalSinceNow: 10)
        while Date() < emptied, !daemon.log.contains("holds no sources and no sinks") { usleep(50_000) }
        try original.write(toFile: daemon.directory + "/config.yaml", atomically: false, encoding: .utf8)
        let batch = DaemonProcess.batch(prefix: "G", count: 20)
        #expect(daemon.client.post("/ingest", batch.body, token: DaemonProcess.token).status == 200)
        #expect(daemon.stop() == 0)
        #expect(daemon.log.contains("healthrouter.yaml holds no sources and no sinks (empty, or being written?)"), "\(daemon.log)")
        #expect(daemon.log.contains("healthrouter.yaml does not exist (moved, or being replaced)"), "\(daemon.log)")
        #expect(!daemon.log.contains("config reloaded"), "\(daemon.log)")
        #expect(!FileManager.default.fileExists(atPath: daemon.directory + "/healthrouter-data"))
        #expect(try daemon.sinkIds() == Set(batch.ids))
    }

    @Test func brokenConfigOnSighupIsLoggedWithoutStoppingTheListener() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let first = DaemonProcess.batch(prefix: "B1", count: 50)
        #expect(daemon.client.post("/ingest", first.body, token: DaemonProcess.token).status == 200)
        let path = daemon.directory + "/config.yaml"
        let original = try String(contentsOfFile: path, encoding: .utf8)
        let broken = original.replacingOccurrences(of: "    path: \(daemon.directory)/health.sqlite",
                                                   with: "    pth: \(daemon.directory)/health.sqlite")
        #expect(broken != original)
        try broken.write(toFile: path, atomically: true, encoding: .utf8)
        let misspeltLine = try #require(broken.split(separator: "\n", omittingEmptySubsequences: false)
            .firstIndex { $0.contains("pth:") }) + 1
        kill(daemon.process!.processIdentifier, SIGHUP)
        let deadline = Date(timeIntervalSinceNow: 10)
        while Date() < deadline, !daemon.log.contains("config not reloaded") { usleep(20_000) }
        let second = DaemonProcess.batch(prefix: "B2", count: 50)
        #expect(daemon.client.post("/ingest", second.body, token: DaemonProcess.token).status == 200)
        let log = daemon.log
        #expect(log.contains("config not reloaded"), "\(log)")
        #expect(log.contains("config.yaml:\(misspeltLine):"), "\(log)")
        #expect(log.contains("sinks.local.pth"), "\(log)")
        // One line, its hint on it: journald keeps it as one entry.
        let refusal = log.split(separator: "\n").first { $0.contains("config not reloaded") } ?? ""
        #expect(refusal.hasSuffix("unknown key; hint: did you mean 'path'?"), "\(log)")
        // The listener that was up before the SIGHUP is the one that took the second push.
        #expect(!log.contains("stopping"), "\(log)")
        #expect(!log.contains("stopped listening"), "\(log)")
        #expect(log.split(separator: "\n").filter { $0.hasPrefix("info: listening ") }.count == 1, "\(log)")
        #expect(daemon.stop() == 0)
        #expect(try daemon.sinkIds() == Set(first.ids + second.ids))
    }
}

/// `healthrouter check --connect` probes an `http` sink with `GET /health`.
@Suite("check --connect with an http sink", .serialized)
struct CheckConnectTests {
    @Test func probesHealth() throws {
        let peer = try DaemonProcess()
        try peer.start()
        defer { peer.stop() }
        let directory = NSTemporaryDirectory() + "check-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        func check(port: UInt16) throws -> (Int32, String) {
            try """
            state_directory: \(directory)/state
            sinks:
              mirror:
                type: http
                url: http://127.0.0.1:\(port)
            routes:
              - types: ["*"]
                to: [mirror]
            """.write(toFile: directory + "/config.yaml", atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: DaemonProcess.executable)
            process.arguments = ["check", "--connect", "--config", directory + "/config.yaml"]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            try process.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, text)
        }
        let reachable = try check(port: peer.port)
        #expect(reachable.0 == 0, "\(reachable.1)")
        #expect(reachable.1.contains("mirror: connected"))
        let unreachable = try check(port: peer.port == 60000 ? 59999 : peer.port + 1)
        #expect(unreachable.0 == 1, "\(unreachable.1)")
        #expect(unreachable.1.contains("FAILED"))
    }
}
