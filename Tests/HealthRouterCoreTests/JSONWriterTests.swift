import Foundation
import Testing
@testable import HealthRouterCore

@Suite struct JSONWriterTests {
    /// Writes `value` as a JSON string in an array and expects Foundation's parser to read it back.
    func expectRoundTrip(_ value: String) throws {
        var writer = JSONWriter()
        writer.beginArray()
        writer.string(value)
        writer.endArray()
        let parsed = try JSONSerialization.jsonObject(with: Data(writer.bytes)) as? [String]
        #expect(parsed == [value], "\(writer.text)")
    }

    @Test func stringsRoundTripThroughAJSONParser() throws {
        let values = ["", "plain", "Jane’s Apple Watch 🏃", "quote \" and backslash \\", "line\nbreak\ttab\r",
                      "\u{0B}control\u{01}", "'; DROP TABLE samples; --", "ends with escape\""]
        for value in values { try expectRoundTrip(value) }
    }

    @Test func escapesAtEveryPositionOfEightByteWords() throws {
        // Strings are checked eight bytes at a time: put each escape at every offset of a word.
        let escapes = ["\"", "\\", "\n", "\u{01}", "\u{1F}"]
        for escape in escapes {
            for offset in 0..<20 {
                try expectRoundTrip(String(repeating: "a", count: offset) + escape + "tail ü \u{7F}"
                                        + String(repeating: "b", count: 9))
            }
        }
        // Bytes just above what needs escaping stay as they are.
        var writer = JSONWriter()
        writer.string(" !#$%&()*+,-./0123456789[]^_`{|}~")
        #expect(writer.text == "\" !#$%&()*+,-./0123456789[]^_`{|}~\"")
    }

    @Test func objectsAndNumbers() throws {
        var writer = JSONWriter()
        writer.beginObject()
        writer.field("a", "x")
        writer.field("n", 171.0)
        writer.field("f", 0.5)
        writer.field("absent", nil as String?)
        writer.key("list"); writer.beginArray(); writer.bool(true); writer.null(); writer.int(-3); writer.endArray()
        writer.endObject()
        #expect(writer.text == #"{"a":"x","n":171,"f":0.5,"list":[true,null,-3]}"#)
    }

    /// For jsonb, which refuses `\u0000`, U+0000 becomes U+FFFD in keys, strings and raw JSON's
    /// `\u0000` escapes (not in `\\u0000`, a backslash and `u0000`), and the writer says so until
    /// its next reset; by default it stays `\u0000`.
    @Test func replacesNULForJSONB() {
        var writer = JSONWriter()
        writer.string("a\u{0}")
        #expect(writer.text == #""a\u0000""# && !writer.replacedNUL)
        writer.reset()
        writer.replacesNUL = true
        writer.beginObject()
        writer.key("clean"); writer.raw(Array(#"{"y":"\\u0000\n"}"#.utf8))
        #expect(!writer.replacedNUL)
        writer.key("k\u{0}"); writer.string("\u{0}b")
        writer.key("raw"); writer.raw(Array(#"["c\u0000d\\u0000\\\u0000"]"#.utf8))
        writer.endObject()
        #expect(writer.text == #"{"clean":{"y":"\\u0000\n"},"k"# + "\u{FFFD}" + #"":""# + "\u{FFFD}b"
                    + #"","raw":["c"# + "\u{FFFD}" + #"d\\u0000\\"# + "\u{FFFD}" + #""]}"#)
        #expect(writer.replacedNUL)
        writer.reset()
        #expect(!writer.replacedNUL)
    }
}
