import Foundation
import HealthRouterCore
import Testing
import TestSupport
@testable import HTTPSink

/// A receiver that refuses a body's content (413, or 400, 409, 422 with a Pulso error reply)
/// rejects the batch, so the worker splits it until the refused entries are dead letters;
/// statuses that say the receiver is busy, gone or another service are retried as unavailable;
/// one that wants another token is misconfigured (nothing passes until a person fixes it).
@Suite("http sink refusals", .serialized)
struct HTTPSinkRefusalTests {
    /// One sample `id`, as the sink's worker hands it over.
    static func entry(_ id: String, sequence: Int64 = 1) -> JournalEntry {
        var entry = HTTPSinkTests.samples(1)[0]
        if case .sample(var sample) = entry.item {
            sample.id = id
            entry = JournalEntry(sequence: sequence, source: "history", item: .sample(sample))
        }
        return entry
    }

    @Test func contentRefusalsAreRejectionsAndTheRestUnavailable() throws {
        let server = try PulsoStandInServer()
        defer { server.stop() }
        let context = PluginContext(name: "mirror", stateDirectory: TestScratch.path, logger: Logger(minimumLevel: .error))
        let sink = try HTTPSink(configuration: .init(url: "http://127.0.0.1:\(server.port)"), context: context)
        for status in [400, 409, 413, 422] {
            do {
                try sink.write([Self.entry("STATUS-\(status)-1")], cursor: 1)
                Issue.record("\(status) taken for a delivery")
            } catch SinkError.rejected(let reason) {
                #expect(reason.contains("answered \(status)"), "\(reason)")
                // The reply's lines (pretty-printed JSON) joined on one: a line break would forge lines of `status`.
                #expect(reason.contains(#"answered \#(status) {; "error": "as asked"; }"#), "\(reason)")
            }
        }
        // Another service's refusal (FastAPI's 422, a proxy's 400) would refuse every entry: the
        // url is wrong, and the batch is retried rather than parked.
        for status in [400, 409, 422] {
            do {
                try sink.write([Self.entry("OTHER-\(status)-1")], cursor: 1)
                Issue.record("\(status) taken for a delivery")
            } catch SinkError.unavailable(let reason) {
                #expect(reason.contains("not a Pulso server's refusal: check the sink's url"), "\(reason)")
                #expect(reason.contains(#"answered \#(status) {; "detail": "validation failed"; }"#), "\(reason)")
            }
        }
        // A 2xx that is not a Pulso reply (a captive portal's page) becomes the last error, on one line too.
        do {
            try sink.write([Self.entry("OTHER-200-1")], cursor: 1)
            Issue.record("a 200 without received taken for a delivery")
        } catch SinkError.unavailable(let reason) {
            #expect(reason.contains(#"({; "detail": "validation failed"; })"#), "\(reason)")
        }
        // A proxy's 413 page (nginx's lines end with CR LF), a dead letter's reason when one entry is too large.
        let proxied = try PulsoStandInServer(bodyLimit: 10)
        defer { proxied.stop() }
        let limited = try HTTPSink(configuration: .init(url: "http://127.0.0.1:\(proxied.port)"), context: context)
        do {
            try limited.write([Self.entry("LARGE-1")], cursor: 1)
            Issue.record("413 taken for a delivery")
        } catch SinkError.rejected(let reason) {
            let controls = reason.unicodeScalars.filter { $0.properties.generalCategory == .control }
            #expect(reason.contains("answered 413 <html>; <head><title>413 Request Entity Too Large</title></head>; <body>; ")
                    && controls.isEmpty, "\(reason)")
        }
        for status in [307, 404, 405, 408, 429, 500, 503] {
            do {
                try sink.write([Self.entry("STATUS-\(status)-1")], cursor: 1)
                Issue.record("\(status) taken for a delivery")
            } catch SinkError.unavailable(let reason) {
                #expect(reason.contains("answered \(status)"), "\(reason)")
                #expect(!reason.contains("check the sink's token"), "\(reason)")
                // A redirect (http to https, as proxies answer) says so.
                #expect(reason.contains("a redirect, which the sink does not follow") == (status == 307), "\(reason)")
                // Nothing at the path: the url to set.
                #expect(reason.contains("nothing at this path: set the sink's url to the receiver's base address") == (status == 404),
                        "\(reason)")
            }
        }
        for status in [401, 403] {
            do {
                try sink.write([Self.entry("STATUS-\(status)-1")], cursor: 1)
                Issue.record("\(status) taken for a delivery")
            } catch SinkError.misconfigured(let reason) {
                #expect(reason.contains("answered \(status)") && reason.contains("check the sink's token"), "\(reason)")
            }
        }
        try sink.write([Self.entry("GOOD-1")], cursor: 1)
        #expect(server.received == ["GOOD-1"])
    }

    /// A body of several elements refused as too large (413) makes the sink's later bodies at most
    /// half its size: the batches after the first are sent without a 413, where each started at
    /// full size again and was split in halves (a 413 and a request more each time) down to what
    /// the proxy takes.
    @Test func aBodyRefusedAsTooLargeKeepsLaterBodiesSmaller() throws {
        let server = try PulsoStandInServer(bodyLimit: 12_000)
        defer { server.stop() }
        let context = PluginContext(name: "mirror", stateDirectory: TestScratch.path, logger: Logger(minimumLevel: .error))
        var configuration = HTTPSink.Configuration(url: "http://127.0.0.1:\(server.port)")
        configuration.gzip = false
        let sink = try HTTPSink(configuration: configuration, context: context)
        let delivery = DirectDelivery(sink: sink, sinkCursor: 0, filter: SampleFilter(), resumeAfter: 0, batchSize: 100,
                                      onBatch: { _, _ in })
        for sequence in 1...100 { try delivery.accept(Self.entry("FIRST-\(sequence)", sequence: Int64(sequence))) }
        let firstBatch = server.statuses
        // The first batch (about 30 KB) was refused, and its parts until they fit.
        #expect(firstBatch.first == 413 && firstBatch.last == 200, "\(firstBatch)")
        for sequence in 101...400 { try delivery.accept(Self.entry("LATER-\(sequence)", sequence: Int64(sequence))) }
        try delivery.finish()
        let later = server.statuses.dropFirst(firstBatch.count)
        #expect(!later.isEmpty && later.allSatisfy { $0 == 200 }, "\(later)")
        #expect(Set(server.received).count == 400 && delivery.counts.samples == 400 && delivery.counts.rejected == 0)
    }

    /// The size a 413 taught the daemon's http sink outlives the sink's failures: the worker builds
    /// the sink anew after one (a 503 here), and that sink's bodies stay within what the receiver
    /// takes, where it started at 8 MiB again and paid a 413 and a split for the next batch.
    @Test func aBodyLimitLearntOutlivesAFailureOfTheSink() throws {
        let server = try PulsoStandInServer(bodyLimit: 12_000)
        defer { server.stop() }
        let daemon = try DaemonProcess.withHTTPSink("mirror", url: "http://127.0.0.1:\(server.port)", options: ["gzip: false"])
        try daemon.start()
        func deliver(_ batch: (body: [UInt8], ids: [String])) {
            #expect(daemon.client.post("/ingest", batch.body, token: DaemonProcess.token).status == 200)
            let deadline = Date(timeIntervalSinceNow: 30)
            while Date() < deadline, !Set(server.received).isSuperset(of: batch.ids) { usleep(50_000) }
        }
        // About 30 KB: refused, and split until its bodies pass.
        deliver(DaemonProcess.batch(prefix: "FIRST", count: 100))
        #expect(server.statuses.first == 413 && server.statuses.last == 200, "\(server.statuses)")
        // Busy once (503, Retry-After: 1): the worker closes the sink and builds another.
        deliver(DaemonProcess.batch(prefix: "BUSY-1-000", count: 1))
        let busy = try #require(server.statuses.lastIndex(of: 503))
        deliver(DaemonProcess.batch(prefix: "LATER", count: 300))
        let after = server.statuses.suffix(from: busy + 1)
        #expect(!after.isEmpty && after.allSatisfy { $0 == 200 }, "\(server.statuses)")
        #expect(Set(server.received).count == 401)
        #expect(daemon.stop() == 0)
    }

    /// A proxy that sends http:// to https:// redirects every path, `/health` first: the sink's
    /// opening (what `check --connect` and every start try) says where the redirect leads and the
    /// url to set (the password in it hidden), as a body's redirect does. It said `answered 301`
    /// alone, so that the redirect's message was never seen.
    @Test func aRedirectSaysTheURLToSet() throws {
        let server = try PulsoStandInServer(redirectTo: "https://mirror:secret@health.example.org")
        defer { server.stop() }
        let context = PluginContext(name: "mirror", stateDirectory: TestScratch.path, logger: Logger(minimumLevel: .error))
        let sink = try HTTPSink(configuration: .init(url: "http://127.0.0.1:\(server.port)"), context: context)
        let said = " which the sink does not follow: set the sink's url to https://mirror:…@health.example.org)"
        do {
            _ = try sink.prepare()
            Issue.record("a redirect taken for a receiver")
        } catch SinkError.unavailable(let reason) {
            #expect(reason == "http://127.0.0.1:\(server.port)/health answered 301 (a redirect to "
                        + "https://mirror:…@health.example.org/health," + said, "\(reason)")
        }
        do {
            try sink.write([Self.entry("GOOD-1")], cursor: 1)
            Issue.record("a redirect taken for a delivery")
        } catch SinkError.unavailable(let reason) {
            #expect(reason == "http://127.0.0.1:\(server.port)/ingest answered 301 (a redirect to "
                        + "https://mirror:…@health.example.org/ingest," + said, "\(reason)")
        }
        #expect(server.received.isEmpty)
    }

    /// Runs a sink worker (short retry delays, batches of 20,000 entries, as the daemon's) over
    /// 200 heart-rate samples (the one at `refused`, if given, with an id the stand-in refuses)
    /// into an http sink of `batchSize` through a stand-in that fails every `failEvery`th request;
    /// returns once the cursor reached 200 or `seconds` passed, with the worker's progress and
    /// the journal's dead letters.
    private func deliverThroughAFlakyLink(_ server: PulsoStandInServer, batchSize: Int, refused: Int? = nil,
                                          firstId: String? = nil,
                                          seconds: Double) throws -> (progress: SinkWorker.Progress, deadLetters: [Int64]) {
        let directory = TestScratch.path + "flaky-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let control = WorkerControl()
        let ingest = try PushIngest(stateDirectory: directory, control: control)
        let items = (0..<200).map { index in
            HealthItem.sample(Sample(id: index == 0 ? firstId ?? "FLAKY-000" : String(format: index == refused ? "BAD-%03d" : "FLAKY-%03d", index),
                                     type: "HKQuantityTypeIdentifierHeartRate", kind: .quantity,
                                     start: Timestamp(epochSeconds: 1_780_000_000 + Int64(index)),
                                     end: Timestamp(epochSeconds: 1_780_000_000 + Int64(index)), value: 60, unit: "count/min",
                                     sourceName: "Watch"))
        }
        _ = try ingest.append(items, source: "phone")
        var settings = SinkWorker.Settings()
        settings.batchSize = 20_000
        settings.retryInitial = 0.02
        settings.retryCap = 0.1
        let context = PluginContext(name: "mirror", stateDirectory: directory, logger: Logger(minimumLevel: .error))
        var bodies = HTTPSink.Configuration(url: "http://127.0.0.1:\(server.port)")
        bodies.batchSize = batchSize
        let configuration = bodies
        let worker = SinkWorker(name: "mirror", stateDirectory: directory, settings: settings, logger: Logger(minimumLevel: .error),
                                makeSink: { try HTTPSink(configuration: configuration, context: context) }, selects: { _, _ in true })
        let done = DispatchGroup()
        done.enter()
        Thread {
            worker.run(control: control, feed: ingest.feed, writer: ingest)
            done.leave()
        }.start()
        let deadline = Date(timeIntervalSinceNow: seconds)
        while worker.progress.cursor < 200 && Date() < deadline { usleep(10_000) }
        control.requestStop()
        done.wait()
        return (worker.progress, try Journal(stateDirectory: directory, role: .reader).deadLetters(sink: "mirror").map(\.sequence))
    }

    /// On a link that drops one request in four, the worker hands the sink one body's entries at
    /// a time (its batch_size), so every body the receiver acknowledged moves the cursor: all 200
    /// entries arrive, each once. Given its own 20,000-entry batches (20 bodies a write), the sink
    /// was retried, acknowledged bodies and all, until 20 requests passed in a row: never.
    @Test func aFlakyLinkStillMovesTheCursorBodyByBody() throws {
        let server = try PulsoStandInServer(failEvery: 4)
        defer { server.stop() }
        let (progress, deadLetters) = try deliverThroughAFlakyLink(server, batchSize: 10, seconds: 20)
        #expect(progress.cursor == 200)
        #expect(server.received.count == 200, "\(server.received.count) stored")
        #expect(Set(server.received).count == 200)
        #expect(server.statuses.contains(503))
        #expect(deadLetters.isEmpty)
    }

    /// The same flaky link, and one element the receiver refuses (400): while the worker splits
    /// its body to find it, each half acknowledged moves the cursor, so a 503 in the middle of the
    /// split retries only what is left. Before, the whole body was sent again from the start at
    /// every failure, and with one request in three failing the refused element was never found.
    @Test func aRefusedElementIsIsolatedOnAFlakyLink() throws {
        let server = try PulsoStandInServer(failEvery: 3)
        defer { server.stop() }
        let (progress, deadLetters) = try deliverThroughAFlakyLink(server, batchSize: 20, refused: 57, seconds: 30)
        #expect(progress.cursor == 200)
        // Each stored once: no acknowledged part was sent again.
        #expect(server.received.count == 199 && Set(server.received).count == 199 && !server.received.contains("BAD-057"),
                "\(server.received.count)")
        #expect(deadLetters == [58])
    }

    /// A receiver that answers 429 or 503 with `Retry-After` is busy: the sink says for how long,
    /// and the next try of the same body is stored.
    @Test func aBusyReceiverSaysHowLongItWants() throws {
        let server = try PulsoStandInServer()
        defer { server.stop() }
        let context = PluginContext(name: "mirror", stateDirectory: TestScratch.path, logger: Logger(minimumLevel: .error))
        let sink = try HTTPSink(configuration: .init(url: "http://127.0.0.1:\(server.port)"), context: context)
        do {
            try sink.write([Self.entry("BUSY-7-1")], cursor: 1)
            Issue.record("a 503 taken for a delivery")
        } catch SinkError.busy(let reason, let seconds) {
            #expect(seconds == 7)
            #expect(reason.contains("answered 503") && reason.contains("it asks for time: Retry-After"), "\(reason)")
        }
        try sink.write([Self.entry("BUSY-7-1")], cursor: 1)
        #expect(server.received == ["BUSY-7-1"])
        #expect(SinkWorker.Settings.oneShot.retryDelay(afterAttempt: 1, error: SinkError.busy("", retryAfter: 7)) == 7)
        #expect(SinkWorker.Settings.oneShot.retryDelay(afterAttempt: 1, error: SinkError.busy("", retryAfter: 7_200)) == 60)
        #expect(SinkWorker.Settings().retryDelay(afterAttempt: 1, error: SinkError.busy("", retryAfter: 7_200)) == 3_600)
        #expect(SinkWorker.Settings.oneShot.retryDelay(afterAttempt: 3, error: SinkError.unavailable("")) == 2)
    }

    /// The worker waits the seconds a busy receiver asks for, not its own shorter backoff (here
    /// 0.02 s): two seconds pass before the body is sent again, and it is stored once.
    @Test func theWorkerWaitsAsLongAsABusyReceiverAsks() throws {
        let server = try PulsoStandInServer()
        defer { server.stop() }
        let started = Date()
        let (progress, deadLetters) = try deliverThroughAFlakyLink(server, batchSize: 50, firstId: "BUSY-2-000", seconds: 20)
        #expect(Date().timeIntervalSince(started) >= 2)
        #expect(progress.cursor == 200 && deadLetters.isEmpty)
        #expect(server.statuses.first == 503 && server.statuses.filter { $0 == 503 }.count == 1, "\(server.statuses)")
        #expect(server.received.count == 200 && Set(server.received).count == 200)
    }

    /// A backfill or migration (`DirectDelivery`) waits for a busy receiver too.
    @Test func aBackfillWaitsAsLongAsABusyReceiverAsks() throws {
        let server = try PulsoStandInServer()
        defer { server.stop() }
        let context = PluginContext(name: "mirror", stateDirectory: TestScratch.path, logger: Logger(minimumLevel: .error))
        let sink = try HTTPSink(configuration: .init(url: "http://127.0.0.1:\(server.port)"), context: context)
        let delivery = DirectDelivery(sink: sink, sinkCursor: 0, filter: SampleFilter(), resumeAfter: 0, onBatch: { _, _ in })
        nonisolated(unsafe) var delays: [Double] = []
        delivery.onRetry = { _, _, _, delay in delays.append(delay) }
        try delivery.accept(Self.entry("BUSY-1-1"))
        try delivery.finish()
        #expect(delays == [1])
        #expect(server.received == ["BUSY-1-1"] && delivery.counts.samples == 1)
    }

    /// The daemon forwards a push of 200 good samples and three the receiver refuses (400), in a
    /// body larger than the receiver's proxy takes (413): the good ones land, the bad ones are the
    /// sink's only dead letters, one warning line tells of them, and `status` shows them with the
    /// receiver's answer.
    @Test func aRefusedElementBecomesADeadLetterAndTheRestLands() throws {
        let receiver = try PulsoStandInServer(bodyLimit: 12_000)
        defer { receiver.stop() }
        let directory = TestScratch.path + "daemon-\(UUID().uuidString)"
        // Uncompressed bodies, so that the limit splits the 201 elements into a known few bodies.
        let daemon = try DaemonProcess(directory: directory, sinks: DaemonProcess.localSink(in: directory, more: """
              mirror:
                type: http
                url: http://127.0.0.1:\(receiver.port)
                gzip: false

            """))
        try daemon.start()
        let first = DaemonProcess.batch(prefix: "G", count: 120)
        let bad = DaemonProcess.batch(prefix: "BAD", count: 3)
        let second = DaemonProcess.batch(prefix: "G", count: 80, offset: 120)
        let body = "[" + [first.body, bad.body, second.body].map { String(decoding: $0.dropFirst().dropLast(), as: UTF8.self) }
            .joined(separator: ",") + "]"
        #expect(daemon.client.post("/ingest", body, token: DaemonProcess.token).status == 200)
        let good = Set(first.ids + second.ids)
        let deadline = Date(timeIntervalSinceNow: 20)
        while Date() < deadline, Set(receiver.received) != good || !daemon.log.contains("dead letter") { usleep(100_000) }
        #expect(daemon.stop() == 0)
        #expect(Set(receiver.received) == good, "\(daemon.log)")
        // The first body was over the proxy's limit, and smaller ones were sent until one held the bad element alone.
        #expect(receiver.statuses.first == 413 && receiver.statuses.contains(400), "\(receiver.statuses)")
        // One line, not one per entry: a flood of dead letters writes one every 10 s at most.
        let warnings = daemon.log.split(separator: "\n").filter { $0.contains("parked as a dead letter") }
        #expect(warnings.count == 1 && warnings[0].contains("sink=mirror") && warnings[0].contains("seq=")
                    && warnings[0].contains("reason=") && warnings[0].contains("answered 400"), "\(daemon.log)")

        let status = try CommandRunner.run(["status", "--config", directory + "/config.yaml"], in: directory,
                                           environment: ["TEST_TOKEN": DaemonProcess.token])
        #expect(status.status == 1, "\(status.stdout) \(status.stderr)")
        let mirror = try #require(status.stdout.split(separator: "\n").first { $0.hasPrefix("mirror") }, "\(status.stdout)")
        let columns = mirror.split(separator: " ", omittingEmptySubsequences: true)
        #expect(columns.count > 5 && columns[3] == "0" && columns[4] == "200" && columns[5] == "3", "\(mirror)")
        let letters = try #require(status.stdout.components(separatedBy: "dead letters of mirror").last, "\(status.stdout)")
        #expect(letters.contains("answered 400 {\"error\": \"bad element\"}"), "\(status.stdout)")
    }
}
