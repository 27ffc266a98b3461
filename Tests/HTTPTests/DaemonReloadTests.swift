import Foundation
import HealthRouterCore
import Synchronization
import Testing
import TestSupport

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
        // The reload says so: its log does not read as the daemon stopping or closing its port.
        #expect(daemon.log.contains("reloading: finishing the requests in flight"), "\(daemon.log)")
        #expect(daemon.log.contains("listener kept open for the reloaded config"), "\(daemon.log)")
        #expect(daemon.log.contains("info: listening on the socket kept through the reload plugin=phone"), "\(daemon.log)")
        #expect(!daemon.log.contains("stopping"), "\(daemon.log)")
        #expect(!daemon.log.contains("stopped listening"), "\(daemon.log)")
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

    /// A config file every user may read holding a push token written in it is warned about at the
    /// start of `run` and on each reload that finds it so, naming the key and never the token; a
    /// reload after `chmod 600` is not.
    @Test func aConfigFileEveryUserMayReadWithATokenInItIsWarnedAboutAtStartAndOnReload() throws {
        let daemon = try DaemonProcess()
        let path = daemon.directory + "/config.yaml"
        try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(of: "${TEST_TOKEN}", with: DaemonProcess.token)
            .write(toFile: path, atomically: true, encoding: .utf8)
        #expect(chmod(path, 0o644) == 0)
        try daemon.start()
        let warning = "warning: the config file \(path) is readable by every user of this machine (mode 644) and holds secrets "
            + "written in it: any of them could read them keys=sources.phone.users.alice.token hint=chmod 600 \(path) "
        func count(_ text: String) -> Int { daemon.log.components(separatedBy: text).count - 1 }
        #expect(count(warning) == 1, "\(daemon.log)")
        kill(daemon.process!.processIdentifier, SIGHUP)
        #expect(eventually(within: 10) { count("config reloaded") == 1 }, "\(daemon.log)")
        #expect(count(warning) == 2, "\(daemon.log)")
        #expect(chmod(path, 0o600) == 0)
        kill(daemon.process!.processIdentifier, SIGHUP)
        #expect(eventually(within: 10) { count("config reloaded") == 2 }, "\(daemon.log)")
        #expect(daemon.stop() == 0)
        #expect(count(warning) == 2 && count("config file") == 2, "\(daemon.log)")
        #expect(!daemon.log.contains(DaemonProcess.token), "\(daemon.log)")
    }

    /// The listen addresses stay bound across a reload: a client that connects while one config
    /// stops and the next starts waits a moment and is answered, never refused (Health Auto
    /// Export counts a refused connection as a failed sync). A socket the next config does not
    /// listen on is closed once it runs.
    @Test func aReloadRefusesNoConnection() throws {
        let daemon = try DaemonProcess(admin: true)
        try daemon.start()
        let adminPort = try #require(daemon.adminPort)
        struct Tally { var refused = 0, answered = 0, cut = 0; var connectErrors: Set<Int32> = [] }
        let tally = Mutex([UInt16: Tally]())
        let probing = Mutex(true)
        let probes = DispatchGroup()
        for port in [daemon.port, adminPort] {
            probes.enter()
            Thread {
                // A new connection a probe, back to back, so that some land between the configs.
                while probing.withLock({ $0 }) {
                    guard let connection = RawConnection(port: port) else {
                        let failure = errno
                        tally.withLock { $0[port, default: Tally()].refused += 1; $0[port, default: Tally()].connectErrors.insert(failure) }
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

    /// A client that connected just before a reload and sends its push a moment later (its
    /// request still on the way, a TLS handshake under way) is answered: the connection was
    /// closed unanswered with the stopping config's server ("empty reply"; 2 pushes in 300 with
    /// 30 `systemctl reload`s under systemd), though nothing refused it.
    @Test func aConnectionMadeJustBeforeAReloadIsAnswered() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let connection = try #require(RawConnection(port: daemon.port))
        usleep(200_000)  // accepted by the running config's server
        kill(daemon.process!.processIdentifier, SIGHUP)
        usleep(300_000)
        let push = DaemonProcess.batch(prefix: "J1", count: 3)
        let head = "POST /ingest HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(DaemonProcess.token)\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(push.body.count)\r\nConnection: close\r\n\r\n"
        _ = connection.send(Array(head.utf8) + push.body)
        let reply = connection.receiveResponse(seconds: 10).text
        #expect(reply.hasPrefix("HTTP/1.1 200"), "reply: \(reply.isEmpty ? "none (closed)" : reply)\n\(daemon.log)")
        let deadline = Date(timeIntervalSinceNow: 10)
        while !daemon.log.contains("config reloaded"), Date() < deadline { usleep(20_000) }
        #expect(daemon.log.contains("config reloaded"), "\(daemon.log)")
        #expect(daemon.client.get("/health").status == 200)
        #expect(daemon.stop() == 0)
        #expect(try daemon.sinkIds().isSuperset(of: push.ids))
    }

    /// A stop with a silent connection (accepted, its first request not come) on each of three
    /// listeners, two http_push sources and an admin one, waits their 3 s once, the listeners
    /// stopping together: they stopped one after another, 3 s each (9 s here; with the sinks' 10,
    /// past the 13 s the README gives a stop).
    @Test func silentConnectionsOnSeveralListenersHoldAStopFor3sOnce() throws {
        let directory = TestScratch.path + "daemon-\(UUID().uuidString)"
        let tabletPort = DaemonProcess.randomListenPort()
        let tablet = """
              tablet:
                type: http_push
                listen: 127.0.0.1:\(tabletPort)
                users:
                  bob: { token: "${TEST_TOKEN}" }

            """
        let daemon = try DaemonProcess(directory: directory, sinks: tablet + DaemonProcess.localSink(in: directory), admin: true)
        try daemon.start()
        let deadline = Date(timeIntervalSinceNow: 10)
        while !daemon.log.contains("127.0.0.1:\(tabletPort)"), Date() < deadline { usleep(20_000) }
        let ports = [daemon.port, try #require(daemon.adminPort), tabletPort]
        let silent = try ports.map { try #require(RawConnection(port: $0), "port \($0): \(daemon.log)") }
        usleep(300_000)  // accepted by each listener
        let stopping = Date()
        #expect(daemon.stop() == 0)
        let took = Date().timeIntervalSince(stopping)
        #expect(took > 2.5 && took < 6, "the stop took \(took) s\n\(daemon.log)")
        withExtendedLifetime(silent) {}  // open, silent, until the daemon stopped
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
        let taken = try #require(SilentListener.open())
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
        let silent = try #require(SilentListener.open())
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

    /// A cursor the journal refused just before a SIGHUP stays with the config that stopped: its
    /// ingest is released at the reload, so its retry (5 s later) does not write the cursor behind
    /// the one the new config's worker recorded since (the sink would show behind, and deliver
    /// again after a restart), and no stopped config holds journal connections.
    @Test func aRefusedCursorPendingAtAReloadIsNotWrittenByTheStoppedConfig() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        defer { daemon.stop() }
        let pid = try #require(daemon.process?.processIdentifier)
        let journalPath = daemon.directory + "/state/journal.sqlite"
        func journalDescriptors() -> Int {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
            return names.filter { ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")) ?? "")
                .hasPrefix(journalPath) }.count
        }
        func cursor() -> Int64? {
            try? Journal(stateDirectory: daemon.directory + "/state", role: .reader).sinkStates().first { $0.sink == "local" }?.cursor
        }
        let running = journalDescriptors()
        let journal = try SQLiteDatabase(path: journalPath)
        try journal.execute("CREATE TRIGGER refuse_update BEFORE UPDATE OF seq ON cursors WHEN NEW.seq = 100 "
                            + "BEGIN SELECT RAISE(ABORT, 'refused for the test'); END")
        try journal.execute("CREATE TRIGGER refuse_insert BEFORE INSERT ON cursors WHEN NEW.seq = 100 "
                            + "BEGIN SELECT RAISE(ABORT, 'refused for the test'); END")
        #expect(daemon.client.post("/ingest", DaemonProcess.batch(prefix: "R1", count: 100).body, token: DaemonProcess.token).status == 200)
        #expect(eventually { daemon.log.contains("cannot record sink progress") }, "\(daemon.log)")
        let refusedAt = Date()
        try journal.execute("DROP TRIGGER refuse_update")
        try journal.execute("DROP TRIGGER refuse_insert")
        kill(pid, SIGHUP)
        #expect(eventually { daemon.log.contains("config reloaded") }, "\(daemon.log)")
        #expect(daemon.client.post("/ingest", DaemonProcess.batch(prefix: "R2", count: 100).body, token: DaemonProcess.token).status == 200)
        #expect(eventually { cursor() == 200 }, "cursor \(String(describing: cursor()))")
        // Before the stopped config's retry would run: its connection to the journal is closed.
        #expect(Date().timeIntervalSince(refusedAt) < 5)
        #expect(journalDescriptors() == running)
        // Past it: the cursor the new config recorded stands.
        usleep(UInt32(max(0, 6.5 - Date().timeIntervalSince(refusedAt)) * 1_000_000))
        #expect(cursor() == 200)
        #expect(journalDescriptors() == running)
    }
}
