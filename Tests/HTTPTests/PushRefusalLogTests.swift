import Foundation
import HealthRouterCore
import Synchronization
import Testing
@testable import HTTPPushSource

/// Refused pushes and skipped elements are logged at the default level, naming route, status,
/// reason, user or address, and the elements' fields; a flood of them writes one line per
/// route and reason every 10 s.
@Suite("http_push refusal log", .serialized)
struct PushRefusalLogTests {
    @Test func aKeyIsWrittenOncePerIntervalWithTheCountLeftOut() {
        let now = Mutex(100.0)
        let warnings = ThrottledWarnings(logger: Logger(minimumLevel: .error), interval: 10, clock: { now.withLock { $0 } })
        #expect(warnings.admit(key: "/ingest 401") == 0)
        #expect(warnings.admit(key: "/ingest 401") == nil)
        #expect(warnings.admit(key: "/ingest 400 bad json") == 0)
        now.withLock { $0 = 109.9 }
        #expect(warnings.admit(key: "/ingest 401") == nil)
        now.withLock { $0 = 110 }
        #expect(warnings.admit(key: "/ingest 401") == 2)
        #expect(warnings.admit(key: "/ingest 401") == nil)
        now.withLock { $0 = 200 }
        #expect(warnings.admit(key: "/ingest 401") == 1)
        #expect(warnings.admit(key: "/ingest 400 bad json") == 0)
    }

    /// The lines of `log` that contain every one of `parts`.
    static func lines(_ log: String, containing parts: [String]) -> [Substring] {
        log.split(separator: "\n").filter { line in parts.allSatisfy { line.contains($0) } }
    }

    /// A /latest index that refuses its updates (its own file, on a disk full for it) is warned
    /// once every 10 s, not once a push; the pushes are stored all the same.
    @Test func aLatestIndexThatRefusesUpdatesIsWarnedOncePerInterval() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        defer { daemon.stop() }
        // Each push a later reading than the one before: each changes the index.
        func push(_ minute: Int) -> Int {
            let time = "2026-07-06T08:\(String(format: "%02d", minute)):00Z"
            return daemon.client.post("/ingest", #"[{"uuid":"L-\#(minute)","type":"heartRate","start":"\#(time)","end":"\#(time)","#
                                                    + #""value":60,"source":"W"}]"#, token: DaemonProcess.token).status
        }
        #expect(push(0) == 200)
        try SQLiteDatabase(path: daemon.directory + "/state/http_push-phone.sqlite")
            .execute("CREATE TRIGGER refuse BEFORE INSERT ON latest BEGIN SELECT RAISE(ABORT, 'refused for the test'); END")
        for minute in 1...5 { #expect(push(minute) == 200) }
        let warned = Self.lines(daemon.log, containing: ["cannot update the /latest index", "refused for the test"])
        #expect(warned.count == 1, "\(daemon.log)")
        #expect(daemon.stop() == 0)
        #expect(try daemon.sinkIds().count == 6)
    }

    @Test func refusalsAndSkippedElementsAreWarnedAtTheDefaultLevel() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        defer { daemon.stop() }
        let client = daemon.client
        for _ in 0..<5 { #expect(client.post("/ingest", "[]", token: "wrong").status == 401) }
        #expect(client.post("/hae", "{}").status == 401)
        #expect(client.post("/hae", "{}", token: "wrong").status == 401)
        // The token in the path: not written to the log.
        #expect(client.request("POST", "/hae/\(DaemonProcess.token)", body: Array("{}".utf8), headers: []).status == 404)
        #expect(client.request("POST", "/\(DaemonProcess.token)", body: Array("{}".utf8), headers: []).status == 404)
        #expect(PushRequestHandler.pathForTheLog("/api/v2") == "/api/…" && PushRequestHandler.pathForTheLog("/ingestt") == "/ingestt")
        // The token in the URL, where nothing is read.
        #expect(client.request("POST", "/hae?api-key=\(DaemonProcess.token)", body: Array("{}".utf8), headers: []).status == 404)
        // The token as the Authorization header's whole value, without its scheme.
        #expect(client.request("POST", "/v1/samples", body: Array("[]".utf8), headers: ["Authorization: \(DaemonProcess.token)"]).status == 401)
        // Bad JSON: the reply is the reference server's; the log says where the body breaks.
        let broken = "[{\"uuid\":\"A\",\n \"type\" \"heartRate\"}]"
        #expect(client.post("/ingest", broken, token: DaemonProcess.token).body == #"{"error": "bad json"}"#)
        let native = #"{"uuid":"N","type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":1}"#
            + "\n42\n"
        #expect(client.post("/v1/samples", native, token: DaemonProcess.token).status == 400)
        let csv = client.request("POST", "/hae", body: Array("--b\r\nContent-Disposition: form-data; name=\"m\"\r\n\r\nDate,Steps\r\n--b--\r\n".utf8),
                                 headers: ["api-key: \(DaemonProcess.token)", "Content-Type: multipart/form-data; boundary=b"])
        #expect(csv.status == 400)
        #expect(csv.body == #"{"error": "bad json: the body is multipart form data (a CSV export): choose JSON as the export format"}"#)
        let skipped = #"[{"uuid":"A","type":"heartRate","start":"tomorrow","end":"2026-07-06T08:00:00Z","value":1,"source":"P"},"#
            + #"{"uuid":"B","type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":1,"source":"P"},"#
            + #"{"uuid":"M","type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":1,"source":5}]"#
        #expect(client.post("/ingest", skipped, token: DaemonProcess.token).body
                == #"{"received": 3, "new": 1, "deleted": 0, "skipped": [{"index":0,"uuid":"A","field":"start","reason":"'tomorrow' cannot be read as a date"},"#
                + #"{"index":2,"uuid":"M","field":"source","reason":"of another JSON type than Pulso's protocol gives (a number for a string, a string for an object, …)"}]}"#)
        let device = #"[{"uuid":"DV","type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":1,"source":"P","device":5}]"#
        #expect(client.post("/ingest", device, token: DaemonProcess.token).body == #"{"received": 1, "new": 1, "deleted": 0}"#)
        // Health Auto Export: a body over the limit says what to change in the app.
        let huge = client.raw("POST /hae HTTP/1.1\r\nHost: x\r\napi-key: \(DaemonProcess.token)\r\nContent-Length: \(70 << 20)\r\n\r\n")
        #expect(huge.status == 413)
        #expect(huge.body.contains("turn on Batch Requests"), "\(huge.body)")
        // A value in a unit that cannot be converted is stored in it, and the log says so.
        let furlongs = #"{"data":{"metrics":[{"name":"weight_body_mass","units":"furlongs","data":[{"date":"2026-07-06 08:00:00 +0000","qty":70}]}]}}"#
        #expect(client.post("/hae", furlongs, token: DaemonProcess.token).body == #"{"received": 1, "new": 1, "deleted": 0}"#)
        let unreadable = #"{"data":{"metrics":[{"name":"heart_rate","units":"count/min","data":[{"date":"07/06/2026 8h","Avg":60}]}]}}"#
        #expect(client.post("/hae", unreadable, token: DaemonProcess.token).body == #"{"received": 0, "new": 0, "deleted": 0, "skipped": 1}"#)
        // A body over the limit, or sent without a length: the hint says what the client must change.
        #expect(client.raw("POST /ingest HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(DaemonProcess.token)\r\n"
                           + "Content-Length: \(70 << 20)\r\n\r\n").status == 413)
        #expect(client.raw("POST /ingest HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(DaemonProcess.token)\r\n"
                           + "Transfer-Encoding: chunked\r\n\r\n2\r\n[]\r\n0\r\n\r\n").status == 400)
        // A tombstone posted as the body instead of inside it; a Pulso array posted to /hae.
        #expect(client.post("/ingest", #"{"deleted": ["A"]}"#, token: DaemonProcess.token).body == #"{"error": "body must be a json array"}"#)
        #expect(client.post("/hae", "[]", token: DaemonProcess.token).body == #"{"error": "body must be a json object"}"#)
        // Two different tokens: the hint says so (neither is taken).
        #expect(client.post("/hae", "{}", headers: ["Authorization: Bearer \(DaemonProcess.token)", "api-key: another-token"]).status == 401)
        Thread.sleep(forTimeInterval: 0.3)
        let log = daemon.log
        #expect(Self.lines(log, containing: ["push refused", "route=/hae", "status=401", "hint=two different tokens"]).count == 1, "\(log)")
        let unauthorized = Self.lines(log, containing: ["warning: push refused", "route=/ingest", "status=401", "reason=unauthorized",
                                                        "peer=127.0.0.1", "hint=a token no user under users has"])
        #expect(unauthorized.count == 1, "\(log)")
        // Without a token, the hint names the headers the route takes.
        #expect(Self.lines(log, containing: ["push refused", "route=/hae", "status=401",
                                             "hint=no token: the app must send Authorization: Bearer <token>, api-key or X-API-Key"])
                    .count == 1, "\(log)")
        #expect(Self.lines(log, containing: ["push refused", "route=/v1/samples", "status=401",
                                             "hint=the Authorization header has no `Bearer ` before the token"]).count == 1, "\(log)")
        #expect(Self.lines(log, containing: ["push refused", "status=404", "POST /hae", "hint=the URL has a query string"])
                    .count == 1, "\(log)")
        #expect(!log.contains(DaemonProcess.token) && (log.contains("route=\"POST /hae/…\"") || log.contains("route=POST /hae/…")),
                "\(log)")
        // A wrong token on the same route within the same 10 s is a line of its own: another fix.
        #expect(Self.lines(log, containing: ["push refused", "route=/hae", "status=401", "hint=a token no user under users has"])
                    .count == 1, "\(log)")
        #expect(Self.lines(log, containing: ["push refused", "route=/ingest", "status=400", "reason=bad json", "user=alice",
                                             "peer=127.0.0.1", "where=line 2: expected ':' after a key at byte 23"]).count == 1, "\(log)")
        #expect(Self.lines(log, containing: ["route=/v1/samples", "reason=bad json",
                                             "where=line 2: not a JSON object (each line is one sample or tombstone)"]).count == 1, "\(log)")
        #expect(Self.lines(log, containing: ["route=/hae", "reason=bad json", "where=the body is multipart form data, not JSON"])
                    .count == 1, "\(log)")
        #expect(Self.lines(log, containing: ["push refused", "route=/hae", "status=413", "Batch Requests"]).count == 1, "\(log)")
        #expect(Self.lines(log, containing: ["push refused", "route=/ingest", "status=413", "reason=bad content length",
                                             "hint=the body's Content-Length is over the 64 MiB a body may hold",
                                             "the app must send smaller batches"]).count == 1, "\(log)")
        #expect(Self.lines(log, containing: ["push refused", "route=/ingest", "status=400", "reason=bad content length",
                                             "hint=a chunked upload (Transfer-Encoding), which is not taken"]).count == 1, "\(log)")
        #expect(Self.lines(log, containing: ["push refused", "route=/ingest", "status=400", "reason=body must be a json array",
                                             "where=the body is a JSON object; /ingest takes an array of samples",
                                             #"[{"deleted": [ids]}]"#]).count == 1, "\(log)")
        #expect(Self.lines(log, containing: ["push refused", "route=/hae", "status=400", "reason=body must be a json object",
                                             "an array of Pulso samples goes to /ingest"]).count == 1, "\(log)")
        #expect(Self.lines(log, containing: ["warning: push: elements skipped", "route=/ingest", "skipped=2", "received=3", "user=alice",
                                             "#0 uuid=A start: 'tomorrow' cannot be read as a date",
                                             "#2 uuid=M source: of another JSON type than Pulso's protocol gives"]).count == 1, "\(log)")
        #expect(Self.lines(log, containing: ["warning: push: values in a unit that cannot be converted to their type's were stored in it",
                                             "route=/hae", "samples=1", "first=HKQuantityTypeIdentifierBodyMass in 'furlongs'",
                                             "hint=send the type's unit"]).count == 1, "\(log)")
        #expect(Self.lines(log, containing: ["warning: push: fields healthrouter could not read were left out of the samples stored",
                                             "route=/ingest", "samples=1", "first=#0 uuid=DV device"]).count == 1, "\(log)")
        // Pulso's samples give their units (or none: the protocol's unit): no such line for them.
        #expect(Self.lines(log, containing: ["route=/ingest", "cannot be converted"]).isEmpty, "\(log)")
        #expect(Self.lines(log, containing: ["elements skipped", "route=/hae", "skipped=1", "received=0",
                                             "heart_rate point #0: date '07/06/2026 8h'"]).count == 1, "\(log)")
    }

    /// A Health Auto Export metric without `units` is logged as such (it read `in ''`), and route
    /// points' fields a route point has no place for are logged at info level, once per body.
    @Test func missingUnitsAndRouteFieldsLeftOutAreLogged() throws {
        let daemon = try DaemonProcess()
        daemon.logLevel = "info"
        try daemon.start()
        defer { daemon.stop() }
        let noUnits = #"{"data":{"metrics":[{"name":"step_count","data":[{"qty":12,"date":"2024-05-01 00:00:00 +0000"}]}]}}"#
        #expect(daemon.client.post("/hae", noUnits, token: DaemonProcess.token).body == #"{"received": 1, "new": 1, "deleted": 0}"#)
        let route = #"{"data":{"workouts":[{"name":"Running","start":"2024-03-05 07:00:00 +0100","route":["#
            + #"{"latitude":52.5,"longitude":13.4,"timestamp":"2024-03-05 07:00:00 +0100","courseAccuracy":5,"speedAccuracy":0.2},"#
            + #"{"latitude":52.5,"longitude":13.4,"timestamp":"2024-03-05 07:01:00 +0100","speedAccuracy":0.3}]}]}}"#
        #expect(daemon.client.post("/hae", route, token: DaemonProcess.token).body == #"{"received": 1, "new": 1, "deleted": 0}"#)
        Thread.sleep(forTimeInterval: 0.3)
        let log = daemon.log
        #expect(Self.lines(log, containing: ["warning: push: values in a unit that cannot be converted", "route=/hae", "samples=1",
                                             "first=HKQuantityTypeIdentifierStepCount without units"]).count == 1, "\(log)")
        #expect(!log.contains("in ''"), "\(log)")
        #expect(Self.lines(log, containing: ["info: push: workout route points' fields a route point has no place for were left out",
                                             "route=/hae", "user=alice", "fields=courseAccuracy, speedAccuracy", "points=2"]).count == 1,
                "\(log)")
    }
}
