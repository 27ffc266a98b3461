import Foundation
import TestSupport
import HealthRouterCore
import Testing
@testable import HTTPPushSource

/// Every error status of the reference server's table, auth, limits, and that the server
/// keeps serving after each.
@Suite("http_push error statuses")
struct ErrorStatusTests {
    let alice = PushServerFixture.tokens["alice"]!

    @Test func unauthorized() throws {
        let server = try PushServerFixture()
        let client = server.client
        for token in [nil, "wrong", "token-alice-123", "token-alice-12345", ""] as [String?] {
            let reply = client.post("/ingest", "[]", token: token)
            #expect(reply.status == 401)
            #expect(reply.body == #"{"error": "unauthorized"}"#)
        }
        #expect(client.get("/latest").status == 401)
        #expect(client.get("/latest", token: "nope").status == 401)
        // Auth is checked before the length.
        #expect(client.raw("POST /ingest HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n").status == 401)
    }

    @Test func contentLength() throws {
        let server = try PushServerFixture()
        let client = server.client
        let auth = "Authorization: Bearer \(alice)\r\n"
        let empty = client.raw("POST /ingest HTTP/1.1\r\nHost: x\r\n\(auth)Content-Length: 0\r\n\r\n")
        #expect(empty.status == 400)
        #expect(empty.body == #"{"error": "bad content length"}"#)
        let chunked = client.raw("POST /ingest HTTP/1.1\r\nHost: x\r\n\(auth)Transfer-Encoding: chunked\r\n\r\n2\r\n[]\r\n0\r\n\r\n")
        #expect(chunked.status == 400)
        #expect(chunked.body == #"{"error": "bad content length"}"#)
        // With a small Content-Length beside it, the chunks would be read past what it reserved.
        let element = #"{"uuid":"C-1","type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":60,"unit":"count/min","source":"W"}"#
        let body = "[" + element + "]"
        let both = client.raw("POST /ingest HTTP/1.1\r\nHost: x\r\n\(auth)Content-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n"
                                  + String(body.utf8.count, radix: 16) + "\r\n" + body + "\r\n0\r\n\r\n")
        #expect(both.status == 400)
        #expect(both.body == #"{"error": "bad content length"}"#)
        // Two lengths, in either order (libmicrohttpd reads by the first, a proxy may by the last).
        for (first, second) in [(body.utf8.count, 5), (5, body.utf8.count), (body.utf8.count, body.utf8.count)] {
            let twice = client.raw("POST /ingest HTTP/1.1\r\nHost: x\r\n\(auth)Content-Length: \(first)\r\ncontent-length: \(second)\r\n\r\n" + body)
            #expect(twice.status == 400 && twice.body == #"{"error": "bad content length"}"#, "\(first), \(second): \(twice.body)")
        }
        #expect(try server.journalItems().isEmpty)
        let huge = client.raw("POST /ingest HTTP/1.1\r\nHost: x\r\n\(auth)Content-Length: \((64 << 20) + 1)\r\n\r\n")
        #expect(huge.status == 413)
        #expect(huge.body == #"{"error": "bad content length"}"#)
        #expect(client.get("/health").status == 200)
    }

    @Test func badBodies() throws {
        let server = try PushServerFixture()
        let client = server.client
        let notGzip = client.post("/ingest", [1, 2, 3, 4], token: alice, headers: ["Content-Encoding: gzip"])
        #expect(notGzip.status == 400)
        #expect(notGzip.body == #"{"error": "bad gzip body"}"#)
        // Another coding is refused before the body is read, naming it; identity is no coding.
        let brotli = client.post("/ingest", [1, 2, 3, 4], token: alice, headers: ["Content-Encoding: br"])
        #expect(brotli.status == 415)
        #expect(brotli.body == #"{"error": "content-encoding 'br' is not supported: send the body as gzip or uncompressed"}"#)
        let forged = client.post("/hae", "{}", token: alice, headers: [#"Content-Encoding: x"}"#])
        #expect(forged.status == 415 && forged.body == #"{"error": "content-encoding 'x' is not supported: send the body as gzip or uncompressed"}"#)
        #expect(client.post("/ingest", "[]", token: alice, headers: ["Content-Encoding: identity"]).status == 200)
        // HEAD /health answers as GET does, for uptime monitors.
        #expect(client.request("HEAD", "/health", body: nil, headers: []).status == 200)
        let whole = HTTPTestClient.gzip(Array(PulsoProtocolTests.protocolExample.utf8))
        let truncated = client.post("/ingest", Array(whole.prefix(whole.count / 2)), token: alice, headers: ["Content-Encoding: GZIP"])
        #expect(truncated.status == 400)
        #expect(truncated.body == #"{"error": "bad gzip body"}"#)
        for text in ["{", "nope", "[1,", "\u{FEFF}[}"] {
            let reply = client.post("/ingest", text, token: alice)
            #expect(reply.status == 400)
            #expect(reply.body == #"{"error": "bad json"}"#)
        }
        let invalidUTF8 = client.post("/ingest", [0x5B, 0x22, 0xFF, 0xFE, 0x22, 0x5D], token: alice)
        #expect(invalidUTF8.status == 400)
        for text in [#"{"a":1}"#, "42", #""x""#, "null"] {
            let reply = client.post("/ingest", text, token: alice, gzip: true)
            #expect(reply.status == 400)
            #expect(reply.body == #"{"error": "body must be a json array"}"#)
        }
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(client.post("/ingest", deep, token: alice).status == 400)
        #expect(client.post("/ingest", #"[{"uuid":"A","type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":1,"source":"W"}]"#, token: alice).status == 200)
    }

    @Test func gzipBombIsRefusedWithoutInflatingItAll() throws {
        let server = try PushServerFixture()
        // 70 MiB of spaces compress to about 70 KiB.
        let zeros = [UInt8](repeating: 0x20, count: 70 << 20)
        let bomb = HTTPTestClient.gzip(zeros)
        #expect(bomb.count < 1 << 20)
        let started = Date()
        let reply = server.client.request("POST", "/ingest", body: bomb,
                                          headers: ["Authorization: Bearer \(alice)", "Content-Encoding: gzip"])
        #expect(reply.status == 413)
        #expect(reply.body == #"{"error": "body too large"}"#)
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(server.client.get("/health").status == 200)
    }

    @Test func unauthenticatedListenerRules() throws {
        let context = PluginContext(name: "phone", stateDirectory: TestScratch.path, logger: Logger())
        #expect(throws: ConfigError.self) {
            _ = try HTTPPushSource(configuration: .init(listen: "0.0.0.0:8787"), context: context)
        }
        var open = HTTPPushSource.Configuration(listen: "0.0.0.0:8787")
        open.allowUnauthenticated = true
        _ = try HTTPPushSource(configuration: open, context: context)
        _ = try HTTPPushSource(configuration: .init(listen: "127.0.0.1:8787"), context: context)
        #expect(throws: ConfigError.self) {
            _ = try HTTPPushSource(configuration: .init(listen: "nowhere"), context: context)
        }
    }

    /// Limits too large for what they become (libmicrohttpd's 32-bit counts, a byte budget) are
    /// config errors at their key, found by `check`, not crashes when the server starts.
    @Test func limitsOutOfRangeAreConfigErrors() throws {
        let context = PluginContext(name: "phone", stateDirectory: TestScratch.path, logger: Logger())
        var huge = HTTPPushSource.Configuration(listen: "127.0.0.1:8787")
        huge.maxConnections = 5_000_000_000
        let connections = #expect(throws: ConfigError.self) { _ = try HTTPPushSource(configuration: huge, context: context, path: "sources.phone") }
        #expect(connections?.path == "sources.phone.max_connections")
        #expect(connections?.message == "max_connections must be 1…65536, not 5000000000")
        huge.maxConnections = 256
        huge.maxUploadMemoryMiB = 1 << 50
        let budget = #expect(throws: ConfigError.self) { _ = try HTTPPushSource(configuration: huge, context: context, path: "sources.phone") }
        #expect(budget?.path == "sources.phone.max_upload_memory_mib")
        huge.maxUploadMemoryMiB = 256
        huge.maxConnectionsPerAddress = 0
        let perAddress = #expect(throws: ConfigError.self) { _ = try HTTPPushSource(configuration: huge, context: context, path: "sources.phone") }
        #expect(perAddress?.path == "sources.phone.max_connections_per_address")
        huge.maxConnectionsPerAddress = 32
        _ = try HTTPPushSource(configuration: huge, context: context, path: "sources.phone")
        // 0s would read as no limit, and was taken as 1 s.
        huge.requestTimeout = ConfigDuration(parsing: "0s")
        let request = #expect(throws: ConfigError.self) { _ = try HTTPPushSource(configuration: huge, context: context, path: "sources.phone") }
        #expect(request?.path == "sources.phone.request_timeout" && request?.message == "request_timeout must be at least 1s, not 0s",
                "\(String(describing: request))")
        huge.requestTimeout = ConfigDuration(parsing: "1s")
        huge.headerTimeout = ConfigDuration(parsing: "500ms")
        let header = #expect(throws: ConfigError.self) { _ = try HTTPPushSource(configuration: huge, context: context, path: "sources.phone") }
        #expect(header?.path == "sources.phone.header_timeout")
        huge.headerTimeout = ConfigDuration(parsing: "1s")
        _ = try HTTPPushSource(configuration: huge, context: context, path: "sources.phone")
    }

    /// `user_id` beside `users` would be ignored (it is the id of every push only without users):
    /// refused at its key, saying where each user's goes.
    @Test func aSourceUserIdBesideUsersIsAConfigError() throws {
        let context = PluginContext(name: "phone", stateDirectory: TestScratch.path, logger: Logger())
        var configuration = HTTPPushSource.Configuration(listen: "127.0.0.1:8787")
        configuration.userId = "me"
        _ = try HTTPPushSource(configuration: configuration, context: context, path: "sources.phone")
        configuration.users = ["alice": .init(token: "token-alice-1234")]
        let error = #expect(throws: ConfigError.self) { _ = try HTTPPushSource(configuration: configuration, context: context, path: "sources.phone") }
        #expect(error?.path == "sources.phone.user_id")
        #expect(error?.suggestion?.contains("users: {alice: {token: …, user_id: …}}") == true, "\(String(describing: error))")
    }

    @Test func openServerAcceptsWithoutToken() throws {
        let server = try PushServerFixture(users: [:])
        #expect(server.client.post("/ingest", PulsoProtocolTests.goldenSleep).body == #"{"received": 1, "new": 1, "deleted": 0}"#)
        #expect(server.client.get("/latest").body == #"{"sleepAnalysis": "2026-07-06T02:40:00+01:00"}"#)
    }
}
