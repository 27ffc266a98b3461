import Foundation
import HealthRouterCore
import Testing
@testable import HTTPPushSource

/// The byte-level reader of `/ingest` bodies gives exactly what the JSONSerialization path
/// gives, and leaves to it everything it does not take.
@Suite("Pulso batch parser")
struct PulsoBatchParserTests {
    static let bodies: [String] = [
        PulsoProtocolTests.protocolExample, PulsoProtocolTests.goldenSleep, PulsoProtocolTests.goldenWorkout,
        PulsoProtocolTests.goldenTombstone, "[]", " [ ] ",
        #"[{"uuid":"X","deleted":["S-9"]},{"deleted":"S-1"},42,"x",null,{"deleted":[1,"A",null]}]"#,
        #"[{"uuid":"e\u00e9\"\\\/\n\ud83d\ude00","type":"heart Rate!","start":"2026-07-06T08:00:00.5Z","end":"2026-07-06 09:00:00 +0100","value":-1.5e2,"unit":"count/min","source":"Lenilson\u2019s Watch \u00a0 😀","metadata":{"b":true,"a":0,"c":"x","n":null,"timeZone":"UTC"}}]"#,
        #"[{"uuid":"Q","type":"stateOfMind","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":-0.25,"unit":"valence","source":"P","metadata":{"kind":"dailyMood","labels":"happy,grateful"}}]"#,
        #"[{"uuid":"C","type":"sleepAnalysis","start":"2026-07-06T08:00:00Z","end":"2026-07-06T09:00:00Z","value":"value_9","source":"P","timeZone":"Europe/Paris","metadata":{"timeZone":"Europe/Lisbon"}}]"#,
        #"[{"uuid":1,"type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":1,"source":"P"},{"uuid":"U","type":"heartRate","start":"bad","end":"x","source":"P"}]"#,
        #"[{"uuid":"T","type":"mindfulSession","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:10:00Z","value":true,"source":"P","extra":{"deep":[1,{"a":[]}]}}]"#,
        #"[{"uuid":"W","type":"workout","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:10:00Z","source":"P","workoutActivityType":"activity_3000","duration":600,"metadata":{"nested":{"x":1}}}]"#,
        #"[{"uuid":"B","type":"heartRate","start":"2026-07-06T08:00:01Z","end":"2026-07-06T08:00:00Z","value":1,"source":"P"},{"uuid":"A","type":["x"],"start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","source":"P"},{"uuid":"N","type":null,"start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","source":"P"},{"uuid":"M","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","source":"P"}]"#,
        #"[{"uuid":"K","type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":60,"unit":"count/min","source":"P","identifier":"HKQuantityTypeIdentifierHeartRate","kind":"quantity","userId":"bob","sourceVersion":"10.1","device":"<<HKDevice: 0x283>>, name:Apple Watch","creationDate":"2026-07-06T08:00:01Z"}]"#,
    ]

    /// A phone's quantity without `unit` is in the protocol's unit for its type (§1.7), and is
    /// stored with it, beside the same type's values that name it; a type healthrouter does not
    /// know, and a forward from another healthrouter (its `kind` given), keep none.
    @Test func aQuantityWithoutUnitGetsItsTypesProtocolUnit() throws {
        let body = #"[{"uuid":"A","type":"bodyMass","start":"2024-03-31T10:05:00+01:00","end":"2024-03-31T10:05:00+01:00","value":70,"source":"W"},"#
            + #"{"uuid":"B","type":"somethingNew","start":"2024-03-31T10:05:00+01:00","end":"2024-03-31T10:05:00+01:00","value":3,"source":"W"},"#
            + #"{"uuid":"C","type":"bodyMass","kind":"quantity","start":"2024-03-31T10:05:00+01:00","end":"2024-03-31T10:05:00+01:00","value":70,"source":"W"},"#
            + #"{"uuid":"D","type":"bodyMass","start":"2024-03-31T10:05:00+01:00","end":"2024-03-31T10:05:00+01:00","value":154,"unit":"lb","source":"W"}]"#
        for parsed in [try PulsoBatchParser.parse(Array(body.utf8), userId: nil),
                       try PulsoBatchParser.parseNDJSON(Array(body.dropFirst().dropLast().replacingOccurrences(of: "},{", with: "}\n{").utf8),
                                                        userId: nil)] {
            let units = parsed.items.compactMap { item -> String? in
                guard case .sample(let sample) = item else { return nil }
                return "\(sample.id):\(sample.unit ?? "-")"
            }
            #expect(units == ["A:kg", "B:-", "C:-", "D:kg"], "\(parsed.items)")
        }
    }

    /// A nested metadata value (not Pulso's, which allows none) is kept as its JSON text, keys
    /// sorted, as the replay source keeps it.
    @Test func nestedMetadataIsKeptAsJSONText() throws {
        let body = #"[{"uuid":"W","type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":1,"source":"P","metadata":{"nested":{"y":[1,"a"],"x":1},"n":null,"s":"t"}}]"#
        let parsed = try PulsoBatchParser.parse(Array(body.utf8), userId: nil)
        guard case .sample(let sample)? = parsed.items.first else {
            Issue.record("no sample: \(parsed.items)")
            return
        }
        #expect(sample.metadata == [MetadataEntry("nested", .string(#"{"x":1,"y":[1,"a"]}"#)), MetadataEntry("s", .string("t"))])
    }

    /// The same nested value pushed or replayed is the same text: keys sorted by their bytes (not
    /// Foundation's case-blind, numeric order), a key given twice written once, numbers and
    /// escapes as `JSONWriter` writes them.
    @Test func nestedMetadataIsTheSameTextPushedOrReplayed() throws {
        let element = #"{"uuid":"W2","type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":1,"source":"P","metadata":{"o":{"b":1,"B":2,"a10":1,"a9":2,"é":1,"_":4,"d":1,"d":2},"n":[-0.0,1e15,1.5,1e20,"\b\f\u2028/é😀",true,null]}}"#
        let pushed = try PulsoBatchParser.parse(Array("[\(element)]".utf8), userId: nil)
        guard case .sample(let viaPush)? = pushed.items.first,
              case .sample(let viaReplay) = try PulsoJSONDecoder.decode(ArraySlice(Array(element.utf8))).item else {
            Issue.record("not a sample: \(pushed.items)")
            return
        }
        func byKey(_ entries: [MetadataEntry]) -> [String: MetadataValue] {
            Dictionary(entries.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
        }
        #expect(byKey(viaPush.metadata) == byKey(viaReplay.metadata))
        #expect(byKey(viaPush.metadata)["o"] == .string(#"{"B":2,"_":4,"a10":1,"a9":2,"b":1,"d":2,"é":1}"#))
    }

    /// Valid JSON with a number out of a double's range inside a nested metadata value, or next to
    /// one, is not refused whole (JSONSerialization refuses such a text): the nested number reads
    /// as the replay source reads it, a `value` out of range skips its sample alone.
    @Test func aHugeNumberNestedInMetadataDoesNotRefuseTheBody() throws {
        let nested = #"{"uuid":"M4","type":"heartRate","start":"2026-07-07T01:12:00+01:00","end":"2026-07-07T01:12:00+01:00","value":1,"metadata":{"a":{"b":1e400},"c":[1e400,2]}}"#
        let huge = #"{"uuid":"X1","type":"heartRate","start":"2026-07-07T01:12:00Z","end":"2026-07-07T01:12:00Z","value":1e400}"#
        let body = Array("[\(huge),\(nested)]".utf8)
        for foundation in [false, true] {
            let batch = foundation ? try PulsoBatchParser.parseWithFoundation(body, userId: nil)
                : try PulsoBatchParser.parse(body, userId: nil)
            #expect(batch.received == 2)
            #expect(batch.skipped == 1)
            guard case .sample(let sample)? = batch.items.first, batch.items.count == 1 else {
                Issue.record("not one sample: \(batch.items)")
                continue
            }
            #expect(sample.id == "M4")
            guard case .sample(let replayed) = try PulsoJSONDecoder.decode(ArraySlice(Array(nested.utf8))).item else {
                Issue.record("not a sample")
                continue
            }
            #expect(sample.metadata == replayed.metadata)
            #expect(sample.metadata == [MetadataEntry("a", .string(#"{"b":null}"#)), MetadataEntry("c", .string("[null,2]"))])
        }
    }

    @Test func fastPathEqualsFoundationPath() throws {
        for body in Self.bodies {
            let bytes = Array(body.utf8)
            let slow = try PulsoBatchParser.parseWithFoundation(bytes, userId: "alice")
            let fast = try PulsoBatchParser.parse(bytes, userId: "alice")
            #expect(fast.items == slow.items, "\(body)")
            #expect(fast.received == slow.received, "\(body)")
            #expect(fast.skipped == slow.skipped, "\(body)")
            #expect(fast.ends.map { "\($0.key)=\($0.end)" } == slow.ends.map { "\($0.key)=\($0.end)" }, "\(body)")
        }
        // The byte-level reader takes the common bodies itself.
        for body in Self.bodies.prefix(10) {
            #expect(Array(body.utf8).withUnsafeBufferPointer { PulsoBatchParser.scan($0, userId: nil) } != nil, "\(body)")
        }
    }

    /// Bodies that exercise what the fast path does on its own: keys matched as bytes (also
    /// escaped ones), strings reused from one element to the next, `metadata.timeZone` set
    /// aside, and the per-type newest `end` for `/latest`.
    static let reuseBodies: [String] = [
        // Same length, different bytes: a reused string must not leak into the next element.
        #"[{"uuid":"A","type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":1,"source":"Apple Watch 1","sourceBundleId":"com.apple.health.AAAA","metadata":{"timeZone":"UTC"}},"#
            + #"{"uuid":"B","type":"heartRate","start":"2026-07-06T08:00:01Z","end":"2026-07-06T08:00:01Z","value":2,"source":"Apple Watch 2","sourceBundleId":"com.apple.health.AAAB","metadata":{"timeZone":"Europe/Paris","a":1}},"#
            + #"{"uuid":"C","type":"stepCount","start":"2026-07-06T08:00:00+02:00","end":"2026-07-06T09:00:00+02:00","value":5,"source":"Apple Watch 2","sourceBundleId":"com.apple.health.AAAB"},"#
            + #"{"uuid":"D","type":"heartRate","start":"2026-07-06T07:00:00Z","end":"2026-07-06T07:00:00Z","value":3,"source":"","timeZone":"Asia/Tokyo","metadata":{"timeZone":"Europe/Lisbon","z":"last","b":false}},"#
            + #"{"uuid":"E","type":"heartRate","start":"2026-07-06T08:00:01Z","end":"2026-07-06T10:00:01+02:00","value":4,"source":"x"},"#
            + #"{"uuid":"F","type":"heart rate","start":"2026-07-06T08:00:00","end":"2026-07-06T08:00:00","value":4,"source":"x"},"#
            + #"{"uuid":"G","type":"heart_rate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T11:00:00Z","value":4,"source":"x","metadata":{"timeZone":5}}]"#,
        // Strings of every length around the 8-byte steps, with a quote, a backslash, a control
        // character or a non-ASCII byte at every position.
        "[" + (0..<20).map { length in
            let plain = String(repeating: "a", count: length)
            return #"{"uuid":"U\#(length)","type":"\#(plain)","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","source":"\#(plain)é\#(plain)","unit":"\#(plain)\n\#(plain)"}"#
        }.joined(separator: ",") + "]",
    ]

    @Test func fastPathReadsKeysReusedStringsAndZonesAsTheFoundationPath() throws {
        for body in Self.reuseBodies {
            let bytes = Array(body.utf8)
            #expect(bytes.withUnsafeBufferPointer { PulsoBatchParser.scan($0, userId: nil) } != nil, "\(body)")
            let slow = try PulsoBatchParser.parseWithFoundation(bytes, userId: "alice")
            let fast = try PulsoBatchParser.parse(bytes, userId: "alice")
            #expect(fast.items == slow.items, "\(body)")
            #expect(fast.ends.map { "\($0.key)=\($0.end)" } == slow.ends.map { "\($0.key)=\($0.end)" }, "\(body)")
        }
        let batch = try PulsoBatchParser.parse(Array(Self.reuseBodies[0].utf8), userId: nil)
        let samples = batch.items.compactMap { if case .sample(let sample) = $0 { sample } else { nil } }
        #expect(samples.map(\.sourceName) == ["Apple Watch 1", "Apple Watch 2", "Apple Watch 2", "", "x", "x", "x"])
        #expect(samples.map(\.sourceBundleId) == ["com.apple.health.AAAA", "com.apple.health.AAAB", "com.apple.health.AAAB", nil, nil, nil, nil])
        #expect(samples.map(\.timeZone) == ["UTC", "Europe/Paris", nil, "Asia/Tokyo", nil, nil, nil])
        #expect(samples[3].metadata.map(\.key) == ["b", "timeZone", "z"])
        #expect(samples[6].metadata.map(\.key) == ["timeZone"])
        // Per wire type (sanitized), the newest end with an offset, in first-seen order;
        // `heart rate` and `heart_rate` are one key, an end without an offset is left out.
        #expect(batch.ends.map { "\($0.key)=\($0.end)" } == [
            "heartRate=2026-07-06T08:00:01Z", "stepCount=2026-07-06T09:00:00+02:00", "heart_rate=2026-07-06T11:00:00Z",
        ])
    }

    @Test func samplesEndingBeforeTheyStartOrWithANonStringTypeAreSkipped() throws {
        // The body of `bodies` with a backwards sample, an array and a null type, and no type at all.
        let body = try #require(Self.bodies.first { $0.contains(#""type":["x"]"#) })
        for batch in [try PulsoBatchParser.parse(Array(body.utf8), userId: nil),
                      try PulsoBatchParser.parseWithFoundation(Array(body.utf8), userId: nil)] {
            #expect(batch.received == 4)
            #expect(batch.skipped == 3)
            // Without a type it is of type `unknown`, as Pulso's server files it.
            let samples = batch.items.compactMap { if case .sample(let sample) = $0 { sample } else { nil } }
            #expect(samples.map(\.id) == ["M"])
            #expect(samples.map(\.type) == ["unknown"])
        }
        // A native body skips it the same way instead of failing the body.
        let native = try PulsoBatchParser.parseNDJSON(Array(#"""
            {"uuid":"B","type":"heartRate","start":"2026-07-06T08:00:01Z","end":"2026-07-06T08:00:00Z","value":1,"source":"P"}
            {"uuid":"A","type":["x"],"start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","source":"P"}
            """#.utf8), userId: nil)
        #expect(native.received == 2)
        #expect(native.skipped == 2)
        #expect(native.items.isEmpty)
    }

    /// A uuid repeated within a body is its first element, on every path; the rest are counted.
    @Test func aRepeatedUUIDKeepsTheFirstElement() throws {
        let elements = (0..<3).map { #"{"uuid":"R","type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:0\#($0)Z","value":\#($0),"source":"P"}"# }
        let array = Array(("[" + elements.joined(separator: ",") + "]").utf8)
        for batch in [try PulsoBatchParser.parse(array, userId: nil), try PulsoBatchParser.parseWithFoundation(array, userId: nil),
                      try PulsoBatchParser.parseNDJSON(Array(elements.joined(separator: "\n").utf8), userId: nil)] {
            #expect(batch.received == 3 && batch.duplicates == 2 && batch.skipped == 0)
            let samples = batch.items.compactMap { if case .sample(let sample) = $0 { sample } else { nil } }
            #expect(samples.map(\.value) == [0])
            #expect(batch.ends.map(\.end) == ["2026-07-06T08:00:00Z"])
        }
    }

    /// The first few skipped elements are kept with their position, uuid, the field at fault
    /// and why, the same on the fast path, the Foundation one and in NDJSON.
    @Test func skippedElementsSayWhichFieldAndWhy() throws {
        let elements = [
            #"{"uuid":"A","type":"heartRate","start":"2026-13-45T99:00:00Z","end":"2026-07-06T08:00:00Z","value":1,"source":"P"}"#,
            #"{"uuid":"B","type":"heartRate","start":"2026-07-06T08:00:01Z","end":"2026-07-06T08:00:00Z","value":1,"source":"P"}"#,
            #"{"type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":1,"source":"P"}"#,
            #"{"uuid":"C","type":"heartRate","start":"2026-07-06T08:00:00Z","value":1,"source":"P"}"#,
            #"{"uuid":"E","type":7,"start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","source":"P"}"#,
            #"{"uuid":"F","type":7,"start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","source":"P"}"#,
        ]
        let expected = [
            "#0 uuid=A start: '2026-13-45T99:00:00Z' cannot be read as a date",
            "#1 uuid=B end: before the start",
            "#2 uuid: missing, empty or not a string",
            "#3 uuid=C end: missing, or not a string",
            "#4 uuid=E type: not a string",
        ]
        let array = Array(("[" + elements.joined(separator: ",") + #","x"]"#).utf8)
        for batch in [try PulsoBatchParser.parse(array, userId: nil), try PulsoBatchParser.parseWithFoundation(array, userId: nil),
                      try PulsoBatchParser.parseNDJSON(Array(elements.joined(separator: "\n").utf8), userId: nil)] {
            #expect(batch.skipped == batch.received)
            // All are listed (the reply names each); the log shows the first five.
            #expect(batch.skips.count == batch.skipped)
            #expect(batch.skips.prefix(PulsoBatchParser.reportedSkips).map(\.description) == expected)
        }
        let notObject = try PulsoBatchParser.parse(Array(#"[1, {"uuid":"Q","start":"x","end":"y"}]"#.utf8), userId: nil)
        #expect(notObject.skips.map(\.description) == ["#0 element: not a JSON object", "#1 uuid=Q start: 'x' cannot be read as a date"])
        // What a client sends is shown clipped, without line breaks.
        let long = String(repeating: "L", count: 100) + "\nforged"
        #expect(SkippedElement(index: 0, uuid: long, problem: .init(field: "start", reason: SkippedElement.quoted("a\nb"))).description
                    == "#0 uuid=\(String(repeating: "L", count: 39))… start: 'a?b'")
        // JSONSerialization refuses such a number: the fast path's alone.
        let huge = try PulsoBatchParser.parse(Array(#"[{"uuid":"D","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":1e400}]"#.utf8),
                                              userId: nil)
        #expect(huge.skips.map(\.description) == ["#0 uuid=D value: out of a double's range"])
        // A text value on a quantity type is not a number, nor a category; on a category type
        // (or an unknown type) it is the category value.
        let texts = Array(("[" + [
            #"{"uuid":"S","type":"stepCount","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":"12","source":"P"}"#,
            #"{"uuid":"T","type":"appleStandHour","start":"2026-07-06T08:00:00Z","end":"2026-07-06T09:00:00Z","value":"stood","source":"P"}"#,
            #"{"uuid":"U","type":"madeUpThing","start":"2026-07-06T08:00:00Z","end":"2026-07-06T09:00:00Z","value":"blue","source":"P"}"#,
        ].joined(separator: ",") + "]").utf8)
        for batch in [try PulsoBatchParser.parse(texts, userId: nil), try PulsoBatchParser.parseWithFoundation(texts, userId: nil)] {
            #expect(batch.skips.map(\.description) == ["#0 uuid=S value: '12' is not a number (a quantity's value)"])
            #expect(batch.items.count == 2)
        }
        // A value that is null, an object or a boolean, or none on a known quantity type, is
        // skipped: stored, it would replace the reading sent before with none. A category or a
        // workout without one is kept.
        let bad = Array(("[" + [
            #"{"uuid":"N","type":"stepCount","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":null,"source":"P"}"#,
            #"{"uuid":"O","type":"stepCount","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":{"q":1},"source":"P"}"#,
            #"{"uuid":"B","type":"madeUpThing","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":true,"source":"P"}"#,
            #"{"uuid":"M","type":"stepCount","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","source":"P"}"#,
            #"{"uuid":"K","type":"mindfulSession","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:10:00Z","source":"P"}"#,
            #"{"uuid":"W","type":"workout","workoutActivityType":"running","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:10:00Z","source":"P"}"#,
        ].joined(separator: ",") + "]").utf8)
        for batch in [try PulsoBatchParser.parse(bad, userId: nil), try PulsoBatchParser.parseWithFoundation(bad, userId: nil)] {
            #expect(batch.skips.map(\.description) == ["#0 uuid=N value: null (a quantity's value is required)",
                                                       "#1 uuid=O value: not a number or a string",
                                                       "#2 uuid=B value: not a number or a string",
                                                       "#3 uuid=M value: missing (a quantity's value is required)"])
            #expect(batch.items.count == 2)
        }
        // So is a sleep stage without its stage, and a quantity named by `identifier` alone (a forward).
        let more = Array(("[" + [
            #"{"uuid":"S","type":"sleepAnalysis","start":"2026-07-06T01:00:00Z","end":"2026-07-06T02:00:00Z","value":null,"source":"W"}"#,
            #"{"uuid":"T","type":"sleepAnalysis","start":"2026-07-06T01:00:00Z","end":"2026-07-06T02:00:00Z","source":"W"}"#,
            #"{"uuid":"I","identifier":"HKQuantityTypeIdentifierStepCount","kind":"quantity","start":"2026-07-06T10:00:00Z","end":"2026-07-06T10:05:00Z","source":"P"}"#,
            #"{"uuid":"K","type":"sleepAnalysis","start":"2026-07-06T01:00:00Z","end":"2026-07-06T02:00:00Z","value":"asleepREM","source":"W"}"#,
        ].joined(separator: ",") + "]").utf8)
        for batch in [try PulsoBatchParser.parse(more, userId: nil), try PulsoBatchParser.parseWithFoundation(more, userId: nil)] {
            #expect(batch.skips.map(\.description) == ["#0 uuid=S value: missing or null (this category's value is required)",
                                                       "#1 uuid=T value: missing or null (this category's value is required)",
                                                       "#2 uuid=I value: missing (a quantity's value is required)"])
            #expect(batch.items.count == 1)
        }
        // From another healthrouter (`kind` given), a category without a value is what its journal
        // holds (an export's record without one): stored alike.
        let forwarded = Array(("[" + #"{"uuid":"F","type":"sleepAnalysis","kind":"category","start":"2026-07-06T01:00:00Z","end":"2026-07-06T02:00:00Z","value":null,"source":"W"}"# + "]").utf8)
        for batch in [try PulsoBatchParser.parse(forwarded, userId: nil), try PulsoBatchParser.parseWithFoundation(forwarded, userId: nil)] {
            #expect(batch.skips.isEmpty && batch.items.count == 1, "\(batch.skips)")
        }
    }

    /// A value or a workout's duration out of range once converted to its canonical unit is skipped
    /// (stored, it would be none, replacing the value sent before); so is a forwarded `userId` of
    /// the wrong type from a token whose samples keep theirs.
    @Test func outOfRangeOnceConvertedAndAMistypedForwardedUserAreSkipped() throws {
        let body = Array(("[" + [
            #"{"uuid":"D","type":"distanceWalkingRunning","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:10:00Z","value":1e308,"unit":"mi","source":"P"}"#,
            #"{"uuid":"U","type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":60,"source":"P","userId":42}"#,
            #"{"uuid":"K","type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":61,"source":"P"}"#,
        ].joined(separator: ",") + "]").utf8)
        for batch in [try PulsoBatchParser.parse(body, userId: "fwd", keepsUserIds: true),
                      try PulsoBatchParser.parseWithFoundation(body, userId: "fwd", keepsUserIds: true)] {
            #expect(batch.skips.map(\.description) == ["#0 uuid=D value: out of range once converted to its canonical unit",
                                                       "#1 uuid=U userId: of another JSON type than a string: whose it is is not known"])
            #expect(batch.items.count == 1)
        }
        // A workout number out of a double's range as written, a forward's part out of range, a
        // forwarded tombstone whose userId is no string: skipped, not stored without the number.
        let lines = [
            #"{"uuid":"W1","type":"workout","workoutActivityType":"running","start":"2026-07-06T18:00:00Z","end":"2026-07-06T19:00:00Z","source":"W","duration":1e400}"#,
            #"{"uuid":"W2","type":"workout","workoutActivityType":"running","start":"2026-07-06T18:00:00Z","end":"2026-07-06T19:00:00Z","source":"W","events":[{"type":"pause","date":"2026-07-06T18:10:00Z","duration":1e400}]}"#,
            #"{"deleted":["K"],"userId":5}"#,
        ].joined(separator: "\n")
        let native = try PulsoBatchParser.parseNDJSON(Array(lines.utf8), userId: "fwd", keepsUserIds: true)
        #expect(native.skips.map(\.description) == ["#0 uuid=W1 duration: out of a double's range",
                                                    "#1 uuid=W2 workout event duration: out of a double's range",
                                                    "#2 userId: of another JSON type than a string: whose it is is not known"])
        #expect(native.items.isEmpty)
    }

    /// A forward's parts that cannot be read (a route point without numeric coordinates, which
    /// would be drawn at 0,0; `events` that is no list) are left out of the sample, which is kept
    /// (a newer Pulso might send a field of that name in another shape), and named for the log;
    /// with `forwarded_user_ids`, an empty `userId` is none (the token's user).
    @Test func unreadablePartsAreLeftOut() throws {
        let lines = [
            #"{"uuid":"X6","type":"workout","start":"2026-07-06T18:00:00Z","end":"2026-07-06T19:00:00Z","workoutActivityType":"running","source":"W","routes":[{"points":[{"time":"2026-07-06T18:00:00Z","latitude":null,"longitude":true}]}]}"#,
            #"{"uuid":"X7","type":"workout","start":"2026-07-06T18:00:00Z","end":"2026-07-06T19:00:00Z","workoutActivityType":"running","source":"W","events":5}"#,
            #"{"uuid":"X8","type":"heartRate","start":"2026-07-06T18:00:00Z","end":"2026-07-06T18:00:00Z","value":60,"source":"W","userId":""}"#,
        ].joined(separator: "\n")
        let batch = try PulsoBatchParser.parseNDJSON(Array(lines.utf8), userId: "fwd", keepsUserIds: true)
        #expect(batch.skips.isEmpty && batch.items.count == 3)
        #expect(batch.leftOutExamples == ["#0 uuid=X6 parts (route point without a numeric latitude)",
                                          "#1 uuid=X7 parts (events is not a list)"])
        guard case .sample(let workout)? = batch.items.first, case .workout(let parts) = workout.detail else {
            Issue.record("no workout")
            return
        }
        #expect(parts.routes.isEmpty)
        guard case .sample(let kept)? = batch.items.last else { Issue.record("no sample"); return }
        #expect(kept.userId == "fwd")
    }

    /// An element with one of Pulso's fields sent as another JSON type than the protocol's
    /// (`"source": 5`, `"duration": "3600"`, a string for `metadata`) is skipped, naming the fields
    /// (stored without them, a re-send would replace the stored version's); one of healthrouter's
    /// additive fields (`"device": 5`) is left out of a sample that is kept; a null is no value.
    @Test func fieldsOfTheWrongTypeAreNamed() throws {
        let body = Array(("[" + [
            #"{"uuid":"A","type":"stepCount","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":3,"source":5,"unit":5,"metadata":"x"}"#,
            #"{"uuid":"W","type":"workout","workoutActivityType":"running","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:10:00Z","source":"P","duration":"3600","totalDistance":"5000"}"#,
            #"{"uuid":"C","type":"stepCount","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":3,"source":"P","unit":null}"#,
            #"{"uuid":"D","type":"stepCount","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":3,"source":"P","device":{"name":"x"}}"#,
        ].joined(separator: ",") + "]").utf8)
        for batch in [try PulsoBatchParser.parse(body, userId: nil), try PulsoBatchParser.parseWithFoundation(body, userId: nil)] {
            #expect(batch.items.count == 2)
            #expect(batch.leftOutExamples == ["#3 uuid=D device"])
            let reason = "of another JSON type than Pulso's protocol gives (a number for a string, a string for an object, …)"
            #expect(batch.skips.map(\.description) == ["#0 uuid=A metadata, source, unit: " + reason,
                                                       "#1 uuid=W duration, totalDistance: " + reason])
        }
    }

    @Test func controlCharactersAndBadUTF8InStringsAreRefused() {
        for position in 0..<18 {
            var bytes = Array(#"[{"uuid":"abcdefghijklmnopqr"}]"#.utf8)
            bytes[10 + position] = 0x01
            #expect(throws: PulsoBatchParser.Failure.badJSON) { _ = try PulsoBatchParser.parse(bytes, userId: nil) }
            bytes[10 + position] = 0xFF
            #expect(throws: PulsoBatchParser.Failure.badJSON) { _ = try PulsoBatchParser.parse(bytes, userId: nil) }
        }
    }

    @Test func errorsAreClassifiedAsBefore() {
        let cases: [(String, PulsoBatchParser.Failure)] = [
            ("{", .badJSON), ("[01]", .badJSON), ("[1.]", .badJSON), ("[1.e2]", .badJSON), ("[1e]", .badJSON), ("[-]", .badJSON), (#"["\x"]"#, .badJSON), ("[tru]", .badJSON),
            (#"["\ud800"]"#, .badJSON), ("[1] x", .badJSON), ("", .badJSON),
            (#"{"a":1}"#, .notArray), ("42", .notArray), (#""x""#, .notArray), ("null", .notArray),
        ]
        for (body, expected) in cases {
            #expect(throws: expected, "\(body)") { _ = try PulsoBatchParser.parse(Array(body.utf8), userId: nil) }
        }
        #expect(throws: PulsoBatchParser.Failure.badJSON) { _ = try PulsoBatchParser.parse([0x5B, 0x22, 0xFF, 0x22, 0x5D], userId: nil) }
    }

    @Test func fiveThousandSamplesParseQuickly() throws {
        let batch = DaemonProcess.batch(prefix: "P", count: 5_000)
        let started = Date()
        let parsed = try PulsoBatchParser.parse(batch.body, userId: nil)
        #expect(parsed.items.count == 5_000)
        #expect(Date().timeIntervalSince(started) < 1)
    }
}
