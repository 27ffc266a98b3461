import Foundation
import HealthRouterCore
import Testing
@testable import HTTPPushSource

/// One user's token never writes or reads another user's data.
@Suite("http_push users")
struct UserIsolationTests {
    @Test func everySampleCarriesItsTokensUser() throws {
        let server = try PushServerFixture()
        let alice = PushServerFixture.tokens["alice"]!
        let bob = PushServerFixture.tokens["bob"]!
        // The body claims another user: the token wins.
        let aliceBody = #"[{"uuid":"A-1","type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":60,"unit":"count/min","source":"W","userId":"bob"}]"#
        let bobBody = #"[{"uuid":"B-1","type":"stepCount","start":"2026-07-07T08:00:00Z","end":"2026-07-07T08:00:00Z","value":5,"unit":"count","source":"P"}]"#
        #expect(server.client.post("/ingest", aliceBody, token: alice).status == 200)
        #expect(server.client.post("/ingest", bobBody, token: bob, gzip: true).status == 200)
        let owners = try server.journalItems().compactMap { item -> String? in
            if case .sample(let s) = item { return "\(s.id)=\(s.userId ?? "-")" }
            return nil
        }
        #expect(owners == ["A-1=alice", "B-1=bob"])
        #expect(server.client.get("/latest", token: alice).body == #"{"heartRate": "2026-07-06T08:00:00Z"}"#)
        #expect(server.client.get("/latest", token: bob).body == #"{"stepCount": "2026-07-07T08:00:00Z"}"#)
    }

    @Test func latestSurvivesARestart() throws {
        let directory: String
        do {
            let server = try PushServerFixture()
            #expect(server.client.post("/ingest", PulsoProtocolTests.goldenSleep, token: PushServerFixture.tokens["bob"]!).status == 200)
            directory = server.directory
            server.source.stop()
            let index = try LatestIndex(path: directory + "/http_push-phone.sqlite")
            #expect(index.json(user: "bob") == #"{"sleepAnalysis": "2026-07-06T02:40:00+01:00"}"#)
            #expect(index.json(user: "alice") == "{}")
        }
    }
}
