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

    /// A sample's id belongs to the user who pushed it first: another user's token can neither
    /// change it (at the same start or another) nor delete it; its owner still can.
    @Test func anotherUsersTokenNeitherChangesNorDeletesASample() throws {
        let server = try PushServerFixture()
        let alice = PushServerFixture.tokens["alice"]!
        let bob = PushServerFixture.tokens["bob"]!
        func mass(_ id: String, _ value: Double, at hour: Int = 8) -> String {
            #"[{"uuid":"\#(id)","type":"bodyMass","start":"2026-07-08T0\#(hour):00:00Z","end":"2026-07-08T0\#(hour):00:00Z","value":\#(value),"unit":"kg","source":"Scale"}]"#
        }
        let first = "AAAAAAAA-1111-2222-3333-444444444444", second = "BBBBBBBB-1111-2222-3333-444444444444"
        #expect(server.client.post("/ingest", mass(first, 70.5) , token: alice).body == #"{"received": 1, "new": 1, "deleted": 0}"#)
        #expect(server.client.post("/ingest", mass(second, 70.1, at: 9), token: alice).status == 200)
        // Each is left out, and the reply says which element and why (`skipped`).
        func refused(_ id: String) -> String {
            #"{"received": 1, "new": 0, "deleted": 0, "skipped": [{"index":0,"uuid":"\#(id)","field":"uuid","reason":"another user's sample has this id (an id is changed or deleted by the user who pushed it first)"}]}"#
        }
        #expect(server.client.post("/ingest", mass(first, 99.9), token: bob).body == refused(first))
        #expect(server.client.post("/ingest", mass(first.lowercased(), 99.9, at: 7), token: bob).body == refused(first.lowercased()))
        #expect(server.client.post("/ingest", #"[{"deleted":["\#(second)"]}]"#, token: bob).body
                == #"{"received": 1, "new": 0, "deleted": 0, "skipped": [{"index":0,"field":"deleted","reason":"another user's samples have ids it names, which were not deleted: '\#(second)' (an id is deleted by the user who pushed it first)"}]}"#)
        // The owner changes and deletes as before.
        #expect(server.client.post("/ingest", mass(first, 70.7), token: alice).body == #"{"received": 1, "new": 1, "deleted": 0}"#)
        #expect(server.client.post("/ingest", #"[{"deleted":["\#(second)"]}]"#, token: alice).body
                == #"{"received": 1, "new": 0, "deleted": 1}"#)
        let items = try server.journalItems().map { item -> String in
            switch item {
            case .sample(let s): return "\(s.id)=\(s.value ?? 0)@\(s.userId ?? "-")"
            case .tombstone(let t): return "deleted \(t.ids.joined(separator: ","))@\(t.userId ?? "-")"
            }
        }
        #expect(items == ["\(first)=70.5@alice", "\(second)=70.1@alice", "\(first)=70.7@alice", "deleted \(second)@alice"])
    }

    /// `/latest` names what was stored: a sample the journal refused (another user's id, an id
    /// sent before under another type) moves no type's latest end, while the body's other samples do.
    @Test func latestLeavesOutSamplesTheJournalRefused() throws {
        let server = try PushServerFixture()
        let alice = PushServerFixture.tokens["alice"]!
        let bob = PushServerFixture.tokens["bob"]!
        func sample(_ id: String, _ type: String, day: Int, endDay: Int? = nil, value: Double = 5) -> String {
            #"{"uuid":"\#(id)","type":"\#(type)","start":"2026-08-0\#(day)T08:00:00Z","end":"2026-08-0\#(endDay ?? day)T08:00:00Z","value":\#(value),"unit":"count","source":"P"}"#
        }
        #expect(server.client.post("/ingest", "[\(sample("X-1", "stepCount", day: 1))]", token: alice).status == 200)
        // Bob's body: alice's id at a later day (refused), and one of his own at an earlier one.
        #expect(server.client.post("/ingest", "[\(sample("X-1", "stepCount", day: 5)),\(sample("B-1", "stepCount", day: 2))]",
                                   token: bob).body == #"{"received": 2, "new": 1, "deleted": 0, "skipped": [{"index":0,"uuid":"X-1","field":"uuid","reason":"another user's sample has this id (an id is changed or deleted by the user who pushed it first)"}]}"#)
        #expect(server.client.get("/latest", token: bob).body == #"{"stepCount": "2026-08-02T08:00:00Z"}"#)
        // Alice sends her own id again under another type, ending later: it is left out, and she
        // has no latest heart rate.
        #expect(server.client.post("/ingest", "[\(sample("X-1", "heartRate", day: 1, endDay: 6, value: 60))]", token: alice).body
                == #"{"received": 1, "new": 0, "deleted": 0, "skipped": [{"index":0,"uuid":"X-1","field":"type","reason":"this uuid was sent before under another type, which it keeps"}]}"#)
        #expect(server.client.get("/latest", token: alice).body == #"{"stepCount": "2026-08-01T08:00:00Z"}"#)
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
