import Foundation
import HealthRouterCore
import Testing
import TestSupport
@testable import HTTPPushSource

/// HTTPS through libmicrohttpd with a certificate and key (made with the openssl command).
@Suite("http_push over TLS")
struct TLSTests {
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"), "needs /usr/bin/openssl"))
    func servesHTTPS() throws {
        let directory = TestScratch.path + "tls-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let certificate = try SelfSignedCertificate(in: directory)
        let server = try PushServerFixture(tls: (certificate.certificatePath, certificate.keyPath))
        var client = server.client
        client.tls = true
        #expect(client.get("/health").body == #"{"status": "ok"}"#)
        #expect(client.post("/ingest", PulsoProtocolTests.goldenSleep, token: PushServerFixture.tokens["alice"]!, gzip: true).body
                == #"{"received": 1, "new": 1, "deleted": 0}"#)
        #expect(server.client.get("/health").status != 200)  // plain HTTP is refused
    }

    /// TLS 1.2 and 1.3 with forward secrecy and AEAD ciphers only (openssl's client, every
    /// security level allowed, asking for each): GnuTLS's default took TLS 1.0 and 1.1, RSA key
    /// exchange and CBC ciphers.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"), "needs /usr/bin/openssl"))
    func onlyCurrentProtocolsAndCiphersAreSpoken() throws {
        let directory = TestScratch.path + "tls-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let certificate = try SelfSignedCertificate(in: directory)
        let server = try PushServerFixture(tls: (certificate.certificatePath, certificate.keyPath))
        func handshake(_ options: [String]) throws -> Bool {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            process.arguments = ["s_client", "-connect", "127.0.0.1:\(server.source.listeningPort)"] + options
            process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
            process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
            process.standardError = FileHandle(forWritingAtPath: "/dev/null")
            try process.run()
            process.waitUntilExit()
            return process.terminationStatus == 0
        }
        #expect(try handshake(["-tls1_3"]))
        #expect(try handshake(["-tls1_2"]))
        #expect(try handshake(["-tls1_2", "-cipher", "ECDHE-RSA-AES128-GCM-SHA256"]))
        #expect(try !handshake(["-tls1_1", "-cipher", "DEFAULT:@SECLEVEL=0"]))
        #expect(try !handshake(["-tls1", "-cipher", "DEFAULT:@SECLEVEL=0"]))
        #expect(try !handshake(["-tls1_2", "-cipher", "AES128-SHA:@SECLEVEL=0"]))
        #expect(try !handshake(["-tls1_2", "-cipher", "AES128-GCM-SHA256:@SECLEVEL=0"]))
        #expect(try !handshake(["-tls1_2", "-cipher", "ECDHE-RSA-AES128-SHA:@SECLEVEL=0"]))
    }

    @Test func unreadableKeyFailsToStart() throws {
        var configuration = HTTPPushSource.Configuration(listen: "127.0.0.1:0")
        configuration.tlsCertificate = "/nonexistent/cert.pem"
        configuration.tlsKey = "/nonexistent/key.pem"
        let directory = TestScratch.path
        let source = try HTTPPushSource(configuration: configuration,
                                        context: PluginContext(name: "phone", stateDirectory: directory, logger: Logger(minimumLevel: .error)))
        let control = WorkerControl()
        let ingestDirectory = directory + "tls-ingest-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: ingestDirectory, withIntermediateDirectories: true)
        let error = #expect(throws: SourceError.self) { try source.start(ingest: try PushIngest(stateDirectory: ingestDirectory, control: control)) }
        #expect(error?.input == "/nonexistent/key.pem" && error?.problem == "cannot read the TLS file tls_key names: No such file or directory",
                "\(String(describing: error))")
        // A key that is there and a certificate that is not: the certificate is the file named.
        try "not a key".write(toFile: ingestDirectory + "/key.pem", atomically: true, encoding: .utf8)
        configuration.tlsKey = ingestDirectory + "/key.pem"
        let withKey = try HTTPPushSource(configuration: configuration,
                                         context: PluginContext(name: "phone", stateDirectory: directory, logger: Logger(minimumLevel: .error)))
        let missing = #expect(throws: SourceError.self) { try withKey.start(ingest: try PushIngest(stateDirectory: ingestDirectory, control: control)) }
        #expect(missing?.input == "/nonexistent/cert.pem" && missing?.problem.contains("tls_certificate") == true
                    && missing?.hint?.contains("set tls_certificate to a readable PEM file") == true, "\(String(describing: missing))")
    }

    /// A TLS file that is not a regular file (a device: `/dev/zero` never ends), or is larger than
    /// any PEM file, is refused naming it and why: `/dev/zero` was read until the daemon had taken
    /// every byte of memory (found by fuzzing).
    @Test func aTLSFileThatIsADeviceOrTooLargeIsRefused() throws {
        let device = #expect(throws: SourceError.self) { try HTTPPushSource.readTLSFile("/dev/null", key: "tls_key") }
        #expect(device?.input == "/dev/null"
                    && device?.problem == "cannot read the TLS file tls_key names: it is not a regular file (a device, a pipe or a socket)",
                "\(String(describing: device))")
        let path = TestScratch.path + "tls-large-\(UUID().uuidString).pem"
        try Data(repeating: UInt8(ascii: "A"), count: HTTPPushSource.tlsFileLimit + 1).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let large = #expect(throws: SourceError.self) { try HTTPPushSource.readTLSFile(path, key: "tls_certificate") }
        #expect(large?.problem == "cannot read the TLS file tls_certificate names: it has more than 1024 KiB, which no PEM key or "
                    + "certificate has", "\(String(describing: large))")
        try Data(repeating: UInt8(ascii: "A"), count: HTTPPushSource.tlsFileLimit).write(to: URL(fileURLWithPath: path))
        #expect(try HTTPPushSource.readTLSFile(path, key: "tls_certificate").utf8.count == HTTPPushSource.tlsFileLimit)
    }

    /// Files that are there but are no PEM key and certificate: libmicrohttpd refuses to start, and
    /// the error blames them, not the address (which is free).
    @Test func aKeyThatIsNotPEMIsBlamedNotTheAddress() throws {
        let directory = TestScratch.path + "tls-bad-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try "not a certificate".write(toFile: directory + "/cert.pem", atomically: true, encoding: .utf8)
        try "not a key".write(toFile: directory + "/key.pem", atomically: true, encoding: .utf8)
        var configuration = HTTPPushSource.Configuration(listen: "127.0.0.1:0")
        configuration.tlsCertificate = directory + "/cert.pem"
        configuration.tlsKey = directory + "/key.pem"
        let source = try HTTPPushSource(configuration: configuration,
                                        context: PluginContext(name: "phone", stateDirectory: directory, logger: Logger(minimumLevel: .error)))
        let error = #expect(throws: SourceError.self) {
            try source.start(ingest: try PushIngest(stateDirectory: directory, control: WorkerControl()))
        }
        #expect("\(error.map { "\($0)" } ?? "")".contains("the TLS key or certificate was refused"))
    }

    /// A reloaded listener with a key that is no PEM key, given the socket the previous config's
    /// listener left bound: the error blames the key (not the address, which that socket holds),
    /// and the socket goes back to the handover, still listening, for the previous config.
    @Test func aReloadedListenerWithABadKeyGivesItsSocketBack() throws {
        let directory = TestScratch.path + "tls-reload-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try "not a certificate".write(toFile: directory + "/cert.pem", atomically: true, encoding: .utf8)
        try "not a key".write(toFile: directory + "/key.pem", atomically: true, encoding: .utf8)
        // The socket the running config's listener left: bound to a free port, listening.
        let bound = try #require(SilentListener.open())
        let handover = ListenerHandover()
        handover.beginReload()
        handover.release(bound.descriptor, address: ("127.0.0.1", bound.port))
        var configuration = HTTPPushSource.Configuration(listen: "127.0.0.1:\(bound.port)")
        configuration.tlsCertificate = directory + "/cert.pem"
        configuration.tlsKey = directory + "/key.pem"
        var context = PluginContext(name: "phone", stateDirectory: directory, logger: Logger(minimumLevel: .error))
        context.listenerHandover = handover
        let source = try HTTPPushSource(configuration: configuration, context: context)
        let error = #expect(throws: SourceError.self) {
            try source.start(ingest: try PushIngest(stateDirectory: directory, control: WorkerControl()))
        }
        #expect("\(error.map { "\($0)" } ?? "")".contains("the TLS key or certificate was refused"), "\(String(describing: error))")
        #expect(handover.keptCount == 1)
        #expect(RawConnection(port: bound.port) != nil, "the socket was closed")
        handover.endReload()
        #expect(RawConnection(port: bound.port) == nil)
    }

    /// libmicrohttpd's own messages (here GnuTLS refusing the key) go through the daemon's
    /// logger, so `--log-format json` gives JSON lines only; at debug level, since clients can
    /// make the library talk (one line per connection closed mid-request).
    @Test func theLibrarysOwnMessagesAreLogLines() throws {
        let directory = TestScratch.path + "tls-log-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try "not a certificate".write(toFile: directory + "/cert.pem", atomically: true, encoding: .utf8)
        try "not a key".write(toFile: directory + "/key.pem", atomically: true, encoding: .utf8)
        let config = try writeConfig("""
            state_directory: \(directory)/state
            sources:
              phone: { type: http_push, listen: "127.0.0.1:0", tls_certificate: \(directory)/cert.pem, tls_key: \(directory)/key.pem }
            sinks:
              local: { type: sqlite, path: \(directory)/health.sqlite }

            """, in: directory)
        let result = try CommandRunner.run(["run", "--config", config, "--log-format", "json", "--log-level", "debug"],
                                           in: directory)
        let text = result.stderr
        #expect(result.status != 0)
        // The log, then the command's own error on the last line, a JSON line too (it was plain text).
        let lines = text.split(separator: "\n")
        let log = lines.dropLast()
        let last = String(lines.last ?? "")
        #expect(last.hasPrefix("{\"time\":") && last.contains("\"level\":\"error\"")
                    && last.contains("the TLS key or certificate was refused") && last.contains("\"exit_code\":\(result.status)}"),
                "\(text)")
        #expect(log.contains { $0.contains("libmicrohttpd: ") && $0.contains("TLS") }, "\(text)")
        #expect(lines.allSatisfy { $0.hasPrefix("{") }, "\(text)")
    }
}
