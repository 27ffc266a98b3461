import Foundation
import TestSupport
import Synchronization
import HealthRouterCore
import Testing
@testable import HTTPPushSource

/// Pulso protocol v1.2 over real loopback HTTP: every example body of PROTOCOL.md with the
/// reference server's reply, dedupe, tombstones, /latest, /health.
@Suite("Pulso protocol over HTTP")
struct PulsoProtocolTests {
    let alice = PushServerFixture.tokens["alice"]!
    let bob = PushServerFixture.tokens["bob"]!

    static let protocolExample = """
        [
          {"uuid":"1E9B4C1A-3F2D-4C8E-9B7A-2D5E8F1A6C3B","type":"sleepAnalysis",
           "start":"2026-07-06T01:12:00+01:00","end":"2026-07-06T09:03:00+01:00",
           "value":"asleepREM","source":"Lenilson's Apple Watch",
           "sourceBundleId":"com.apple.health.A1B2C3","metadata":{"timeZone":"Europe/Lisbon"}},
          {"deleted":["A0B1C2D3-...","E4F5A6B7-..."]}
        ]
        """
    static let goldenSleep = #"[{"end":"2026-07-06T02:40:00+01:00","metadata":{"timeZone":"Europe/Lisbon"},"source":"Apple Watch","sourceBundleId":"com.apple.health","start":"2026-07-06T01:12:00+01:00","type":"sleepAnalysis","uuid":"ABC-123","value":"asleepREM"}]"#
    static let goldenWorkout = #"[{"averageHeartRate":132.5,"duration":3612.4,"end":"2026-07-05T19:30:12+01:00","maximumHeartRate":171,"metadata":{"HKIndoorWorkout":true,"HKWorkoutBrandName":"Push Day A","customRounds":3},"minimumHeartRate":88,"source":"SmartGym","start":"2026-07-05T18:30:00+01:00","totalBasalEnergyBurned":96.5,"totalEnergyBurned":412,"type":"workout","uuid":"W-1","workoutActivityType":"traditionalStrengthTraining"}]"#
    static let goldenTombstone = #"[{"deleted":["U1","U2"]}]"#

    /// Two elements of one body with one uuid and different values: the first is the sample,
    /// as the reference server keeps it; the body and its replays store nothing more.
    @Test func aUUIDRepeatedWithinABodyIsTheFirstElement() throws {
        let server = try PushServerFixture()
        let body = #"[{"uuid":"DUP","type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":60,"unit":"count/min","source":"W"},"#
            + #"{"uuid":"DUP","type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":61,"unit":"count/min","source":"W"},"#
            + #"{"deleted":["GONE"]},"#
            + #"{"uuid":"DUP","type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":62,"unit":"count/min","source":"W"}]"#
        #expect(server.client.post("/ingest", body, token: alice).body == #"{"received": 4, "new": 1, "deleted": 1}"#)
        for _ in 0..<2 {
            #expect(server.client.post("/ingest", body, token: alice, gzip: true).body == #"{"received": 4, "new": 0, "deleted": 0}"#)
        }
        let samples = try server.journalItems().compactMap { if case .sample(let sample) = $0 { sample } else { nil } }
        #expect(samples.map(\.id) == ["DUP"])
        #expect(samples.map(\.value) == [60])
        let native = #"{"uuid":"N","type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":1,"source":"W"}"#
            + "\n" + #"{"uuid":"N","type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":2,"source":"W"}"#
        #expect(server.client.post("/v1/samples", native, token: alice).body == #"{"received": 2, "new": 1, "deleted": 0}"#)
        #expect(server.client.post("/v1/samples", native, token: alice).body == #"{"received": 2, "new": 0, "deleted": 0}"#)
        // A UUID in lower and upper case is one id (the journal stores UUIDs in upper case).
        let cased = #"[{"uuid":"7a00b1c2-0000-4000-8000-000000000001","type":"heartRate","start":"2026-07-06T09:00:00Z","end":"2026-07-06T09:00:00Z","value":70,"unit":"count/min","source":"W"},"#
            + #"{"uuid":"7A00B1C2-0000-4000-8000-000000000001","type":"heartRate","start":"2026-07-06T09:00:00Z","end":"2026-07-06T09:00:00Z","value":71,"unit":"count/min","source":"W"}]"#
        #expect(server.client.post("/ingest", cased, token: alice).body == #"{"received": 2, "new": 1, "deleted": 0}"#)
        #expect(server.client.post("/ingest", cased, token: alice).body == #"{"received": 2, "new": 0, "deleted": 0}"#)
    }

    /// A body compressed in parts (several gzip members one after the other, as Python's
    /// gzip.decompress in Pulso's server reads it) is one body; bytes after the last member that
    /// are not another member are ignored, as Pulso's Rust server ignores them. A gzip body
    /// without `Content-Encoding` is read as gzip.
    @Test func aBodyOfSeveralGzipMembersIsOneBody() throws {
        let server = try PushServerFixture()
        let first = Array(#"[{"uuid":"GZ-1","type":"heartRate","start":"2026-07-06T08:00:00Z","#.utf8)
        let second = Array(#""end":"2026-07-06T08:00:00Z","value":60,"unit":"count/min","source":"W"}]"#.utf8)
        let parts = HTTPTestClient.gzip(first) + HTTPTestClient.gzip(second)
        let reply = server.client.request("POST", "/ingest", body: parts,
                                          headers: ["Authorization: Bearer \(alice)", "Content-Encoding: gzip"])
        #expect(reply.body == #"{"received": 1, "new": 1, "deleted": 0}"#, "\(reply.body)")
        let trailing = HTTPTestClient.gzip(Array("[]".utf8)) + Array("\n\n".utf8)
        #expect(server.client.request("POST", "/ingest", body: trailing,
                                      headers: ["Authorization: Bearer \(alice)", "Content-Encoding: gzip"]).status == 200)
        // Gzip without the header (a script that forgot it): its first bytes tell.
        let unlabelled = HTTPTestClient.gzip(Array(#"[{"uuid":"GZ-2","type":"heartRate","start":"2026-07-06T08:01:00Z","end":"2026-07-06T08:01:00Z","value":61,"unit":"count/min","source":"W"}]"#.utf8))
        #expect(server.client.request("POST", "/ingest", body: unlabelled, headers: ["Authorization: Bearer \(alice)"]).body
                    == #"{"received": 1, "new": 1, "deleted": 0}"#)
    }

    /// Bodies are parsed and journaled at most 8 MiB of them at once, a larger one alone (their
    /// samples take many times their size until journaled: 32 bodies of 8 MB at once took a
    /// daemon to 2.7 GB); each is answered, and every sample is kept.
    @Test func bodiesAreParsedWithinTheParseBudget() throws {
        let parsing = ParseBudget(capacity: PushRequestHandler.parsing.capacity)
        let server = try PushServerFixture(parsing: parsing)
        func padded(_ prefix: String, count: Int, to size: Int) -> [UInt8] {
            var batch = DaemonProcess.batch(prefix: prefix, count: count).body
            batch.removeLast()
            return batch + [UInt8](repeating: 0x20, count: size - 1 - batch.count) + [UInt8(ascii: "]")]
        }
        let client = server.client
        // A thread each (concurrentPerform runs as many at once as there are cores).
        func postAtOnce(_ bodies: [[UInt8]]) -> [String] {
            let replies = Mutex<[String]>([])
            let done = DispatchGroup()
            for body in bodies {
                done.enter()
                Thread.detachNewThread {
                    let reply = client.post("/ingest", body, token: alice)
                    replies.withLock { $0.append(reply.body) }
                    done.leave()
                }
            }
            done.wait()
            return replies.withLock { $0 }
        }
        let large = (0..<3).map { padded("L\($0)", count: 20_000, to: parsing.capacity + 1) }
        #expect(postAtOnce(large) == Array(repeating: #"{"received": 20000, "new": 20000, "deleted": 0}"#, count: 3))
        #expect(parsing.highWater.withLock { $0 } == (parsing.capacity, 1))
        // Three MiB each: two fit at once, never three.
        parsing.highWater.withLock { $0 = (0, 0) }
        let medium = (0..<6).map { padded("M\($0)", count: 5_000, to: 3 << 20) }
        #expect(postAtOnce(medium) == Array(repeating: #"{"received": 5000, "new": 5000, "deleted": 0}"#, count: 6))
        let most = parsing.highWater.withLock { $0 }
        #expect(most.requests == 2 && most.bytes == 6 << 20, "\(most)")
        #expect(try server.journalItems().count == 90_000)
    }

    /// A sample that ends more than a day from now (a watch whose clock was wrong) is stored, but
    /// is not the type's newest in `/latest`: an app resuming from there would ask for nothing newer.
    @Test func aSampleFromTheFutureIsStoredButNotLatest() throws {
        let server = try PushServerFixture()
        let body = #"[{"uuid":"F-1","type":"heartRate","start":"2199-01-01T00:00:00Z","end":"2199-01-01T00:00:00Z","value":60,"unit":"count/min","source":"W"},"#
            + #"{"uuid":"F-2","type":"heartRate","start":"2026-07-06T08:00:00+02:00","end":"2026-07-06T08:00:00+02:00","value":61,"unit":"count/min","source":"W"},"#
            + #"{"uuid":"F-3","type":"stepCount","start":"2199-01-01T00:00:00Z","end":"2199-01-01T00:00:00Z","value":5,"unit":"count","source":"W"}]"#
        #expect(server.client.post("/ingest", body, token: alice).body == #"{"received": 3, "new": 3, "deleted": 0}"#)
        #expect(server.client.get("/latest", token: alice).body == #"{"heartRate": "2026-07-06T08:00:00+02:00"}"#)
        #expect(try server.journalItems().count == 3)
    }

    /// An end from the future that an earlier build stored is left out when the index is opened,
    /// so `/latest` stops naming it once the daemon is upgraded.
    @Test func aFutureEndStoredBeforeIsLeftOutAtTheStart() throws {
        let path = TestScratch.path + "latest-\(UUID().uuidString).sqlite"
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let index = try LatestIndex(path: path)
            try index.record([(key: "heartRate", end: "2026-07-06T08:00:00Z",
                               instant: Timestamp(epochSeconds: 1_783_324_800, utcOffsetSeconds: 0))], user: "alice")
        }
        let database = try SQLiteDatabase(path: path)
        try database.execute("INSERT INTO latest VALUES ('alice', 'stepCount', 7258118400000, '2200-01-01T00:00:00Z', 7)")
        let reopened = try LatestIndex(path: path)
        #expect(reopened.json(user: "alice") == #"{"heartRate": "2026-07-06T08:00:00Z"}"#)
    }

    /// `-00:00` is an unknown offset (RFC 3339), as a forward or a dump writes an instant that
    /// recorded none: the pushed sample has none either, as the replay reads it; `+00:00` is UTC.
    @Test func minusZeroOffsetIsUnknown() throws {
        let server = try PushServerFixture()
        let body = #"[{"uuid":"OFF-1","type":"heartRate","start":"2026-07-06T18:00:00-00:00","end":"2026-07-06T18:00:00-00:00","value":60,"unit":"count/min","source":"W"},"#
            + #"{"uuid":"OFF-2","type":"heartRate","start":"2026-07-06T18:00:00+00:00","end":"2026-07-06T18:00:00-00:00","value":61,"unit":"count/min","source":"W"}]"#
        #expect(server.client.post("/ingest", body, token: alice).status == 200)
        let samples = try server.journalItems().compactMap { item -> Sample? in if case .sample(let s) = item { s } else { nil } }
        let unknown = try #require(samples.first { $0.id == "OFF-1" })
        #expect(unknown.start.utcOffsetSeconds == nil && unknown.end.utcOffsetSeconds == nil)
        #expect(unknown.start.epochMilliseconds == 1_783_360_800_000)
        let utc = try #require(samples.first { $0.id == "OFF-2" })
        #expect(utc.start.utcOffsetSeconds == 0)
        #expect(utc.end.utcOffsetSeconds == nil)   // escaped in the JSON text: the same string
    }

    /// The protocol may add optional fields at any time: a field healthrouter has none for is
    /// kept as sent (a change to it is a change), and written back at the top level of a Pulso
    /// line, which reads back the same. healthrouter's own fields (a forwarded workout's parts,
    /// `userId`, `receivedAt`) are not taken for a client's.
    @Test func additiveFieldsPassThrough() throws {
        let server = try PushServerFixture()
        func element(_ future: String) -> String {
            #"[{"uuid":"XF-1","type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":60,"#
                + #""unit":"count/min","source":"W","futureField":"\#(future)","nested":{"b":[1,2],"a":1},"flag":true,"#
                + #""receivedAt":"2026-07-06T09:00:00+01:00","userId":"mallory","events":[]}]"#
        }
        for (body, gzip) in [(element("keepme"), false), (element("keepme"), true)] {
            let reply = server.client.post("/ingest", body, token: alice, gzip: gzip)
            #expect(reply.status == 200)
        }
        #expect(server.client.post("/ingest", element("changed"), token: alice).body == #"{"received": 1, "new": 1, "deleted": 0}"#)
        let samples = try server.journalItems().compactMap { if case .sample(let sample) = $0 { sample } else { nil } }
        #expect(samples.count == 2)
        let last = try #require(samples.last)
        // A nested value is kept as JSON (keys sorted), and written back as the object it was.
        #expect(last.extraFields == [MetadataEntry("flag", .bool(true)), MetadataEntry("futureField", .string("changed")),
                                     MetadataEntry("nested", .json(#"{"a":1,"b":[1,2]}"#))])
        #expect(last.userId == "alice")
        let body = Array(element("changed").utf8)
        for parsed in [try PulsoBatchParser.parse(body, userId: "alice"), try PulsoBatchParser.parseWithFoundation(body, userId: "alice")] {
            guard case .sample(let sample) = parsed.items.first else { Issue.record("no sample"); continue }
            #expect(sample.extraFields == last.extraFields)
        }
        var bytes: [UInt8] = []
        var scratch = JSONWriter()
        PulsoJSONEncoder.appendLine(.sample(last), to: &bytes, scratch: &scratch)
        let line = String(decoding: bytes, as: UTF8.self)
        #expect(line.contains(#""futureField":"changed""#) && line.contains(#""flag":true"#), "\(line)")
        #expect(line.contains(#""nested":{"a":1,"b":[1,2]}"#), "\(line)")
        guard case .sample(let back) = try PulsoJSONDecoder.decode(ArraySlice(bytes.prefix { $0 != 0x0A })).item else {
            Issue.record("no sample"); return
        }
        #expect(back == last)
        // `migrate --verify` between a store that keeps them (ndjson) and one that does not
        // (sqlite) finds the same sample.
        var without = last
        without.extraFields = []
        var kept = SampleChecksum(), dropped = SampleChecksum()
        kept.add(.sample(last))
        dropped.add(.sample(without))
        #expect(kept == dropped)
        without.value = 61
        dropped = SampleChecksum()
        dropped.add(.sample(without))
        #expect(kept != dropped)
        // A key given twice is kept once, its last value, on either path; -0 is 0, as it is
        // written, so that the line reads back as the same sample.
        let twice = Array((#"[{"uuid":"XF-2","type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","#
            + #""value":60,"source":"W","dup":1,"dup":2,"zero":-0.0,"metadata":{"m":1,"m":3}}]"#).utf8)
        for parsed in [try PulsoBatchParser.parse(twice, userId: nil), try PulsoBatchParser.parseWithFoundation(twice, userId: nil)] {
            guard case .sample(let sample) = parsed.items.first else { Issue.record("no sample"); continue }
            #expect(sample.extraFields.map(\.key) == ["dup", "zero"] && sample.extraFields[key: "dup"] == .number(2))
            #expect(sample.metadata == [MetadataEntry("m", .number(3))])
            var zero = sample
            zero.extraFields = [MetadataEntry("dup", .number(2)), MetadataEntry("zero", .number(0))]
            #expect(SampleCodec.encode(.sample(sample)) == SampleCodec.encode(.sample(zero)))
        }
    }

    /// An export's sexual activity (`HKSexualActivityProtectionUsed` 1) is written in Pulso's layout
    /// (the ndjson sink's lines, a dump, a forward) with Pulso's `metadata.protectionUsed`, a boolean,
    /// beside it, as a tool made for Pulso's server reads the flag; the line reads back as the sample
    /// it was, replayed or forwarded over HTTP. A Pulso client's own `protectionUsed` is kept as sent.
    @Test func anExportsProtectionFlagIsWrittenAsPulsosAndReadsBackAsItWas() throws {
        let server = try PushServerFixture()
        let start = try #require(HealthDateParser.parse("2026-07-06T22:00:00+01:00"))
        var sample = Sample(id: "SA-1", type: "HKCategoryTypeIdentifierSexualActivity", kind: .category,
                            start: start, end: start, sourceName: "iPhone", userId: "alice")
        sample.categoryValue = "HKCategoryValueNotApplicable"
        sample.metadata = [MetadataEntry("HKSexualActivityProtectionUsed", .number(1)), MetadataEntry("HKWasUserEntered", .number(1))]
        func line(_ sample: Sample) -> [UInt8] {
            var bytes: [UInt8] = []
            var scratch = JSONWriter()
            PulsoJSONEncoder.appendLine(.sample(sample), to: &bytes, scratch: &scratch)
            return Array(bytes.dropLast())
        }
        let written = line(sample)
        let text = String(decoding: written, as: UTF8.self)
        #expect(text.contains(#""metadata":{"HKSexualActivityProtectionUsed":1,"protectionUsed":true,"HKWasUserEntered":1}"#), "\(text)")
        guard case .sample(let replayed) = try PulsoJSONDecoder.decode(ArraySlice(written)).item else {
            Issue.record("no sample"); return
        }
        #expect(replayed == sample)
        // Forwarded by another healthrouter's http sink, on either route and either parser.
        #expect(server.client.post("/v1/samples", text, token: alice).body == #"{"received": 1, "new": 1, "deleted": 0}"#)
        #expect(server.client.post("/ingest", "[\(text)]", token: alice).body == #"{"received": 1, "new": 0, "deleted": 0}"#)
        let body = Array("[\(text)]".utf8)
        for parsed in [try PulsoBatchParser.parse(body, userId: "alice"), try PulsoBatchParser.parseWithFoundation(body, userId: "alice")] {
            guard case .sample(let parsed) = parsed.items.first else {
                Issue.record("no sample"); continue
            }
            #expect(parsed.metadata == sample.metadata)
        }
        // A flag of 0 is false; Pulso's own key, sent by its app, is the metadata as sent and is written once.
        var unprotected = sample
        unprotected.id = "SA-2"
        unprotected.metadata = [MetadataEntry("HKSexualActivityProtectionUsed", .number(0))]
        #expect(String(decoding: line(unprotected), as: UTF8.self).contains(#""metadata":{"HKSexualActivityProtectionUsed":0,"protectionUsed":false}"#))
        let pulso = #"[{"uuid":"SA-3","type":"sexualActivity","start":"2026-07-06T23:00:00+01:00","end":"2026-07-06T23:00:00+01:00","#
            + #""source":"iPhone","metadata":{"protectionUsed":false}}]"#
        #expect(server.client.post("/ingest", pulso, token: alice).body == #"{"received": 1, "new": 1, "deleted": 0}"#)
        let samples = try server.journalItems().compactMap { if case .sample(let sample) = $0 { sample } else { nil } }
        #expect(samples.map(\.id) == ["SA-1", "SA-3"])
        #expect(samples.first?.metadata == sample.metadata)
        let fromPhone = try #require(samples.last)
        #expect(fromPhone.metadata == [MetadataEntry("protectionUsed", .bool(false))])
        let phoneLine = line(fromPhone)
        #expect(String(decoding: phoneLine, as: UTF8.self).contains(#""metadata":{"protectionUsed":false}"#))
        guard case .sample(let phoneBack) = try PulsoJSONDecoder.decode(ArraySlice(phoneLine)).item else {
            Issue.record("no sample"); return
        }
        #expect(phoneBack == fromPhone)
    }

    @Test func protocolExampleGzipThenReplay() throws {
        let server = try PushServerFixture()
        let first = server.client.post("/ingest", Self.protocolExample, token: alice, gzip: true)
        #expect(first.status == 200)
        #expect(first.body == #"{"received": 2, "new": 1, "deleted": 2}"#)
        let replay = server.client.post("/ingest", Self.protocolExample, token: alice)
        #expect(replay.body == #"{"received": 2, "new": 0, "deleted": 0}"#)
        let items = try server.journalItems()
        guard case .sample(let sample) = items.first else { Issue.record("no sample"); return }
        #expect(sample.type == "HKCategoryTypeIdentifierSleepAnalysis")
        #expect(sample.categoryValue == "HKCategoryValueSleepAnalysisAsleepREM")
        #expect(sample.timeZone == "Europe/Lisbon")
        #expect(sample.userId == "alice")
        #expect(sample.start.utcOffsetSeconds == 3600)
        guard case .tombstone(let tombstone) = items.last else { Issue.record("no tombstone"); return }
        #expect(tombstone.ids == ["A0B1C2D3-...", "E4F5A6B7-..."])
    }

    @Test func goldenEncodings() throws {
        let server = try PushServerFixture()
        #expect(server.client.post("/ingest", Self.goldenSleep, token: alice, gzip: true).body
                == #"{"received": 1, "new": 1, "deleted": 0}"#)
        #expect(server.client.post("/ingest", Self.goldenWorkout, token: alice, gzip: true).body
                == #"{"received": 1, "new": 1, "deleted": 0}"#)
        #expect(server.client.post("/ingest", Self.goldenTombstone, token: alice, gzip: true).body
                == #"{"received": 1, "new": 0, "deleted": 2}"#)
        let items = try server.journalItems()
        guard case .sample(let workout) = items[1], case .workout(let parts) = workout.detail else {
            Issue.record("no workout"); return
        }
        #expect(workout.kind == .workout)
        #expect(parts.activityType == "HKWorkoutActivityTypeTraditionalStrengthTraining")
        #expect(parts.durationSeconds == 3612.4)
        #expect(parts.totalEnergyBurnedKilocalories == 412)
        #expect(parts.maximumHeartRate == 171)
        #expect(workout.metadata[key: "HKIndoorWorkout"] == .bool(true))
        #expect(workout.metadata[key: "customRounds"] == .number(3))
    }

    @Test func dedupeAcrossTypesAndTombstoneSemantics() throws {
        let server = try PushServerFixture()
        let client = server.client
        let sample = #"{"uuid":"S-1","type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":61,"unit":"count/min","source":"Watch"}"#
        #expect(client.post("/ingest", "[\(sample),\(sample)]", token: alice).body == #"{"received": 2, "new": 1, "deleted": 0}"#)
        // The same uuid under another type, in a later body, is still a duplicate (PROTOCOL §1.10): the
        // first type stays, in the journal and so in every store (no second ndjson file holds it).
        let otherType = #"{"uuid":"S-1","type":"stepCount","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":9,"unit":"count","source":"Watch"}"#
        #expect(client.post("/ingest", "[\(otherType)]", token: alice).body
                == #"{"received": 1, "new": 0, "deleted": 0, "skipped": [{"index":0,"uuid":"S-1","field":"type","reason":"this uuid was sent before under another type, which it keeps"}]}"#)
        // A change under its own type is still a change.
        let changed = sample.replacingOccurrences(of: "\"value\":61", with: "\"value\":62")
        #expect(client.post("/ingest", "[\(changed)]", token: alice).body == #"{"received": 1, "new": 1, "deleted": 0}"#)
        let stored = try server.journalItems().compactMap { if case .sample(let sample) = $0 { sample } else { nil } }
        #expect(stored.map(\.type) == ["HKQuantityTypeIdentifierHeartRate", "HKQuantityTypeIdentifierHeartRate"])
        #expect(stored.map(\.value) == [61, 62])
        // Tombstone for a never-seen uuid, then repeated: counted once.
        #expect(client.post("/ingest", #"[{"deleted":["NEVER"]}]"#, token: alice).body == #"{"received": 1, "new": 0, "deleted": 1}"#)
        #expect(client.post("/ingest", #"[{"deleted":["NEVER"]}]"#, token: alice).body == #"{"received": 1, "new": 0, "deleted": 0}"#)
        // A tombstone wins over a uuid; non-list deleted deletes nothing; non-objects count as received.
        #expect(client.post("/ingest", #"[{"uuid":"X","deleted":["S-9"]},{"deleted":"S-1"},42,"x",null]"#, token: alice).body
                == #"{"received": 5, "new": 0, "deleted": 1, "skipped": [{"index":2,"field":"element","reason":"not a JSON object"},"#
                + #"{"index":3,"field":"element","reason":"not a JSON object"},{"index":4,"field":"element","reason":"not a JSON object"}]}"#)
        #expect(client.post("/ingest", "[]", token: alice).body == #"{"received": 0, "new": 0, "deleted": 0}"#)
    }

    @Test func invalidSamplesAreSkippedNotStored() throws {
        let server = try PushServerFixture()
        let good = #"{"uuid":"OK","type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":61,"unit":"count/min","source":"Watch"}"#
        let backwards = #"{"uuid":"BACK","type":"sleepAnalysis","start":"2026-07-06T09:00:00+01:00","end":"2026-07-06T07:59:59Z","value":"inBed","source":"Watch"}"#
        let arrayType = #"{"uuid":"ARRAY","type":["x"],"start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":1,"source":"Watch"}"#
        // Skipped like any invalid element: counted as received, not as new, and the batch is
        // still answered 200 so that the phone does not retry it forever.
        let reply = server.client.post("/ingest", "[\(backwards),\(good),\(arrayType)]", token: alice, gzip: true)
        #expect(reply.status == 200)
        #expect(reply.body == #"{"received": 3, "new": 1, "deleted": 0, "skipped": [{"index":0,"uuid":"BACK","field":"end","reason":"before the start"},"#
                + #"{"index":2,"uuid":"ARRAY","field":"type","reason":"not a string"}]}"#)
        let ids = try server.journalItems().compactMap { if case .sample(let sample) = $0 { sample.id } else { nil } }
        #expect(ids == ["OK"])
        #expect(server.client.get("/latest", token: alice).body == #"{"heartRate": "2026-07-06T08:00:00Z"}"#)

        // A value out of a double's range skips its sample, not the batch (a 400 would come back
        // at every retry and block the phone's queue); such a metadata number is kept as text.
        let huge = #"{"uuid":"HUGE","type":"heartRate","start":"2026-07-06T08:01:00Z","end":"2026-07-06T08:01:00Z","value":1e400,"source":"Watch"}"#
        let note = #"{"uuid":"NOTE","type":"heartRate","start":"2026-07-06T08:02:00Z","end":"2026-07-06T08:02:00Z","value":62,"source":"Watch","metadata":{"far":-1E999,"near":2}}"#
        let second = server.client.post("/ingest", "[\(huge),\(note)]", token: alice)
        #expect(second.body == #"{"received": 2, "new": 1, "deleted": 0, "skipped": [{"index":0,"uuid":"HUGE","field":"value","reason":"out of a double's range"}]}"#)
        let kept = try server.journalItems().compactMap { if case .sample(let sample) = $0, sample.id == "NOTE" { sample } else { nil } }
        #expect(kept.first?.metadata[key: "far"] == .string("-1E999"))
        #expect(kept.first?.metadata[key: "near"] == .number(2))
    }

    @Test func latestComparesAbsoluteTimeAndKeepsTheString() throws {
        let server = try PushServerFixture()
        let client = server.client
        #expect(client.get("/latest", token: alice).body == "{}")
        let body = """
            [{"uuid":"A","type":"sleepAnalysis","start":"2026-07-06T01:00:00+01:00","end":"2026-07-06T09:03:00+01:00","value":"inBed","source":"W"},
             {"uuid":"B","type":"sleepAnalysis","start":"2026-07-06T01:00:00-04:00","end":"2026-07-06T05:00:00-04:00","value":"inBed","source":"W"},
             {"uuid":"C","type":"sleepAnalysis","start":"2026-07-06T01:00:00Z","end":"2026-07-06T08:03:00Z","value":"inBed","source":"W"},
             {"uuid":"D","type":"heartRate","start":"2026-07-15T07:59:12Z","end":"2026-07-15T07:59:12Z","value":60,"unit":"count/min","source":"W"},
             {"uuid":"E","type":"heartRate","start":"2026-07-15T08:59:12+01:00","end":"2026-07-15T08:59:12+01:00","value":60,"unit":"count/min","source":"W"}]
            """
        #expect(client.post("/ingest", body, token: alice).status == 200)
        // 05:00-04:00 is 09:00Z, later than 09:03+01:00 (08:03Z); C ties with A and loses (first seen wins).
        // E (07:59:12Z) ties with D: D stays.
        #expect(client.get("/latest", token: alice).body
                == #"{"sleepAnalysis": "2026-07-06T05:00:00-04:00", "heartRate": "2026-07-15T07:59:12Z"}"#)
        #expect(client.get("/latest", token: bob).body == "{}")
        // A type the files would name `_deleted` is `unknown`, as the ndjson sink files it.
        let odd = #"[{"uuid":"F","type":"_deleted","start":"2026-07-16T08:00:00Z","end":"2026-07-16T08:00:00Z","value":1,"source":"W"}]"#
        #expect(client.post("/ingest", odd, token: bob).body == #"{"received": 1, "new": 1, "deleted": 0}"#)
        #expect(client.get("/latest", token: bob).body == #"{"unknown": "2026-07-16T08:00:00Z"}"#)
    }

    @Test func healthNeedsNoTokenAndUnknownRoutesAre404() throws {
        let server = try PushServerFixture()
        let client = server.client
        #expect(client.get("/health").status == 200)
        #expect(client.get("/health").body == #"{"status": "ok"}"#)
        for path in ["/", "/ingest/", "/health?x=1", "/nope"] {
            let reply = client.get(path, token: alice)
            #expect(reply.status == 404, "\(path)")
            #expect(reply.body == #"{"error": "not found"}"#)
        }
        #expect(client.request("GET", "/ingest", body: nil, headers: ["Authorization: Bearer \(alice)"]).status == 404)
        #expect(client.post("/latest", "[]", token: alice).status == 404)
        #expect(client.request("DELETE", "/ingest", body: nil, headers: []).status == 404)
        // An escaped NUL does not end the path (`/ingest%00junk` was served as `/ingest`); other
        // escapes are read as ever (`%2F` is `/`, `%69ngest` is `ingest`).
        for path in ["/ingest%00junk", "/hae%00", "/health%00x"] {
            #expect(client.post(path, "[]", token: alice).status == 404, "\(path)")
        }
        #expect(client.post("/%69ngest", "[]", token: alice).status == 200)
    }
}
