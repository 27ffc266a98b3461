import Foundation
import HealthRouterCore
import Testing
import TestSupport
@testable import HTTPPushSource
@testable import HTTPSink

/// The `http` sink against a real `http_push` server on loopback: what it forwards is
/// rebuilt exactly; failures are `unavailable` (retried); bodies are split by count and size.
@Suite("http sink")
struct HTTPSinkTests {
    static func samples(_ count: Int, prefix: String = "S") -> [JournalEntry] {
        (0..<count).map { index in
            var sample = Sample(id: "\(prefix)-\(index)", type: "HKQuantityTypeIdentifierHeartRate", kind: .quantity,
                                start: Timestamp(epochSeconds: 1_780_000_000 + Int64(index), utcOffsetSeconds: 3600),
                                end: Timestamp(epochSeconds: 1_780_000_000 + Int64(index), utcOffsetSeconds: 3600),
                                value: Double(50 + index % 100), unit: "count/min", sourceName: "Watch",
                                sourceBundleId: "com.apple.health")
            sample.timeZone = "Europe/Lisbon"
            return JournalEntry(sequence: Int64(index + 1), source: "history", item: .sample(sample))
        }
    }

    func sink(_ server: PushServerFixture, token: String? = PushServerFixture.tokens["alice"]) throws -> HTTPSink {
        let context = PluginContext(name: "mirror", stateDirectory: server.directory, logger: Logger(minimumLevel: .error))
        return try HTTPSink(configuration: .init(url: "127.0.0.1:\(server.source.listeningPort)/", token: token), context: context)
    }

    @Test func forwardsSamplesWorkoutsAndTombstonesExactly() throws {
        let server = try PushServerFixture()
        let sink = try sink(server)
        #expect(try sink.prepare() == nil)
        var entries = Self.samples(3)
        let sleep = Sample(id: "SL-1", type: "HKCategoryTypeIdentifierSleepAnalysis", kind: .category,
                           start: Timestamp(epochSeconds: 1_780_000_000, utcOffsetSeconds: -14400),
                           end: Timestamp(epochSeconds: 1_780_003_600, utcOffsetSeconds: -14400),
                           categoryValue: "HKCategoryValueSleepAnalysisAsleepCore", sourceName: "Watch")
        let workout = Sample(id: "W-1", type: "HKWorkoutTypeIdentifier", kind: .workout,
                             start: Timestamp(epochSeconds: 1_780_000_000, utcOffsetSeconds: 0),
                             end: Timestamp(epochSeconds: 1_780_003_612, utcOffsetSeconds: 0),
                             sourceName: "SmartGym", metadata: [MetadataEntry("HKIndoorWorkout", .bool(true))],
                             detail: .workout(Workout(activityType: "HKWorkoutActivityTypeRunning", durationSeconds: 3612,
                                                      totalDistanceMeters: 5000, totalEnergyBurnedKilocalories: 412)))
        entries.append(JournalEntry(sequence: 4, source: "x", item: .sample(sleep)))
        entries.append(JournalEntry(sequence: 5, source: "x", item: .sample(workout)))
        entries.append(JournalEntry(sequence: 6, source: "x", item: .tombstone(Tombstone(ids: ["S-0", "GONE"]))))
        try sink.write(entries, cursor: 6)
        try sink.write(entries, cursor: 6)  // idempotent at the receiver
        sink.close()
        let received = try server.journalItems()
        let expected = entries.map { entry -> HealthItem in
            switch entry.item {
            case .sample(var sample):
                sample.userId = "alice"
                return .sample(sample)
            case .tombstone(var tombstone):
                tombstone.userId = "alice"
                return .tombstone(tombstone)
            }
        }
        #expect(received == expected)
    }

    /// A receiver serving HTTPS with a self-signed certificate: not trusted without `ca_file`
    /// (misconfigured, saying to set it, with libcurl's own reason), delivered to with it.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"), "needs /usr/bin/openssl"))
    func aSelfSignedReceiverIsTrustedThroughCAFile() throws {
        let directory = TestScratch.path + "tls-sink-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let certificate = try SelfSignedCertificate(in: directory, commonName: "localhost")
        let server = try PushServerFixture(tls: (certificate.certificatePath, certificate.keyPath))
        let context = PluginContext(name: "mirror", stateDirectory: server.directory, logger: Logger(minimumLevel: .error))
        var configuration = HTTPSink.Configuration(url: "https://localhost:\(server.source.listeningPort)",
                                                   token: PushServerFixture.tokens["alice"])
        let untrusting = try HTTPSink(configuration: configuration, context: context)
        let error = #expect(throws: SinkError.self) { _ = try untrusting.prepare() }
        guard case .misconfigured(let reason)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(reason.contains("the server's certificate is not trusted") && reason.contains("set ca_file"), "\(reason)")
        #expect(reason.contains("certificate"), "\(reason)")
        configuration.caFile = certificate.certificatePath
        let trusting = try HTTPSink(configuration: configuration, context: context)
        _ = try trusting.prepare()
        try trusting.write(Self.samples(3), cursor: 3)
        #expect(try server.journalItems().count == 3)
        configuration.caFile = directory + "/missing.pem"
        let missing = try HTTPSink(configuration: configuration, context: context)
        let badFile = #expect(throws: SinkError.self) { _ = try missing.prepare() }
        #expect(badFile?.isMisconfigured == true, "\(String(describing: badFile))")
    }

    /// A url of the wrong scheme, http:// for a receiver serving HTTPS (an http_push with
    /// `tls_certificate`, which closes a plain request's connection without a reply) or https://
    /// for one serving plain HTTP: retried, and the reason says which scheme to try, where it
    /// said `Empty reply from server` or OpenSSL's `wrong version number` alone.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"), "needs /usr/bin/openssl"))
    func aURLOfTheWrongSchemeSaysWhichToTry() throws {
        let directory = TestScratch.path + "scheme-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let certificate = try SelfSignedCertificate(in: directory, commonName: "localhost")
        let secure = try PushServerFixture(tls: (certificate.certificatePath, certificate.keyPath))
        let plain = try PushServerFixture()
        let context = PluginContext(name: "mirror", stateDirectory: directory, logger: Logger(minimumLevel: .error))
        for (url, hint) in [("http://localhost:\(secure.source.listeningPort)", "if it serves https on this port, "
                                + "as an http_push with tls_certificate does, set the sink's url to https://)"),
                            ("https://localhost:\(plain.source.listeningPort)", "(the TLS handshake failed: if the receiver "
                                + "serves plain http on this port, set the sink's url to http://)")] {
            var configuration = HTTPSink.Configuration(url: url, token: PushServerFixture.tokens["alice"])
            configuration.caFile = certificate.certificatePath
            let sink = try HTTPSink(configuration: configuration, context: context)
            let error = #expect(throws: SinkError.self) { _ = try sink.prepare() }
            guard case .unavailable(let reason)? = error else { Issue.record("\(String(describing: error))"); continue }
            #expect(reason.hasPrefix(url + "/health: ") && reason.hasSuffix(hint), "\(reason)")
        }
    }

    /// A receiver that takes the connection and never answers: retried, and the reason says
    /// which timeout ran out and what to change.
    @Test func aTimeoutSaysWhichAndWhatToChange() throws {
        let silent = try #require(SilentListener.open())
        defer { close(silent.descriptor) }
        let context = PluginContext(name: "mirror", stateDirectory: TestScratch.path, logger: Logger(minimumLevel: .error))
        var configuration = HTTPSink.Configuration(url: "http://127.0.0.1:\(silent.port)")
        configuration.timeout = ConfigDuration(parsing: "1s")
        let sink = try HTTPSink(configuration: configuration, context: context)
        let error = #expect(throws: SinkError.self) { _ = try sink.prepare() }
        guard case .unavailable(let reason)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(reason.contains("the sink's timeout is 1s: raise `timeout`"), "\(reason)")
    }

    @Test func failuresAreUnavailable() throws {
        let server = try PushServerFixture()
        let wrong = try sink(server, token: "wrong")
        #expect(throws: SinkError.self) { try wrong.write(Self.samples(1), cursor: 1) }
        do {
            try wrong.write(Self.samples(1), cursor: 1)
        } catch let error as SinkError {
            // A token to fix: nothing passes until a person does.
            guard case .misconfigured(let reason) = error else { Issue.record("not misconfigured"); return }
            #expect(reason.contains("401"))
        }
        let port = server.source.listeningPort
        server.source.stop()
        let context = PluginContext(name: "mirror", stateDirectory: server.directory, logger: Logger(minimumLevel: .error))
        let down = try HTTPSink(configuration: .init(url: "http://127.0.0.1:\(port)"), context: context)
        #expect(throws: SinkError.self) { _ = try down.prepare() }
        #expect(throws: SinkError.self) { try down.write(Self.samples(1), cursor: 1) }
    }

    /// A password in the url (`user:pass@host`) is in no error: they reach the log, `status` and
    /// the admin listener's `/status`, which any local user reads. Nor in a refusal's.
    @Test func errorsNameTheURLWithoutItsPassword() throws {
        let server = try PushServerFixture()
        let port = server.source.listeningPort
        let context = PluginContext(name: "mirror", stateDirectory: server.directory, logger: Logger(minimumLevel: .error))
        let refused = try HTTPSink(configuration: .init(url: "http://backup:MirrorPassw0rd@127.0.0.1:\(port)", token: "wrong"),
                                   context: context)
        let refusal = #expect(throws: SinkError.self) { try refused.write(Self.samples(1), cursor: 1) }
        server.source.stop()
        let down = try HTTPSink(configuration: .init(url: "http://backup:MirrorPassw0rd@127.0.0.1:\(port)"), context: context)
        let unreachable = #expect(throws: SinkError.self) { _ = try down.prepare() }
        let failing = #expect(throws: SinkError.self) { try down.write(Self.samples(1), cursor: 1) }
        for error in [refusal, unreachable, failing] {
            let text = "\(String(describing: error))"
            #expect(text.contains("http://backup:…@127.0.0.1:\(port)/") && !text.contains("MirrorPassw0rd"), "\(text)")
        }
        // A password holding an unencoded / or @: hidden whole, in the config error too.
        for url in ["http://backup:Sec/ret2@127.0.0.1:\(port)", "http://backup:Sec@ret1@127.0.0.1:\(port)"] {
            var text = ""
            do {
                let sink = try HTTPSink(configuration: .init(url: url), context: context)
                _ = try sink.prepare()
            } catch {
                text = "\(error)"
            }
            #expect(!text.isEmpty && !text.contains("Sec") && !text.contains("ret1") && !text.contains("ret2"), "\(text)")
        }
    }

    /// A proxy that wants the token on every path, `/health` too, and one that passes only
    /// `/ingest` and `/health` (set up for Pulso before v1.2) are receivers the sink delivers to:
    /// the first refused the open probe of `/health` (retried for ever), the second the probe of
    /// `/latest` with its own page (a 403 taken for a wrong token: an import stopped, exit 78).
    /// A wrong token is still said at once: the proxy's 401 to `/health` asked with it.
    @Test func aProxyBeforeTheReceiverDoesNotFailTheProbe() throws {
        let context = PluginContext(name: "mirror", stateDirectory: TestScratch.path, logger: Logger(minimumLevel: .error))
        for gate in [PulsoStandInServer.Gate.tokenOnEveryPath("proxy-token-4711"), .onlyIngestAndHealth] {
            let server = try PulsoStandInServer(gate: gate)
            defer { server.stop() }
            let sink = try HTTPSink(configuration: .init(url: "http://127.0.0.1:\(server.port)", token: "proxy-token-4711"),
                                    context: context)
            _ = try sink.prepare()
            try sink.write([HTTPSinkRefusalTests.entry("PROXIED-1")], cursor: 1)
            #expect(server.received == ["PROXIED-1"], "\(gate)")
        }
        let server = try PulsoStandInServer(gate: .tokenOnEveryPath("proxy-token-4711"))
        defer { server.stop() }
        let wrong = try HTTPSink(configuration: .init(url: "http://127.0.0.1:\(server.port)", token: "not-the-token"),
                                 context: context)
        let error = #expect(throws: SinkError.self) { _ = try wrong.prepare() }
        #expect(error?.isMisconfigured == true && error?.reason.hasSuffix("(check the sink's token)") == true,
                "\(String(describing: error))")
    }

    /// A receiver that echoes the request (a debug page, a request bin at a wrong url) puts the
    /// token and the url's credentials (basic auth's base64) in its reply: a reason quotes the
    /// reply without them, a dead letter's (400) and a retried failure's (500) alike, since
    /// reasons reach the log, `status` and `/status`.
    @Test func aReplyThatEchoesTheRequestShowsNoSecret() throws {
        let server = try PulsoStandInServer()
        defer { server.stop() }
        let context = PluginContext(name: "mirror", stateDirectory: TestScratch.path, logger: Logger(minimumLevel: .error))
        let url = "http://backup:Mirror%2FPass@127.0.0.1:\(server.port)"
        // With a token, it is the Authorization header sent; without, the url's credentials are.
        let bearer = try HTTPSink(configuration: .init(url: url, token: "sekret-token-4711"), context: context)
        let basic = try HTTPSink(configuration: .init(url: url), context: context)
        let credentials = Data("backup:Mirror/Pass".utf8).base64EncodedString()
        for (sink, header) in [(bearer, "Bearer …"), (basic, "Basic …")] {
            for status in [400, 500] {
                do {
                    try sink.write([HTTPSinkRefusalTests.entry("ECHO-\(status)-1")], cursor: 1)
                    Issue.record("\(status) taken for a delivery")
                } catch let error as SinkError {
                    let reason = error.reason
                    #expect(reason.contains(#""Authorization": "\#(header)""#), "\(reason)")
                    #expect(!reason.contains("sekret-token-4711") && !reason.contains(credentials) && !reason.contains("Mirror"),
                            "\(reason)")
                }
            }
        }
        // A secret that is a word of the reply (a token `error`) is taken out of the text shown, not
        // out of what is read: a Pulso error stays one (a dead letter), not a failure retried whole.
        let wordy = try HTTPSink(configuration: .init(url: url, token: "error"), context: context)
        do {
            try wordy.write([HTTPSinkRefusalTests.entry("BAD-1")], cursor: 1)
            Issue.record("400 taken for a delivery")
        } catch let error as SinkError {
            guard case .rejected = error else { Issue.record("\(error)"); return }
            #expect(error.reason.contains(#"answered 400 {"…": "bad element"}"#), "\(error.reason)")
        }
        // A secret shorter than 4 characters is not taken out: it would take letters out of every reply.
        let short = try HTTPSink(configuration: .init(url: url, token: "ok"), context: context)
        do {
            try short.write([HTTPSinkRefusalTests.entry("ECHO-400-2")], cursor: 1)
            Issue.record("400 taken for a delivery")
        } catch let error as SinkError {
            #expect(error.reason.contains(#""Authorization": "Bearer ok""#), "\(error.reason)")
        }
    }

    /// A server that answers 200 without Pulso's `"received"` (a proxy's page, not a Pulso
    /// server) has not stored the batch: the write fails as unavailable, so nothing is counted
    /// as delivered and the worker retries.
    @Test func aReplyWithoutReceivedIsNotADelivery() throws {
        let server = try PortPrintingScript("""
            import http.server, sys
            class H(http.server.BaseHTTPRequestHandler):
                def do_POST(self):
                    self.rfile.read(int(self.headers.get('Content-Length', 0)))
                    body = b'<html>welcome</html>' if self.path == '/ingest' else b'{"received": 1}'
                    self.send_response(200); self.send_header('Content-Length', str(len(body))); self.end_headers()
                    self.wfile.write(body)
                def log_message(self, *args): pass
            s = http.server.HTTPServer(('127.0.0.1', 0), H)
            print(s.server_address[1], flush=True)
            s.serve_forever()
            """, arguments: [])
        defer { server.stop() }
        let port = server.port
        let context = PluginContext(name: "mirror", stateDirectory: TestScratch.path, logger: Logger(minimumLevel: .error))
        let sink = try HTTPSink(configuration: .init(url: "http://127.0.0.1:\(port)"), context: context)
        do {
            try sink.write(Self.samples(2), cursor: 2)
            Issue.record("a page was taken for a delivery")
        } catch SinkError.unavailable(let reason) {
            #expect(reason.contains("without \"received\": 2") && reason.contains("welcome"), "\(reason)")
        }
        #expect(HTTPSink.received(in: Array(#"{"received": 3, "new": 2, "deleted": 0}"#.utf8)) == 3)
        #expect(HTTPSink.received(in: Array(#"{"received": 2.5}"#.utf8)) == nil)
        #expect(HTTPSink.received(in: Array("[]".utf8)) == nil)
    }

    @Test func bodiesAreSplitByCountAndSize() throws {
        let encoder = PulsoBatchEncoder()
        let bodies = encoder.bodies(Self.samples(12_001))
        #expect(bodies.count == 3)
        let counts = bodies.map { (try? JSONSerialization.jsonObject(with: Data($0.bytes)) as? [Any])?.count ?? -1 }
        #expect(counts == [5_000, 5_000, 2_001])
        #expect(bodies.map(\.elements) == counts)
        var small = PulsoBatchEncoder()
        small.maxBytes = 10_000
        let sliced = small.bodies(Self.samples(300))
        #expect(sliced.count > 1)
        #expect(sliced.allSatisfy { $0.bytes.count <= 10_000 })
        let elements: [Int] = sliced.map { (try? JSONSerialization.jsonObject(with: Data($0.bytes)) as? [Any])?.count ?? -1 }
        #expect(elements.reduce(0, +) == 300)
        #expect(sliced.map(\.elements) == elements)
    }

    @Test func configurationIsChecked() throws {
        let context = PluginContext(name: "mirror", stateDirectory: TestScratch.path, logger: Logger())
        #expect(throws: ConfigError.self) { _ = try HTTPSink(configuration: .init(url: ""), context: context) }
        #expect(throws: ConfigError.self) { _ = try HTTPSink(configuration: .init(url: "ftp://x"), context: context) }
        for notAURL in ["not a url", "http://", "https:///ingest", "http://host:99999/", "host:0", "https://h/api?k=1", "https://h/#x"] {
            #expect(throws: ConfigError.self, "\(notAURL)") { _ = try HTTPSink(configuration: .init(url: notAURL), context: context) }
        }
        for url in ["health.example.org", "http://[::1]:8080/", "https://host.tailnet.ts.net/ingest", "10.0.0.2:9000"] {
            #expect(throws: Never.self, "\(url)") { _ = try HTTPSink(configuration: .init(url: url), context: context) }
        }
        do {
            _ = try HTTPSink(configuration: .init(url: "https://me:s3cret@host:99999/"), context: context)
            Issue.record("port 99999 accepted")
        } catch let error as ConfigError {
            #expect(!"\(error)".contains("s3cret") && "\(error)".contains("https://me:…@host:99999/"), "\(error)")
        }
        var big = HTTPSink.Configuration(url: "http://x")
        big.batchSize = 6_000
        #expect(throws: ConfigError.self) { _ = try HTTPSink(configuration: big, context: context) }
    }
}
